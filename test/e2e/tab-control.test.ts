// Who controls a tab, through the control API on a managed profile: two agent sessions (one
// holds the tab, the other is refused changes but may read), and a hand-over to the person
// (every change refused with the reason until it comes back; waiting for it is bounded).

import { describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, useAgentDriver, type AgentDriver } from '../helpers/agent-drivers';
import { until } from '../helpers/waits';

describe('who controls a tab', () => {
  const ctx = useAgentDriver(managedDriver);
  const api = (method: string, route: string, body?: unknown) => ctx.d.api(method, route, body);
  const log = () => ctx.d.inPage<string>('document.getElementById("log").textContent');
  const refOf = (snap: { refs: Record<string, { role: string; name: string }> }, name: string) =>
    Object.entries(snap.refs).find(([, r]) => r.name === name)![0];

  it('holds a tab for the session that changes it: another session may read, not change, until it is released', async () => {
    const targetId = ctx.d.targetId;
    await api('POST', '/navigate', { url: ctx.pages.url('/replace'), targetId, session: 'alpha' });
    const snap = (await api('GET', `/snapshot?targetId=${targetId}`)).body;
    const save = refOf(snap, 'Save');
    expect((await api('POST', '/act', { kind: 'click', ref: save, targetId, session: 'alpha' })).status).toBe(200);
    expect(await log()).toBe('log: victim');

    const refused = await api('POST', '/act', { kind: 'click', ref: save, targetId, session: 'beta' });
    expect(refused.status).toBe(423);
    expect(refused.body.error).toMatchObject({
      code: 'tab_held',
      message: expect.stringContaining('held by the agent session "alpha"'),
    });
    expect(await log()).toBe('log: victim');
    const anonymous = await api('POST', '/navigate', { url: ctx.pages.url('/'), targetId });
    expect(anonymous.body.error?.code).toBe('tab_held');
    expect(
      (
        await ctx.d.server.api('GET', `/snapshot?targetId=${targetId}`, {
          profile: ctx.d.profile,
          headers: { 'X-Clawd-Session': 'beta' },
        })
      ).status,
    ).toBe(200);
    const tabs = (await api('GET', '/tabs')).body.tabs as Array<{ targetId: string; holder?: unknown }>;
    expect(tabs.find((t) => t.targetId === targetId)?.holder).toEqual({ kind: 'agent', session: 'alpha' });

    // Closing the tab is a change too; a tab of its own the session may close.
    const other = (await api('POST', '/tabs/open', { url: ctx.pages.url('/') })).body.targetId as string;
    await api('POST', '/navigate', { url: ctx.pages.url('/form'), targetId: other, session: 'alpha' });
    expect(
      (
        await ctx.d.server.api('DELETE', `/tabs/${other}`, {
          profile: ctx.d.profile,
          headers: { 'X-Clawd-Session': 'beta' },
        })
      ).body.error?.code,
    ).toBe('tab_held');
    expect((await api('DELETE', `/tabs/${other}?session=alpha`)).status).toBe(200);

    expect((await api('DELETE', `/tabs/${targetId}/hold?session=alpha`)).body).toMatchObject({ released: true });
    const now = await ctx.d.server.api('POST', '/act', {
      profile: ctx.d.profile,
      body: { kind: 'click', ref: save, targetId },
      headers: { 'X-Clawd-Session': 'beta' },
    });
    expect(now.status).toBe(200);
    expect(await log()).toBe('log: victim victim');
    await api('DELETE', `/tabs/${targetId}/hold`);
  });

  it('hands the tab to the person: changes are refused with the reason until it is given back, and the wait says so', async () => {
    const targetId = ctx.d.targetId;
    await api('POST', '/navigate', { url: ctx.pages.url('/replace'), targetId });
    const save = refOf((await api('GET', `/snapshot?targetId=${targetId}`)).body, 'Save');
    expect((await api('POST', '/handoff', { targetId, reason: 'Log in, then press Done' })).body).toMatchObject({
      handedOff: true,
      targetId,
      viewUrl: expect.stringMatching(
        new RegExp(`^http://127\\.0\\.0\\.1:\\d+/view#code=[\\w-]+&profile=clawd&target=${targetId}$`),
      ),
    });
    const refused = await api('POST', '/act', { kind: 'click', ref: save, targetId });
    expect(refused.status).toBe(423);
    expect(refused.body.error).toMatchObject({
      code: 'user_in_control',
      message: expect.stringContaining('"Log in, then press Done"'),
    });
    expect(await log()).toBe('log:');
    expect(
      ((await api('GET', '/tabs')).body.tabs as Array<{ targetId: string; holder?: { kind: string } }>).find(
        (t) => t.targetId === targetId,
      )?.holder?.kind,
    ).toBe('person');

    const waiting = api('GET', `/handoff/wait?targetId=${targetId}&timeoutMs=20000`);
    expect((await api('DELETE', `/handoff?targetId=${targetId}`)).body).toMatchObject({ ended: true });
    expect((await waiting).body).toMatchObject({ returned: 'agent', url: ctx.pages.url('/replace'), title: 'replace' });
    expect((await api('POST', '/act', { kind: 'click', ref: save, targetId })).status).toBe(200);

    await api('POST', '/handoff', { targetId, reason: 'solve the puzzle', timeoutMs: 1_000 });
    expect((await api('GET', `/handoff/wait?targetId=${targetId}`)).body).toMatchObject({ returned: 'timeout' });
    expect((await api('POST', '/act', { kind: 'click', ref: save, targetId })).status).toBe(200);
    expect((await api('POST', '/handoff', { targetId })).body.error).toMatchObject({
      code: 'bad_request',
      message: 'reason is required',
    });
  });

  it(
    'clawd handoff --wait exits 0 when the tab is given back, 1 when the wait runs out',
    { timeout: 60_000 },
    async () => {
      const targetId = ctx.d.targetId;
      const waiting = ctx.d.server.cli(
        ['handoff', 'Log', 'in', '--wait', '--target', targetId, '--profile', ctx.d.profile],
        30_000,
      );
      await until('the hand-over', async () =>
        ((await api('GET', '/tabs')).body.tabs as Array<{ holder?: { kind: string } }>).some(
          (t) => t.holder?.kind === 'person',
        ),
      );
      await api('DELETE', `/handoff?targetId=${targetId}`);
      const back = await waiting;
      expect(back.code, back.stderr).toBe(0);
      // (agent), or "not handed over" when the tab was back before the CLI's wait began.
      expect(back.stdout).toMatch(/^the tab is back \((agent|it was not handed over)\): .*http/);
      const late = await ctx.d.server.cli(
        ['handoff', 'nobody', 'comes', '--wait', '--timeout', '1000', '--target', targetId, '--profile', ctx.d.profile],
        30_000,
      );
      expect(late.code).toBe(1);
      expect(late.stdout).toBe('the person did not give the tab back in time\n');
      // The link for the person came first, as progress.
      expect(late.stderr).toMatch(
        /^handed \w+ to the person: "nobody comes"\. This link lets them watch the tab .*\/view#code=/,
      );
    },
  );

  it(
    'tells GET /events subscribers about holds, hand-overs, tabs and navigations, as they happen',
    { timeout: 60_000 },
    async () => {
      const targetId = ctx.d.targetId;
      await api('DELETE', `/handoff?targetId=${targetId}`); // whatever an earlier test left
      const { seen, close } = await subscribe(ctx.d);
      try {
        await until('the stream to be ready', () => seen.some((e) => e.event === 'ready'));
        await api('POST', '/navigate', { url: ctx.pages.url('/'), targetId, session: 'gamma' });
        await api('POST', '/handoff', { targetId, reason: 'check the page' });
        await api('DELETE', `/handoff?targetId=${targetId}`);
        await until('the events', () => seen.filter((e) => e.event === 'handoff').length === 2);
        const mine = seen
          .filter((e) => e.event !== 'ready' && e.data.targetId === targetId)
          .map((e) => [
            e.event,
            e.data.kind ?? e.data.state,
            e.data.session ?? e.data.reason ?? e.data.by ?? e.data.url,
          ]);
        expect(mine).toEqual([
          ['hold', 'taken', 'gamma'],
          ['tab', 'navigated', ctx.pages.url('/')],
          ['action', 'navigate', 'gamma'], // the action log's entry, as it is recorded
          ['hold', 'released', 'gamma'],
          ['handoff', 'started', 'check the page'],
          ['action', 'handoff', undefined],
          ['handoff', 'ended', 'agent'],
          ['action', 'handoffEnd', undefined],
        ]);
        const unauthorized = await fetch(`${ctx.d.server.controlUrl}/events`);
        expect(unauthorized.status).toBe(401);
      } finally {
        await close();
      }
    },
  );
});

