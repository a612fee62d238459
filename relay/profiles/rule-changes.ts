// Whether a change of the person's rules loosens them, in words. Tightening (a new block, a new
// ask, a shorter allow list) is anyone's, at once; loosening (an ask dropped, a block lifted, a
// site allowed, the allow list dropped) is the person's alone, and waits for them in Chrome when
// their browser is connected (person-consent.ts). Compared per profile on the rules in force, so
// a global change is judged by every profile it reaches, and a profile's own policy removed by
// the global one it falls back to. Patterns are compared as written: an allow pattern that is
// new is a loosening even when an old one covered it (asking once too often is the safe side).

import { ASK_KIND_TEXT, type AskKind } from '../../shared/ask-kinds';
import type { PolicyConfig } from '../../shared/origin-policy';
import { askOf, parsePolicy, policyOf, type BrowserConfig } from '../home/config-schema';
import type { KindSchemas } from '../home/profile-kinds';

export interface RulesChange {
  profile: string;
  /** browser.policy (every profile's default) rather than the profile's own. */
  global: boolean;
  /** The new origin lists; absent: they stay. An empty policy removes the one it names. */
  policy?: PolicyConfig;
  /** The new ask kinds of the profile; absent: they stay. */
  ask?: AskKind[];
}

/** The browser settings as they would be after `change` (the caller's copy is left as it is). */
export function rulesAfter(config: BrowserConfig, change: RulesChange): BrowserConfig {
  const next = structuredClone(config);
  if (change.policy !== undefined) {
    const key = change.global ? 'browser.policy' : `browser.profiles.${change.profile}.policy`;
    const checked = parsePolicy(change.policy, key, 'the request');
    const empty = checked.allow === undefined && checked.block === undefined;
    if (change.global) {
      if (empty) delete next.policy;
      else next.policy = checked;
    } else {
      const profile = next.profiles[change.profile];
      if (profile) {
        if (empty) delete profile.policy;
        else profile.policy = checked;
      }
    }
  }
  const own = next.profiles[change.profile];
  if (change.ask !== undefined && own) own.ask = [...change.ask];
  return next;
}

/** What one profile's rules lose between `before` and `after`, in words (empty: nothing). */
export function looseningsOf(
  before: { policy: PolicyConfig; ask: readonly AskKind[] },
  after: { policy: PolicyConfig; ask: readonly AskKind[] },
): string[] {
  const said: string[] = [];
  for (const kind of before.ask) if (!after.ask.includes(kind)) said.push(`stop asking before ${ASK_KIND_TEXT[kind]}`);
  for (const pattern of before.policy.block ?? [])
    if (!(after.policy.block ?? []).includes(pattern)) said.push(`lift the block of ${pattern}`);
  const allowed = before.policy.allow;
  if (allowed !== undefined) {
    if (after.policy.allow === undefined) said.push('let agents load any site (the allow list goes)');
    else for (const pattern of after.policy.allow) if (!allowed.includes(pattern)) said.push(`allow ${pattern}`);
  }
  return said;
}

/** Every loosening `change` makes, over every profile it reaches, each said with its profile. */
export function looseningsOfChange(config: BrowserConfig, change: RulesChange, kinds: KindSchemas): string[] {
  const after = rulesAfter(config, change);
  return Object.keys(config.profiles).flatMap((profile) =>
    looseningsOf(
      { policy: policyOf(config, profile).config, ask: askOf(config, profile, kinds) },
      { policy: policyOf(after, profile).config, ask: askOf(after, profile, kinds) },
    ).map((words) => `${profile}: ${words}`),
  );
}
