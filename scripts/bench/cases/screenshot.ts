// screenshot: a 1920×1080 Page.captureScreenshot of a noisy canvas (a frame of several MB)
// through the relay vs direct, alternating, medians. Both sides must capture the same frame:
// the bench browser's window is 1920×1080, and both frame sizes are reported. Target (#50): the
// relay's capture ≤ 1.15× the direct one.
import type { BenchTab } from '../fixture';
import { alternate, median, round, type CaseResult } from '../stats';

export const NOISE_PAGE = `<!doctype html><style>body{margin:0}</style><canvas id=c width=1920 height=1080></canvas><script>
  const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(1920, 1080);
  for (let i = 0; i < img.data.length; i++) img.data[i] = (i % 4 === 3) ? 255 : (Math.random() * 256) | 0;
  c.putImageData(img, 0, 0);
</script>`;

export async function screenshot(tab: BenchTab, quick: boolean): Promise<CaseResult> {
  const bytes = { relay: 0, direct: 0 };
  const shoot = (side: BenchTab['direct'], key: keyof typeof bytes) => async () => {
    const { data } = await side.client.send('Page.captureScreenshot', { format: 'png' }, side.sessionId);
    bytes[key] = data.length;
    side.client.raw.length = 0;
  };
  const t = await alternate(quick ? 2 : 30, quick ? 1 : 3, shoot(tab.viaRelay, 'relay'), shoot(tab.direct, 'direct'));
  const value = median(t.a);
  const baseline = median(t.b);
  return {
    name: 'screenshot',
    unit: 'ms',
    value: round(value, 1),
    baseline: round(baseline, 1),
    ratio: round(value / baseline, 2),
    target: 'ratio ≤ 1.15',
    ok: value / baseline <= 1.15,
    details: {
      shots: t.a.length,
      frameMB: round(bytes.relay / 1024 / 1024, 1),
      directFrameMB: round(bytes.direct / 1024 / 1024, 1),
    },
  };
}
