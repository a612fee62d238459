// many-profiles: eight managed profiles driven at once by eight agent sessions through the
// control API, as eight agents sharing one `clawd serve` would: each creates its profile, opens a
// tab on a local form and loops navigate → snapshot → type → click → find by ref. It measures what
// one server holds under that load: steps/s overall, errors (target 0) and its peak memory.

import type { RelayProcess } from '../fixture';
import { startBenchPages } from '../fixture';
import { descendants, peakSampler, pssMb } from '../process-memory';
import { median, percentile, round, type CaseResult } from '../stats';

/** A small form page as sites have them: a header, a field, a button, a status line, a footer. */
export const FORM_PAGE = `<!doctype html><title>Order</title>
<header><nav><a href="/form">Home</a> <a href="/form?help">Help</a></nav></header>
<main><h1>Order</h1>
  <label>Name <input id="name"></label>
  <label>Size <select><option>Small</option><option>Large</option></select></label>
  <button id="save">Save</button>
  <p role="status" id="status"></p>
  <ul>${Array.from({ length: 20 }, (_, i) => `<li><a href="/form?item=${i}">Item ${i}</a></li>`).join('')}</ul>
</main>
<footer><p>A bench page</p></footer>
<script>document.getElementById('save').onclick = () => { document.getElementById('status').textContent = 'Saved: ' + document.getElementById('name').value; };</script>`;

/** A call to the control API with its own bound: a call that hangs counts as an error and the loop goes on. */
const CALL_BOUND_MS = 60_000;

/** A call to the control API on one profile (GET bodies go in the query). */
export type ProfileCall = <T = any>(
  method: string,
  route: string,
  profile: string,
  body?: Record<string, unknown>,
) => Promise<T>;

/** A timed step of an agent's round, by kind. */
export type Step = <T>(kind: string, what: () => Promise<T>) => Promise<T>;

/**
 * One round of an agent on FORM_PAGE, five calls: navigate, snapshot, type and click by ref (the
 * click answering a diff), find what the page said — and a wrong answer is an error.
 */
export async function formRound(
  api: ProfileCall,
  profile: string,
  at: { targetId?: string; session: string },
  url: string,
  text: string,
  step: Step,
): Promise<void> {
  const where = { ...(at.targetId ? { targetId: at.targetId } : {}), session: at.session };
  await step('navigate', () => api('POST', '/navigate', profile, { ...where, url }));
  const snap = await step('snapshot', () =>
    api<{ refs: Record<string, { role: string; name: string }> }>('GET', '/snapshot', profile, where),
  );
  const refOf = (role: string, name: string) => {
    const found = Object.entries(snap.refs).find(([, r]) => r.role === role && r.name === name)?.[0];
    if (!found) throw new Error(`no ${role} "${name}" in the snapshot of ${at.session}`);
    return found;
  };
  await step('type', () =>
    api('POST', '/act', profile, { kind: 'type', ...where, ref: refOf('textbox', 'Name'), text }),
  );
  await step('click', () =>
    api('POST', '/act', profile, { kind: 'click', ...where, ref: refOf('button', 'Save'), snapshot: 'diff' }),
  );
  const read = await step('find', () => api<{ text: string }>('GET', '/find', profile, { ...where, q: 'Saved:' }));
  if (!read.text.includes(`Saved: ${text}`))
    throw new Error(`${at.session} read ${JSON.stringify(read.text.slice(0, 200))}, not "Saved: ${text}"`);
}

