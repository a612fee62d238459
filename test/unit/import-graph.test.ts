import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The module map holds only while nothing imports in a circle, the relay and the pages (the
// extension, the live view, the person's UI pieces in ui/) share nothing but shared/, and every
// package imported is declared. Type-only and dynamic imports count too: a cycle of types, or
// one closed by an `await import()`, is still a tangle.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['relay', 'shared', 'extension/src', 'ui', 'view/src'];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

interface Specifier {
  name: string;
  /** `import type …`: gone after the build, so a package it names need not ship. */
  typeOnly: boolean;
  /** `import('…')`: loaded when that line runs, not with the module. */
  dynamic?: boolean;
}

/** What a module's text imports: static imports and re-exports, and `import('…')` with a literal. */
export function specifiersIn(text: string): Specifier[] {
  const statics = [...text.matchAll(/^(?:import|export)\b([^;]*?)from\s+'([^']+)'/gms)].map((m) => ({
    name: m[2]!,
    typeOnly: /^\s*type\b/.test(m[1]!),
  }));
  const dynamic = [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => ({
    name: m[1]!,
    typeOnly: false,
    dynamic: true,
  }));
  return [...statics, ...dynamic];
}

function importsOf(file: string, text: string): string[] {
  return specifiersIn(text)
    .map((s) => s.name)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.join(path.dirname(file), /\.(ts|json)$/.test(s) ? s : `${s}.ts`));
}

const texts = new Map(DIRS.flatMap(sources).map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
const graph = new Map([...texts].map(([file, text]) => [file, importsOf(file, text)]));

/**
 * The relay's layers, top first: a file may import its own layer or a lower one, never a higher
 * one. Entry points; the front doors (HTTP, MCP); the services behind them; the operations'
 * contract (schemas, results, texts); the relay and the profiles; what they stand on; the core.
 */
const LAYERS: Array<[string, string[]]> = [
  ['entry', ['relay/cli/', 'relay/native-host/', 'relay/server.ts', 'relay/person-consent.ts']],
  ['doors', ['relay/control/', 'relay/mcp/']],
  ['services', ['relay/agent/', 'relay/view/']],
  ['operations', ['relay/operations/']],
  ['relay and profiles', ['relay/profiles/', 'relay/cdp/', 'relay/events/', 'relay/pairing/', 'relay/consent/']],
  ['base', ['relay/browser/', 'relay/home/', 'relay/http/']],
  [
    'core',
    [
      'relay/errors.ts',
      'relay/call-notes.ts',
      'relay/caller-authority.ts',
      'relay/log.ts',
      'relay/time-limit.ts',
      'relay/at-once.ts',
      'relay/version.ts',
      'relay/dist-assets.ts',
      'shared/',
      'package.json',
    ],
  ],
];
const layerOf = (file: string) =>
  LAYERS.findIndex(([, prefixes]) => prefixes.some((prefix) => file.startsWith(prefix)));

/** Every cycle, each as the files around it (found by depth-first search). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

/**
 * The pages' side: ui/ (DOM pieces the side panel and the live view both show) stands on shared/
 * alone; the extension and the live view may use ui/ and shared/, never the relay or each other.
 */
const PAGE_SIDES: Array<[string, string[]]> = [
  ['ui/', ['ui/', 'shared/']],
  ['extension/', ['extension/', 'ui/', 'shared/']],
  ['view/', ['view/', 'ui/', 'shared/']],
];

/** Imports of a page-side file that leave what its side may use. */
export function pageSideCrossings(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, imports]) => {
    const side = PAGE_SIDES.find(([prefix]) => file.startsWith(prefix));
    if (!side) return [];
    return imports.filter((t) => !side[1].some((ok) => t.startsWith(ok))).map((t) => `${file} → ${t}`);
  });
}

