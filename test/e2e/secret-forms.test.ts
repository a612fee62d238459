// A secret typed into a site never comes back to the agent, however it asks: a network body cut
// at every length around the secret, a body that carries it JSON-escaped, URL-encoded or in
// base64, a snapshot cut inside its field, `find` and `content`'s match one character at a time,
// the network list's URL filter; the site it was typed into runs no evaluate or wait fn of the
// agent's (relay/agent/secret-pages.ts), another site's evaluate that reads it back, as is or
// encoded, is masked, and a secret is not typed where the agent's code ran; no key splits the field
// it went into (relay/agent/actions/secret-fields.ts). Masking happens before any cut, search or count
// (relay/operations/secret-use.ts). On a managed profile and on the person's tab.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { CLAWD_BIN, runCli } from '../helpers/cli';

const SECRET = 'Zq7-hunter2-Secret-9';
/** What no answer may hold: the secret's first four characters are enough to say it is there. */
const LEAK = SECRET.slice(0, 4);

/** A site that echoes what it is sent in every form an agent could read it back in. */
async function startEchoSite(): Promise<{ url: string; close(): void }> {
  let last = '';
  const echo = (code: string) =>
    JSON.stringify({
      padding: 'x'.repeat(37),
      code,
      quoted: `"${code}"`,
      url: encodeURIComponent(code),
      base64: Buffer.from(`user:${code}`).toString('base64'),
    });
  const server = http.createServer((req, res) => {
    if (req.url === '/last') return void res.writeHead(200, { 'content-type': 'application/json' }).end(echo(last));
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        last = new URLSearchParams(body).get('code') ?? '';
        res.writeHead(200, { 'content-type': 'application/json' }).end(echo(last));
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>echo</title>
      <input id="code" aria-label="Code">
      <button onclick="fetch('/save', { method: 'POST', body: 'code=' + encodeURIComponent(document.getElementById('code').value) }).then(r => r.json()).then(j => { document.getElementById('said').textContent = 'Saved: ' + j.code; fetch('/echo?code=' + j.code) })">Save</button>
      <p id="said"></p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each([
  ['managed', managedDriver],
  ['extension', extensionDriver],
] as const)('a secret on a %s profile', (kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);
  const api = <T = any>(method: string, route: string, body?: unknown) => ctx.d.api<T>(method, route, body);
  const noLeak = (answer: { status: number; body: unknown }, what: string) => {
    const text = JSON.stringify(answer.body);
    expect(text, `${what}: ${text.slice(0, 300)}`).not.toContain(LEAK);
    // Nor in anything that decodes from base64 there.
    for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? [])
      for (const alphabet of ['base64', 'base64url'] as const)
        expect(Buffer.from(run, alphabet).toString('latin1'), `${what}: ${run}`).not.toContain(LEAK);
  };

  /** The secret kept for the profile, the echo site loaded: its elements' refs by name. */
  const onEchoSite = async (site: { url: string }) => {
    const home = ['--home', ctx.d.server.home, '--profile', ctx.d.profile];
    const set = await runCli(['secret-set', 'CODE', ...home], {}, 15_000, CLAWD_BIN, `${SECRET}\n`);
    expect(set.code, set.stderr).toBe(0);
    const loaded = await api('POST', '/navigate', { url: site.url, targetId: ctx.d.targetId, snapshot: 'full' });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const refs = loaded.body.snapshot.refs as Record<string, { name: string }>;
    return (name: string) => Object.entries(refs).find(([, r]) => r.name === name)![0];
  };

  it('keeps the field a secret went into whole: no key moves into it or cuts it until it is replaced', async () => {
    const site = await startEchoSite();
    try {
      const refOf = await onEchoSite(site);
      const code = refOf('Code');
      const act = (body: Record<string, unknown>) =>
        api('POST', '/act', { targetId: ctx.d.targetId, snapshot: 'none', ...body });
      expect((await act({ kind: 'type', ref: code, text: '{{secret:CODE}}' })).status).toBe(200);
      // Home then a character would show `Zq7-|hunter2…` in the next snapshot: refused, on the
      // field or on the page while it has focus, and so is text typed key by key into it.
      const save = refOf('Save');
      for (const body of [
        { kind: 'press', key: 'Home', ref: code },
        { kind: 'press', key: 'ArrowLeft' },
        { kind: 'press', key: 'Backspace' },
        { kind: 'type', ref: code, text: '|', slowly: true },
        // A selection to move, and text dragged out of it or onto it.
        { kind: 'click', ref: code, modifiers: ['Shift'] },
        { kind: 'drag', startRef: code, endRef: save },
        { kind: 'drag', startRef: save, endRef: code },
      ]) {
        const refused = await act(body);
        expect(refused.status, JSON.stringify(body)).toBe(403);
        expect(refused.body.error.code).toBe('secret_refused');
      }
      expect(await ctx.d.inPage<string>(`document.getElementById('code').value`)).toBe(SECRET);
      noLeak(await api('GET', `/snapshot?targetId=${ctx.d.targetId}`), 'the snapshot after');
      // Keys that leave it whole go; replaced whole, it is the agent's field again.
      expect((await act({ kind: 'press', key: 'Tab', ref: code })).status).toBe(200);
      expect((await act({ kind: 'type', ref: code, text: 'plain words' })).status).toBe(200);
      expect((await act({ kind: 'press', key: 'Home', ref: code })).status).toBe(200);
    } finally {
      site.close();
    }
  });

  it('never comes back through a cut, a search, a count, an encoding or an evaluate', { timeout: 90_000 }, async () => {
    const site = await startEchoSite();
    try {
      const refOf = await onEchoSite(site);
      const act = (body: Record<string, unknown>) => api('POST', '/act', { targetId: ctx.d.targetId, ...body });
      expect((await act({ kind: 'type', ref: refOf('Code'), text: '{{secret:CODE}}', snapshot: 'none' })).status).toBe(
        200,
      );
      expect((await act({ kind: 'click', ref: refOf('Save'), snapshot: 'none' })).status).toBe(200);
      await expect
        .poll(() => ctx.d.inPage<string>(`document.getElementById('said').textContent`))
        .toBe(`Saved: ${SECRET}`);

      // The network: the POST's body and its answer, cut at every length around the secret.
      const listed = await api('GET', `/network?targetId=${ctx.d.targetId}`);
      const post = (listed.body.requests as Array<{ id: string; method: string; url: string }>).find(
        (r) => r.method === 'POST',
      )!;
      expect(post, JSON.stringify(listed.body)).toBeDefined();
      const whole = await api('GET', `/network/${post.id}?targetId=${ctx.d.targetId}`);
      noLeak(whole, 'the whole request');
      expect(whole.body.body).toContain('"code":"••••"');
      expect(whole.body.body).toContain('"base64":"');
      const at = `{"padding":"${'x'.repeat(37)}","code":"`.length;
      for (let maxChars = at + 1; maxChars < at + SECRET.length + 1; maxChars++)
        noLeak(
          await api('GET', `/network/${post.id}?targetId=${ctx.d.targetId}&maxChars=${maxChars}`),
          `maxChars=${maxChars}`,
        );
      // The URL filter matches what the agent may read: a secret in a URL counts nothing.
      const filtered = await api('GET', `/network?targetId=${ctx.d.targetId}&filter=${LEAK}`);
      expect(filtered.body.requests, JSON.stringify(filtered.body)).toEqual([]);
      noLeak(await api('GET', `/network?targetId=${ctx.d.targetId}&filter=echo`), 'the echo request listed');

      // The page: find and content's match one piece at a time count nothing; a snapshot cut
      // anywhere inside the field's line shows no beginning of it.
      for (let n = 1; n <= 4; n++) {
        const found = await api('GET', `/find?targetId=${ctx.d.targetId}&q=${encodeURIComponent(SECRET.slice(0, n))}`);
        noLeak(found, `find ${SECRET.slice(0, n)}`);
        expect(found.body.text ?? '', `find ${SECRET.slice(0, n)}`).not.toMatch(/Code|Saved/);
        const content = await api(
          'GET',
          `/content?targetId=${ctx.d.targetId}&format=text&match=${encodeURIComponent(SECRET.slice(0, n))}`,
        );
        expect(content.body.matches ?? 0, `content match ${SECRET.slice(0, n)}`).toBe(0);
      }
      noLeak(await api('GET', `/content?targetId=${ctx.d.targetId}&format=text`), 'content');
      const snapshot = await api('GET', `/snapshot?targetId=${ctx.d.targetId}`);
      noLeak(snapshot, 'snapshot');
      const text = snapshot.body.snapshot as string;
      const line = text.indexOf('textbox "Code"');
      for (let maxChars = line; maxChars < line + 60; maxChars += 3)
        noLeak(await api('GET', `/snapshot?targetId=${ctx.d.targetId}&maxChars=${maxChars}`), `snapshot ${maxChars}`);

      // The site the secret was typed into runs none of the agent's code: it could hand the
      // secret back reversed or a piece at a time (a wait fn, or a wait on a field's value, says
      // one bit a call) — in that page, and in a later page of the site that kept it.
      const refused = async () => {
        for (const body of [
          { kind: 'evaluate', fn: "() => [...document.getElementById('code').value].reverse().join('')" },
          { kind: 'evaluate', fn: "() => document.getElementById('code').value.slice(1, 3)" },
          { kind: 'wait', fn: "() => document.getElementById('code').value[0] === 'Z'", timeoutMs: 2_000 },
          { kind: 'wait', selector: '#code[value^="Z"]', timeoutMs: 2_000 },
        ]) {
          const read = await act(body);
          noLeak(read, JSON.stringify(body));
          expect(read.body.error?.code, JSON.stringify(read.body)).toBe('evaluate_disabled');
          // The person's own browser runs no agent's code unless the person allows it, secret or not.
          if (kind === 'managed' || body.selector) expect(read.body.error.message).toMatch(/a secret the agent typed/);
        }
      };
      await refused();
      const sameSite = await api('POST', '/navigate', { url: `${site.url}?again`, targetId: ctx.d.targetId });
      expect(sameSite.status, JSON.stringify(sameSite.body)).toBe(200);
      await refused();
      if (kind === 'managed') {
        // Another site: the agent's code runs, and what it brings back (the server's echo of the
        // secret, as is and encoded) is masked.
        const elsewhere = site.url.replace('127.0.0.1', 'localhost');
        const other = await api('POST', '/navigate', { url: elsewhere, targetId: ctx.d.targetId, snapshot: 'full' });
        expect(other.status, JSON.stringify(other.body)).toBe(200);
        for (const fn of [
          "() => fetch('/last').then((r) => r.text())",
          "() => fetch('/last').then((r) => r.json()).then((j) => btoa('ab' + j.code))",
          "() => fetch('/last').then((r) => r.json()).then((j) => encodeURIComponent(j.code + ' '))",
        ]) {
          const read = await act({ kind: 'evaluate', fn });
          expect(read.status, JSON.stringify(read.body)).toBe(200);
          noLeak(read, fn);
          expect(JSON.stringify(read.body.result), fn).toContain('••••');
        }
        // The agent's code ran on that site: a secret is not typed there (a listener it left
        // could copy it), and nothing is typed.
        const field = Object.entries(other.body.snapshot.refs as Record<string, { name: string }>).find(
          ([, r]) => r.name === 'Code',
        )![0];
        const typed = await act({ kind: 'type', ref: field, text: '{{secret:CODE}}', snapshot: 'none' });
        expect(typed.body.error?.code, JSON.stringify(typed.body)).toBe('secret_refused');
        expect(await ctx.d.inPage<string>(`document.getElementById('code').value`)).toBe('');
      }
    } finally {
      site.close();
    }
  });
});