describe("events of the person's own tabs", () => {
  const ctx = useAgentDriver(extensionDriver);

  it("tells GET /events when a tab of the person's browser is attached and detached", { timeout: 60_000 }, async () => {
    const { seen, close } = await subscribe(ctx.d);
    try {
      await until('the stream to be ready', () => seen.some((e) => e.event === 'ready'));
      const relay = ctx.d.server.server.relay;
      const opened = await (
        await fetch(`${relay.url}/json/new?url=about:blank`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${ctx.d.server.token}` },
        })
      ).json();
      await until('the attach event', () =>
        seen.some((e) => e.event === 'tab' && e.data.state === 'attached' && e.data.targetId === opened.id),
      );
      await fetch(`${relay.url}/json/close/${opened.id}`, {
        headers: { Authorization: `Bearer ${ctx.d.server.token}` },
      });
      await until('the detach event', () =>
        seen.some((e) => e.event === 'tab' && e.data.state === 'detached' && e.data.targetId === opened.id),
      );
      expect(seen.find((e) => e.data.targetId === opened.id)?.data).toMatchObject({
        profile: 'chrome',
        state: 'attached',
      });
    } finally {
      await close();
    }
  });

  it(
    "shows a hand-over on the tab's badge; a toolbar click gives the tab back and keeps it attached",
    { timeout: 60_000 },
    async () => {
      const [browser, tab] = [ctx.d.browser!, ctx.d.tab!];
      const tabId = await browser.tabIdOf(ctx.d.targetId);
      await until('badge ON', async () => (await browser.badge(tabId)).text === 'ON');
      expect(
        (await ctx.d.api('POST', '/handoff', { targetId: ctx.d.targetId, reason: 'Solve the CAPTCHA' })).status,
      ).toBe(200);
      await until('badge YOU', async () => (await browser.badge(tabId)).text === 'YOU');
      expect((await browser.badge(tabId)).title).toContain('Solve the CAPTCHA');
      const waiting = ctx.d.api('GET', `/handoff/wait?targetId=${ctx.d.targetId}&timeoutMs=20000`);
      await browser.clickToolbar(tab);
      expect((await waiting).body).toMatchObject({ returned: 'person' });
      await until('badge ON again', async () => (await browser.badge(tabId)).text === 'ON');
      expect(ctx.d.server.server.relay.switchboard.tabs().some((t) => t.targetId === ctx.d.targetId)).toBe(true);

      // Given back from the live view (or by the agent), the badge follows too.
      await ctx.d.api('POST', '/handoff', { targetId: ctx.d.targetId, reason: 'Log in' });
      await until('badge YOU', async () => (await browser.badge(tabId)).text === 'YOU');
      await ctx.d.api('DELETE', `/handoff?targetId=${ctx.d.targetId}`);
      await until('badge ON again', async () => (await browser.badge(tabId)).text === 'ON');
    },
  );
});

/** Reads GET /events of the driver's server as it comes: every event, with its JSON data. */
async function subscribe(
  d: AgentDriver,
): Promise<{ seen: Array<{ event: string; data: any }>; close(): Promise<void> }> {
  const response = await fetch(`${d.server.controlUrl}/events?profile=${d.profile}`, {
    headers: { Authorization: `Bearer ${d.server.token}` },
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const seen: Array<{ event: string; data: any }> = [];
  const reader = response.body!.getReader();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += Buffer.from(value).toString();
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = block.match(/^event: (.*)$/m)?.[1];
        const data = block.match(/^data: (.*)$/m)?.[1];
        if (event && data) seen.push({ event, data: JSON.parse(data) });
      }
    }
  })().catch(() => {});
  return {
    seen,
    async close() {
      await reader.cancel().catch(() => {});
      await reading;
    },
  };
}
