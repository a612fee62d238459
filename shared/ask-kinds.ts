// What the person may ask to be asked before (config `browser.profiles.<name>.ask`, set by the
// person: options page, side panel, `clawd policy-set --ask`; never by an MCP tool). Each kind is
// something an agent cannot take back once done. Pure, so the CLI, the schema and the gate share it.

export const ASK_KINDS = ['submit', 'download', 'upload', 'evaluate', 'new-site', 'storage', 'raw-cookies'] as const;
export type AskKind = (typeof ASK_KINDS)[number];

/** What each kind asks about, as the person reads it in the side panel and the options. */
export const ASK_KIND_TEXT: Record<AskKind, string> = {
  submit: 'sending a form (a submit button, Enter in a form field)',
  download: 'downloading a file',
  upload: 'uploading a file from this machine',
  evaluate: 'running its own script in a page',
  'new-site': 'going to a site it has not been on before',
  storage: 'exporting your cookies and site storage',
  'raw-cookies': "a raw CDP client reading your browser's cookies",
};

/**
 * The kinds judged at the browser, by what a tab's requests do (a form's POST, a new site's load,
 * an attachment), while an agent's call or a raw client acts there (agent/action-watch.ts).
 */
export const WATCHED_ASK_KINDS: readonly AskKind[] = ['submit', 'new-site', 'download'];

/** What a person's browser (an extension profile) asks before when nobody said otherwise. */
export const DEFAULT_EXTENSION_ASK: readonly AskKind[] = ['storage'];

export function isAskKind(value: unknown): value is AskKind {
  return typeof value === 'string' && (ASK_KINDS as readonly string[]).includes(value);
}

/** A list of kinds checked, or a message naming the first that is not one. */
export function parseAskKinds(value: unknown): AskKind[] | string {
  if (!Array.isArray(value)) return `must be a list of ${ASK_KINDS.join(', ')}`;
  const unknown = value.find((kind) => !isAskKind(kind));
  if (unknown !== undefined)
    return `${JSON.stringify(unknown)} is not something clawd asks about: use ${ASK_KINDS.join(', ')}`;
  return [...new Set(value as AskKind[])];
}
