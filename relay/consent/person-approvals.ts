// The person's standing yes: "allow this on this site for 30 minutes" or "until I close the tab",
// given with Allow in the side panel to the agent session that asked. While one covers a call of
// that session (its kinds, on the same site, in that tab when it is bound to one), it is not asked. Each is listed in the side panel with
// Take back, and ends by itself: time is checked on use, the tab's end is told (forgetTab), Stop
// takes back every one of the profile.

import { randomBytes } from 'node:crypto';
import type { AskKind } from '../../shared/ask-kinds';
import type { ConsentApproval, StandingScope } from '../../shared/consent-state';
import { originOf as siteOf } from '../../shared/origin-policy';

/** How long "for a while" lasts. */
export const STANDING_MS = 30 * 60_000;

export type { StandingScope };

/** A standing yes: its kinds, the site (an origin) and its end — a time (`until`) or a tab's close (`targetId`). */
export interface Approval extends ConsentApproval {
  profile: string;
}

/** A URL's origin, if it has one (none, for no URL). */
export const originOf = (url: string | undefined): string | undefined => (url ? siteOf(url) : undefined);

export class PersonApprovals {
  // Added by the person's answer, removed by Take back, Stop, its time or its tab's end.
  readonly #approvals = new Map<string, Approval>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A standing yes for what a question asked, on its site; undefined when the question names no
   * site (a yes without one would be a yes to everything) or, for a tab's, no tab.
   */
  add(
    scope: StandingScope,
    asked: { profile: string; kinds: AskKind[]; url?: string; targetId?: string; session?: string },
  ): Approval | undefined {
    const origin = originOf(asked.url);
    if (!origin || asked.kinds.length === 0 || (scope === 'tab' && !asked.targetId)) return undefined;
    const approval: Approval = {
      id: `a${randomBytes(6).toString('hex')}`,
      profile: asked.profile,
      kinds: [...asked.kinds],
      origin,
      ...(asked.session !== undefined ? { session: asked.session } : {}),
      ...(scope === 'minutes'
        ? { until: new Date(this.now() + STANDING_MS).toISOString() }
        : { targetId: asked.targetId! }),
    };
    this.#approvals.set(approval.id, approval);
    return approval;
  }

  /** The standing yes that covers every kind the call would be asked about, if one does. */
  covering(call: {
    profile: string;
    kinds: AskKind[];
    url?: string;
    targetId?: string;
    session?: string;
  }): Approval | undefined {
    const origin = originOf(call.url);
    if (!origin) return undefined;
    return this.list(call.profile).find(
      (a) =>
        a.origin === origin &&
        a.session === call.session &&
        (a.targetId === undefined || a.targetId === call.targetId) &&
        call.kinds.every((kind) => a.kinds.includes(kind)),
    );
  }

  /** The profile's standing yeses still in force. */
  list(profile: string): Approval[] {
    const now = this.now();
    for (const [id, a] of this.#approvals)
      if (a.until !== undefined && Date.parse(a.until) <= now) this.#approvals.delete(id);
    return [...this.#approvals.values()].filter((a) => a.profile === profile);
  }

  /** The person took it back; false when it was not there (any more). */
  revoke(id: string): boolean {
    return this.#approvals.delete(id);
  }

  /** The tab closed: a yes until its end ends. */
  forgetTab(targetId: string): void {
    for (const [id, a] of this.#approvals) if (a.targetId === targetId) this.#approvals.delete(id);
  }

  /** Stop: every standing yes of the profile ends. */
  revokeAll(profile: string): void {
    for (const [id, a] of this.#approvals) if (a.profile === profile) this.#approvals.delete(id);
  }
}
