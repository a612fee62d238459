// `npm run build`: bundles the extension into dist/extension (manifest, worker, options page,
// icons), the live view page into dist/view, the Node side into the runnable bin dist/clawd.js, and the benchmark into
// dist/bench.js, with esbuild. Then writes what the operation table generates: the agent skill
// (dist/skill/SKILL.md, shipped) and docs/reference.md (committed; a unit test checks it is current).

import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeIcons } from './icons.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const extOut = path.join(dist, 'extension');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

rmSync(dist, { recursive: true, force: true });
mkdirSync(path.join(extOut, 'icons'), { recursive: true });

/** One Node ESM file in dist/ from one entry, its packages left to node_modules. */
function nodeScript(entry, outfile) {
  return build({
    entryPoints: [entry],
    absWorkingDir: root,
    outfile: path.join(dist, outfile),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}

const started = performance.now();
await Promise.all([
  build({
    entryPoints: {
      background: 'extension/src/background.ts',
      options: 'extension/src/options.ts',
      pair: 'extension/src/pair.ts',
      panel: 'extension/src/panel.ts',
    },
    absWorkingDir: root,
    outdir: extOut,
    bundle: true,
    format: 'esm',
    target: 'chrome125',
    platform: 'browser',
    sourcemap: 'linked',
    logLevel: 'warning',
  }),
  // The watch for the person's hands, put into handed-over tabs' frames, and the recorder of the
  // person's steps, put into the page they record in: classic scripts (each may be put in twice).
  build({
    entryPoints: { 'person-watch': 'extension/src/person-watch.ts', recorder: 'extension/src/recorder.ts' },
    absWorkingDir: root,
    outdir: extOut,
    bundle: true,
    format: 'iife',
    target: 'chrome125',
    platform: 'browser',
    logLevel: 'warning',
  }),
  // The page walker, put into each frame once by the agent engine (with the frame's ref registry).
  build({
    entryPoints: { walker: 'relay/agent/in-page/page-walker.ts' },
    absWorkingDir: root,
    outdir: path.join(dist, 'in-page'),
    bundle: true,
    format: 'iife',
    globalName: '__clawdWalker',
    target: 'chrome110',
    platform: 'browser',
    minify: true,
    logLevel: 'warning',
  }),
  // The page-content extractor, run in the page by GET /content: one expression-sized bundle.
  build({
    entryPoints: { content: 'relay/agent/in-page/page-content.ts' },
    absWorkingDir: root,
    outdir: path.join(dist, 'in-page'),
    bundle: true,
    format: 'iife',
    globalName: '__clawdContent',
    target: 'chrome110',
    platform: 'browser',
    minify: true,
    logLevel: 'warning',
  }),
  build({
    entryPoints: { app: 'view/src/main.ts' },
    absWorkingDir: root,
    outdir: path.join(dist, 'view'),
    bundle: true,
    format: 'esm',
    target: 'chrome110',
    platform: 'browser',
    minify: true,
    logLevel: 'warning',
  }),
  // Split: a client command loads only its own code; the server, MCP and doctor come in chunks
  // (and with them Playwright, hono and ws) when `serve`, `mcp` or `doctor` imports them.
  build({
    entryPoints: { clawd: 'relay/cli/bin.ts' },
    absWorkingDir: root,
    outdir: dist,
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  }),
  nodeScript('scripts/bench/main.ts', 'bench.js'),
  // The document generator, run once below and not shipped.
  nodeScript('relay/cli/generated-docs.ts', 'docs.mjs'),
]);

const docs = await import(pathToFileURL(path.join(dist, 'docs.mjs')).href);
mkdirSync(path.join(dist, 'skill'), { recursive: true });
writeFileSync(path.join(dist, 'skill', 'SKILL.md'), docs.skillMarkdown());
writeFileSync(path.join(root, 'docs', 'reference.md'), docs.referenceMarkdown());
rmSync(path.join(dist, 'docs.mjs'));

const manifest = JSON.parse(readFileSync(path.join(root, 'extension/manifest.json'), 'utf8'));
manifest.version = pkg.version;
writeFileSync(path.join(extOut, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
copyFileSync(path.join(root, 'extension/options.html'), path.join(extOut, 'options.html'));
copyFileSync(path.join(root, 'extension/pair.html'), path.join(extOut, 'pair.html'));
copyFileSync(path.join(root, 'extension/panel.html'), path.join(extOut, 'panel.html'));
copyFileSync(path.join(root, 'view/index.html'), path.join(dist, 'view', 'index.html'));
writeIcons(path.join(extOut, 'icons'));
chmodSync(path.join(dist, 'clawd.js'), 0o755);

console.log(`built dist/clawd.js, dist/extension and dist/view in ${Math.round(performance.now() - started)} ms`);
