// Makes a managed profile recognisable: its name and colour in Chromium's own files, so the
// window, the profile menu and the theme say "clawd" in lobster orange. Patched before every
// launch, merging into what Chromium wrote (measured on Chromium 156: it keeps `name`,
// `profile_color_seed` and `browser.theme.user_color` across restarts and derives the other
// colours). The clean-exit flags stop a visible browser from offering to restore pages after we
// had to stop it with a signal (after SIGTERM it records exit_type "SessionEnded").

import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Chromium stores colours as signed 32-bit ARGB. */
export function chromeColor(hex: string): number {
  return 0xff000000 | parseInt(hex.slice(1), 16) | 0;
}

type Json = Record<string, unknown>;

async function readJson(file: string): Promise<Json> {
  try {
    const value = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
  } catch {
    return {}; // missing (first launch) or unreadable: Chromium rebuilds what we do not write
  }
}

function at(object: Json, ...keys: string[]): Json {
  let node = object;
  for (const key of keys) {
    const next = node[key];
    node = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Json) : (node[key] = {});
  }
  return node;
}

async function writeJson(file: string, value: Json): Promise<void> {
  const temp = `${file}.clawd.tmp`;
  await fs.writeFile(temp, JSON.stringify(value));
  await fs.rename(temp, file);
}

export async function decorateProfile(userDataDir: string, name: string, color: string): Promise<void> {
  const argb = chromeColor(color);
  await fs.mkdir(path.join(userDataDir, 'Default'), { recursive: true });
  const localStateFile = path.join(userDataDir, 'Local State');
  const localState = await readJson(localStateFile);
  Object.assign(at(localState, 'profile', 'info_cache', 'Default'), {
    name,
    shortcut_name: name,
    is_using_default_name: false,
    profile_color_seed: argb,
    profile_highlight_color: argb,
    default_avatar_fill_color: argb,
  });
  await writeJson(localStateFile, localState);

  const preferencesFile = path.join(userDataDir, 'Default', 'Preferences');
  const preferences = await readJson(preferencesFile);
  Object.assign(at(preferences, 'profile'), { name, exit_type: 'Normal', exited_cleanly: true });
  Object.assign(at(preferences, 'browser', 'theme'), { user_color: argb, color_variant: 1 });
  await writeJson(preferencesFile, preferences);
}

/** What Local State says about the profile, for status and tests. */
export async function readDecoration(userDataDir: string): Promise<{ name?: string; color?: string }> {
  const info = at(await readJson(path.join(userDataDir, 'Local State')), 'profile', 'info_cache', 'Default');
  const seed = info.profile_color_seed;
  return {
    ...(typeof info.name === 'string' ? { name: info.name } : {}),
    ...(typeof seed === 'number'
      ? { color: `#${((seed >>> 0) & 0xffffff).toString(16).padStart(6, '0').toUpperCase()}` }
      : {}),
  };
}
