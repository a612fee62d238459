import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The module map holds only while nothing imports in a circle and the relay and the extension
// share nothing but shared/. Type-only imports count too: a cycle of types is still a tangle.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['relay', 'shared', 'extension/src'];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+'(\.[^']+)'/gms)].map((m) => m[1]!);
  return specifiers.map((s) => path.join(path.dirname(file), s.endsWith('.ts') ? s : `${s}.ts`));
}

const graph = new Map(DIRS.flatMap(sources).map((file) => [file, importsOf(file)]));

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
function cycles(): string[][] {
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

describe('the import graph', () => {
  it('reads the modules it checks', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('relay/cdp/switchboard.ts')).toContain('relay/cdp/session-table.ts');
  });

  it('has no import cycles in relay/, shared/ and extension/', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
  });

  it('imports only downwards through the layers (docs/architecture.md names them)', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => layerOf(target) < layerOf(file))
        .map((target) => `${file} (${LAYERS[layerOf(file)]![0]}) → ${target} (${LAYERS[layerOf(target)]![0]})`),
    );
    expect(upward).toEqual([]);
    // Every file of relay/ and shared/ has a layer.
    expect([...graph.keys()].filter((f) => !f.startsWith('extension/') && layerOf(f) === -1)).toEqual([]);
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

  it('keeps the relay and the extension apart: each imports only shared/ of the other side', () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter(
          (target) =>
            (file.startsWith('relay/') && target.startsWith('extension/')) ||
            (file.startsWith('extension/') && target.startsWith('relay/')),
        )
        .map((target) => `${file} → ${target}`),
    );
    expect(crossing).toEqual([]);
  });
});
