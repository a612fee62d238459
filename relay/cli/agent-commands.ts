// The CLI's agent commands (spec's quick reference): snapshot, screenshot, navigate, resize,
// click, type, press, hover, drag, select, upload, fill, dialog, wait, evaluate, console, pdf.
// Each is one control-API call; refs may be written e12, @e12, ref=e12 or just 12.

import type { CommandContext } from './commands';
import { UsageError } from './commands';

type Options = Record<string, string | boolean | undefined>;

export const AGENT_USAGE: Record<string, string> = {
  snapshot: 'clawd snapshot [--format ai|role|aria] [--interactive] [--compact] [--depth N] [--limit N] [--max-chars N] [--selector CSS] [--frame REF]',
  screenshot: 'clawd screenshot [--full-page] [--ref REF | --element CSS] [--type png|jpeg] [--labels]',
  navigate: 'clawd navigate URL',
  resize: 'clawd resize WIDTH HEIGHT',
  click: 'clawd click REF [--double] [--button left|right|middle] [--modifiers Shift,Alt]',
  type: 'clawd type REF TEXT [--submit] [--slowly]',
  press: 'clawd press KEY [--ref REF]',
  hover: 'clawd hover REF',
  drag: 'clawd drag START_REF END_REF',
  select: 'clawd select REF VALUE [VALUE …]',
  upload: 'clawd upload PATH [PATH …] [--ref REF]   (arms the next file chooser; with --ref, clicks it)',
  fill: `clawd fill --fields '[{"ref":"e1","value":"Ada"},{"ref":"e2","value":true}]'`,
  dialog: 'clawd dialog --accept | --dismiss [--prompt-text TEXT] [--ref REF]   (arms the next dialog)',
  wait: 'clawd wait [--text T] [--text-gone T] [--selector CSS] [--url U] [--load-state load|domcontentloaded|networkidle] [--fn F] [--time MS]',
  evaluate: "clawd evaluate --fn '(el) => el.textContent' [--ref REF]",
  console: 'clawd console [--level debug|info|warning|error]',
  pdf: 'clawd pdf',
};

const int = (value: string | undefined, what: string) => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`${what} must be a number, got ${JSON.stringify(value)}`);
  return n;
};

