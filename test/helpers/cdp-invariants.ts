// The rules a CDP client relies on for its view of targets, checked on everything one client
// receives: one Target.attachedToTarget per target until its Target.detachedFromTarget (per
// parent session, and once across the client for a root-level target: Playwright throws
// "Duplicate target" otherwise), a fresh session id on every attach, no detach of a session the
// client does not hold, no event on a session it never had (or had and lost), and — when it asked
// for target discovery — targetCreated before an attach and no targetDestroyed while attached.
// Independent of the relay's code: it checks the relay against the protocol.

import type { CdpClient, CdpMessage } from './cdp-client';

export class TargetInvariants {
  readonly breaks: string[] = [];
  // Client session id → the target it is attached to and the session it was announced on.
  readonly #sessions = new Map<string, { targetId: string; parent: string }>();
  // Target ids the client heard targetCreated for and no targetDestroyed since (discovery only).
  readonly #created = new Set<string>();
  readonly #stop: () => void;

  constructor(
    client: CdpClient,
    /** The client asked for Target.setDiscoverTargets: creation and destruction are checked too. */
    private readonly discovering = false,
  ) {
    this.#stop = client.onMessage((message) => this.#check(message));
  }

  /** The sessions the client holds now, by target id. */
  attachedTargets(): string[] {
    return [...this.#sessions.values()].map((s) => s.targetId);
  }

  stop(): void {
    this.#stop();
  }

  #break(rule: string, message: CdpMessage): void {
    this.breaks.push(`${rule}: ${JSON.stringify(message).slice(0, 300)}`);
  }

  #check(message: CdpMessage): void {
    if (!message.method) return;
    const on = message.sessionId ?? '';
    if (on !== '' && !this.#sessions.has(on))
      this.#break(`an event on session ${on}, which the client does not hold`, message);
    switch (message.method) {
      case 'Target.attachedToTarget': {
        const { sessionId, targetInfo } = message.params as {
          sessionId: string;
          targetInfo: { targetId: string; type: string };
        };
        if (this.#sessions.has(sessionId)) this.#break('an attach with a session id the client already holds', message);
        for (const held of this.#sessions.values()) {
          if (held.targetId !== targetInfo.targetId) continue;
          if (held.parent === on)
            this.#break(
              `a second attach of target ${targetInfo.targetId} on the same session before its detach`,
              message,
            );
          else if (held.parent === '' && on === '')
            this.#break(`target ${targetInfo.targetId} attached twice at the root`, message);
        }
        if (this.discovering && on === '' && !this.#created.has(targetInfo.targetId))
          this.#break(`attached to target ${targetInfo.targetId} before its targetCreated`, message);
        this.#sessions.set(sessionId, { targetId: targetInfo.targetId, parent: on });
        return;
      }
      case 'Target.detachedFromTarget': {
        const { sessionId } = message.params as { sessionId: string };
        if (!this.#sessions.has(sessionId))
          this.#break(`a detach of session ${sessionId}, which the client does not hold`, message);
        // Its own sessions below go with it (a client is not told of each).
        for (const [id, held] of [...this.#sessions]) if (held.parent === sessionId) this.#sessions.delete(id);
        this.#sessions.delete(sessionId);
        return;
      }
      case 'Target.targetCreated':
        this.#created.add((message.params as { targetInfo: { targetId: string } }).targetInfo.targetId);
        return;
      case 'Target.targetDestroyed': {
        const { targetId } = message.params as { targetId: string };
        if (this.discovering && [...this.#sessions.values()].some((s) => s.parent === '' && s.targetId === targetId))
          this.#break(`target ${targetId} destroyed while the client is still attached to it`, message);
        this.#created.delete(targetId);
        return;
      }
    }
  }
}
