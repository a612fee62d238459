// The agent's `export`: an agent session's action log lines (action-log.ts) as a recipe
// (session-steps.ts), written as a Playwright script or test (script-render.ts) under the home's
// exports/, mode 0600 (it holds addresses and the session's values).

import path from 'node:path';
import type { ExportRequest, ExportResult } from '../../operations/export-operations';
import type { ActionLog } from '../action-log';
import { paramSaid } from '../../../shared/recipe';
import { saveCapture } from '../capture/capture';
import { RecipeStore } from './recipe-store';
import { renderScript } from './script-render';
import { sessionRecipe } from './session-steps';

/** At most this many of the log's lines make one export. */
const MAX_ENTRIES = 5_000;

export async function exportSession(
  log: ActionLog,
  home: string,
  profile: string,
  request: ExportRequest,
  /** The profile's CDP URL, for a script (a recipe runs through clawd by name). */
  cdpUrl: string | undefined,
): Promise<ExportResult> {
  const entries = await log.query({
    profile,
    limit: MAX_ENTRIES,
    ...(request.session !== undefined ? { session: request.session } : {}),
    ...(request.since !== undefined ? { since: request.since } : {}),
  });
  const source = `${request.session ? `session ${request.session}` : 'every agent call'} on profile ${profile}${
    entries[0] ? ` from ${entries[0].time.slice(0, 19)}Z` : ''
  }`;
  const recipe = sessionRecipe(entries, (entry) => log.given(entry), source);
  const counts = {
    steps: recipe.steps.filter((s) => s.do !== 'note').length,
    notes: recipe.steps.filter((s) => s.do === 'note').length,
    params: recipe.params.map(paramSaid),
    secrets: recipe.secrets,
    ...(recipe.totp ? { totp: recipe.totp } : {}),
  };
  if (request.format === 'recipe') {
    const name = request.name!;
    return { path: await new RecipeStore(home).save(name, recipe), format: 'recipe', name, ...counts };
  }
  const url = new URL(cdpUrl!);
  url.searchParams.delete('token'); // the server's token is the person's: a run brings its own
  const code = renderScript(recipe, request.format, { cdpUrl: url.toString(), profile });
  const file = await saveCapture(
    path.join(home, 'exports'),
    profile,
    request.format === 'test' ? 'spec.mjs' : 'mjs',
    Buffer.from(code),
  );
  return { path: file, format: request.format, ...counts };
}
