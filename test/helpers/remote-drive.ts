// What a remote profile on any CDP endpoint must do, for the tests that make one: created on the
// URL, it lists, opens, focuses and closes tabs, and an agent navigates, snapshots and clicks —
// the click read back over a CDP connection of the test's own, not through clawd.

import { expect } from 'vitest';
import { CdpClient } from './cdp-client';
import type { PageServer } from './pages';
import type { TestServer } from './server';

/** Creates a remote profile on `cdpUrl`; then tabs, navigate, snapshot, click and close through it. */
export async function drivesThroughRemote(
  t: TestServer,
  pages: PageServer,
  profile: string,
  cdpUrl: string,
): Promise<void> {
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    t.api<T>(method, route, { profile, ...(body !== undefined ? { body } : {}) });
  const created = await t.api('POST', '/profiles/create', { person: true, body: { name: profile, cdpUrl } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ driver: 'remote', running: true, browser: expect.stringMatching(/^Chrome\//) });

  const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/form') });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const { targetId } = opened.body;
  const listed = async () =>
    (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs.map((tab) => tab.targetId);
  expect(await listed()).toContain(targetId);
  expect((await api('POST', '/tabs/focus', { targetId })).status).toBe(200);

  const loaded = await api<{ snapshot: { refs: Record<string, { name: string }> } }>('POST', '/navigate', {
    url: pages.url('/form'),
    targetId,
    snapshot: 'full',
  });
  expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
  const ref = Object.entries(loaded.body.snapshot.refs).find(([, r]) => r.name === 'Go')![0];
  const clicked = await api('POST', '/act', { kind: 'click', targetId, ref });
  expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
  // The page really changed in the browser: read back over a CDP connection of the test's own.
  const reader = await CdpClient.connect(cdpUrl);
  try {
    const { sessionId } = await reader.send('Target.attachToTarget', { targetId, flatten: true });
    const { result } = await reader.send(
      'Runtime.evaluate',
      { expression: 'document.getElementById("out").textContent', returnByValue: true },
      sessionId,
    );
    expect(result.value).toBe('clicked ');
  } finally {
    await reader.close();
  }

  expect((await t.api('DELETE', `/tabs/${targetId}`, { profile })).status).toBe(200);
  expect(await listed()).not.toContain(targetId);
}