export async function runAgentCommand(command: string, args: string[], o: Options, ctx: CommandContext): Promise<void> {
  const { client, profile } = ctx;
  const str = (key: string) => (typeof o[key] === 'string' ? (o[key] as string) : undefined);
  const target = str('target');
  const timeoutMs = int(str('timeout'), '--timeout');
  const common = { ...(target ? { targetId: target } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  const out = (value: unknown, human: () => string[]) => {
    if (ctx.json) ctx.print(JSON.stringify(value, null, 2));
    else for (const line of human()) ctx.print(line);
  };
  const need = (count: number, what: string) => {
    if (args.length < count) throw new UsageError(`${command} needs ${what}`);
  };
  const act = async (body: Record<string, unknown>, human: (result: any) => string[]) => {
    const result = await client.call('POST', '/act', { profile, body: { ...common, ...body } });
    out(result, () => human(result));
  };

  switch (command) {
    case 'snapshot': {
      const query = new URLSearchParams();
      for (const [flag, param] of [['format', 'format'], ['limit', 'limit'], ['max-chars', 'maxChars'], ['depth', 'depth'], ['selector', 'selector'], ['frame', 'frame'], ['target', 'targetId']] as const) {
        if (str(flag) !== undefined) query.set(param, str(flag)!);
      }
      if (o.interactive) query.set('interactive', '1');
      if (o.compact) query.set('compact', '1');
      const snap = await client.call<{ snapshot: string; truncated: boolean; stats: { chars: number; refs: number }; url: string }>('GET', `/snapshot?${query}`, { profile });
      return out(snap, () => [snap.snapshot, ...(snap.truncated ? [`(truncated at ${snap.stats.chars} characters)`] : [])]);
    }
    case 'screenshot': {
      const body = { ...common, ...(o['full-page'] ? { fullPage: true } : {}), ...(str('ref') ? { ref: str('ref') } : {}), ...(str('element') ? { element: str('element') } : {}), ...(str('type') ? { type: str('type') } : {}), ...(o.labels ? { labels: true } : {}) };
      const shot = await client.call<{ path: string; width: number; height: number; labels?: number; broughtToFront?: boolean }>('POST', '/screenshot', { profile, body });
      const notes = [shot.labels !== undefined ? `${shot.labels} labels` : '', shot.broughtToFront ? 'the tab was brought to the front' : ''].filter(Boolean);
      return out(shot, () => [`${shot.path}  (${shot.width}×${shot.height}${notes.length ? `; ${notes.join('; ')}` : ''})`]);
    }
    case 'navigate': {
      need(1, 'a URL');
      const result = await client.call<{ url: string; title: string }>('POST', '/navigate', { profile, body: { ...common, url: args[0] } });
      return out(result, () => [`${result.url}  ${result.title}`]);
    }
    case 'resize':
      need(2, 'WIDTH HEIGHT');
      return act({ kind: 'resize', width: int(args[0], 'WIDTH'), height: int(args[1], 'HEIGHT') }, () => [`viewport ${args[0]}×${args[1]}`]);
    case 'click': {
      need(1, 'a ref');
      const modifiers = str('modifiers')?.split(',').map((m) => m.trim());
      return act({ kind: 'click', ref: args[0], ...(o.double ? { doubleClick: true } : {}), ...(str('button') ? { button: str('button') } : {}), ...(modifiers ? { modifiers } : {}) }, () => [`clicked ${args[0]}`]);
    }
    case 'type':
      need(2, 'a ref and the text');
      return act({ kind: 'type', ref: args[0], text: args.slice(1).join(' '), submit: o.submit === true, slowly: o.slowly === true }, () => [`typed into ${args[0]}`]);
    case 'press':
      need(1, 'a key, e.g. Enter');
      return act({ kind: 'press', key: args[0], ...(str('ref') ? { ref: str('ref') } : {}) }, () => [`pressed ${args[0]}`]);
    case 'hover':
      need(1, 'a ref');
      return act({ kind: 'hover', ref: args[0] }, () => [`hovering ${args[0]}`]);
    case 'drag':
      need(2, 'START_REF END_REF');
      return act({ kind: 'drag', startRef: args[0], endRef: args[1] }, () => [`dragged ${args[0]} onto ${args[1]}`]);
    case 'select':
      need(2, 'a ref and at least one value');
      return act({ kind: 'select', ref: args[0], values: args.slice(1) }, (r) => [`selected ${(r.selected as string[]).join(', ')}`]);
    case 'fill': {
      let fields: unknown;
      try {
        fields = JSON.parse(str('fields') ?? '');
      } catch {
        throw new UsageError(`fill needs --fields with a JSON list, e.g. '[{"ref":"e1","value":"Ada"}]'`);
      }
      return act({ kind: 'fill', fields }, (r) => [`filled ${r.filled} field(s)`]);
    }
    case 'wait': {
      const body = {
        kind: 'wait',
        ...(str('text') !== undefined ? { text: str('text') } : {}),
        ...(str('text-gone') !== undefined ? { textGone: str('text-gone') } : {}),
        ...(str('selector') !== undefined ? { selector: str('selector') } : {}),
        ...(str('url') !== undefined ? { url: str('url') } : {}),
        ...(str('load-state') !== undefined ? { loadState: str('load-state') } : {}),
        ...(str('fn') !== undefined ? { fn: str('fn') } : {}),
        ...(str('time') !== undefined ? { timeMs: int(str('time'), '--time') } : {}),
      };
      return act(body, () => ['done']);
    }
    case 'evaluate':
      if (str('fn') === undefined) throw new UsageError('evaluate needs --fn');
      return act({ kind: 'evaluate', fn: str('fn'), ...(str('ref') ? { ref: str('ref') } : {}) }, (r) => [JSON.stringify(r.result ?? null)]);
    case 'upload': {
      need(1, 'at least one file path');
      const body = { ...common, paths: args, ...(str('ref') ? { ref: str('ref') } : {}) };
      const result = await client.call('POST', '/hooks/file-chooser', { profile, body });
      return out(result, () => [str('ref') ? `uploaded ${args.join(', ')} via ${str('ref')}` : `armed: the next file chooser gets ${args.join(', ')}`]);
    }
    case 'dialog': {
      if (!o.accept && !o.dismiss) throw new UsageError('dialog needs --accept or --dismiss');
      const body = { ...common, accept: o.accept === true, ...(str('prompt-text') !== undefined ? { promptText: str('prompt-text') } : {}), ...(str('ref') ? { ref: str('ref') } : {}) };
      const result = await client.call<{ dialog?: { type: string; message: string } }>('POST', '/hooks/dialog', { profile, body });
      return out(result, () => [result.dialog ? `${o.accept ? 'accepted' : 'dismissed'} ${result.dialog.type} "${result.dialog.message}"` : `armed: the next dialog is ${o.accept ? 'accepted' : 'dismissed'}`]);
    }
    case 'console': {
      const query = new URLSearchParams({ ...(str('level') ? { level: str('level')! } : {}), ...(target ? { targetId: target } : {}) });
      const result = await client.call<{ messages: Array<{ type: string; text: string }>; errors: Array<{ text: string }> }>('GET', `/console?${query}`, { profile });
      return out(result, () => [...result.messages.map((m) => `[${m.type}] ${m.text}`), ...result.errors.map((e) => `[pageerror] ${e.text}`)]);
    }
    case 'pdf': {
      const result = await client.call<{ path: string }>('POST', '/pdf', { profile, body: common, timeoutMs: 60_000 });
      return out(result, () => [result.path]);
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}
