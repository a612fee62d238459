// The live view's page and script, as `npm run build` leaves them in dist/view. Found next to the
// running bundle (dist/clawd.js, or a chunk in dist/chunks) or, when the server runs from
// sources (tests), in the repo's dist/. Read once, on first use.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClawdError } from '../errors';

export type ViewAsset = 'index.html' | 'app.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const candidates = [path.join(here, 'view'), path.join(here, '..', 'view'), path.join(here, '..', '..', 'dist', 'view')];
const cache = new Map<ViewAsset, string>();

export function viewAsset(name: ViewAsset): string {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  for (const dir of candidates) {
    try {
      const text = readFileSync(path.join(dir, name), 'utf8');
      cache.set(name, text);
      return text;
    } catch {
      // try the next place
    }
  }
  throw new ClawdError('not_found', `the live view is not built (no ${name} in dist/view): run \`npm run build\``);
}
