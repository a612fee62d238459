// A second factor the agent types and never sees: the person keeps a TOTP seed (`clawd secret-set
// OTP --totp`, a bare base32 seed or an otpauth:// URI), the agent types `{{totp:OTP}}`, and the
// site receives exactly the code a reference TOTP implementation (this file's own, RFC 6238)
// gives for that moment. Neither the seed nor the code is in any answer (the snapshot of the
// field, the page's echo, the network body), the action log (over HTTP and on disk) or the trace's
// action names; a bad seed is refused with nothing kept. On a managed profile and on the person's tab.

import { createHmac } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { CLAWD_BIN, runCli } from '../helpers/cli';
import { readZip } from '../helpers/zip';

/** The seed of the test, as a site shows it under its QR code (lower case, in groups of four). */
const SEED = 'JBSW Y3DP EHPK 3PXP KR3X GZLT MNUW G5LD';
const SEED_BASE32 = SEED.replace(/ /g, '');

/** The reference: RFC 6238 written out here, apart from the relay's (base32 by bits, HMAC, dynamic truncation). */
function referenceCode(seed: string, atMs: number, algorithm = 'sha1', digits = 6, period = 30): string {
  const bits = [...seed.toUpperCase()]
    .map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0'))
    .join('');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / period)));
  const mac = createHmac(algorithm, key).update(counter).digest();
  const at = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(at) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}

