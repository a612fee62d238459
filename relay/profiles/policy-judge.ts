// What the policy guard (policy-guard.ts) pauses of a target's requests, and its verdict on each:
// an allowed one goes on; a blocked document (a page or a frame) is answered with a page naming
// the rule; any other blocked request fails as blocked by the client. Apart from the guard: a
// verdict needs only the guard's word on the request's own session, none of its tables.

import type { Protocol } from 'devtools-protocol';
import { blockedPageHtml } from '../../shared/blocked-page';
import type { OriginPolicy } from '../../shared/origin-policy';
import type { Logger } from '../log';

/**
 * What is paused while only clawd's own addresses are kept out: loopback requests (every port),
 * in every spelling a URL can carry (a user before the host, a trailing dot, a.localhost, 0.0.0.0,
 * [::], [::ffff:7f00:1]; shared/host-spelling.ts). Wider than needed: what is paused is judged.
 */
export const LOOPBACK_PATTERNS = ['*://*127.0.0.1*', '*://*localhost*', '*://*0.0.0.0*', '*://*[::*'].map(
  (urlPattern) => ({ urlPattern, requestStage: 'Request' }),
);

/** A request the guard refused, for the action log. */
export interface GuardBlock {
  url: string;
  reason: string;
  resourceType: string;
}

/** The guard's hands for a verdict: its word on a session, the policy in force, the action log. */
export interface Judge {
  send(method: string, params: Record<string, unknown>, sessionId: string): Promise<unknown>;
  policy(): OriginPolicy;
  blocked(block: GuardBlock): void;
  log: Logger;
}

/** Answers one paused request by the policy in force. */
export async function judge(
  { send, policy, blocked, log }: Judge,
  paused: Protocol.Fetch.RequestPausedEvent,
  sessionId: string,
): Promise<void> {
  const { requestId, request, resourceType } = paused;
  try {
    const verdict = policy().check(request.url);
    if (verdict.allowed) {
      await send('Fetch.continueRequest', { requestId }, sessionId);
      return;
    }
    blocked({ url: request.url, reason: verdict.reason, resourceType });
    if (resourceType === 'Document') {
      const body = Buffer.from(blockedPageHtml(request.url, verdict.reason)).toString('base64');
      await send(
        'Fetch.fulfillRequest',
        {
          requestId,
          responseCode: 403,
          responseHeaders: [{ name: 'Content-Type', value: 'text/html; charset=utf-8' }],
          body,
        },
        sessionId,
      );
    } else {
      await send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }, sessionId);
    }
  } catch (error) {
    // The target went away mid-request (nothing to answer), or no verdict could be had (the
    // policy not readable): refused rather than left paused for ever.
    log.debug(`policy guard: ${request.url}: ${(error as Error).message}`);
    await send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }, sessionId).catch(() => {});
  }
}
