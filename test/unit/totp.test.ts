// TOTP seeds the person keeps (`secret-set NAME --totp`) and the codes `{{totp:NAME}}` types: the
// codes are RFC 4226's and RFC 6238's own test vectors (the reference), for the relay and for the
// code maker an exported script carries; a seed is read as sites give it and refused, naming
// what is wrong, when it is not one; the codes and the seed are masked in answers.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCRIPT_TOTP, SCRIPT_TOTP_IMPORT } from '../../relay/agent/export/script-totp';
import { renderScript } from '../../relay/agent/export/script-render';
import { sessionRecipe } from '../../relay/agent/export/session-steps';
import { SecretStore } from '../../relay/home/secret-store';
import { hotp, totpCode, type TotpAlgorithm } from '../../relay/home/totp';
import { readTotpSeed } from '../../relay/home/totp-seed';
import { checkSecrets, MASK, maskOf, namesSecrets, withSecrets } from '../../relay/operations/secret-use';

/** RFC 4648 base32 of bytes (the test's own, to write the RFCs' ASCII keys as seeds). */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

/** RFC 6238 Appendix B: the keys of each algorithm and the 8-digit codes at each time (30 s periods). */
const RFC6238_KEYS: Record<TotpAlgorithm, string> = {
  SHA1: '12345678901234567890',
  SHA256: '12345678901234567890123456789012',
  SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
};
const RFC6238: Array<[number, TotpAlgorithm, string]> = [
  [59, 'SHA1', '94287082'],
  [59, 'SHA256', '46119246'],
  [59, 'SHA512', '90693936'],
  [1111111109, 'SHA1', '07081804'],
  [1111111109, 'SHA256', '68084774'],
  [1111111109, 'SHA512', '25091201'],
  [1111111111, 'SHA1', '14050471'],
  [1111111111, 'SHA256', '67062674'],
  [1111111111, 'SHA512', '99943326'],
  [1234567890, 'SHA1', '89005924'],
  [1234567890, 'SHA256', '91819424'],
  [1234567890, 'SHA512', '93441116'],
  [2000000000, 'SHA1', '69279037'],
  [2000000000, 'SHA256', '90698825'],
  [2000000000, 'SHA512', '38618901'],
  [20000000000, 'SHA1', '65353130'],
  [20000000000, 'SHA256', '77737706'],
  [20000000000, 'SHA512', '47863826'],
];
/** RFC 4226 Appendix D: HOTP of the SHA1 key at counters 0 to 9, 6 digits. */
const RFC4226 = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];

const uriOf = (algorithm: TotpAlgorithm, extra = '&digits=8&period=30') =>
  `otpauth://totp/ACME%20Co:ada@example.com?secret=${base32(Buffer.from(RFC6238_KEYS[algorithm])).replace(/=+$/, '')}&issuer=ACME&algorithm=${algorithm}${extra}`;

describe('TOTP codes', () => {
  it('are RFC 4226’s HOTP values at counters 0 to 9', () => {
    const key = Buffer.from(RFC6238_KEYS.SHA1);
    expect(RFC4226.map((_, counter) => hotp(key, counter, 'SHA1', 6))).toEqual(RFC4226);
  });

  it('are RFC 6238’s values for SHA1, SHA256 and SHA512 at each listed time, from an otpauth:// URI', () => {
    for (const [seconds, algorithm, code] of RFC6238)
      expect(totpCode(readTotpSeed(uriOf(algorithm)), seconds * 1000), `${algorithm} at ${seconds}`).toBe(code);
  });

  it('are the same from the code maker an exported script carries, a URI or a bare seed', async () => {
    // As the script holds it: an ES module with its import, loaded by Node.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-script-totp-'));
    const file = path.join(dir, 'totp.mjs');
    writeFileSync(file, `${SCRIPT_TOTP_IMPORT}\n${SCRIPT_TOTP}\nexport { totpCode };\n`);
    const { totpCode: scriptCode } = (await import(pathToFileURL(file).href)) as {
      totpCode: (given: string, atMs: number) => string;
    };
    rmSync(dir, { recursive: true, force: true });
    for (const [seconds, algorithm, code] of RFC6238)
      expect(scriptCode(uriOf(algorithm), seconds * 1000), `${algorithm} at ${seconds}`).toBe(code);
    const seed = base32(Buffer.from(RFC6238_KEYS.SHA1)).toLowerCase();
    expect(scriptCode(seed, 59_000)).toBe('287082'); // 6 digits of SHA1, 30 s, by default
    expect(() => scriptCode('ABC1 DEFG', 0)).toThrow('the TOTP seed is not base32 (A to Z, 2 to 7)');
  });
});

