// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) of a tab's kept requests, for the
// tools that read it (Chrome DevTools' import, HAR viewers, har-to-k6 …). Written here rather
// than with a library: the entries are already in hand, the writer is one function, and the
// spec's required fields are checked by a unit test. No response bodies: they stay in the
// browser (GET /network/<id> reads one); no cookie or credential (their headers say how many, not
// what: network-log.ts credentialShown); sizes and times are what the browser reported.

import type { HarSource } from './network-log';
import type { Har } from '../../operations/network-operations';

/** The query string of a URL as HAR lists it. */
function queryOf(url: string): Array<{ name: string; value: string }> {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** HAR's httpVersion from CDP's protocol: h2 → HTTP/2, h3 → HTTP/3, else HTTP/1.1. */
const httpVersion = (protocol: string | undefined) =>
  protocol === 'h2'
    ? 'HTTP/2'
    : protocol?.startsWith('h3')
      ? 'HTTP/3'
      : protocol === 'http/1.0'
        ? 'HTTP/1.0'
        : 'HTTP/1.1';

const headerValue = (headers: Array<{ name: string; value: string }>, name: string) =>
  headers.find((h) => h.name.toLowerCase() === name)?.value;

export function harOf(
  sources: HarSource[],
  page: { id: string; title: string; url: string },
  creator: { name: string; version: string },
): Har {
  const started = sources[0]?.entry.startedAt ?? new Date().toISOString();
  const entries = sources.map(({ entry, requestHeaders, responseHeaders, postData }) => {
    const time = entry.durationMs ?? 0;
    const mimeType = entry.mimeType ?? headerValue(responseHeaders, 'content-type') ?? 'x-unknown';
    return {
      pageref: page.id,
      startedDateTime: entry.startedAt,
      time,
      request: {
        method: entry.method,
        url: entry.url,
        httpVersion: httpVersion(entry.protocol),
        cookies: [],
        headers: requestHeaders,
        queryString: queryOf(entry.url),
        ...(postData !== undefined
          ? {
              postData: {
                mimeType: headerValue(requestHeaders, 'content-type') ?? 'application/octet-stream',
                text: postData,
              },
            }
          : {}),
        headersSize: -1,
        bodySize: postData !== undefined ? Buffer.byteLength(postData) : 0,
      },
      response: {
        status: entry.status ?? 0,
        statusText: entry.statusText ?? '',
        httpVersion: httpVersion(entry.protocol),
        cookies: [],
        headers: responseHeaders,
        // The decoded size is not known (bodies stay in the browser): 0, and the bytes received
        // as Chrome's own HAR export names them.
        content: { size: 0, mimeType },
        redirectURL: headerValue(responseHeaders, 'location') ?? '',
        headersSize: -1,
        bodySize: -1,
        ...(entry.bytes !== undefined ? { _transferSize: entry.bytes } : {}),
        ...(entry.failed ? { _error: entry.errorText } : {}),
      },
      cache: {},
      // Only the whole time is known per request: it is the wait, the rest 0 (HAR allows -1 for
      // the optional phases, but send, wait and receive are required numbers).
      timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: time, receive: 0 },
      _resourceType: entry.type,
    };
  });
  return {
    log: {
      version: '1.2',
      creator,
      pages: [
        {
          startedDateTime: started,
          id: page.id,
          title: page.title || page.url,
          pageTimings: { onContentLoad: -1, onLoad: -1 },
        },
      ],
      entries,
    },
  };
}