/** A sign-in's second step: it keeps each code it is sent and echoes it back, as is and in base64. */
async function startVerifySite(): Promise<{ url: string; received: string[]; close(): void }> {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const code = new URLSearchParams(body).get('code') ?? '';
        received.push(code);
        const echo = { code, base64: Buffer.from(`otp:${code}`).toString('base64') };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echo));
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>verify</title>
      <input id="otp" aria-label="One-time code" inputmode="numeric" autocomplete="one-time-code">
      <button onclick="fetch('/verify', { method: 'POST', body: 'code=' + document.getElementById('otp').value }).then(r => r.json()).then(j => { document.getElementById('said').textContent = 'Checked ' + j.code })">Verify</button>
      <p id="said"></p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each([
  // The person's kinds of seed: a bare one as the site shows it, the QR code's URI with its own algorithm and digits.
  ['managed', managedDriver, SEED.toLowerCase(), { algorithm: 'sha1', digits: 6 }],
  [
    'extension',
    extensionDriver,
    `otpauth://totp/Verify:ada@example.com?secret=${SEED_BASE32}&issuer=Verify&algorithm=SHA256&digits=8&period=30`,
    { algorithm: 'sha256', digits: 8 },
  ],
] as const)('a TOTP code on a %s profile', (_kind, makeDriver, given, how) => {
  const ctx = useAgentDriver(makeDriver);
  const api = <T = any>(method: string, route: string, body?: unknown) => ctx.d.api<T>(method, route, body);
  const codeAt = (atMs: number) => referenceCode(SEED_BASE32, atMs, how.algorithm, how.digits);
  /** Every code of the periods from `from` to `to` (the call may straddle a boundary: each is one it could have typed). */
  const codesBetween = (from: number, to: number) => {
    const codes = new Set<string>();
    for (let at = from - (from % 30_000); at <= to; at += 30_000) codes.add(codeAt(at));
    codes.add(codeAt(to));
    return [...codes];
  };
  /** Neither the seed, in any spelling, nor a code (as is, in a longer number, in base64) is in `text`. */
  const noLeak = (text: string, codes: string[], what: string) => {
    for (const seed of [SEED_BASE32, SEED_BASE32.toLowerCase(), SEED, SEED.toLowerCase()])
      expect(text, `${what}: the seed`).not.toContain(seed);
    for (const code of codes) {
      expect(text, `${what}: ${text.slice(0, 400)}`).not.toContain(code);
      for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? [])
        expect(Buffer.from(run, 'base64').toString('latin1'), `${what}: ${run}`).not.toContain(code);
    }
  };

  it(
    'types the code the reference gives for that moment; no answer, log or trace shows it or the seed',
    {
      timeout: 90_000,
    },
    async () => {
      const site = await startVerifySite();
      try {
        const home = ['--home', ctx.d.server.home, '--profile', ctx.d.profile];
        // A bad seed is refused, saying what is wrong, and nothing is kept.
        const bad = await runCli(
          ['secret-set', 'OTP', '--totp', ...home],
          {},
          15_000,
          CLAWD_BIN,
          'JBSW Y3DP 0HPK 3PXP\n',
        );
        expect(bad.code, bad.stderr).toBe(1);
        expect(bad.stderr).toContain('not a TOTP seed: character 9 of the seed (spaces not counted) is not base32');
        expect((await runCli(['secrets', ...home])).stdout.trim()).toBe('no secrets for profile ' + ctx.d.profile);
        const set = await runCli(['secret-set', 'OTP', '--totp', ...home], {}, 15_000, CLAWD_BIN, `${given}\n`);
        expect(set.code, set.stderr).toBe(0);
        expect(set.stdout).toContain('agents type {{totp:OTP}}');
        noLeak(set.stdout + set.stderr, [], 'secret-set');
        expect((await runCli(['secrets', ...home])).stdout.trim()).toBe('OTP (TOTP: {{totp:OTP}})');

        const loaded = await api('POST', '/navigate', { url: site.url, targetId: ctx.d.targetId, snapshot: 'full' });
        expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
        const refs = loaded.body.snapshot.refs as Record<string, { name: string }>;
        const refOf = (name: string) => Object.entries(refs).find(([, r]) => r.name === name)![0];
        const act = (body: Record<string, unknown>) => api('POST', '/act', { targetId: ctx.d.targetId, ...body });
        expect((await api('POST', '/trace/start', { targetId: ctx.d.targetId })).status).toBe(200);

        const before = Date.now();
        const typed = await act({ kind: 'type', ref: refOf('One-time code'), text: '{{totp:OTP}}', snapshot: 'full' });
        const after = Date.now();
        expect(typed.status, JSON.stringify(typed.body)).toBe(200);
        const possible = codesBetween(before, after);
        const inField = await ctx.d.inPage<string>(`document.getElementById('otp').value`);
        expect(possible, `the field holds ${inField.length} characters`).toContain(inField);
        expect(typed.body.snapshot.snapshot).toContain('textbox "One-time code"');
        expect(typed.body.snapshot.snapshot).toContain('"••••"');

        const clicked = await act({ kind: 'click', ref: refOf('Verify'), snapshot: 'full' });
        expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
        await expect.poll(() => site.received.length).toBe(1);
        expect(site.received[0]).toBe(inField); // the site got exactly the code of that moment
        await expect
          .poll(() => ctx.d.inPage<string>(`document.getElementById('said').textContent`))
          .toBe(`Checked ${inField}`);
        const stopped = await api<{ path: string }>('POST', '/trace/stop', { targetId: ctx.d.targetId });
        expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);

        // Every answer: the action's, the page as it is, the network's body of the request and its echo.
        const codes = [inField, ...possible];
        noLeak(JSON.stringify(typed.body), codes, 'the type answer');
        noLeak(JSON.stringify(clicked.body), codes, 'the click answer');
        const snapshot = await api('GET', `/snapshot?targetId=${ctx.d.targetId}`);
        noLeak(JSON.stringify(snapshot.body), codes, 'a snapshot');
        expect(snapshot.body.snapshot).toContain('Checked ••••');
        noLeak(
          JSON.stringify((await api('GET', `/content?targetId=${ctx.d.targetId}&format=text`)).body),
          codes,
          'content',
        );
        const listed = await api('GET', `/network?targetId=${ctx.d.targetId}`);
        const post = (listed.body.requests as Array<{ id: string; method: string }>).find((r) => r.method === 'POST')!;
        expect(post, JSON.stringify(listed.body)).toBeDefined();
        const request = await api('GET', `/network/${post.id}?targetId=${ctx.d.targetId}`);
        noLeak(JSON.stringify(request.body), codes, 'the network request');
        expect(JSON.stringify(request.body)).toContain('code=••••');
        const found = await api('GET', `/find?targetId=${ctx.d.targetId}&q=${inField}`);
        expect(found.body.matches ?? 0, JSON.stringify(found.body)).toBe(0);

        // The action log (over HTTP, and its files) keeps the mark, and the trace's action names too.
        const log = JSON.stringify((await api('GET', '/log?limit=50')).body);
        noLeak(log, codes, 'the action log');
        expect(log).toContain('"length":12'); // the mark's length, not the code's
        const logDir = path.join(ctx.d.server.home, 'log');
        for (const file of await readdir(logDir))
          noLeak(await readFile(path.join(logDir, file), 'utf8'), codes, `log file ${file}`);
        const trace = readZip(stopped.body.path);
        const names = trace
          .get('trace.trace')!
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { type: string; title?: string; apiName?: string; method?: string })
          .filter((event) => event.type === 'before')
          .map((event) => [event.title, event.apiName, event.method].filter(Boolean).join(' '))
          .join('\n');
        expect(names, names).toContain('type e');
        noLeak(names, codes, 'the trace’s action names');
        // The seed is never typed: the whole trace is without it.
        for (const [entry, data] of trace) noLeak(data.toString('latin1'), [], `trace ${entry}`);

        // fill puts a code in too; a name that is no TOTP seed is refused, saying so, and nothing is typed.
        const fillFrom = Date.now();
        const filled = await act({ kind: 'fill', fields: [{ ref: refOf('One-time code'), value: '{{totp:OTP}}' }] });
        expect(filled.status, JSON.stringify(filled.body)).toBe(200);
        expect(codesBetween(fillFrom, Date.now())).toContain(
          await ctx.d.inPage<string>(`document.getElementById('otp').value`),
        );
        // Digits typed beside the code do not unmask it.
        const beside = await act({
          kind: 'type',
          ref: refOf('One-time code'),
          text: '7{{totp:OTP}}1',
          snapshot: 'full',
        });
        expect(beside.status, JSON.stringify(beside.body)).toBe(200);
        noLeak(JSON.stringify(beside.body), codesBetween(fillFrom, Date.now()), 'a code typed between digits');
        expect(beside.body.snapshot.snapshot).toContain('"7••••1"');
        await ctx.d.inPage(`document.getElementById('otp').value = ''`);
        const unknown = await act({ kind: 'type', ref: refOf('One-time code'), text: '{{totp:NOPE}}' });
        expect(unknown.status).toBe(400);
        expect(unknown.body.error.message).toContain(
          `no TOTP seed named "NOPE" for profile ${ctx.d.profile} (there are: OTP)`,
        );
        expect(await ctx.d.inPage<string>(`document.getElementById('otp').value`)).toBe('');
      } finally {
        site.close();
      }
    },
  );
});
