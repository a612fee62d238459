// The clawd tools an MCP client sees: one entry per tool, its description (which teaches the
// loop: snapshot → act by ref → snapshot again), its arguments as a zod schema (the SDK turns it
// into the JSON schema clients see and checks every call against it), and how it maps onto the
// control API. Every tool is a control-API call, so MCP, HTTP and the CLI answer alike.

import { z } from 'zod';

/** How a tool reaches the control API (the ControlClient's call). */
export interface ControlApi {
  call<T = any>(method: string, path: string, options?: { profile?: string; body?: unknown; timeoutMs?: number }): Promise<T>;
}

/** What a tool answers before it becomes MCP content: text, and a picture for screenshots. */
export interface ToolAnswer {
  text: string;
  image?: { path: string; mimeType: string };
}

export interface ToolDefinition {
  name: string;
  description: string;
  input: z.ZodRawShape;
  run(args: Record<string, any>, api: ControlApi, profile: string | undefined): Promise<ToolAnswer>;
}

const where = {
  profile: z.string().optional().describe('the clawd profile (default: the one clawd mcp was started with, else the config default)'),
  targetId: z.string().optional().describe('the tab: an id or a unique prefix from the tabs tool (default: the tab last used)'),
  session: z.string().optional().describe('your agent session name: a tab you change is held for you, and other sessions may not change it'),
};
const ref = z.string().describe('a ref from the latest snapshot, like e12');
const timeoutMs = z.number().optional().describe('how long the action may wait, in ms (0.5–60 s, default 8 s)');
const after = z.enum(['diff', 'full']).optional().describe('answer with the page after the action: "diff" (what changed since the last snapshot) or "full"');

/** `{targetId?, timeoutMs?, snapshot?}` of an act call, from the arguments that carry them. */
function common(args: Record<string, any>): Record<string, unknown> {
  return {
    ...(args.targetId ? { targetId: args.targetId } : {}),
    ...(args.session ? { session: args.session } : {}),
    ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
    ...(args.snapshot ? { snapshot: args.snapshot } : {}),
  };
}

/** The text of a snapshot answer: a line on the page, then the snapshot itself. */
function snapshotText(snap: any): string {
  const head = [`page: ${snap.title ? `${snap.title} — ` : ''}${snap.url ?? ''}`.trim()];
  if (snap.id) head.push(`snapshot ${snap.id}${snap.diff ? `, changes since ${snap.diff.since}: ${snap.diff.changed} changed, ${snap.diff.added} added, ${snap.diff.removed} removed` : ''}`);
  return `${head.join(' · ')}\n${snap.snapshot === '' ? '(nothing changed)' : snap.snapshot}`;
}

/** Waits (bounded, 10 minutes at most) for a hand-over to end, in words. */
async function waitForHandback(api: ControlApi, profile: string | undefined, targetId: string | undefined, timeoutMs: number | undefined): Promise<string> {
  const wait = timeoutMs ?? 600_000;
  const query = new URLSearchParams({ ...(targetId ? { targetId } : {}), timeoutMs: String(wait) });
  const back = await api.call('GET', `/handoff/wait?${query}`, { profile, timeoutMs: wait + 10_000 });
  if (back.returned === 'timeout') return 'the person did not give the tab back in time';
  return `the tab is back (${back.returned === 'none' ? 'it was not handed over' : back.returned}): ${back.title ?? ''} ${back.url ?? ''}`.trim();
}

/** An act call and its short answer, plus the page after it when asked. */
function act(kind: string, describe: (args: Record<string, any>, result: any) => string) {
  return async (args: Record<string, any>, api: ControlApi, profile: string | undefined): Promise<ToolAnswer> => {
    const { profile: _p, targetId: _t, timeoutMs: _m, snapshot: _s, session: _n, ...rest } = args;
    const result = await api.call('POST', '/act', { profile: args.profile ?? profile, body: { kind, ...rest, ...common(args) } });
    const line = describe(args, result);
    return { text: result.snapshot ? `${line}\n${snapshotText(result.snapshot)}` : line };
  };
}