/** The control API of a bench server, on one profile per call, each call bounded. */
export function profileCalls(relay: RelayProcess): ProfileCall {
  return async (method, route, profile, body) => {
    const url = new URL(relay.controlUrl + route);
    url.searchParams.set('profile', profile);
    if (method === 'GET') for (const [k, v] of Object.entries(body ?? {})) url.searchParams.set(k, String(v));
    const response = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${relay.token}`,
        'X-Clawd-Person': relay.personKey, // the bench creates profiles: the person's
        'Content-Type': 'application/json',
      },
      ...(method !== 'GET' && body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(CALL_BOUND_MS),
    });
    if (!response.ok)
      throw new Error(`${method} ${route} (${profile}): ${response.status} ${(await response.text()).slice(0, 300)}`);
    return (await response.json()) as any;
  };
}

export async function manyProfiles(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const agents = quick ? 2 : 8;
  // Quick: a fixed count of rounds; full: every agent loops for the same time.
  const rounds = quick ? 2 : Infinity;
  const loopMs = quick ? Infinity : 60_000;
  const pages = await startBenchPages({ '/form': FORM_PAGE });
  const api = profileCalls(relay);
  const server = relay.child.pid!;
  const browsers = peakSampler(() => pssMb(descendants(server)));
  const errors: string[] = [];
  const stepMs: number[] = [];
  const byKind = new Map<string, number[]>();
  const startMs: number[] = [];
  let steps = 0;
  const names = Array.from({ length: agents }, (_, k) => `bench-many-${process.pid}-${k}`);
  const step = async <T>(kind: string, what: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await what();
    const ms = performance.now() - started;
    stepMs.push(ms);
    byKind.set(kind, [...(byKind.get(kind) ?? []), ms]);
    steps++;
    return result;
  };
  let loopStarted = 0;
  let loopEnded = 0;
  try {
    const agent = async (k: number): Promise<() => Promise<void>> => {
      const profile = names[k]!;
      const session = `agent-${k}`;
      let targetId: string;
      try {
        await api('POST', '/profiles/create', profile, { name: profile });
        const opened = performance.now();
        // The profile's browser starts on this first call (autostart), as an agent's first call does.
        targetId = (
          await api<{ targetId: string }>('POST', '/tabs/open', profile, { url: pages.url('/form'), session })
        ).targetId;
        startMs.push(performance.now() - opened);
      } catch (error) {
        errors.push((error as Error).message);
        return async () => {};
      }
      return async () => {
        for (let round = 0; round < rounds && performance.now() - loopStarted < loopMs; round++) {
          const text = `agent ${k} round ${round}`;
          try {
            await formRound(
              api,
              profile,
              { targetId, session },
              pages.url(`/form?agent=${k}&round=${round}`),
              text,
              step,
            );
          } catch (error) {
            errors.push((error as Error).message);
          }
        }
      };
    };
    // Every agent creates its profile and opens its tab at once (eight browsers starting together),
    // then all loop together, so the figure is eight agents working, not eight starting.
    const setupStarted = performance.now();
    const loops = await Promise.all(names.map((_, k) => agent(k)));
    const setupMs = performance.now() - setupStarted;
    loopStarted = performance.now();
    await Promise.all(loops.map((loop) => loop()));
    loopEnded = performance.now();
    const seconds = (loopEnded - loopStarted) / 1000;
    const browsersPeak = browsers.stop();
    const perSecond = steps / seconds;
    const { peakMb } = relay.memory();
    return {
      name: 'many-profiles',
      unit: 'steps/s',
      value: round(perSecond, 1),
      target: 'errors 0, server peak ≤ 300 MB',
      ok: errors.length === 0 && peakMb <= 300,
      details: {
        profiles: agents,
        steps,
        errors: errors.length,
        ...(errors.length ? { firstError: JSON.stringify(errors[0]) } : {}),
        seconds: round(seconds, 1),
        stepMedianMs: round(median(stepMs), 1),
        stepP95Ms: round(percentile(stepMs, 95), 1),
        setupS: round(setupMs / 1000, 1),
        // Each kind's median and slowest, in ms: where the time goes.
        perKindMs: [...byKind]
          .map(([kind, ms]) => `${kind}:${Math.round(median(ms))}/${Math.round(Math.max(...ms))}`)
          .join(','),
        openTabMedianMs: round(median(startMs), 0),
        serverPeakMb: round(peakMb, 1),
        browsersPeakPssMb: round(browsersPeak, 0),
      },
    };
  } finally {
    browsers.stop();
    // Stopped by the API (Browser.close) rather than left to the server's exit, each bounded.
    await Promise.all(names.map((name) => api('POST', '/stop', name).catch(() => undefined)));
    await pages.close();
  }
}