describe('a TOTP seed as the person gives it', () => {
  const SEED = base32(Buffer.from(RFC6238_KEYS.SHA1)).replace(/=+$/, ''); // GEZDGNBVGY3TQOJQ…

  it('is read in any case, spaced in groups and padded, with RFC 6238’s defaults', () => {
    const spaced = `  ${SEED.toLowerCase().replace(/(.{4})/g, '$1 ')}====\n`;
    expect(readTotpSeed(spaced)).toEqual({ seed: SEED, algorithm: 'SHA1', digits: 6, period: 30 });
    expect(readTotpSeed(`otpauth://totp/x?secret=${SEED}&algorithm=sha256&digits=7&period=60`)).toEqual({
      seed: SEED,
      algorithm: 'SHA256',
      digits: 7,
      period: 60,
    });
  });

  it('is refused, naming what is wrong and never quoting the seed', () => {
    const refusals: Array<[string, RegExp]> = [
      ['', /nothing was given/],
      [`${SEED.slice(0, 6)}1${SEED.slice(7)}`, /character 7 of the seed .* is not base32/],
      [SEED.slice(0, 17), /has 17 characters, which no base32 text has/],
      [SEED.slice(0, 8), /is 5 bytes \(8 characters\): a TOTP seed has at least 10/],
      [`otpauth://hotp/x?secret=${SEED}&counter=1`, /counter-based seed/],
      [`otpauth://totp/x?issuer=ACME`, /has no secret= parameter/],
      [`otpauth://totp/x?secret=${SEED}&algorithm=MD5`, /algorithm= must be SHA1, SHA256 or SHA512/],
      [`otpauth://totp/x?secret=${SEED}&digits=5`, /digits= must be 6, 7 or 8/],
      [`otpauth://totp/x?secret=${SEED}&digits=9`, /digits= must be 6, 7 or 8/],
      [`otpauth://totp/x?secret=${SEED}&period=0`, /period= must be a whole number of seconds/],
      [`https://example.com/?secret=${SEED}`, /a URI, but not an otpauth:\/\/ one/],
    ];
    for (const [given, why] of refusals) {
      let error: { code?: string; message: string } | undefined;
      try {
        readTotpSeed(given);
      } catch (e) {
        error = e as { code: string; message: string };
      }
      expect(error?.code, given).toBe('totp_invalid');
      expect(error?.message, given).toMatch(why);
      expect(error?.message, given).toMatch(/^not a TOTP seed: .*; nothing was kept$/);
      expect(error?.message, given).not.toContain(SEED.slice(0, 8));
    }
  });
});