export const TOOLS: ToolDefinition[] = [
  {
    name: 'snapshot',
    description:
      'Read the page: every actionable element with a ref (e1, e2, …), its role, name, value and state, plus headings, landmarks and condensed text. Start here, act by ref, then snapshot again (or pass since= the last id for only what changed). Refs of changed or removed elements are refused as stale: take a new snapshot then. Long pages are cut at maxChars; continue with after=<the ref named at the cut>.',
    input: {
      ...where,
      maxChars: z.number().int().min(100).optional().describe('cut the snapshot at this many characters (default 40000)'),
      after: z.string().optional().describe('only what follows this ref (the rest of a cut snapshot)'),
      since: z.string().optional().describe('only what changed since this snapshot id (s12)'),
      interactive: z.boolean().optional().describe('only the elements with refs, flat'),
      frame: z.string().optional().describe("only this iframe's contents (its ref)"),
      selector: z.string().optional().describe('only the part of the page under this CSS selector'),
    },
    async run(args, api, profile) {
      const query = new URLSearchParams();
      for (const key of ['targetId', 'maxChars', 'after', 'since', 'frame', 'selector'] as const) if (args[key] !== undefined) query.set(key, String(args[key]));
      if (args.interactive) query.set('interactive', '1');
      return { text: snapshotText(await api.call('GET', `/snapshot?${query}`, { profile: args.profile ?? profile })) };
    },
  },
  {
    name: 'navigate',
    description: 'Load a URL (http, https or about:blank) in the tab and wait for it; then take a snapshot.',
    input: { ...where, url: z.string().describe('the address to load'), timeoutMs },
    async run(args, api, profile) {
      const result = await api.call('POST', '/navigate', { profile: args.profile ?? profile, body: { url: args.url, ...common(args) } });
      return { text: `loaded ${result.url}${result.title ? ` — ${result.title}` : ''}${result.status ? ` (HTTP ${result.status})` : ''}` };
    },
  },
  { name: 'click', description: 'Click an element by its ref.', input: { ...where, ref, doubleClick: z.boolean().optional(), button: z.enum(['left', 'right', 'middle']).optional(), modifiers: z.array(z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'])).optional(), timeoutMs, snapshot: after }, run: act('click', (a) => `clicked ${a.ref}`) },
  { name: 'type', description: 'Type text into a field by its ref (replacing what is there; slowly: key by key, appending).', input: { ...where, ref, text: z.string(), submit: z.boolean().optional().describe('press Enter afterwards'), slowly: z.boolean().optional(), timeoutMs, snapshot: after }, run: act('type', (a) => `typed into ${a.ref}`) },
  {
    name: 'fill',
    description: 'Fill several fields at once: text fields by string, checkboxes and radios by true/false.',
    input: { ...where, fields: z.array(z.object({ ref, value: z.union([z.string(), z.number(), z.boolean()]), type: z.string().optional() })).min(1), timeoutMs, snapshot: after },
    run: act('fill', (a) => `filled ${a.fields.length} field(s)`),
  },
  { name: 'select', description: 'Choose options of a select by value or label.', input: { ...where, ref, values: z.array(z.string()).min(1), timeoutMs, snapshot: after }, run: act('select', (_a, r) => `selected ${(r.selected ?? []).join(', ')}`) },
  { name: 'press', description: 'Press a key (Enter, Escape, ArrowDown, a…), on an element by ref or on the page.', input: { ...where, key: z.string(), ref: ref.optional(), timeoutMs, snapshot: after }, run: act('press', (a) => `pressed ${a.key}`) },
  { name: 'focus', description: 'Focus an element by its ref, without clicking it.', input: { ...where, ref, timeoutMs, snapshot: after }, run: act('focus', (a) => `focused ${a.ref}`) },
  {
    name: 'scroll',
    description: 'Scroll the page, or the scrollable container of an element by ref. Answers where it is and whether it reached the end (to load more, scroll until the end).',
    input: { ...where, direction: z.enum(['up', 'down', 'left', 'right']), amount: z.union([z.number().int().min(1), z.literal('page')]).optional().describe('pixels, or "page" (default)'), ref: ref.optional(), timeoutMs, snapshot: after },
    run: act('scroll', (_a, r) => `scrolled to ${r.scroll.x},${r.scroll.y}${r.scroll.atEnd ? ' (the end)' : ''}`),
  },
  { name: 'hover', description: 'Move the mouse over an element by its ref.', input: { ...where, ref, timeoutMs, snapshot: after }, run: act('hover', (a) => `hovering ${a.ref}`) },
  { name: 'drag', description: 'Drag one element onto another, by refs.', input: { ...where, startRef: ref, endRef: ref, timeoutMs, snapshot: after }, run: act('drag', (a) => `dragged ${a.startRef} onto ${a.endRef}`) },
  {
    name: 'wait',
    description: 'Wait for text to appear or go, an element, a URL, a load state, a function, or a time.',
    input: { ...where, text: z.string().optional(), textGone: z.string().optional(), selector: z.string().optional(), url: z.string().optional(), loadState: z.enum(['load', 'domcontentloaded', 'networkidle']).optional(), fn: z.string().optional(), timeMs: z.number().optional(), timeoutMs, snapshot: after },
    run: act('wait', () => 'done'),
  },
  {
    name: 'evaluate',
    description: 'Run a JavaScript function in the page (or on an element by ref) and answer its result. Prefer refs and the other tools; evaluate is for reading what a snapshot does not show.',
    input: { ...where, fn: z.string().describe('a function, e.g. "() => document.title" or "(el) => el.href"'), ref: ref.optional(), timeoutMs },
    run: act('evaluate', (_a, r) => JSON.stringify(r.result ?? null)),
  },
  {
    name: 'screenshot',
    description: 'A picture of the viewport, the full page or one element; labels draws each ref of the last snapshot on it.',
    input: { ...where, fullPage: z.boolean().optional(), ref: ref.optional(), element: z.string().optional().describe('a CSS selector'), type: z.enum(['png', 'jpeg']).optional(), labels: z.boolean().optional() },
    async run(args, api, profile) {
      const { profile: _p, ...body } = args;
      const shot = await api.call('POST', '/screenshot', { profile: args.profile ?? profile, body });
      return { text: `saved ${shot.path} (${shot.width}×${shot.height}${shot.labels !== undefined ? `, ${shot.labels} labels` : ''})`, image: { path: shot.path, mimeType: shot.type === 'jpeg' ? 'image/jpeg' : 'image/png' } };
    },
  },
  {
    name: 'content',
    description: "Read the page's main content as Markdown (the article, links kept; navigation left out), text or HTML. Far cheaper than a snapshot for reading; use a snapshot to act.",
    input: { ...where, format: z.enum(['markdown', 'text', 'html']).optional(), selector: z.string().optional().describe('only this part (CSS)'), maxChars: z.number().int().min(100).optional() },
    async run(args, api, profile) {
      const query = new URLSearchParams({ ...(args.format ? { format: args.format } : {}), ...(args.selector ? { selector: args.selector } : {}), ...(args.maxChars ? { maxChars: String(args.maxChars) } : {}), ...(args.targetId ? { targetId: args.targetId } : {}) });
      const result = await api.call('GET', `/content?${query}`, { profile: args.profile ?? profile, timeoutMs: 70_000 });
      return { text: result.content };
    },
  },
  {
    name: 'console',
    description: "The tab's console messages and page errors.",
    input: { ...where, level: z.enum(['debug', 'info', 'warning', 'error']).optional() },
    async run(args, api, profile) {
      const query = new URLSearchParams({ ...(args.level ? { level: args.level } : {}), ...(args.targetId ? { targetId: args.targetId } : {}) });
      const result = await api.call('GET', `/console?${query}`, { profile: args.profile ?? profile });
      const lines = [...result.messages.map((m: any) => `[${m.type}] ${m.text}`), ...result.errors.map((e: any) => `[pageerror] ${e.text}`)];
      return { text: lines.length ? lines.join('\n') : '(no messages)' };
    },
  },
  {
    name: 'pdf',
    description: 'Print the page to a PDF file (managed profiles).',
    input: { ...where },
    async run(args, api, profile) {
      const result = await api.call('POST', '/pdf', { profile: args.profile ?? profile, body: common(args), timeoutMs: 60_000 });
      return { text: `saved ${result.path}` };
    },
  },
  {
    name: 'upload',
    description: 'Arm the next file chooser with these files; with ref, also click the element that opens it.',
    input: { ...where, paths: z.array(z.string()).min(1).describe('absolute file paths'), ref: ref.optional(), timeoutMs },
    async run(args, api, profile) {
      const { profile: _p, ...body } = args;
      const result = await api.call('POST', '/hooks/file-chooser', { profile: args.profile ?? profile, body });
      return { text: result.files ? `uploaded ${result.files.join(', ')}` : `armed: the next file chooser gets ${args.paths.join(', ')}` };
    },
  },
  {
    name: 'download',
    description: "Wait for the tab's next download (with ref, click the link or button that starts it) and answer where the file was saved. Managed and remote profiles.",
    input: { ...where, ref: ref.optional(), timeoutMs: z.number().int().min(500).max(120_000).optional() },
    async run(args, api, profile) {
      const { profile: _p, ...body } = args;
      const result = await api.call('POST', '/hooks/download', { profile: args.profile ?? profile, body, timeoutMs: 190_000 });
      return { text: `saved ${result.download.suggestedFilename} (${result.download.bytes} bytes) to ${result.download.path}` };
    },
  },
  {
    name: 'dialog',
    description: 'Arm the answer to the next alert, confirm or prompt; with ref, also click the element that opens it.',
    input: { ...where, accept: z.boolean(), promptText: z.string().optional(), ref: ref.optional(), timeoutMs },
    async run(args, api, profile) {
      const { profile: _p, ...body } = args;
      const result = await api.call('POST', '/hooks/dialog', { profile: args.profile ?? profile, body });
      return { text: result.dialog ? `${args.accept ? 'accepted' : 'dismissed'} ${result.dialog.type} "${result.dialog.message}"` : `armed: the next dialog is ${args.accept ? 'accepted' : 'dismissed'}` };
    },
  },
  {
    name: 'handoff',
    description: 'Give the tab to the person when you cannot go on (a log-in, a CAPTCHA, a payment): say what they should do. Answers with a live view link to pass on to them (it works once); then call handoff_wait. With wait, answers only when they give it back (then take a new snapshot).',
    input: { ...where, reason: z.string().describe('what the person should do, e.g. "Log in, then press Done"'), wait: z.boolean().optional(), timeoutMs: z.number().int().min(1_000).max(600_000).optional().describe('end the hand-over after this long') },
    async run(args, api, profile) {
      const p = args.profile ?? profile;
      const given = await api.call('POST', '/handoff', { profile: p, body: { reason: args.reason, ...common(args) } });
      if (!args.wait) return { text: `handed ${given.targetId} to the person: "${args.reason}". Give them this link to act in the tab: ${given.viewUrl}` };
      return { text: await waitForHandback(api, p, given.targetId, args.timeoutMs) };
    },
  },
  {
    name: 'handoff_wait',
    description: 'Wait until the person gives the tab back after a handoff (at most 10 minutes); then take a new snapshot.',
    input: { ...where, timeoutMs: z.number().int().min(1_000).max(600_000).optional() },
    async run(args, api, profile) {
      return { text: await waitForHandback(api, args.profile ?? profile, args.targetId, args.timeoutMs) };
    },
  },
  {
    name: 'tabs',
    description: 'List the tabs, or open, focus or close one.',
    input: { profile: where.profile, action: z.enum(['list', 'open', 'focus', 'close']).optional().describe('default: list'), url: z.string().optional().describe('for open'), targetId: z.string().optional().describe('for focus and close') },
    async run(args, api, profile) {
      const p = args.profile ?? profile;
      const action = args.action ?? 'list';
      if (action === 'open') {
        const tab = await api.call('POST', '/tabs/open', { profile: p, body: { url: args.url } });
        return { text: `opened ${tab.targetId}  ${tab.url}` };
      }
      if (action === 'focus' || action === 'close') {
        const tab = action === 'focus' ? await api.call('POST', '/tabs/focus', { profile: p, body: { targetId: args.targetId } }) : await api.call('DELETE', `/tabs/${encodeURIComponent(args.targetId ?? '')}`, { profile: p });
        return { text: `${action === 'focus' ? 'focused' : 'closed'} ${tab.targetId}  ${tab.title ?? ''}`.trim() };
      }
      const { tabs } = await api.call('GET', '/tabs', { profile: p });
      return { text: tabs.length ? tabs.map((t: any) => `${t.targetId}  ${t.title || '(untitled)'}  ${t.url}`).join('\n') : 'no tabs' };
    },
  },
  {
    name: 'status',
    description: "The profile's browser: running or not, its driver, CDP address, attached tabs.",
    input: { profile: where.profile },
    async run(args, api, profile) {
      const s = await api.call('GET', '/', { profile: args.profile ?? profile });
      const state = s.driver === 'extension' ? (s.running ? `connected, ${s.attachedTabs} tab(s) attached` : 'extension not connected') : s.running ? 'running' : 'not running';
      return { text: `${s.profile} (${s.driver}): ${state}${s.hint ? `\n${s.hint}` : ''}` };
    },
  },
  {
    name: 'start',
    description: "Start the profile's browser (a managed profile launches its own Chromium).",
    input: { profile: where.profile },
    async run(args, api, profile) {
      const s = await api.call('POST', '/start', { profile: args.profile ?? profile, timeoutMs: 60_000 });
      return { text: `${s.profile} (${s.driver}) is running${s.browser ? `: ${s.browser}` : ''}` };
    },
  },
  {
    name: 'stop',
    description: "Stop a managed profile's browser.",
    input: { profile: where.profile },
    async run(args, api, profile) {
      const r = await api.call('POST', '/stop', { profile: args.profile ?? profile, timeoutMs: 15_000 });
      return { text: r.stopped ? `${r.status.profile} stopped` : `${r.status.profile} was not running` };
    },
  },
  {
    name: 'profiles',
    description: 'All profiles: managed (clawd launches Chromium), extension (your own browser), remote.',
    input: {},
    async run(_args, api) {
      const { profiles } = await api.call('GET', '/profiles');
      return { text: profiles.map((p: any) => `${p.default ? '*' : ' '} ${p.profile} (${p.driver}) ${p.running ? 'running' : 'stopped'}`).join('\n') };
    },
  },
];
