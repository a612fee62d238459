// The origin policy: which sites agents may reach on a profile. Reading it is for everyone;
// changing it is never an MCP tool, since the policy is what keeps an agent to its task when a
// page tells it to go elsewhere. Tightening it (a block, an ask) is anyone's, at once; loosening
// it is the person's: their terminal's key, and, while their browser is connected, their yes in
// the side panel (relay/profiles/rule-changes.ts decides which a change is).

import { z } from 'zod';
import { ASK_KINDS } from '../../shared/ask-kinds';
import type { PolicyInForce } from '../profiles/profile-service';
import { operation } from './operation';

const originList = () => z.array(z.string().min(1)).optional();

const askText = (p: PolicyInForce) => `; asks the person before: ${p.ask.length ? p.ask.join(', ') : 'nothing'}`;

function policyText(p: PolicyInForce): string {
  if (p.source === 'none') return `${p.profile}: no origin policy (agents may load any site)${askText(p)}`;
  const rules = [
    p.allow ? `allow ${p.allow.length ? p.allow.join(', ') : '(nothing)'}` : 'allow any site',
    ...(p.block?.length ? [`block ${p.block.join(', ')}`] : []),
  ];
  return `${p.profile} (${p.source === 'profile' ? 'its own policy' : 'the global policy'}): ${rules.join('; ')}${askText(p)}`;
}

export const policy = operation<PolicyInForce>()({
  name: 'policy',
  summary: 'the origin policy in force for the profile: which sites agents may load',
  details:
    'Patterns are origins with wildcards: https://*.example.com, http://localhost:*, https://example.com:8443; block wins over allow; with allow set, everything else is blocked. about:blank and data: pages are always allowed.',
  input: z.object({}),
  http: { method: 'GET', path: '/policy' },
  cli: { group: 'profiles' },
  mcp: { tool: 'browser', as: 'policy' },
  example: {},
  text: policyText,
});

export const policySet = operation<PolicyInForce>()({
  name: 'policySet',
  summary: "set the profile's origin policy (or, with global, the default of every profile), in force at once",
  details:
    "Replaces the lists it is given; with no list at all the profile's own policy goes and the global one applies again. With only ask, the origin lists stay as they are. Written to config.json. Enforced in the browser: on a person's attached tabs by Chrome's declarativeNetRequest rules, on managed and remote profiles by the relay's interception of every request. A change that loosens the rules (an ask dropped, a block lifted, a site allowed) is the person's: the token alone is refused (person_only); from the person's terminal it waits for their yes in clawd's side panel while their browser is connected (timeoutMs), and is taken at once when none is.",
  input: z.object({
    allow: originList().describe('origins agents may load; every other is blocked'),
    block: originList().describe('origins agents may not load (wins over allow)'),
    global: z
      .boolean()
      .default(false)
      .describe("browser.policy, every profile's default, instead of this profile's own"),
    ask: z
      .array(z.enum(ASK_KINDS))
      .optional()
      .describe(`what the person is asked before on this profile: ${ASK_KINDS.join(', ')} (an empty list: nothing)`),
    timeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(600_000)
      .default(120_000)
      .describe("how long a loosening waits for the person's yes in the side panel (ms, default 2 minutes)"),
  }),
  http: { method: 'POST', path: '/policy' },
  logged: true,
  person: true,
  clientTimeoutMs: (i) => i.timeoutMs + 10_000,
  cli: {
    group: 'profiles',
    name: 'policy-set',
    flags: { allow: { value: 'ORIGINS' }, block: { value: 'ORIGINS' }, ask: { value: 'KINDS' } },
  },
  mcp: { tool: null, why: "the policy keeps an agent to its task: changing it is the person's, not a tool's" },
  example: { allow: ['https://*.example.com', 'http://localhost:*'] },
  text: policyText,
});
