import { describe, expect, it } from 'vitest';
import { TabControl } from '../../relay/agent/tabs/tab-control';
import { tabKey } from '../../relay/agent/tabs/tab-key';

const t = tabKey('p', 't');
const u = tabKey('p', 'u');

describe('who controls a tab', () => {
  it('lets a session take a free tab, refuses another session, and frees it on release', () => {
    const control = new TabControl();
    control.change(t, 'alpha');
    expect(control.holder(t)).toEqual({ kind: 'agent', session: 'alpha' });
    expect(() => control.change(t, 'beta')).toThrow(/held by the agent session "alpha"/);
    expect(() => control.change(t, undefined)).toThrow(/this call names no session/);
    control.change(t, 'alpha'); // its own calls go on
    expect(control.release(t, 'alpha')).toBe(true);
    control.change(t, 'beta');
    expect(control.holder(t)).toEqual({ kind: 'agent', session: 'beta' });
  });

  it('lets calls without a session through a free tab, as before sessions existed', () => {
    const control = new TabControl();
    control.change(t, undefined);
    expect(control.holder(t)).toBeUndefined();
  });

  it('forgets a hold that stayed idle too long', () => {
    let now = 0;
    const control = new TabControl(1_000, () => now);
    control.change(t, 'alpha');
    now = 999;
    expect(() => control.change(t, 'beta')).toThrow(/tab_held|held/);
    now = 2_100;
    control.change(t, 'beta');
    expect(control.holder(t)).toEqual({ kind: 'agent', session: 'beta' });
  });

  it('refuses every agent while the person has the tab, and wakes the waiters when it comes back', async () => {
    const control = new TabControl();
    control.change(t, 'alpha');
    control.handOff(t, 'Log in, then press Done', undefined);
    expect(() => control.change(t, 'alpha')).toThrow(/the person has this tab: "Log in, then press Done"/);
    const waiting = control.wait(t, 5_000);
    expect(control.giveBack(t, 'person')).toBe(true);
    expect(await waiting).toBe('person');
    // Heard once: a later wait hears nothing was handed over.
    expect(await control.wait(t, 5_000)).toBe('none');
    // An end nobody was waiting for is told to the wait that comes just after, once; an agent's
    // change of the tab forgets it.
    control.handOff(t, 'again', undefined);
    control.giveBack(t, 'person');
    expect(await control.wait(t, 5_000)).toBe('person');
    expect(await control.wait(t, 5_000)).toBe('none');
    control.handOff(t, 'and again', undefined);
    control.giveBack(t, 'person');
    control.change(t, 'alpha');
    expect(await control.wait(t, 5_000)).toBe('none');
  });

  it('ends a hand-over with a time limit when it runs out, and a wait at its own bound', async () => {
    const control = new TabControl();
    control.handOff(t, 'solve the captcha', 50);
    expect(await control.wait(t, 5_000)).toBe('timeout');
    expect(control.holder(t)).toBeUndefined();
    control.handOff(u, 'no limit', undefined);
    expect(await control.wait(u, 30)).toBe('timeout');
    expect(control.holder(u)).toMatchObject({ kind: 'person', reason: 'no limit' });
    control.close();
  });
});
