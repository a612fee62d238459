import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRelay } from '../../extension/src/connection-check';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { PROTOCOL_VERSION } from '../../shared/protocol';

/** The options page's "Test connection", against real servers. */
describe('the connection check', () => {
  let t: TestRelay | undefined;
  let other: http.Server | undefined;
  afterEach(async () => {
    await t?.close();
    other?.close();
    t = other = undefined;
  });

  async function serve(handler: http.RequestListener): Promise<number> {
    other = http.createServer(handler);
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    return (other.address() as net.AddressInfo).port;
  }

  it('says the relay is not running', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    expect(await checkRelay(port)).toEqual({
      ok: false,
      message: `The relay is not running on 127.0.0.1:${port}: start it with \`clawd serve\`, or check the port.`,
    });
  });

  it('says something else answers on that port', async () => {
    const port = await serve((_req, res) => res.end('<html>hello</html>'));
    expect((await checkRelay(port)).message).toMatch(/it is not the clawd relay\. Wrong port\?/);
  });

  it('says the versions do not match', async () => {
    const port = await serve((_req, res) =>
      res.end(JSON.stringify({ ok: true, name: 'clawd-browser', version: '9.0.0', protocol: 99 })),
    );
    expect((await checkRelay(port)).message).toContain(
      `Version mismatch: the relay (clawd 9.0.0) speaks protocol 99, this extension speaks ${PROTOCOL_VERSION}`,
    );
  });

  it("says OK when the clawd relay answers (whether it knows this browser is the handshake's to say)", async () => {
    t = await startTestRelay();
    expect(await checkRelay(t.port)).toEqual({
      ok: true,
      message: expect.stringMatching(/^clawd \S+ answers on port \d+\.$/),
    });
  });
});
