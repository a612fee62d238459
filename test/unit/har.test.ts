// HAR 1.2 as the spec (http://www.softwareishard.com/blog/har-12-spec/) requires it: every
// required field of log, page, entry, request, response, content, cache and timings, with the
// types it names; a failed request and a POST carry what they have.

import { describe, expect, it } from 'vitest';
import { harOf } from '../../relay/agent/network/har';
import type { HarSource } from '../../relay/agent/network/network-log';

const sources: HarSource[] = [
  {
    entry: {
      id: 'n1',
      url: 'http://127.0.0.1:1/shop?cat=tea&page=2',
      method: 'GET',
      type: 'document',
      protocol: 'h2',
      status: 200,
      statusText: 'OK',
      mimeType: 'text/html',
      bytes: 1200,
      durationMs: 35,
      startedAt: '2026-11-25T10:00:00.000Z',
    },
    requestHeaders: [{ name: 'accept', value: 'text/html' }],
    responseHeaders: [{ name: 'content-type', value: 'text/html; charset=utf-8' }],
  },
  {
    entry: {
      id: 'n2',
      url: 'http://127.0.0.1:1/api/save',
      method: 'POST',
      type: 'fetch',
      status: 302,
      statusText: 'Found',
      bytes: 0,
      durationMs: 12,
      startedAt: '2026-11-25T10:00:01.000Z',
    },
    requestHeaders: [{ name: 'content-type', value: 'application/json' }],
    responseHeaders: [{ name: 'location', value: '/done' }],
    postData: '{"a":1}',
  },
  {
    entry: {
      id: 'n3',
      url: 'http://127.0.0.1:1/slow',
      method: 'GET',
      type: 'fetch',
      failed: true,
      errorText: 'net::ERR_ABORTED',
      durationMs: 200,
      startedAt: '2026-11-25T10:00:02.000Z',
    },
    requestHeaders: [],
    responseHeaders: [],
  },
];

const isDate = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const isHeaders = (value: unknown) =>
  Array.isArray(value) && value.every((h) => typeof h.name === 'string' && typeof h.value === 'string');

describe('HAR of a tab’s requests', () => {
  const har = harOf(
    sources,
    { id: 'T1', title: 'Shop', url: 'http://127.0.0.1:1/shop' },
    { name: 'clawd-browser', version: '9.9.9' },
  );
  const log = har.log as any;

  it('has every field HAR 1.2 requires, with the spec’s types', () => {
    expect(log.version).toBe('1.2');
    expect(log.creator).toEqual({ name: 'clawd-browser', version: '9.9.9' });
    expect(log.pages).toHaveLength(1);
    const page = log.pages[0];
    expect(isDate(page.startedDateTime)).toBe(true);
    expect(page).toMatchObject({ id: 'T1', title: 'Shop', pageTimings: expect.any(Object) });
    expect(log.entries).toHaveLength(3);
    for (const entry of log.entries) {
      expect(entry.pageref).toBe('T1');
      expect(isDate(entry.startedDateTime)).toBe(true);
      expect(typeof entry.time).toBe('number');
      const { request, response, cache, timings } = entry;
      for (const key of ['method', 'url', 'httpVersion']) expect(typeof request[key], key).toBe('string');
      expect(request.cookies).toEqual([]);
      expect(isHeaders(request.headers) && isHeaders(request.queryString)).toBe(true);
      expect(typeof request.headersSize).toBe('number');
      expect(typeof request.bodySize).toBe('number');
      expect(typeof response.status).toBe('number');
      for (const key of ['statusText', 'httpVersion', 'redirectURL']) expect(typeof response[key], key).toBe('string');
      expect(response.cookies).toEqual([]);
      expect(isHeaders(response.headers)).toBe(true);
      expect(typeof response.content.size).toBe('number');
      expect(typeof response.content.mimeType).toBe('string');
      expect(typeof response.headersSize).toBe('number');
      expect(typeof response.bodySize).toBe('number');
      expect(cache).toEqual({});
      for (const key of ['send', 'wait', 'receive']) expect(timings[key], key).toBeGreaterThanOrEqual(0);
    }
  });

  it('carries a query string, a POST body, a redirect and a failure as the spec says', () => {
    const [page, post, failed] = log.entries;
    expect(page.request.httpVersion).toBe('HTTP/2');
    expect(post.request.httpVersion).toBe('HTTP/1.1');
    expect(page.request.queryString).toEqual([
      { name: 'cat', value: 'tea' },
      { name: 'page', value: '2' },
    ]);
    expect(page.response.content).toEqual({ size: 0, mimeType: 'text/html' });
    expect(page.response._transferSize).toBe(1200);
    expect(post.request.postData).toEqual({ mimeType: 'application/json', text: '{"a":1}' });
    expect(post.request.bodySize).toBe(7);
    expect(post.response.redirectURL).toBe('/done');
    expect(failed.response).toMatchObject({
      status: 0,
      _error: 'net::ERR_ABORTED',
      content: { size: 0, mimeType: 'x-unknown' },
    });
    expect(failed.time).toBe(200);
  });
});
