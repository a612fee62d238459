// The CLI's agent commands: snapshot, screenshot, navigate, resize,
// click, type, press, focus-ref, scroll, hover, drag, select, upload, download(s), fill, dialog,
// wait, evaluate, content, console, pdf, handoff, view. Each is one control-API call; refs may be
// written e12, @e12, ref=e12 or just 12. Every one takes --target ID and --timeout MS besides its
// own flags (added by command-table.ts). A long file of short entries: one list, read top to bottom.

import { noArguments, output, stringFlag, UsageError, type CliCommand, type CommandContext, type FlagValues, type Flags } from './cli-command';

const number = (value: string | undefined, what: string) => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`${what} must be a number, got ${JSON.stringify(value)}`);
  return n;
};

/** What every agent request carries from the common flags: the tab and the action's bound. */
function common(flags: FlagValues): Record<string, unknown> {
  const target = stringFlag(flags, 'target');
  const session = stringFlag(flags, 'session');
  const timeoutMs = number(stringFlag(flags, 'timeout'), '--timeout');
  return { ...(target ? { targetId: target } : {}), ...(session ? { session } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

function need(command: string, args: string[], count: number, what: string): void {
  if (args.length < count) throw new UsageError(`${command} needs ${what}`);
}

/** POST /act with the common fields, printing `human(result)` (or the JSON). */
async function act(ctx: CommandContext, flags: FlagValues, body: Record<string, unknown>, human: (result: any) => string[]): Promise<void> {
  const result = await (await ctx.client()).call('POST', '/act', { profile: ctx.profile, body: { ...common(flags), ...body } });
  output(ctx, result, () => human(result));
}

const REF_FLAG = { ref: { type: 'string', value: 'REF', help: 'the element, by its ref from the snapshot' } } as const satisfies Flags;

/** An /act command: `body` builds the action from the arguments and flags. */
function action(name: string, usage: string, summary: string, flags: Flags, build: (args: string[], flags: FlagValues) => { body: Record<string, unknown>; human: (result: any) => string[] }): CliCommand {
  return {
    name,
    group: 'agent',
    usage,
    summary,
    flags,
    run: (args, values, ctx) => {
      const { body, human } = build(args, values);
      return act(ctx, values, body, human);
    },
  };
}

export const AGENT_COMMANDS: CliCommand[] = [
  {
    name: 'snapshot',
    group: 'agent',
    usage: 'snapshot [--format agent|ai|role|aria] [--interactive] [--max-chars N] [--after REF] [--depth N] [--limit N] [--selector CSS] [--frame REF]',
    summary: 'the page with refs e1, e2, …',
    flags: {
      format: { type: 'string', value: 'F', help: 'agent (default), ai, role or aria' },
      interactive: { type: 'boolean', help: 'only actionable elements, flat' },
      'max-chars': { type: 'string', value: 'N', help: 'at most this many characters (agent: 40000 by default)' },
      after: { type: 'string', value: 'REF', help: 'only what follows this ref (the rest of a cut snapshot)' },
      compact: { type: 'boolean', help: 'ai/role: lift the children of unnamed structure' },
      depth: { type: 'string', value: 'N', help: 'cut the tree below this depth' },
      limit: { type: 'string', value: 'N', help: 'at most this many lines' },
      selector: { type: 'string', value: 'CSS', help: 'only the part of the page under this element' },
      frame: { type: 'string', value: 'REF', help: 'only the contents of this iframe' },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const query = new URLSearchParams();
      for (const [flag, param] of [['format', 'format'], ['limit', 'limit'], ['max-chars', 'maxChars'], ['after', 'after'], ['depth', 'depth'], ['selector', 'selector'], ['frame', 'frame'], ['target', 'targetId']] as const) {
        const value = stringFlag(flags, flag);
        if (value !== undefined) query.set(param, value);
      }
      if (flags.interactive) query.set('interactive', '1');
      if (flags.compact) query.set('compact', '1');
      const snap = await (await ctx.client()).call<{ snapshot: string; truncated: boolean; next?: string; stats: { chars: number; refs: number }; url: string }>('GET', `/snapshot?${query}`, { profile: ctx.profile });
      // The agent format marks its own cut (and names where to continue) in the text.
      output(ctx, snap, () => [snap.snapshot, ...(snap.truncated && !snap.next ? [`(truncated at ${snap.stats.chars} characters)`] : [])]);
    },
  },
  {
    name: 'screenshot',
    group: 'agent',
    usage: 'screenshot [--full-page] [--ref REF | --element CSS] [--type png|jpeg] [--labels]',
    summary: 'a PNG or JPEG of the viewport, the full page or one element, saved under the home',
    flags: {
      'full-page': { type: 'boolean', help: 'the whole page, not just the viewport' },
      ...REF_FLAG,
      element: { type: 'string', value: 'CSS', help: 'one element, by CSS selector' },
      type: { type: 'string', value: 'T', help: 'png (default) or jpeg' },
      labels: { type: 'boolean', help: "draw each ref of the last snapshot on the shot" },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const [ref, element, type] = [stringFlag(flags, 'ref'), stringFlag(flags, 'element'), stringFlag(flags, 'type')];
      const body = { ...common(flags), ...(flags['full-page'] ? { fullPage: true } : {}), ...(ref ? { ref } : {}), ...(element ? { element } : {}), ...(type ? { type } : {}), ...(flags.labels ? { labels: true } : {}) };
      const shot = await (await ctx.client()).call<{ path: string; width: number; height: number; labels?: number; broughtToFront?: boolean }>('POST', '/screenshot', { profile: ctx.profile, body });
      const notes = [shot.labels !== undefined ? `${shot.labels} labels` : '', shot.broughtToFront ? 'the tab was brought to the front' : ''].filter(Boolean);
      output(ctx, shot, () => [`${shot.path}  (${shot.width}×${shot.height}${notes.length ? `; ${notes.join('; ')}` : ''})`]);
    },
  },
  {
    name: 'navigate',
    group: 'agent',
    usage: 'navigate URL',
    summary: 'load a URL in the tab and wait for it',
    flags: {},
    async run(args, flags, ctx) {
      need('navigate', args, 1, 'a URL');
      const result = await (await ctx.client()).call<{ url: string; title: string }>('POST', '/navigate', { profile: ctx.profile, body: { ...common(flags), url: args[0] } });
      output(ctx, result, () => [`${result.url}  ${result.title}`]);
    },
  },
  action('resize', 'resize WIDTH HEIGHT', "set the viewport's size", {}, (args) => {
    need('resize', args, 2, 'WIDTH HEIGHT');
    return { body: { kind: 'resize', width: number(args[0], 'WIDTH'), height: number(args[1], 'HEIGHT') }, human: () => [`viewport ${args[0]}×${args[1]}`] };
  }),
  action(
    'click',
    'click REF [--double] [--button left|right|middle] [--modifiers Shift,Alt]',
    'click an element',
    {
      double: { type: 'boolean', help: 'a double click' },
      button: { type: 'string', value: 'B', help: 'left (default), right or middle' },
      modifiers: { type: 'string', value: 'KEYS', help: 'keys held during the click, e.g. Shift,Alt' },
    },
    (args, flags) => {
      need('click', args, 1, 'a ref');
      const button = stringFlag(flags, 'button');
      const modifiers = stringFlag(flags, 'modifiers')?.split(',').map((m) => m.trim());
      return { body: { kind: 'click', ref: args[0], ...(flags.double ? { doubleClick: true } : {}), ...(button ? { button } : {}), ...(modifiers ? { modifiers } : {}) }, human: () => [`clicked ${args[0]}`] };
    },
  ),
  action(
    'type',
    'type REF TEXT [--submit] [--slowly]',
    'type text into a field',
    { submit: { type: 'boolean', help: 'press Enter afterwards' }, slowly: { type: 'boolean', help: 'one key at a time, as a person types' } },
    (args, flags) => {
      need('type', args, 2, 'a ref and the text');
      return { body: { kind: 'type', ref: args[0], text: args.slice(1).join(' '), submit: flags.submit === true, slowly: flags.slowly === true }, human: () => [`typed into ${args[0]}`] };
    },
  ),
  action('press', 'press KEY [--ref REF]', 'press a key (on an element, or the page)', REF_FLAG, (args, flags) => {
    need('press', args, 1, 'a key, e.g. Enter');
    const ref = stringFlag(flags, 'ref');
    return { body: { kind: 'press', key: args[0], ...(ref ? { ref } : {}) }, human: () => [`pressed ${args[0]}`] };
  }),
  // `focus ID` focuses a tab (profile-commands.ts); an element is focused by ref with this one.
  action('focus-ref', 'focus-ref REF', 'focus an element without clicking it', {}, (args) => {
    need('focus-ref', args, 1, 'a ref');
    return { body: { kind: 'focus', ref: args[0] }, human: () => [`focused ${args[0]}`] };
  }),
  action(
    'scroll',
    'scroll up|down|left|right [--amount N|page] [--ref REF]',
    'scroll the page (or the element\'s scrollable container); says where it is and whether it reached the end',
    { amount: { type: 'string', value: 'N', help: 'pixels, or "page" (the default)' }, ref: { type: 'string', value: 'REF', help: 'scroll the container of this element' } },
    (args, flags) => {
      need('scroll', args, 1, 'a direction: up, down, left or right');
      const amount = stringFlag(flags, 'amount');
      const ref = stringFlag(flags, 'ref');
      return {
        body: { kind: 'scroll', direction: args[0], ...(amount && amount !== 'page' ? { amount: Number(amount) } : {}), ...(ref ? { ref } : {}) },
        human: (r: { scroll: { x: number; y: number; atEnd: boolean } }) => [`at ${r.scroll.x},${r.scroll.y}${r.scroll.atEnd ? ' (the end)' : ''}`],
      };
    },
  ),
  action('hover', 'hover REF', 'move the mouse over an element', {}, (args) => {
    need('hover', args, 1, 'a ref');
    return { body: { kind: 'hover', ref: args[0] }, human: () => [`hovering ${args[0]}`] };
  }),
  action('drag', 'drag START_REF END_REF', 'drag one element onto another', {}, (args) => {
    need('drag', args, 2, 'START_REF END_REF');
    return { body: { kind: 'drag', startRef: args[0], endRef: args[1] }, human: () => [`dragged ${args[0]} onto ${args[1]}`] };
  }),
  action('select', 'select REF VALUE [VALUE …]', 'choose options of a select, by value or label', {}, (args) => {
    need('select', args, 2, 'a ref and at least one value');
    return { body: { kind: 'select', ref: args[0], values: args.slice(1) }, human: (r) => [`selected ${(r.selected as string[]).join(', ')}`] };
  }),
  action(
    'fill',
    `fill --fields '[{"ref":"e1","value":"Ada"},{"ref":"e2","value":true}]'`,
    'fill several fields at once (text, checkboxes, radios)',
    { fields: { type: 'string', value: 'JSON', help: 'a list of {"ref", "value", "type"?}' } },
    (_args, flags) => {
      let fields: unknown;
      try {
        fields = JSON.parse(stringFlag(flags, 'fields') ?? '');
      } catch {
        throw new UsageError(`fill needs --fields with a JSON list, e.g. '[{"ref":"e1","value":"Ada"}]'`);
      }
      return { body: { kind: 'fill', fields }, human: (r) => [`filled ${r.filled} field(s)`] };
    },
  ),
  {
    name: 'upload',
    group: 'agent',
    usage: 'upload PATH [PATH …] [--ref REF]',
    summary: 'arm the next file chooser with these files; with --ref, click it',
    flags: REF_FLAG,
    async run(args, flags, ctx) {
      need('upload', args, 1, 'at least one file path');
      const ref = stringFlag(flags, 'ref');
      const body = { ...common(flags), paths: args, ...(ref ? { ref } : {}) };
      const result = await (await ctx.client()).call('POST', '/hooks/file-chooser', { profile: ctx.profile, body });
      output(ctx, result, () => [ref ? `uploaded ${args.join(', ')} via ${ref}` : `armed: the next file chooser gets ${args.join(', ')}`]);
    },
  },
  {
    name: 'download',
    group: 'agent',
    usage: 'download [--ref REF] [--timeout MS]',
    summary: "wait for the tab's next download (with --ref, click it) and print where it was saved",
    flags: REF_FLAG,
    async run(args, flags, ctx) {
      noArguments(args);
      const ref = stringFlag(flags, 'ref');
      const result = await (await ctx.client()).call<{ download: { path: string; bytes: number } }>('POST', '/hooks/download', { profile: ctx.profile, body: { ...common(flags), ...(ref ? { ref } : {}) }, timeoutMs: 190_000 });
      output(ctx, result, () => [`${result.download.path}  ${result.download.bytes} bytes`]);
    },
  },
  {
    name: 'downloads',
    group: 'agent',
    usage: 'downloads',
    summary: "the tab's downloads: saved, failed or cancelled",
    flags: {},
    async run(args, flags, ctx) {
      noArguments(args);
      const target = stringFlag(flags, 'target');
      const result = await (await ctx.client()).call<{ downloads: Array<{ id: string; state: string; suggestedFilename: string; path: string | null; error?: string }> }>('GET', `/downloads${target ? `?targetId=${encodeURIComponent(target)}` : ''}`, { profile: ctx.profile });
      output(ctx, result, () => (result.downloads.length ? result.downloads.map((d) => `${d.id}  ${d.state.padEnd(11)} ${d.path ?? d.suggestedFilename}${d.error ? `  (${d.error})` : ''}`) : ['no downloads']));
    },
  },
  {
    name: 'dialog',
    group: 'agent',
    usage: 'dialog --accept | --dismiss [--prompt-text TEXT] [--ref REF]',
    summary: 'arm the next alert, confirm or prompt; with --ref, click it',
    flags: {
      accept: { type: 'boolean', help: 'accept the dialog' },
      dismiss: { type: 'boolean', help: 'dismiss it' },
      'prompt-text': { type: 'string', value: 'TEXT', help: "a prompt's answer" },
      ...REF_FLAG,
    },
    async run(args, flags, ctx) {
      noArguments(args);
      if (!flags.accept && !flags.dismiss) throw new UsageError('dialog needs --accept or --dismiss');
      const [promptText, ref] = [stringFlag(flags, 'prompt-text'), stringFlag(flags, 'ref')];
      const body = { ...common(flags), accept: flags.accept === true, ...(promptText !== undefined ? { promptText } : {}), ...(ref ? { ref } : {}) };
      const result = await (await ctx.client()).call<{ dialog?: { type: string; message: string } }>('POST', '/hooks/dialog', { profile: ctx.profile, body });
      output(ctx, result, () => [result.dialog ? `${flags.accept ? 'accepted' : 'dismissed'} ${result.dialog.type} "${result.dialog.message}"` : `armed: the next dialog is ${flags.accept ? 'accepted' : 'dismissed'}`]);
    },
  },
  action(
    'wait',
    'wait [--text T] [--text-gone T] [--selector CSS] [--url U] [--load-state load|domcontentloaded|networkidle] [--fn F] [--time MS]',
    'wait for text, an element, a URL, a load state, a function or a time',
    {
      text: { type: 'string', value: 'T', help: 'until this text is visible' },
      'text-gone': { type: 'string', value: 'T', help: 'until this text is gone' },
      selector: { type: 'string', value: 'CSS', help: 'until this element is visible' },
      url: { type: 'string', value: 'U', help: 'until the URL is or contains this' },
      'load-state': { type: 'string', value: 'S', help: 'load, domcontentloaded or networkidle' },
      fn: { type: 'string', value: 'F', help: 'until this function returns true in the page' },
      time: { type: 'string', value: 'MS', help: 'this many milliseconds (at most 30 s)' },
    },
    (_args, flags) => {
      const given = (flag: string, field: string, value = stringFlag(flags, flag)) => (value !== undefined ? { [field]: value } : {});
      const time = number(stringFlag(flags, 'time'), '--time');
      const body = { kind: 'wait', ...given('text', 'text'), ...given('text-gone', 'textGone'), ...given('selector', 'selector'), ...given('url', 'url'), ...given('load-state', 'loadState'), ...given('fn', 'fn'), ...(time !== undefined ? { timeMs: time } : {}) };
      return { body, human: () => ['done'] };
    },
  ),
  action(
    'evaluate',
    "evaluate --fn '(el) => el.textContent' [--ref REF]",
    'run a function in the page (or on an element) and print its result',
    { fn: { type: 'string', value: 'F', help: 'the function (or expression)' }, ...REF_FLAG },
    (_args, flags) => {
      const [fn, ref] = [stringFlag(flags, 'fn'), stringFlag(flags, 'ref')];
      if (fn === undefined) throw new UsageError('evaluate needs --fn');
      return { body: { kind: 'evaluate', fn, ...(ref ? { ref } : {}) }, human: (r) => [JSON.stringify(r.result ?? null)] };
    },
  ),
  {
    name: 'content',
    group: 'agent',
    usage: 'content [--format markdown|text|html] [--selector CSS] [--max-chars N]',
    summary: "the page's main content as Markdown (its article, links kept), text or HTML",
    flags: {
      format: { type: 'string', value: 'F', help: 'markdown (default), text or html' },
      selector: { type: 'string', value: 'CSS', help: 'only this part of the page' },
      'max-chars': { type: 'string', value: 'N', help: 'cut after this many characters (default 40000)' },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const [format, selector, maxChars, target] = [stringFlag(flags, 'format'), stringFlag(flags, 'selector'), stringFlag(flags, 'max-chars'), stringFlag(flags, 'target')];
      const query = new URLSearchParams({ ...(format ? { format } : {}), ...(selector ? { selector } : {}), ...(maxChars ? { maxChars } : {}), ...(target ? { targetId: target } : {}) });
      const result = await (await ctx.client()).call<{ content: string }>('GET', `/content?${query}`, { profile: ctx.profile, timeoutMs: 70_000 });
      output(ctx, result, () => [result.content]);
    },
  },
  {
    name: 'console',
    group: 'agent',
    usage: 'console [--level debug|info|warning|error]',
    summary: "the tab's console messages and page errors",
    flags: { level: { type: 'string', value: 'L', help: 'the least level shown: debug (default), info, warning or error' } },
    async run(args, flags, ctx) {
      noArguments(args);
      const [level, target] = [stringFlag(flags, 'level'), stringFlag(flags, 'target')];
      const query = new URLSearchParams({ ...(level ? { level } : {}), ...(target ? { targetId: target } : {}) });
      const result = await (await ctx.client()).call<{ messages: Array<{ type: string; text: string }>; errors: Array<{ text: string }> }>('GET', `/console?${query}`, { profile: ctx.profile });
      output(ctx, result, () => [...result.messages.map((m) => `[${m.type}] ${m.text}`), ...result.errors.map((e) => `[pageerror] ${e.text}`)]);
    },
  },
  {
    name: 'handoff',
    group: 'agent',
    usage: 'handoff REASON… [--wait] [--timeout MS]',
    summary: 'give the tab to the person (log-ins, CAPTCHAs); --wait until they give it back',
    details:
      'Hands the tab over: until it comes back, every agent call that would change it is refused with\n423 user_in_control and the reason. With --wait, waits (at most 10 minutes, or --timeout) and exits 0\nwhen the tab is given back, 1 when the wait runs out.',
    flags: { wait: { type: 'boolean', help: 'wait until the tab is given back' } },
    async run(args, flags, ctx) {
      need('handoff', args, 1, 'the reason the person reads, e.g. "Log in, then press Done"');
      const client = await ctx.client();
      const { timeoutMs, ...where } = common(flags);
      const given = await client.call<{ targetId: string; viewUrl: string }>('POST', '/handoff', { profile: ctx.profile, body: { ...where, reason: args.join(' '), ...(timeoutMs !== undefined ? { timeoutMs } : {}) } });
      const handed = `handed ${given.targetId.slice(0, 8)} to the person; they can act in it at ${given.viewUrl}`;
      if (!flags.wait) return output(ctx, given, () => [handed]);
      ctx.progress(`${handed}\nwaiting for the tab to be given back …`);
      const wait = (timeoutMs as number | undefined) ?? 600_000;
      const query = new URLSearchParams({ targetId: given.targetId, timeoutMs: String(wait) });
      const back = await client.call<{ returned: string; url: string | null }>('GET', `/handoff/wait?${query}`, { profile: ctx.profile, timeoutMs: wait + 10_000 });
      // 'none': it came back before the wait began.
      output(ctx, back, () => [back.returned === 'timeout' ? 'not given back in time' : `given back${back.returned === 'none' ? '' : ` (${back.returned})`}${back.url ? `: ${back.url}` : ''}`]);
      return back.returned === 'timeout' ? 1 : 0;
    },
  },
  {
    name: 'view',
    group: 'agent',
    usage: 'view [--profile P] [--target ID]',
    summary: 'print a link that opens the live view, signed in (valid once, for a minute)',
    details:
      'The live view shows a tab live and lets you act in it: take over from an agent, log in, then press\n"Done — give it back". The link carries a one-time code in its #fragment (never sent to a server);\nopening it trades the code for a cookie, so the token never reaches the browser.',
    flags: {},
    async run(args, flags, ctx) {
      noArguments(args);
      const link = await (await ctx.client()).call<{ url: string; expiresInMs: number }>('POST', '/view/codes', { profile: ctx.profile });
      const target = stringFlag(flags, 'target');
      const where = new URLSearchParams({ ...(stringFlag(flags, 'profile') ? { profile: ctx.profile } : {}), ...(target ? { target } : {}) });
      const url = `${link.url}${where.size ? `&${where}` : ''}`;
      output(ctx, { ...link, url }, () => [url]);
    },
  },
  {
    name: 'pdf',
    group: 'agent',
    usage: 'pdf',
    summary: 'print the page to a PDF, saved under the home',
    flags: {},
    async run(args, flags, ctx) {
      noArguments(args);
      const result = await (await ctx.client()).call<{ path: string }>('POST', '/pdf', { profile: ctx.profile, body: common(flags), timeoutMs: 60_000 });
      output(ctx, result, () => [result.path]);
    },
  },
];
