// relay-hop: the Node relay alone. A CDP client's command goes through a relay in this process
// to an in-process echo extension and back, vs the same client talking to an echo CDP server in
// this process: the difference is the relay's own work per message. Then pipelined throughput.
import { WebSocketServer } from 'ws';
import { startRelayServer } from '../../../relay/cdp/relay-server';
import { ServerToken } from '../../../relay/http/server-token';
import { ServerKeys } from '../../../relay/http/server-keys';
import { CdpClient } from '../../../test/helpers/cdp-client';
import { until } from '../../../test/helpers/waits';
import { InMemoryEchoExtension } from '../echo-extension';
import { alternate, median, percentile, round, type CaseResult } from '../stats';

export async function relayHop(quick: boolean): Promise<CaseResult> {
  const token = 'bench-token-bench-token';
  const key = 'bench-extension-key-bench-extension-key';
  const relay = await startRelayServer({
    port: 0,
    token: new ServerToken(token),
    keys: new ServerKeys({ person: 'bench-person-key-bench-person-key', extension: key }),
  });
  const extension = new InMemoryEchoExtension(key, relay.port);
  relay.switchboard.attachExtension(extension, { key: () => key, port: relay.port, clientNonce: extension.nonce });
  await until('the echo extension to say hello', () => relay.switchboard.extensionConnected);
  const echo = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  echo.on('connection', (ws) =>
    ws.on('message', (data) => ws.send(`{"id":${JSON.parse(data.toString()).id},"result":{}}`)),
  );
  await new Promise((resolve) => echo.once('listening', resolve));
  const client = await CdpClient.connect(`ws://127.0.0.1:${relay.port}/cdp?token=${token}`);
  const direct = await CdpClient.connect(`ws://127.0.0.1:${(echo.address() as { port: number }).port}`);
  try {
    const { sessionId } = await client.send('Target.attachToTarget', {
      targetId: extension.tab.targetInfo.targetId,
      flatten: true,
    });
    const params = { expression: '1', returnByValue: true };
    const t = await alternate(
      quick ? 300 : 5_000,
      quick ? 30 : 300,
      () => client.send('Runtime.evaluate', params, sessionId),
      () => direct.send('Runtime.evaluate', params),
    );
    const addedUs = (median(t.a) - median(t.b)) * 1000;

    const pipelined = quick ? 2_000 : 20_000;
    const start = performance.now();
    await Promise.all(Array.from({ length: pipelined }, () => client.send('Runtime.evaluate', params, sessionId)));
    const perSecond = pipelined / ((performance.now() - start) / 1000);
    client.raw.length = 0;
    return {
      name: 'relay-hop',
      unit: 'µs added',
      value: round(addedUs, 1),
      baseline: round(median(t.b) * 1000, 1),
      target: '≤ 50 µs added',
      ok: addedUs <= 50,
      details: {
        relayRttUs: round(median(t.a) * 1000, 1),
        relayP95Us: round(percentile(t.a, 95) * 1000, 1),
        messagesPerSecond: Math.round(perSecond),
      },
    };
  } finally {
    await client.close();
    await direct.close();
    await new Promise((resolve) => echo.close(resolve));
    await relay.close();
  }
}
