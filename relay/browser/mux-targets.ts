// Which tab each of the mux's sessions acts in, and where each tab is: a raw client's command may
// wait on the person's say about its tab (cdp-mux.ts, the rules' `before`). The root's own target
// discovery (the mux's, nobody else's) says where tabs are and when one goes; attach events and
// answers say which session is which target's — a page's, or a frame's session under it.

import type { Logger } from '../log';

/** The tab (page target) a command acts in, with the address it shows now. */
export interface MuxTab {
  readonly targetId: string;
  readonly info: { readonly url: string };
}

/** What the mux's rules are told of the session a command goes on. */
export interface SessionTarget {
  sessionId: string;
  targetId: string;
  type: string | undefined;
}

type Call = <T>(method: string, params?: Record<string, unknown>) => Promise<T>;

export class MuxTargets {
  /** Session id → the tab (page target id) its commands act in. */
  readonly #sessionTabs = new Map<string, string>();
  /** Session id → the target it is attached to, whatever its type (a worker's session too). */
  readonly #sessionTargets = new Map<string, { targetId: string; type: string | undefined }>();
  /** Every target's type and address, once followed. */
  readonly #targets = new Map<string, { type: string; url: string }>();
  #following = false;

  constructor(
    private readonly call: Call,
    private readonly log: Logger,
  ) {}

  /** Starts following the targets at the root (once: when a client's commands may first wait). */
  follow(): void {
    if (this.#following) return;
    this.#following = true;
    // Every type, tabs too (Chrome's default leaves them out): a session's type is known, not guessed.
    this.call<{ targetInfos: Array<{ targetId: string; type: string; url: string }> }>('Target.getTargets', {
      filter: [{}],
    })
      .then(({ targetInfos }) => {
        for (const t of targetInfos) if (!this.#targets.has(t.targetId)) this.#targets.set(t.targetId, t);
      })
      .catch((error: Error) => this.log.debug(`cdp mux: targets: ${error.message}`));
    void this.call('Target.setDiscoverTargets', { discover: true, filter: [{}] }).catch((error: Error) =>
      this.log.debug(`cdp mux: target discovery: ${error.message}`),
    );
  }

  /** A root event: a target came, changed or went. Answers the id of a page that went. */
  rootEvent(method: string | undefined, params: Record<string, unknown> | undefined): string | undefined {
    const info = params?.targetInfo as { targetId: string; type: string; url: string } | undefined;
    if ((method === 'Target.targetCreated' || method === 'Target.targetInfoChanged') && info)
      this.#targets.set(info.targetId, { type: info.type, url: info.url });
    else if (method === 'Target.targetDestroyed' && typeof params?.targetId === 'string') {
      const gone = this.#targets.get(params.targetId);
      this.#targets.delete(params.targetId);
      if (gone?.type === 'page') return params.targetId;
    }
    return undefined;
  }

  /** The tab a session acts in (its page), with its address read at each use. */
  tabOf(sessionId: string | undefined): MuxTab | undefined {
    const targetId = sessionId === undefined ? undefined : this.#sessionTabs.get(sessionId);
    if (targetId === undefined) return undefined;
    const targets = this.#targets;
    return {
      targetId,
      info: {
        get url() {
          return targets.get(targetId)?.url ?? '';
        },
      },
    };
  }

  /**
   * A new session: the tab it acts in, when it acts in one — a page (or a target of a type not
   * known yet), or a frame of a page whose session is `parent`.
   */
  place(sessionId: string, targetId: string, type: string | undefined, parent?: string): void {
    type ??= this.#targets.get(targetId)?.type;
    this.#sessionTargets.set(sessionId, { targetId, type });
    if (type === 'page' || type === undefined) this.#sessionTabs.set(sessionId, targetId);
    else if (type === 'iframe' && parent !== undefined && this.#sessionTabs.has(parent))
      this.#sessionTabs.set(sessionId, this.#sessionTabs.get(parent)!);
  }

  /** The session's target, and its type (read at each use: it may be learnt later). */
  targetOf(sessionId: string | undefined): SessionTarget | undefined {
    const placed = sessionId === undefined ? undefined : this.#sessionTargets.get(sessionId);
    if (!placed) return undefined;
    return {
      sessionId: sessionId!,
      targetId: placed.targetId,
      type: placed.type ?? this.#targets.get(placed.targetId)?.type,
    };
  }

  /** A session went. */
  forget(sessionId: string): void {
    this.#sessionTabs.delete(sessionId);
    this.#sessionTargets.delete(sessionId);
  }

  /** The browser went. */
  clear(): void {
    this.#sessionTabs.clear();
    this.#sessionTargets.clear();
    this.#targets.clear();
  }
}
