// What loosens the person's rules and what tightens them, per profile, as relay/profiles/rule-changes.ts says.

import { describe, expect, it } from 'vitest';
import { defaultBrowserConfig, type BrowserConfig } from '../../relay/home/config-schema';
import { DriverKinds } from '../../relay/profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../../relay/profiles/kinds';
import { looseningsOf, looseningsOfChange } from '../../relay/profiles/rule-changes';

const rules = (policy: { allow?: string[]; block?: string[] }, ask: Array<'submit' | 'storage' | 'download'> = []) => ({
  policy,
  ask,
});

describe('a change of the rules', () => {
  it('is a loosening when an ask goes, a block is lifted, a site is allowed or the allow list goes', () => {
    expect(looseningsOf(rules({}, ['submit', 'storage']), rules({}, ['storage']))).toEqual([
      'stop asking before sending a form (a submit button, Enter in a form field)',
    ]);
    expect(looseningsOf(rules({ block: ['https://bank.test'] }), rules({}))).toEqual([
      'lift the block of https://bank.test',
    ]);
    expect(
      looseningsOf(rules({ allow: ['https://a.test'] }), rules({ allow: ['https://a.test', 'https://b.test'] })),
    ).toEqual(['allow https://b.test']);
    expect(looseningsOf(rules({ allow: ['https://a.test'] }), rules({}))).toEqual([
      'let agents load any site (the allow list goes)',
    ]);
  });

  it('is no loosening when it only tightens', () => {
    expect(looseningsOf(rules({}), rules({ allow: ['https://a.test'] }, ['submit']))).toEqual([]);
    expect(
      looseningsOf(rules({ allow: ['https://a.test', 'https://b.test'] }), rules({ allow: ['https://a.test'] })),
    ).toEqual([]);
    expect(
      looseningsOf(rules({ block: ['https://x.test'] }), rules({ block: ['https://x.test', 'https://y.test'] })),
    ).toEqual([]);
  });

  it('is judged on every profile it reaches: a global change, a profile’s own policy removed', () => {
    const config: BrowserConfig = defaultBrowserConfig();
    const kinds = new DriverKinds(BUILT_IN_KINDS);
    config.policy = { block: ['https://bank.test'] };
    // Dropping the global block reaches every profile without a policy of its own.
    const global = looseningsOfChange(config, { profile: 'clawd', global: true, policy: {} }, kinds);
    expect(global).toEqual(Object.keys(config.profiles).map((p) => `${p}: lift the block of https://bank.test`));
    // A profile's own allow list removed: the global rules (only a block) apply, so every site but it is allowed.
    config.profiles.clawd!.policy = { allow: ['https://a.test'] };
    expect(looseningsOfChange(config, { profile: 'clawd', global: false, policy: {} }, kinds)).toEqual([
      'clawd: let agents load any site (the allow list goes)',
    ]);
    // Asks only, on the person's browser (asked before storage by default).
    expect(looseningsOfChange(config, { profile: 'chrome', global: false, ask: [] }, kinds)).toEqual([
      'chrome: stop asking before exporting your cookies and site storage',
    ]);
    expect(looseningsOfChange(config, { profile: 'chrome', global: false, ask: ['storage', 'submit'] }, kinds)).toEqual(
      [],
    );
  });
});
