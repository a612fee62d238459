// The page a tab shows instead of a site its origin policy blocks: what was blocked and by which
// rule. The relay serves it at /blocked for a person's tab (the extension sends the tab there;
// Chrome will not let an extension navigate a tab to a data: page) and answers a managed
// browser's blocked document with it directly.

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function blockedPageHtml(url: string, reason: string): string {
  return `<!doctype html><meta charset="utf-8"><title>Blocked by clawd</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:12vh auto;max-width:40em;padding:0 1em;color:#222}h1{font-size:1.4em;color:#c33}code{word-break:break-all}</style>
<h1>Blocked by clawd</h1><p>This tab may not load <code>${escape(url)}</code>.</p><p>${escape(reason)}.</p>
<p>The origin policy keeps an agent to the sites its task needs. To change it: <code>clawd policy-set</code>, or <code>policy</code> in clawd's config.json.</p>`;
}

/** The relay's /blocked page for a URL and the reason it was refused. */
export function blockedPageUrl(relayOrigin: string, url: string, reason: string): string {
  return `${relayOrigin}/blocked?${new URLSearchParams({ url, reason })}`;
}
