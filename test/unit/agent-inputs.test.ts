// The person's input told from an agent's by what the page saw: a key is the agent's only when an
// agent's command pressed that key a moment ago, each command accounting for one input, so a
// person typing while an agent types or clicks is still seen.

import { describe, expect, it } from 'vitest';
import { AGENT_INPUT_GRACE_MS, AgentInputs, madeBy } from '../../relay/cdp/agent-inputs';

describe('agent inputs', () => {
  it('map each Input command to what the page sees of it', () => {
    expect(madeBy('Input.dispatchKeyEvent', { type: 'keyDown', key: 'a' })).toEqual({ kind: 'key', key: 'a' });
    expect(madeBy('Input.dispatchKeyEvent', { type: 'rawKeyDown' })).toEqual({ kind: 'key' });
    expect(madeBy('Input.dispatchKeyEvent', { type: 'keyUp', key: 'a' })).toBeNull();
    expect(madeBy('Input.dispatchMouseEvent', { type: 'mousePressed' })).toEqual({ kind: 'mouse' });
    expect(madeBy('Input.dispatchMouseEvent', { type: 'mouseMoved' })).toBeNull();
    expect(madeBy('Input.dispatchMouseEvent', { type: 'mouseWheel' })).toEqual({ kind: 'wheel' });
    expect(madeBy('Input.dispatchTouchEvent', { type: 'touchStart' })).toEqual({ kind: 'touch' });
    expect(madeBy('Input.insertText', { text: 'x' })).toBeNull();
    expect(madeBy('Input.synthesizeTapGesture', {})).toEqual({ kind: 'any' });
  });

  it("take the person's key for theirs while an agent types other keys, and the agent's own key for the agent's", () => {
    const inputs = new AgentInputs();
    inputs.sending('Input.dispatchKeyEvent', { type: 'keyDown', key: 'h' });
    inputs.sending('Input.dispatchKeyEvent', { type: 'keyDown', key: 'i' });
    expect(inputs.includesPersons([{ kind: 'key', key: 'h' }])).toBe(false);
    expect(inputs.includesPersons([{ kind: 'key', key: 'x' }])).toBe(true);
    expect(inputs.includesPersons([{ kind: 'key', key: 'i' }])).toBe(false);
    // Each command made one keydown: a second 'h' is the person's.
    expect(inputs.includesPersons([{ kind: 'key', key: 'h' }])).toBe(true);
  });

  it("see the person's key while an agent clicks, and the person's click while an agent types", () => {
    const inputs = new AgentInputs();
    inputs.sending('Input.dispatchMouseEvent', { type: 'mousePressed' });
    expect(inputs.includesPersons([{ kind: 'mouse' }, { kind: 'key', key: 'a' }])).toBe(true);
    const typing = new AgentInputs();
    typing.sending('Input.dispatchKeyEvent', { type: 'keyDown', key: 'a' });
    expect(typing.includesPersons([{ kind: 'mouse' }])).toBe(true);
  });

  it('count input as the agent’s for a moment after its command answered, then as the person’s', () => {
    let now = 1_000;
    const inputs = new AgentInputs(() => now);
    const answered = inputs.sending('Input.dispatchKeyEvent', { type: 'keyDown', key: 'a' });
    now += 100;
    answered();
    now += AGENT_INPUT_GRACE_MS - 1;
    expect(inputs.includesPersons([{ kind: 'wheel' }])).toBe(true);
    expect(inputs.includesPersons([{ kind: 'key', key: 'a' }])).toBe(false);
    const again = inputs.sending('Input.dispatchKeyEvent', { type: 'keyDown', key: 'b' });
    again();
    now += AGENT_INPUT_GRACE_MS;
    expect(inputs.includesPersons([{ kind: 'key', key: 'b' }])).toBe(true);
  });

  it('take any input for the agent’s near an input command of theirs when the page does not say what it saw', () => {
    let now = 0;
    const inputs = new AgentInputs(() => now);
    expect(inputs.includesPersons(undefined)).toBe(true);
    const answered = inputs.sending('Input.dispatchMouseEvent', { type: 'mousePressed' });
    expect(inputs.includesPersons(undefined)).toBe(false);
    answered();
    now += AGENT_INPUT_GRACE_MS;
    expect(inputs.includesPersons(undefined)).toBe(true);
  });
});
