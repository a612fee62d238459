// many-tabs: 300 tabs of the person's browser handed to the agent (the toolbar, then the clawd tab
// group) while three CDP clients are connected to the relay's /cdp: how long attaching them takes, that
// every client is told of every tab (and its view keeps CDP's rules), that 300 Runtime.evaluate
// calls spread over the three clients each reach the right tab, and the relay's peak memory.
// Its server rests a tab after MANY_TABS_REST_MS unused: the first tabs rest while the others are
// attached, and every tab has rested before the evaluations, which wake them all at once.

import { CdpClient } from '../../../test/helpers/cdp-client';
import { TargetInvariants } from '../../../test/helpers/cdp-invariants';
import { TestBrowser } from '../../../test/helpers/chromium';
import { until } from '../../../test/helpers/waits';
import type { RelayProcess } from '../fixture';
import { startBenchPages } from '../fixture';
import { descendants, pssMb } from '../process-memory';
import { round, type CaseResult } from '../stats';

const CLIENTS = 3;
/** How long a tab of this case's server stays unused before it rests (config.json's `extension.idleDetachMs`). */
export const MANY_TABS_REST_MS = 3_000;
/** The URL of one of this case's tabs. */
const OURS = /\/t\?i=\d+$/;

export async function manyTabs(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const count = quick ? 10 : 300;
  // Tiny and script-free, one per tab (its URL says which): 300 of them fit a 2-core box.
  const pages = await startBenchPages({ '/t': '<!doctype html><title>tab</title><p>tab</p>' });
  const browser = await TestBrowser.launch();
  const clients: CdpClient[] = [];
  try {
    await browser.configureExtension(relay.port, relay.extensionKey);
    const status = async () =>
      (await (await fetch(`${relay.url}/extension/status?token=${relay.token}`)).json()) as {
        connected: boolean;
        attachedTabs: number;
      };
    await until('the extension to connect', async () => (await status()).connected, 15_000);
    const before = relay.memory().rssMb;

    // Three clients, as Playwright and Puppeteer connect: discovering targets from the start.
    const views: Array<{
      client: CdpClient;
      invariants: TargetInvariants;
      pages: Map<string, number>;
      urls: Map<string, string>;
    }> = [];
    for (let c = 0; c < CLIENTS; c++) {
      const client = await CdpClient.connect(relay.cdpWsUrl);
      clients.push(client);
      const invariants = new TargetInvariants(client, true);
      // Each page target the client is told of, when, and its URL if it is one of ours.
      const seen = new Map<string, number>();
      const urls = new Map<string, string>();
      client.onMessage((m) => {
        if (m.method !== 'Target.targetCreated' || m.params.targetInfo.type !== 'page') return;
        seen.set(m.params.targetInfo.targetId, performance.now());
        if (OURS.test(m.params.targetInfo.url)) urls.set(m.params.targetInfo.targetId, m.params.targetInfo.url);
      });
      await client.send('Target.setDiscoverTargets', { discover: true });
      views.push({ client, invariants, pages: seen, urls });
    }

    // Handed over as a person does it: the first tab by the toolbar button (which makes the
    // `clawd` tab group), then the rest opened in the background and added to that group at once
    // (Chrome's "Add tabs to group", or a drag of the selected tabs), each attached as it joins.
    const first = await browser.openTab(pages.url('/t?i=0'));
    const firstStarted = performance.now();
    await browser.clickToolbar(first);
    const listedIds = async () =>
      (
        (await (await fetch(`${relay.url}/json/list?token=${relay.token}`)).json()) as Array<{
          id: string;
          url: string;
        }>
      ).filter((t) => OURS.test(t.url));
    await until('the first tab to be attached', async () => (await listedIds()).length === 1, 15_000);
    const firstMs = performance.now() - firstStarted;
    const openStarted = performance.now();
    for (let i = 1; i < count; i++)
      await browser.cdp.send('Target.createTarget', { url: pages.url(`/t?i=${i}`), background: true });
    const ours = `chrome.tabs.query({ url: ${JSON.stringify(pages.url('/t*'))} })`;
    await until(
      `${count} tabs to load`,
      () =>
        browser.swEval<boolean>(
          `${ours}.then((ts) => ts.length === ${count} && ts.every((t) => t.status === 'complete'))`,
        ),
      quick ? 30_000 : 180_000,
      250,
    );
    const openMs = performance.now() - openStarted;
    const attachStarted = performance.now();
    await browser.swEval(`${ours}.then(async (ts) => {
      const group = ts.find((t) => t.groupId !== -1).groupId;
      await chrome.tabs.group({ groupId: group, tabIds: ts.filter((t) => t.groupId !== group).map((t) => t.id) });
    })`);
    // Attached = every client told of every tab (Target.targetCreated, stamped as it arrives).
    const ids = (v: (typeof views)[number]) => [...v.pages.keys()].filter((id) => v.urls.get(id) !== undefined);
    await until(
      `every client to be told of all ${count} tabs`,
      () => views.every((v) => ids(v).length === count),
      quick ? 60_000 : 300_000,
      100,
    ).catch((error: Error) => {
      throw new Error(`${error.message} (told ${views.map((v) => ids(v).length).join('/')})`);
    });
    const wanted = new Set(ids(views[0]!));
    const attachMs = Math.max(...views.flatMap((v) => [...v.pages.values()])) - attachStarted;
    const told = views.map((v) => ids(v).filter((id) => wanted.has(id)).length);
    const listed = (await listedIds()).filter((t) => wanted.has(t.id)).length;
    const listedByClient = await Promise.all(
      views.map(async (v) => {
        const { targetInfos } = await v.client.send<{ targetInfos: Array<{ targetId: string }> }>('Target.getTargets');
        return targetInfos.filter((t) => wanted.has(t.targetId)).length;
      }),
    );

    // Every tab rests (none has been used since it was attached), then one evaluation in every
    // tab, all at once, the k-th tab through client k mod 3: each wakes its tab and must answer
    // from the tab the client was told of (its URL's ?i=).
    await new Promise((resolve) => setTimeout(resolve, MANY_TABS_REST_MS + 1_000));
    const told0 = (
      await clients[0]!.send<{ targetInfos: Array<{ targetId: string; url: string }> }>('Target.getTargets')
    ).targetInfos.filter((t) => wanted.has(t.targetId));
    const evalStarted = performance.now();
    const answers = await Promise.all(
      told0.map(async (target, k) => {
        const client = clients[k % CLIENTS]!;
        const expected = new URL(target.url).search;
        try {
          const { sessionId } = await client.send<{ sessionId: string }>('Target.attachToTarget', {
            targetId: target.targetId,
            flatten: true,
          });
          const { result } = await client.send(
            'Runtime.evaluate',
            { expression: 'location.search', returnByValue: true },
            sessionId,
          );
          return result.value === expected ? undefined : `${target.url} answered ${JSON.stringify(result.value)}`;
        } catch (error) {
          return `${target.url}: ${(error as Error).message}`;
        }
      }),
    );
    const evalMs = performance.now() - evalStarted;
    const wrong = answers.filter((a): a is string => a !== undefined);
    const breaks = views.flatMap((v) => v.invariants.breaks);
    // The relay's high-water mark over its whole life (this case is all it served).
    const relayPeak = relay.memory().peakMb;
    // Once, at the end: reading 300 processes' PSS takes the kernel seconds, too long to sample often.
    const browserPss = pssMb([browser.process.pid!, ...descendants(browser.process.pid!)]);
    const everyClientSeesAll =
      told.every((n) => n === count) && listedByClient.every((n) => n === count) && listed === count;
    return {
      name: 'many-tabs',
      unit: 'MB relay peak RSS',
      value: round(relayPeak, 1),
      target: 'each client sees all, 0 wrong, relay ≤ 150 MB',
      ok:
        everyClientSeesAll && answers.length === count && wrong.length === 0 && breaks.length === 0 && relayPeak <= 150,
      details: {
        tabs: count,
        clients: CLIENTS,
        attachS: round(attachMs / 1000, 2),
        firstByToolbarMs: round(firstMs, 0),
        relayListed: listed,
        toldPerClient: told.join('/'),
        listedPerClient: listedByClient.join('/'),
        evaluations: answers.length,
        wrong: wrong.length,
        ...(wrong.length ? { firstWrong: JSON.stringify(wrong[0]) } : {}),
        invariantBreaks: breaks.length,
        ...(breaks.length ? { firstBreak: JSON.stringify(breaks[0]!.slice(0, 200)) } : {}),
        restAfterMs: MANY_TABS_REST_MS,
        evaluateAllMs: round(evalMs, 0),
        relayBeforeMb: round(before, 1),
        openTabsS: round(openMs / 1000, 1),
        browserPssMb: round(browserPss, 0),
      },
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await browser.close();
    await pages.close();
  }
}
