// The pair page: the link from `clawd pair` carries the relay's port and a one-time code in its
// #fragment (never sent anywhere), and the relay's proof of the extension key for that code.
// Nothing happens until the person presses Pair; then the code is traded with the relay for the
// extension key, which is kept only if it matches the link's proof (something else on the port
// cannot give this browser a key of its own), the settings are saved and the worker connects.
// The relay answers that trade only to this extension's origin.

import { keyProof, proofsEqual } from '../../shared/key-proof';
import { saveSettings } from './settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const question = $('question');
const pair = $<HTMLButtonElement>('pair');
const cancel = $<HTMLButtonElement>('cancel');
const result = $('result');

function show(ok: boolean, message: string): void {
  result.className = ok ? 'ok' : 'bad';
  result.textContent = message;
}

const params = new URLSearchParams(location.hash.slice(1));
history.replaceState(null, '', location.pathname); // the code leaves the address bar
const port = Number(params.get('port'));
const code = params.get('code') ?? '';
const check = params.get('check') ?? '';

async function confirm(): Promise<void> {
  pair.disabled = true;
  cancel.disabled = true;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/pair/claim`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const body = (await response.json()) as { key?: string; error?: { message?: string } };
    if (!response.ok || !body.key) throw new Error(body.error?.message ?? `the relay answered ${response.status}`);
    if (!proofsEqual(check, await keyProof(body.key, 'relay', port, code)))
      throw new Error(`what answers on port ${port} is not the clawd server that printed this link`);
    await saveSettings({ relayPort: port, key: body.key });
    show(
      true,
      `Paired with clawd on port ${port}. Click the toolbar button on a tab to hand it to your agent; you can close this page.`,
    );
    pair.hidden = cancel.hidden = true;
  } catch (error) {
    const message = (error as Error).message;
    show(
      false,
      /fetch/i.test(message)
        ? `No clawd relay answers on port ${port}: is clawd serve running?`
        : `Not paired: ${message}`,
    );
    cancel.disabled = false;
  }
}

if (!Number.isInteger(port) || port < 1 || port > 65535 || code === '' || check === '') {
  question.textContent = 'This is not a whole pairing link: run `clawd pair` and open the link it prints.';
} else {
  question.textContent = `Pair with clawd on port ${port}?`;
  pair.hidden = cancel.hidden = false;
  pair.addEventListener('click', () => void confirm());
  cancel.addEventListener('click', () => {
    show(false, 'Not paired. You can close this page.');
    pair.hidden = cancel.hidden = true;
  });
  pair.focus();
}
