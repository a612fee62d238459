// The person's secrets: kept per profile in the home (0600), put into type and fill for
// {{secret:NAME}}, masked in whatever goes back — deep in an answer, and in an error's words.

import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretStore } from '../../relay/home/secret-store';
import { quiet } from '../helpers/waits';
import {
  currentMask,
  MASK,
  masked,
  namesSecrets,
  SecretMask,
  withCallMask,
  withSecrets,
} from '../../relay/operations/secret-use';

describe('secrets in agent calls', () => {
  const values = new Map([
    ['BANK', 'hunter2-Secret-9'],
    ['PIN', '4711'],
  ]);
  const kept = { values, totp: new Map() };

  it('are put into type’s text and fill’s string values, nowhere else', () => {
    expect(namesSecrets('type', { text: 'x{{secret:BANK}}' })).toBe(true);
    expect(namesSecrets('click', { ref: '{{secret:BANK}}' })).toBe(false);
    expect(withSecrets('type', { ref: 'e1', text: 'pw: {{secret:BANK}}!' }, kept, 'clawd')).toEqual({
      ref: 'e1',
      text: 'pw: hunter2-Secret-9!',
    });
    const input = {
      fields: [
        { ref: 'e1', value: '{{secret:PIN}}' },
        { ref: 'e2', value: true },
      ],
    };
    expect(withSecrets('fill', input, kept, 'clawd')).toEqual({
      fields: [
        { ref: 'e1', value: '4711' },
        { ref: 'e2', value: true },
      ],
    });
    expect(input.fields[0]!.value).toBe('{{secret:PIN}}'); // the caller's input (logged, traced) keeps the placeholder
  });

  it('name an unknown secret, and the ones there are, never their values', () => {
    expect(() => withSecrets('type', { text: '{{secret:NOPE}}' }, kept, 'work')).toThrow(
      'no secret named "NOPE" for profile work (there are: BANK, PIN): the person sets one with `clawd secret-set NOPE --profile work`',
    );
  });

  it('are masked deep in an answer, the longest first', () => {
    const answer = {
      snapshot: 'textbox "Code" [e1]: "hunter2-Secret-9"',
      refs: { e1: { name: 'x4711y' } },
      list: ['hunter2-Secret-9hunter2-Secret-9', 3, null],
    };
    expect(masked(answer, [...values.values()])).toEqual({
      snapshot: `textbox "Code" [e1]: "${MASK}"`,
      refs: { e1: { name: `x${MASK}y` } },
      list: [`${MASK}${MASK}`, 3, null],
    });
    expect(masked(answer, [])).toBe(answer);
  });
});

describe('a secret masked in every form an agent could read it in', () => {
  const secret = 'pä$$ "w0rd"/+&<é>?';
  const mask = new SecretMask([secret, 'hunter2-Secret-9']);
  const hidden = (text: string) => !mask.text(text).includes(text.trim()) && mask.text(text).includes(MASK);

  it('as is, escaped for JSON or JavaScript, URL-encoded and HTML-escaped', () => {
    for (const form of [
      secret,
      JSON.stringify(secret).slice(1, -1),
      'p\\u00e4$$ \\"w0rd\\"/+&<\\u00e9>?', // non-ASCII escaped too
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
    ])
      expect(hidden(`before ${form} after`), form).toBe(true);
    expect(mask.text(JSON.stringify({ password: secret }))).toBe(`{"password":"${MASK}"}`);
  });

  it('base64 and its URL-safe alphabet, wherever the secret starts in the encoded bytes', () => {
    for (const before of ['', 'a', 'ab', 'abc', 'user=me&password=']) {
      const encoded = Buffer.from(`${before}${secret}tail`).toString('base64');
      expect(mask.text(encoded), before).toContain(MASK);
      const middle = Buffer.from(`${before}hunter2-Secret-9`).toString('base64url');
      expect(mask.text(middle), before).toContain(MASK);
      // What is left can no longer be decoded to the secret.
      expect(Buffer.from(mask.text(encoded).split(MASK).join(''), 'base64').toString()).not.toContain('hunter2');
    }
  });

  it('at a cut the page made (…) inside a secret: the beginning is masked', () => {
    expect(mask.text('textbox "Code": "hunter2-Se…"')).toBe(`textbox "Code": "${MASK}…"`);
    expect(mask.text('a heading… and hun…')).toBe(`a heading… and ${MASK}…`);
    expect(mask.text('Read more…')).toBe('Read more…');
  });

  it('in bytes before they are cut or encoded', () => {
    const body = Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('xhunter2-Secret-9y'), Buffer.from([255])]);
    const out = mask.bytes(body);
    expect(out.includes(Buffer.from('hunter2'))).toBe(false);
    expect(out.subarray(0, 4)).toEqual(Buffer.from([0, 1, 2, 0x78]));
    expect(mask.bytes(Buffer.from('nothing here'))).toEqual(Buffer.from('nothing here'));
  });

  it('is the running call’s, through every await, and none outside a call', async () => {
    expect(currentMask().empty).toBe(true);
    const seen = await withCallMask(mask, async () => {
      await quiet(1); // a timer's turn: the mask must cross it
      return currentMask().text('hunter2-Secret-9');
    });
    expect(seen).toBe(MASK);
    expect(currentMask().empty).toBe(true);
  });
});

describe('the secret store', () => {
  let home: string;
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('keeps secrets per profile in a 0600 file, lists names only, forgets one on request', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-secrets-'));
    const store = new SecretStore(home);
    await store.set('clawd', 'BANK', 'hunter2-Secret-9');
    await store.set('chrome', 'PIN', '471100');
    expect(await store.names('clawd')).toEqual(['BANK']);
    expect((await stat(path.join(home, 'secrets.json'))).mode & 0o777).toBe(0o600);
    // Another process (the CLI) changed the file: a running server sees it at its next call.
    await new SecretStore(home).set('clawd', 'OTHER', 'another-one');
    expect([...(await store.valuesOf('clawd')).keys()]).toEqual(['BANK', 'OTHER']);
    expect(await store.delete('clawd', 'BANK')).toBe(true);
    expect(await store.delete('clawd', 'BANK')).toBe(false);
    expect(await store.names('clawd')).toEqual(['OTHER']);
    await expect(store.set('clawd', 'bad name', 'value-here')).rejects.toThrow(/is not one/);
    await expect(store.set('clawd', 'SHORT', 'abcde')).rejects.toThrow(/at least 6 characters/);
  });
});