/** `@scope/name/sub` → `@scope/name`; `hono/streaming` → `hono`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the import graph', () => {
  it('reads the modules it checks', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('relay/cdp/switchboard.ts')).toContain('relay/cdp/session-table.ts');
  });

  it('has no import cycles in relay/, shared/, ui/, the extension and the live view', () => {
    expect(cyclesOf(graph).map((c) => c.join(' → '))).toEqual([]);
  });

  it('finds a cycle closed by a dynamic import, and a ui/ file importing from a page or the relay', () => {
    const a = "import { b } from './b';\nexport const a = 1;";
    const b = "export async function b() {\n  const { a } = await import('./a');\n  return a;\n}";
    const small = new Map([
      ['relay/cli/a.ts', importsOf('relay/cli/a.ts', a)],
      ['relay/cli/b.ts', importsOf('relay/cli/b.ts', b)],
    ]);
    expect(cyclesOf(small)).toEqual([['relay/cli/a.ts', 'relay/cli/b.ts', 'relay/cli/a.ts']]);
    const upward = new Map([
      ['ui/list.ts', importsOf('ui/list.ts', "import { x } from '../extension/src/badge';")],
      ['ui/log.ts', importsOf('ui/log.ts', "import type { Y } from '../relay/log';")],
      ['ui/ok.ts', importsOf('ui/ok.ts', "import { Z } from '../shared/page-marks';")],
    ]);
    expect(pageSideCrossings(upward)).toEqual(['ui/list.ts → extension/src/badge.ts', 'ui/log.ts → relay/log.ts']);
  });

  it('keeps ui/ on shared/, and the extension and the live view on ui/ and shared/', () => {
    expect([...graph.keys()].some((f) => f.startsWith('ui/'))).toBe(true);
    expect(pageSideCrossings(graph)).toEqual([]);
  });

  it('imports only declared packages; what the relay loads at run time, from its dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)]);
    const undeclared: string[] = [];
    const devAtRunTime: string[] = [];
    for (const [file, text] of texts) {
      for (const { name, typeOnly } of specifiersIn(text)) {
        if (name.startsWith('.') || name.startsWith('node:')) continue;
        const pkg = packageOf(name);
        if (!declared.has(pkg)) undeclared.push(`${file}: ${pkg}`);
        // The relay's bundle leaves packages outside (npm installs them); the in-page scripts,
        // the extension and the live view are bundled whole.
        const shipsOutside =
          (file.startsWith('relay/') || file.startsWith('shared/')) && !file.startsWith('relay/agent/in-page/');
        if (shipsOutside && !typeOnly && !(pkg in manifest.dependencies)) devAtRunTime.push(`${file}: ${pkg}`);
      }
    }
    expect(undeclared).toEqual([]);
    expect(devAtRunTime).toEqual([]);
  });

  it('imports only downwards through the layers (docs/architecture.md names them)', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => layerOf(target) < layerOf(file))
        .map((target) => `${file} (${LAYERS[layerOf(file)]![0]}) → ${target} (${LAYERS[layerOf(target)]![0]})`),
    );
    expect(upward).toEqual([]);
    // Every file of relay/ and shared/ has a layer.
    expect(
      [...graph.keys()].filter((f) => (f.startsWith('relay/') || f.startsWith('shared/')) && layerOf(f) === -1),
    ).toEqual([]);
  });

  it('sends events to CDP clients from one outlet (relay/cdp/client-events.ts)', () => {
    const senders = [...graph.keys()].filter(
      (file) =>
        file !== 'relay/cdp/client-session.ts' &&
        file !== 'relay/cdp/client-events.ts' &&
        /\.sendEvent(Json)?\(/.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(senders).toEqual([]);
  });

  it('keeps the relay off the pages: it imports only relay/ and shared/', () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      file.startsWith('relay/')
        ? imports
            .filter((t) => !t.startsWith('relay/') && !t.startsWith('shared/') && t !== 'package.json')
            .map((t) => `${file} → ${t}`)
        : [],
    );
    expect(crossing).toEqual([]);
  });

  it('loads the MCP SDK only when an MCP session opens, not with `clawd serve`', () => {
    // ~15 MB of resident memory (the SDK and its JSON-schema validator) a server nobody speaks MCP to never needs.
    const loaded = new Set<string>();
    const load = (file: string): void => {
      if (loaded.has(file) || !texts.has(file)) return;
      loaded.add(file);
      for (const s of specifiersIn(texts.get(file)!))
        if (!s.typeOnly && !s.dynamic && s.name.startsWith('.'))
          load(path.join(path.dirname(file), /\.(ts|json)$/.test(s.name) ? s.name : `${s.name}.ts`));
    };
    // What `clawd serve` loads: the command line's entry, its commands' table, the server.
    for (const root of ['relay/cli/bin.ts', 'relay/cli/main.ts', 'relay/server.ts']) load(root);
    expect(loaded.has('relay/control/control-app.ts')).toBe(true);
    const sdk = [...loaded].filter((file) =>
      specifiersIn(texts.get(file)!).some(
        (s) => !s.typeOnly && !s.dynamic && s.name.startsWith('@modelcontextprotocol/'),
      ),
    );
    expect(sdk).toEqual([]);
  });
});