describe('a TOTP seed kept and typed', () => {
  let home: string;
  const SEED = 'JBSWY3DPEHPK3PXP';
  afterEach(async () => {
    vi.useRealTimers();
    await rm(home, { recursive: true, force: true });
  });

  it('is kept in the secrets file (0600) beside the secrets; a bad one keeps nothing', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-totp-'));
    const store = new SecretStore(home);
    await expect(store.setTotp('clawd', 'OTP', 'not a seed!')).rejects.toMatchObject({ code: 'totp_invalid' });
    await expect(stat(path.join(home, 'secrets.json'))).rejects.toThrow(); // nothing written
    await store.set('clawd', 'BANK', 'hunter2-Secret-9');
    expect(await store.setTotp('clawd', 'OTP', `otpauth://totp/x?secret=${SEED}&digits=8`)).toEqual({
      seed: SEED,
      algorithm: 'SHA1',
      digits: 8,
      period: 30,
    });
    expect((await stat(path.join(home, 'secrets.json'))).mode & 0o777).toBe(0o600);
    await expect(store.setTotp('clawd', 'OTP', SEED.slice(0, 8))).rejects.toMatchObject({ code: 'totp_invalid' });
    const kept = await new SecretStore(home).kept('clawd');
    expect([...kept.values.keys()]).toEqual(['BANK']);
    expect(kept.totp.get('OTP')).toMatchObject({ seed: SEED, digits: 8 }); // the refused one changed nothing
    expect(await store.names('clawd')).toEqual(['BANK', 'OTP']);
    expect(JSON.parse(await readFile(path.join(home, 'secrets.json'), 'utf8')).clawd.OTP.totp.seed).toBe(SEED);
  });

  it('is typed as its code at the moment it is put in, and named right when it is not one', () => {
    const kept = {
      values: new Map([['BANK', 'hunter2-Secret-9']]),
      totp: new Map([['OTP', readTotpSeed(uriOf('SHA1'))]]),
    };
    const input = { ref: 'e1', text: '{{totp:OTP}}' };
    expect(namesSecrets('type', input)).toBe(true);
    expect(withSecrets('type', input, kept, 'clawd', 1111111109_000)).toEqual({ ref: 'e1', text: '07081804' });
    expect(input.text).toBe('{{totp:OTP}}'); // the caller's input (logged, traced) keeps the mark
    const fill = { fields: [{ ref: 'e2', value: '{{totp:OTP}}' }] };
    expect(withSecrets('fill', fill, kept, 'clawd', 59_000)).toEqual({ fields: [{ ref: 'e2', value: '94287082' }] });
    expect(() => checkSecrets('type', { text: '{{totp:NOPE}}' }, kept, 'work')).toThrow(
      'no TOTP seed named "NOPE" for profile work (there are: OTP): the person keeps one with `clawd secret-set NOPE --totp --profile work`',
    );
    expect(() => checkSecrets('type', { text: '{{totp:BANK}}' }, kept, 'work')).toThrow(
      '"BANK" is a secret of profile work, not a TOTP seed: type it as {{secret:BANK}}',
    );
    expect(() => checkSecrets('type', { text: '{{secret:OTP}}' }, kept, 'work')).toThrow(
      '"OTP" is a TOTP seed of profile work: type its code as {{totp:OTP}}',
    );
    expect(() => checkSecrets('type', { text: '{{totp:OTP}} {{secret:BANK}}' }, kept, 'work')).not.toThrow();
  });

  it('has its recent codes masked, inside a longer number too, and its seed as sites show it', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = 1_800_000_000_000;
    vi.setSystemTime(now);
    const seed = readTotpSeed(SEED);
    const mask = maskOf({ values: new Map(), totp: new Map([['OTP', seed]]) });
    const code = totpCode(seed, now);
    for (const at of [now, now - 9 * 60_000, now + 30_000])
      expect(mask.text(`textbox "Code" [e1]: "${totpCode(seed, at)}"`), String(at)).toBe(
        `textbox "Code" [e1]: "${MASK}"`,
      );
    expect(mask.text(`code=${code}&x=1 ${Buffer.from(`c=${code}`).toString('base64')}`)).not.toMatch(
      new RegExp(`${code}|${Buffer.from(code).toString('base64').slice(0, 6)}`),
    );
    // A digit the agent typed beside the code does not unmask it.
    expect(mask.text(`"9${code}1" and "7${code}"`)).toBe(`"9${MASK}1" and "7${MASK}"`);
    expect(mask.text(`Secret key: ${SEED.toLowerCase().replace(/(.{4})(?=.)/g, '$1 ')}`)).toBe(`Secret key: ${MASK}`);
    expect(mask.text(`"${code.slice(0, 4)}…"`)).toBe(`"${MASK}…"`); // a cut inside the field's value
    expect(mask.bytes(Buffer.from(`{"code":"${code}","id":"1${code}"}`)).toString()).toBe(
      `{"code":"${MASK}","id":"1${MASK}"}`,
    );
    // A code of half an hour ago says nothing a site would still take: left as it is.
    const old = totpCode(seed, now - 30 * 60_000);
    if (![code, totpCode(seed, now - 9 * 60_000)].includes(old)) expect(mask.text(old)).toBe(old);
    // The codes follow the clock, within one call's mask.
    vi.setSystemTime(now + 90_000);
    expect(mask.text(totpCode(seed, now + 90_000))).toBe(MASK);
  });
});

describe('a {{totp:NAME}} step exported as a program', () => {
  const recipe = sessionRecipe(
    [
      {
        time: '2026-11-29T10:00:01.000Z',
        id: 'r.1',
        profile: 'chrome',
        outcome: 'ok',
        durationMs: 5,
        kind: 'navigate',
        url: 'http://bank.test/',
      },
      {
        time: '2026-11-29T10:00:02.000Z',
        id: 'r.2',
        profile: 'chrome',
        outcome: 'ok',
        durationMs: 5,
        kind: 'type',
        element: { ref: 'e1', role: 'textbox', name: 'Code', locator: { by: 'label', label: 'Code' } },
        text: { length: 12 },
      },
    ],
    (e) => (e.id === 'r.2' ? '{{totp:OTP}}' : undefined),
    'session s1 on profile chrome',
  );

  it('keeps the mark, and makes the code when the step runs from CLAWD_TOTP_NAME', () => {
    expect(recipe.totp).toEqual(['OTP']);
    expect(recipe.secrets).toEqual([]);
    expect(recipe.steps[1]).toEqual({
      do: 'fill',
      element: { locator: { by: 'label', label: 'Code' } },
      value: '{{totp:OTP}}',
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-export-totp-'));
    try {
      for (const format of ['script', 'test'] as const) {
        const script = renderScript(recipe, format, { cdpUrl: 'http://127.0.0.1:18792/', profile: 'chrome' });
        expect(script).toContain('//   OTP: a TOTP code, made when the step runs from CLAWD_TOTP_OTP');
        expect(script).toContain('.fill(value(params, "{{totp:OTP}}"));');
        expect(script).toContain(SCRIPT_TOTP_IMPORT);
        expect(script).toContain(SCRIPT_TOTP);
        const file = path.join(dir, `${format}.mjs`);
        writeFileSync(file, script);
        const checked = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
        expect(checked.status, checked.stderr).toBe(0);
      }
      // A recipe without one carries no code maker.
      const plain = renderScript({ ...recipe, totp: undefined, steps: [recipe.steps[0]!] }, 'script', {
        cdpUrl: 'http://127.0.0.1:18792/',
        profile: 'chrome',
      });
      expect(plain).not.toContain('createHmac');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
