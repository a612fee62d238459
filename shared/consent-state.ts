// What the person sees of the agents in their own browser (the extension's side panel, its
// options page): the tabs attached (handed to agents) and who holds each, the last things agents did there, the
// origin policy and what the person asked to be asked before, and the questions waiting for an
// answer. The relay sends it to the extension whenever it changes, while a panel is open; the
// answers go back as frames (shared/protocol.ts). Plain data, shared by both sides.

import type { AskKind } from './ask-kinds';

export interface ConsentTab {
  tabId: number;
  targetId: string;
  title: string;
  url: string;
  /** An agent session holds it, the person was handed it, or nobody has taken it yet. */
  holder: { kind: 'agent'; session: string } | { kind: 'person'; reason: string } | null;
  /** The person's hands are on it: agents wait. */
  personActive: boolean;
}

/** One line of the action log (relay/events/event-bus.ts ActionEntry), as a page shows it. */
export interface ConsentAction {
  time: string;
  targetId?: string;
  session?: string;
  kind: string;
  url?: string;
  element?: { ref: string; role?: string; name?: string };
  outcome: string;
  detail?: string;
}

/** A question waiting for the person (relay/consent/person-questions.ts). */
export interface ConsentQuestion {
  id: string;
  targetId?: string;
  kinds: AskKind[];
  session?: string;
  what: string;
  url?: string;
  asked: string;
  expires: string;
  /** The person's terminal asks to loosen their rules (`what` says how): the side panel answers it. */
  terminal?: true;
  /** The site asks for a code it sent the person (its name): they type it in the side panel. */
  code?: string;
}

/**
 * A tab an agent handed to the person in one of clawd's own browsers (not this one): they act in
 * it from the live view, which the panel opens for them (a view of theirs, not the agent's link).
 */
export interface ConsentHandoff {
  profile: string;
  targetId: string;
  reason: string;
}

/** How long a standing yes lasts: 30 minutes on the site, or until the tab closes. */
export type StandingScope = 'minutes' | 'tab';

/** A standing yes of the person's (relay/consent/person-approvals.ts), with Take back in the panel. */
export interface ConsentApproval {
  id: string;
  kinds: AskKind[];
  origin: string;
  /** The agent session it is for (none: calls that name no session). */
  session?: string;
  until?: string;
  targetId?: string;
}

/** A question as the person's browser notifies it (relay → extension `asks` frame). */
export interface AskNotice {
  id: string;
  title: string;
  message: string;
  /** Answered by typing (a code) in the side panel: no Allow or Deny on the notification. */
  typed?: true;
}

export interface ConsentState {
  /** The profile these are of (the extension profile). */
  profile: string;
  tabs: ConsentTab[];
  /** The newest last. */
  actions: ConsentAction[];
  policy: { allow?: string[]; block?: string[] };
  ask: AskKind[];
  questions: ConsentQuestion[];
  /** Hand-overs in clawd's other browsers, each with the person's way to act in it. */
  handoffs?: ConsentHandoff[];
  /** The person's standing yeses still in force. */
  approvals?: ConsentApproval[];
  /** The last recipe the person saved from a recording: saved, or why not. */
  recipeSaid?: { id: string; name: string; saved: boolean; error?: string };
}
