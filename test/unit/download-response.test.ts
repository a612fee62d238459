// Which document responses the watch asks about as a download: what Chrome saves, not only what says "attachment".
import { describe, expect, it } from 'vitest';
import { isDownload } from '../../relay/agent/actions/download-response';

const response = (status: number, headers: Record<string, string>) => ({
  status,
  headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
});

describe('isDownload', () => {
  it('is a file Chrome saves: an attachment, whatever its type', () => {
    expect(
      isDownload(
        response(200, { 'Content-Disposition': 'attachment; filename="a.txt"', 'content-type': 'text/plain' }),
      ),
    ).toBe(true);
    expect(isDownload(response(200, { 'content-disposition': ' ATTACHMENT' }))).toBe(true);
  });

  it('is a type Chrome cannot show, with no disposition at all, or none it sniffs', () => {
    for (const type of [
      'application/zip',
      'application/octet-stream',
      'application/x-msdownload',
      'text/csv',
      'image/tiff',
      'application/pdf',
    ])
      expect(isDownload(response(200, { 'content-type': type })), type).toBe(true);
    expect(isDownload(response(200, {}))).toBe(true);
    expect(isDownload(response(200, { 'content-type': '; charset=utf-8' }))).toBe(true);
  });

  it('is no page Chrome shows, inline or with its parameters', () => {
    for (const type of [
      'text/html; charset=utf-8',
      'TEXT/HTML',
      'text/plain',
      'application/json',
      'image/png',
      'image/svg+xml',
      'application/atom+xml',
      'application/ld+json',
      'video/mp4',
    ])
      expect(isDownload(response(200, { 'content-type': type })), type).toBe(false);
    expect(isDownload(response(200, { 'content-type': 'text/html', 'content-disposition': 'inline' }))).toBe(false);
    expect(isDownload(response(404, { 'content-type': 'text/html' }))).toBe(false);
  });

  it('is nothing saved for a redirect or an empty answer, whatever they say', () => {
    expect(isDownload(response(302, { location: '/x' }))).toBe(false);
    expect(isDownload(response(307, { 'content-type': 'application/zip' }))).toBe(false);
    expect(isDownload(response(204, {}))).toBe(false);
    expect(isDownload(response(205, { 'content-disposition': 'attachment' }))).toBe(false);
  });
});
