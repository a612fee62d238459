// `clawd native-host`: what Chrome runs when the extension asks where clawd is
// (chrome.runtime.sendNativeMessage). It reads the extension's hello, makes sure the home's
// server runs (starting it detached when none does: it outlives this process and Chrome), checks
// that the server proves it knows the home's token (a program on its port while it was down
// would not), answers the relay's port and the extension key, and exits. Chrome ends a host after
// its answer anyway.

import type { Readable, Writable } from 'node:stream';
import { parseHostHello, type HostAnswer } from '../../shared/native-host-protocol';
import type { Logger } from '../log';
import { ensureServer } from '../operations/local-server';
import { loadKeys } from '../home/home-keys';
import { VERSION } from '../version';
import { readNativeMessage, writeNativeMessage } from './native-messaging';

/** Chrome writes the message as soon as the host starts; a host that hears nothing goes. */
const HELLO_WAIT_MS = 10_000;

export async function runNativeHost(options: {
  home: string;
  log: Logger;
  input: Readable;
  output: Writable;
  /** The ports of a server it starts (the usual ones by default). */
  relayPort?: number;
  controlPort?: number;
}): Promise<HostAnswer> {
  const { home, log } = options;
  let answer: HostAnswer;
  try {
    const hello = parseHostHello(await readNativeMessage(options.input, HELLO_WAIT_MS));
    if (!hello) throw new Error('the extension said something other than hello');
    const { client, started } = await ensureServer(home, log, {
      untilUnused: false,
      relayPort: options.relayPort,
      controlPort: options.controlPort,
    });
    const relayUrl = client.state?.relayUrl;
    if (!relayUrl) throw new Error(`the clawd server of ${home} did not say where its relay is (serve.json)`);
    await client.prove();
    answer = {
      type: 'server',
      relayPort: Number(new URL(relayUrl).port),
      key: (await loadKeys(home)).extension,
      version: client.state?.version || VERSION,
      home,
      started,
    };
    log.info(`answered extension ${hello.extensionVersion || '?'}: relay ${relayUrl}${started ? ' (started)' : ''}`);
  } catch (error) {
    answer = { type: 'error', message: (error as Error).message };
    log.warn(`native host: ${answer.message}`);
  }
  await writeNativeMessage(options.output, answer);
  return answer;
}
