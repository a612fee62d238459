// Tabs as the control API and the agent layer name them: the shape /tabs lists, finding one by
// its id or a unique prefix of it, and which URLs a tab may be opened on or sent to.

import { ClawdError } from '../errors';

export interface Tab {
  targetId: string;
  title: string;
  url: string;
  type: string;
}

/** An id or a unique prefix of one; ambiguous → 409 naming the candidates, unknown → 404. */
export function matchTab(tabs: Tab[], idOrPrefix: string): Tab {
  const exact = tabs.find((t) => t.targetId === idOrPrefix);
  if (exact) return exact;
  const matches =
    idOrPrefix === '' ? [] : tabs.filter((t) => t.targetId.toLowerCase().startsWith(idOrPrefix.toLowerCase()));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new ClawdError(
      'target_ambiguous',
      `${JSON.stringify(idOrPrefix)} matches ${matches.length} tabs (${matches.map((t) => t.targetId.slice(0, 8)).join(', ')}): give more of the id`,
    );
  }
  throw new ClawdError(
    'target_not_found',
    `no tab with id ${JSON.stringify(idOrPrefix)}: list them with GET /tabs (clawd tabs)`,
  );
}

/** What a tab may be opened on or navigated to: the web, or a blank page. The URL as the browser writes it, or what is wrong (said after the word "url"). */
export function openableUrl(url: unknown): { href: string } | { problem: string } {
  if (typeof url !== 'string' || url === '') return { problem: 'is required, e.g. {"url": "https://example.com"}' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { problem: `${JSON.stringify(url)} is not an absolute URL (include https://)` };
  }
  if (!['http:', 'https:'].includes(parsed.protocol) && parsed.href !== 'about:blank') {
    return { problem: `: ${parsed.protocol} URLs are refused; use http(s) pages or about:blank` };
  }
  return { href: parsed.href };
}

export function checkOpenUrl(url: unknown): string {
  const checked = openableUrl(url);
  if ('problem' in checked)
    throw new ClawdError('bad_request', `url${checked.problem.startsWith(':') ? '' : ' '}${checked.problem}`);
  return checked.href;
}
