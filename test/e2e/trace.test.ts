// A Playwright trace of an agent's work, as a developer opens it: started, three agent calls,
// stopped; the zip is one Playwright's trace viewer reads (trace.trace lists the calls by the
// names the agent knows, e.g. click e3 button "Go"; trace.network holds the page's requests),
// saved private under the home. On a managed profile, a person's attached tab, a remote browser
// and a Grid's.

import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { driversToRun, EVERY_DRIVER, useAgentDriver } from '../helpers/agent-drivers';
import { readZip } from '../helpers/zip';

describe.each(driversToRun(EVERY_DRIVER))('a trace of a tab on a %s profile', (_kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);
  const api = <T = any>(method: string, route: string, body?: unknown) => ctx.d.api<T>(method, route, body);

  it(
    'records the agent calls by name, with network, into a zip the trace viewer reads',
    { timeout: 90_000 },
    async () => {
      const targetId = ctx.d.targetId;
      const started = await api('POST', '/trace/start', { targetId });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(started.body).toEqual({ action: 'start', targetId });
      expect(await api('POST', '/trace/start', { targetId })).toMatchObject({
        status: 409,
        body: { error: { code: 'trace_running' } },
      });

      expect((await api('POST', '/navigate', { url: ctx.pages.url('/form'), targetId })).status).toBe(200);
      const snap = (await api('GET', `/snapshot?targetId=${targetId}`)).body as {
        refs: Record<string, { role: string; name: string }>;
      };
      const ref = (role: string, name: string) =>
        Object.entries(snap.refs).find(([, r]) => r.role === role && r.name === name)![0];
      expect(
        (await api('POST', '/act', { kind: 'type', ref: ref('textbox', 'Name'), text: 'Ada', targetId })).status,
      ).toBe(200);
      const go = ref('button', 'Go');
      expect((await api('POST', '/act', { kind: 'click', ref: go, targetId })).status).toBe(200);

      const stopped = await api('POST', '/trace/stop', { targetId });
      expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
      expect(stopped.body).toMatchObject({
        action: 'stop',
        targetId,
        path: expect.stringMatching(/\/traces\/.+\.zip$/),
        actions: 4,
      });
      const file = stopped.body.path as string;
      expect(file.startsWith(ctx.d.server.home)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(file).size).toBe(stopped.body.bytes);

      const zip = readZip(file);
      const events = zip
        .get('trace.trace')!
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, any>);
      // Playwright's trace format: its header first, then the calls.
      expect(events[0]).toMatchObject({
        type: 'context-options',
        version: expect.any(Number),
        browserName: 'chromium',
      });
      const titles = events.filter((e) => e.type === 'before').map((e) => e.title as string);
      expect(titles).toEqual(
        expect.arrayContaining([
          `navigate ${ctx.pages.url('/form')}`,
          'snapshot',
          expect.stringMatching(/^type e\d+ textbox "Name"$/),
          `click ${go} button "Go"`,
        ]),
      );
      const network = zip
        .get('trace.network')!
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, any>);
      expect(
        network.some((e) => e.type === 'resource-snapshot' && String(e.snapshot?.request?.url).endsWith('/form')),
      ).toBe(true);

      expect(await api('POST', '/trace/stop', { targetId })).toMatchObject({
        status: 409,
        body: { error: { code: 'no_trace' } },
      });
      expect((await api('POST', '/trace/pause', { targetId })).status).toBe(400);
    },
  );
});
