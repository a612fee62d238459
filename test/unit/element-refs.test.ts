import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../relay/operations/operation-table';
import { elementRefs } from '../../relay/operations/element-refs';
import { elementLine } from '../../shared/element-line';

describe('the elements a call names', () => {
  it('reads every ref field the operations have, drag and fill included', () => {
    expect(elementRefs({ kind: 'click', ref: 'e1' })).toEqual([{ ref: 'e1' }]);
    expect(elementRefs({ kind: 'drag', startRef: 'e4', endRef: 'e9' })).toEqual([
      { ref: 'e4' },
      { ref: 'e9', onto: true },
    ]);
    expect(
      elementRefs({
        kind: 'fill',
        fields: [
          { ref: 'e1', value: 'Ada' },
          { ref: 'e2', value: true },
        ],
      }),
    ).toEqual([
      { ref: 'e1', field: { value: 'Ada' } },
      { ref: 'e2', field: { value: true } },
    ]);
    expect(elementRefs({ kind: 'press', key: 'Enter' })).toEqual([]);
  });

  it("misses no ref an operation's example names (a new ref field would have to be added here)", () => {
    for (const operation of Object.values(OPERATIONS)) {
      if (!operation.gate && !operation.logged) continue;
      const example = operation.example as Record<string, unknown>;
      const named =
        JSON.stringify(example)
          .match(/"e\d+"/g)
          ?.map((ref) => JSON.parse(ref) as string) ?? [];
      expect(
        elementRefs(example).map((e) => e.ref),
        operation.name,
      ).toEqual(named);
    }
  });

  it('says an element in one line, the page words quoted as the caller asks', () => {
    expect(elementLine({ ref: 'e12', role: 'button', name: 'Save' })).toBe('e12 button "Save"');
    expect(elementLine({ ref: 'e12', role: 'button', name: 'Say "hi"' })).toBe('e12 button "Say \\"hi\\""');
    expect(elementLine({ ref: 'e12', role: 'button', name: '' })).toBe('e12 button');
    expect(elementLine({ ref: 'e12' })).toBe('e12');
    expect(elementLine({ ref: 'e3', role: 'link', name: 'Home' }, (name) => `«${name}»`)).toBe('e3 link «Home»');
  });
});
