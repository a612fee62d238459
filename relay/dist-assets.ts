// Files `npm run build` leaves in dist/ that the server serves or ships to pages: the live
// view's page and script (dist/view), the page walker and the page-content extractor (dist/in-page). Found next to
// the running bundle (dist/clawd.js, or a chunk in dist/chunks) or, when the server runs from
// sources (tests), in the repo's dist/. Each read once, on first use.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClawdError } from './errors';

export type DistAsset = 'view/index.html' | 'view/app.js' | 'in-page/content.js' | 'in-page/walker.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// From sources: relay/ → dist; from a chunk: dist/chunks → dist.
const roots = [path.join(here, '..', 'dist'), path.join(here, '..'), here];
const cache = new Map<DistAsset, string>();

export function distAsset(name: DistAsset): string {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  for (const root of roots) {
    try {
      const text = readFileSync(path.join(root, name), 'utf8');
      cache.set(name, text);
      return text;
    } catch {
      // try the next place
    }
  }
  throw new ClawdError('not_found', `dist/${name} is not built: run \`npm run build\``);
}
