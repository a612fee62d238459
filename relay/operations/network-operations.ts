// What a tab asked of the network: its recent requests (a line each, filters for the ones that
// matter when something is broken) or as HAR 1.2 for tools that read it, and one request with
// its headers and body. The tab's requests are kept from the first agent call on it
// (network-log.ts).

import { z } from 'zod';
import { intIn } from './fields';
import { operation } from './operation';
import { pageWords } from './page-fence';
import { tabFields } from './shared-fields';

export interface NetworkEntry {
  /** n1, n2, … per tab: what `network_request` takes. */
  id: string;
  url: string;
  method: string;
  /** Chromium's resource type: document, stylesheet, image, media, font, script, xhr, fetch, websocket, other, … */
  type: string;
  status?: number;
  statusText?: string;
  mimeType?: string;
  /** What the browser received for it, headers and body as sent (compressed, if it was). */
  bytes?: number;
  /** The protocol it went over: http/1.1, h2, h3, data, … */
  protocol?: string;
  durationMs?: number;
  failed?: true;
  /** Why it failed, as the browser says it (net::ERR_ABORTED, net::ERR_NAME_NOT_RESOLVED, …). */
  errorText?: string;
  fromCache?: true;
  fromServiceWorker?: true;
  /** What started it: "parser <url>", "script <url>:<line>", "redirect <url>", "other". */
  initiator?: string;
  /** Sent, no answer yet. */
  pending?: true;
  startedAt: string;
}

export interface NetworkList {
  targetId: string;
  requests: NetworkEntry[];
  /** How many the tab's list keeps now, and how many it saw since clawd first met the tab. */
  kept: number;
  seen: number;
  /** False when the browser did not let clawd listen to this tab's network: the list stays empty. */
  recording: boolean;
}

export interface NetworkDetail extends NetworkEntry {
  requestHeaders: Array<{ name: string; value: string }>;
  responseHeaders: Array<{ name: string; value: string }>;
  postData?: string;
  /** Text as text, anything else as base64; cut at maxChars or maxBytes (then `truncated`). */
  body?: string;
  bodyEncoding?: 'text' | 'base64';
  /** The whole body's length in bytes. */
  bodyBytes?: number;
  truncated?: true;
  /** Why there is no body (a redirect, a failure, the browser let it go). */
  bodyError?: string;
}

const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'other',
] as const;

const listFields = {
  ...tabFields,
  filter: z.string().optional().describe('only URLs holding this text'),
  // Checked, not listed in the tool's schema: the description's examples are what an agent needs.
  type: z
    .array(
      z.string().refine((t) => (RESOURCE_TYPES as readonly string[]).includes(t), {
        message: `must be types among ${RESOURCE_TYPES.join(', ')}`,
      }),
    )
    .optional()
    .describe('only these types: xhr,fetch,document,image,script,…'),
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx)$/i, 'must be a status (404) or a class (4xx)')
    .optional()
    .describe('only this status (404) or class (4xx)'),
  failed: z.boolean().default(false).describe('only failed or 4xx/5xx'),
  all: z.boolean().default(false).describe("older pages' too"),
  limit: intIn(1, 1_000).default(100).describe('the newest this many (default 100)'),
  format: z.enum(['json', 'har']).default('json').describe('har: HAR 1.2 instead (default json)'),
};

export type NetworkQuery = z.output<z.ZodObject<typeof listFields>>;

const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`);

/** One request as a line: id, method, status (or the failure), type, URL, size, time. */
export function requestLine(r: NetworkEntry): string {
  const outcome = r.failed ? `failed ${r.errorText}` : r.pending ? 'pending' : String(r.status ?? '—');
  const tail = [r.bytes !== undefined ? kb(r.bytes) : '', r.durationMs !== undefined ? `${r.durationMs} ms` : '']
    .filter(Boolean)
    .join(', ');
  return `${r.id} ${r.method} ${outcome} ${r.type} ${r.url}${tail ? ` (${tail})` : ''}`;
}

/** HAR 1.2, as `format: 'har'` answers it (har.ts writes it). */
export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; pages: unknown[]; entries: unknown[] };
}

export const network = operation<NetworkList | Har>()({
  name: 'network',
  summary:
    "the tab's recent requests (since its page loaded unless all): a line each with status, type, size and time; failed keeps the broken ones",
  details:
    "The last 1,000 requests of each tab are kept from the first agent call on it (what they were, their headers and POST bodies up to 64 KB; response bodies stay in the browser until one request is asked for). A new page in the tab starts a new list; all shows the older pages' too. format=har answers the same requests as HAR 1.2, without response bodies: clawd network --format har --all --limit 1000 > run.har for all that is kept.",
  input: z.object(listFields),
  http: { method: 'GET', path: '/network' },
  cli: {
    group: 'agent',
    flags: { type: { value: 'T,T' }, status: { value: 'S' }, filter: { value: 'TEXT' } },
    withArgument: { operation: 'networkRequest', value: 'ID' },
  },
  mcp: { tool: 'network', as: 'list' },
  example: { failed: true, type: ['xhr', 'fetch'] },
  text: (r) =>
    'log' in r
      ? JSON.stringify(r, null, 2)
      : r.requests.length
        ? pageWords(r.requests.map(requestLine).join('\n')) // the URLs are the page's
        : r.recording
          ? 'no requests match'
          : "no requests: the browser did not let clawd listen to this tab's network",
});

export const networkRequest = operation<NetworkDetail>()({
  name: 'networkRequest',
  summary: 'one request of the tab by id: its headers both ways and its body (text as text, else base64)',
  details:
    "The body is read from the browser when asked: it has the current page's bodies while it keeps them (a new page or a large page may have let them go; then bodyError says so). A redirect has no body.",
  input: z.object({
    ...tabFields,
    id: z
      .string()
      .regex(/^n\d+$/, 'must be a request id from network, like n12')
      .describe('its id in the list (n12)'),
    maxChars: intIn(1, 1_000_000).default(20_000).describe('text body cut (default 20,000)'),
    maxBytes: intIn(1, 10_000_000).default(1_000_000).describe('other body cut, in bytes (default 1 MB)'),
  }),
  http: { method: 'GET', path: '/network/:id' },
  cli: {
    group: 'agent',
    name: 'request',
    args: [{ field: 'id', value: 'ID' }],
    flags: { maxChars: { value: 'N' }, maxBytes: { value: 'N' } },
  },
  mcp: { tool: 'network', as: 'request' },
  example: { id: 'n3' },
  text: (r) => {
    // All of it the page's or its servers' (the URL, headers, bodies): fenced.
    const head = [
      `${requestLine(r)}${r.statusText ? ` ${r.statusText}` : ''}`,
      ...r.requestHeaders.map((h) => `> ${h.name}: ${h.value}`),
      ...(r.postData !== undefined ? [`> (body) ${r.postData}`] : []),
      ...r.responseHeaders.map((h) => `< ${h.name}: ${h.value}`),
    ];
    const body = r.bodyError
      ? `(no body: ${r.bodyError})`
      : r.bodyEncoding === 'base64'
        ? `(base64, ${r.bodyBytes} bytes${r.truncated ? ', cut' : ''}) ${r.body}`
        : `${r.body}${r.truncated ? `\n(cut: ${r.bodyBytes} bytes in all)` : ''}`;
    return pageWords(`${head.join('\n')}\n\n${body}`);
  },
});

export type NetworkRequestInput = z.output<typeof networkRequest.input>;
