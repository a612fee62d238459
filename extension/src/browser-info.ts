// What this browser says it is, for the extension's hello to the relay: its product with its full
// version (Chrome cuts the user agent string to 156.0.0.0; the high-entropy brand list has the
// whole), its user agent, and the protocol version it speaks.

import type { BrowserInfo } from '../../shared/protocol';

export async function browserInfo(): Promise<BrowserInfo> {
  const userAgent = navigator.userAgent;
  let version = userAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? '0.0.0.0';
  try {
    // The user agent string is reduced to 156.0.0.0; the high-entropy list has the full version.
    const uaData = (
      navigator as Navigator & {
        userAgentData?: {
          getHighEntropyValues(h: string[]): Promise<{ fullVersionList?: Array<{ brand: string; version: string }> }>;
        };
      }
    ).userAgentData;
    const list = (await uaData?.getHighEntropyValues(['fullVersionList']))?.fullVersionList ?? [];
    const brand =
      list.find((b) => b.brand === 'Google Chrome') ??
      list.find((b) => b.brand === 'Chromium') ??
      list.find((b) => !/Not/.test(b.brand));
    if (brand) version = brand.version;
  } catch {
    // keep the reduced version
  }
  return { product: `Chrome/${version}`, userAgent, protocolVersion: '1.3' };
}
