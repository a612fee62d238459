// live-view: a viewer on `/view/ws` of a managed tab, acking each frame as the view page does.
// Latency: from a change of a still page (sent over the browser's own CDP) to the first frame
// that reaches the viewer. Rate: frames and bytes per second on a page that paints every frame.
// Targets: median latency ≤ 150 ms, ≥ 10 frames per second.

import WebSocket from 'ws';
import { CdpClient } from '../../../test/helpers/cdp-client';
import { type RelayProcess, controlApi } from '../fixture';
import { startBenchPages } from '../fixture';
import { median, percentile, round, type CaseResult } from '../stats';

const STILL = '<!doctype html><title>still</title><body style="margin:0;background:rgb(0,128,0)"><h1>still</h1></body>';
const ANIMATED = `<!doctype html><title>animated</title><body style="margin:0"><div id="b" style="width:100vw;height:100vh"></div>
<script>const b = document.getElementById('b'); (function tick(t) { b.style.background = 'hsl(' + (t / 5 % 360) + ',80%,50%)'; requestAnimationFrame(tick); })(0);</script></body>`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function liveView(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const api = controlApi(relay);
  const pages = await startBenchPages({ '/still': STILL, '/animated': ANIMATED });
  const { cdpUrl } = await api('POST', '/start');
  const { targetId } = await api('POST', '/tabs/open', { url: pages.url('/still') });
  const version = await (await fetch(`${cdpUrl}/json/version?token=${relay.token}`)).json(); // the port is clawd's
  const cdp = await CdpClient.connect(version.webSocketDebuggerUrl);
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });

  let frames = 0;
  let bytes = 0;
  let onFrame: (() => void) | undefined;
  const viewer = new WebSocket(`${relay.controlUrl.replace('http', 'ws')}/view/ws?targetId=${targetId}`, {
    headers: { Authorization: `Bearer ${relay.token}` },
  });
  viewer.on('message', (data, binary) => {
    if (!binary) return;
    frames++;
    bytes += (data as Buffer).length;
    viewer.send('{"t":"ack"}');
    onFrame?.();
  });
  await new Promise((resolve, reject) => viewer.once('open', resolve).once('error', reject));
  viewer.send(JSON.stringify({ t: 'size', width: 1280, height: 800 }));
  try {
    await pause(1_000); // the first frames, the resize
    const latencies: number[] = [];
    for (let i = 0; i < (quick ? 5 : 30); i++) {
      await pause(150); // still: no frame is on its way
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no frame within 5 s of a page change')), 5_000);
        onFrame = () => {
          clearTimeout(timer);
          onFrame = undefined;
          resolve(performance.now());
        };
      });
      const started = performance.now();
      await cdp.send(
        'Runtime.evaluate',
        { expression: `document.body.style.background = 'rgb(${i % 2 ? 0 : 200}, 0, ${i % 2 ? 200 : 0})'` },
        sessionId,
      );
      latencies.push((await arrived) - started);
    }
    await cdp.send('Page.navigate', { url: pages.url('/animated') }, sessionId);
    await pause(1_000);
    const [frames0, bytes0, t0] = [frames, bytes, performance.now()];
    await pause(quick ? 1_500 : 5_000);
    const seconds = (performance.now() - t0) / 1000;
    const fps = (frames - frames0) / seconds;
    const kbps = (bytes - bytes0) / 1024 / seconds;
    const value = median(latencies);
    return {
      name: 'live-view',
      unit: 'ms (change → frame, median)',
      value: round(value, 1),
      target: '≤ 150 ms, ≥ 10 fps',
      ok: value <= 150 && fps >= 10,
      details: { p95ms: round(percentile(latencies, 95), 1), fps: round(fps, 1), kBps: round(kbps, 0) },
    };
  } finally {
    viewer.close();
    await cdp.close();
    await api('POST', '/stop').catch(() => {});
    await pages.close();
  }
}
