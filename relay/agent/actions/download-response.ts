// Whether a document response is a file the browser saves rather than a page it shows: what the
// watch asks about as a download. Not only `Content-Disposition: attachment` — Chrome saves any
// document whose type it cannot show (a zip, an installer, `application/octet-stream`) and one
// with no type that it sniffs as binary, so a page could otherwise download a file unasked by
// leaving the header out. A type it may show after all is asked about too: asking is the safe side.

/** Types Chrome shows in the tab (its renderer, image, media and PDF viewers), by essence. */
const SHOWN = new Set([
  'text/html',
  'text/plain',
  'text/css',
  'text/javascript',
  'text/xml',
  'text/xsl',
  'text/markdown',
  'application/xhtml+xml',
  'application/xml',
  'application/json',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/pjpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/x-ms-bmp',
  'image/vnd.microsoft.icon',
  'image/x-icon',
  'image/svg+xml',
  'image/avif',
  'image/apng',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'audio/mpeg',
  'audio/mp3',
  'audio/ogg',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/webm',
  'audio/flac',
  'audio/mp4',
  'audio/aac',
  'multipart/x-mixed-replace',
]);

export interface DocumentResponse {
  status: number;
  headers: ReadonlyArray<{ name: string; value: string }>;
}

/** Whether the browser saves this document response as a file (a redirect or an empty answer saves nothing). */
export function isDownload({ status, headers }: DocumentResponse): boolean {
  const header = (name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;
  if ((status >= 300 && status < 400) || status === 204 || status === 205) return false;
  if (/^\s*attachment/i.test(header('content-disposition') ?? '')) return true;
  const essence = (header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  // No type: Chrome sniffs the body, and saves what looks binary.
  if (essence === '') return true;
  return !SHOWN.has(essence) && !/^application\/[\w.+-]*\+(xml|json)$/.test(essence);
}
