// `clawd doctor`: one line per check, each failure with what to do about it. It asks the running
// server (found through serve.json) and looks at this machine itself: the control API, the token
// (sent only once the server proved it knows it), the relay, the extension, the native host
// (`clawd install`, and a line per browser found), a real Runtime.evaluate on an attached tab, the
// browser executable, and every managed profile's port (free, or held by our own browser).

import path from 'node:path';
import WebSocket from 'ws';
import { DEFAULT_RELAY_PORT } from '../../shared/defaults';
import { browserVersion } from '../browser/browser-version';
import { findExecutable, snapProblem } from '../browser/executable';
import { isPortFree } from '../browser/ports';
import { browserProcess, listeningPid } from '../browser/processes';
import { loadConfig, type ClawdConfig } from '../home/config-store';
import { policyOf } from '../home/config-schema';
import { readServeState } from '../home/serve-state';
import { localHostTarget } from '../native-host/host-install';
import { hostStatuses, type HostStatus } from '../native-host/host-status';
import { ControlClient } from '../operations/control-client';
import { DriverKinds } from '../profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../profiles/kinds';

export type Verdict = 'ok' | 'fail' | 'warn' | 'skip';
export interface Check {
  verdict: Verdict;
  check: string;
  detail: string;
}

const MARK: Record<Verdict, string> = { ok: '✓', fail: '✗', warn: '!', skip: '–' };

export function formatCheck(c: Check): string {
  return `${MARK[c.verdict]} ${c.check}: ${c.detail}`;
}

async function getJson(url: string, token?: string): Promise<{ status: number; body: any } | undefined> {
  try {
    const response = await fetch(url, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(3_000),
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  } catch {
    return undefined;
  }
}

/** Attaches to an attached tab through the relay and evaluates 6*7 there. */
function evaluateThroughRelay(relayUrl: string, token: string, targetId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${relayUrl.replace(/^http/, 'ws')}/cdp?token=${encodeURIComponent(token)}`);
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('no answer within 5 s'));
    }, 5_000);
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      ws.close();
      fn();
    };
    ws.once('error', (error) => finish(() => reject(error)));
    ws.once('open', () =>
      ws.send(JSON.stringify({ id: 1, method: 'Target.attachToTarget', params: { targetId, flatten: true } })),
    );
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { id?: number; result?: any; error?: { message: string } };
      if (m.error) return finish(() => reject(new Error(m.error!.message)));
      if (m.id === 1)
        ws.send(
          JSON.stringify({
            id: 2,
            method: 'Runtime.evaluate',
            params: { expression: '6*7', returnByValue: true },
            sessionId: m.result.sessionId,
          }),
        );
      if (m.id === 2)
        finish(() =>
          m.result?.result?.value === 42
            ? resolve('6*7 = 42')
            : reject(new Error(`unexpected answer ${JSON.stringify(m.result)}`)),
        );
    });
  });
}

/** What every check reads: the home, its config, where the server is, and the list it adds to. */
interface Doctor {
  home: string;
  config: ClawdConfig;
  controlUrl: string;
  relayUrl: string;
  add(verdict: Verdict, check: string, detail: string): void;
}

export async function runDoctor(home: string): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (verdict: Verdict, check: string, detail: string) => checks.push({ verdict, check, detail });
  // Every kind's own keys checked, as the server will (a client reading only the token does not).
  const config = await loadConfig(home, { kinds: new DriverKinds(BUILT_IN_KINDS) });
  const state = await readServeState(home);
  const controlUrl = process.env.CLAWD_CONTROL_URL || state?.controlUrl || 'http://127.0.0.1:18791';
  const relayUrl = state?.relayUrl ?? `http://127.0.0.1:${DEFAULT_RELAY_PORT}`;
  const doctor: Doctor = { home, config, controlUrl, relayUrl, add };

  const unproven = await checkControl(doctor);
  const connected = await checkRelay(doctor, unproven);
  await checkNativeHost(doctor);
  await checkTabEvaluate(doctor, connected);
  await checkBrowser(doctor);
  checkPolicies(doctor);
  await checkProfilePorts(doctor);
  return checks;
}

/** The control API and the token. Says why the token was not sent (undefined: the server proved it knows it). */
async function checkControl({ home, config, controlUrl, add }: Doctor): Promise<string | undefined> {
  const health = await getJson(`${controlUrl}/`);
  if (health?.body?.name === 'clawd-browser')
    add('ok', 'control API', `reachable at ${controlUrl} (clawd ${health.body.version})`);
  else add('fail', 'control API', `nothing answers at ${controlUrl}: start the server with \`clawd serve\``);

  // The token goes nowhere that has not proved it knows it (a program may hold clawd's ports).
  const unproven = health
    ? await ControlClient.locate(home)
        .then((client) => client.prove())
        .then(
          () => undefined,
          (error: Error) => error.message,
        )
    : 'the control API is down';
  const authed = health && !unproven ? await getJson(`${controlUrl}/profiles`, config.token) : undefined;
  if (!health) add('skip', 'token', 'not checked: the control API is down');
  else if (unproven) add('fail', 'token', `not sent: ${unproven}`);
  else if (authed?.status === 200 || authed?.status === 503)
    add('ok', 'token', `accepted (from ${path.join(home, 'config.json')})`);
  else
    add(
      'fail',
      'token',
      `refused (HTTP ${authed?.status ?? 'no answer'}): this config.json's token differs from the server's; run the CLI with the server's --home`,
    );
  return unproven;
}

/** The relay, and the extension behind it. Says whether the extension is connected. */
async function checkRelay({ config, relayUrl, add }: Doctor, unproven: string | undefined): Promise<boolean> {
  const relay = await getJson(`${relayUrl}/`);
  if (relay?.body?.name === 'clawd-browser') add('ok', 'relay', `reachable at ${relayUrl}`);
  else add('fail', 'relay', `nothing answers at ${relayUrl}: start the server with \`clawd serve\``);

  const extension = relay && !unproven ? await getJson(`${relayUrl}/extension/status`, config.token) : undefined;
  const connected = extension?.body?.connected === true;
  if (!relay) add('skip', 'extension', 'not checked: the relay is down');
  else if (unproven) add('skip', 'extension', 'not checked: the server did not prove it knows the token');
  else if (connected)
    add('ok', 'extension', `connected, version ${extension!.body.extensionVersion} (${extension!.body.browser})`);
  else
    add(
      'fail',
      'extension',
      `not connected: load dist/extension in Chrome (chrome://extensions, Developer mode, Load unpacked), then run \`clawd install\` (it connects by itself), or pair it with the link \`clawd pair\` prints`,
    );
  return connected;
}

/** The native host: a line for the whole, then one per browser the person has (or that clawd was installed for). */
async function checkNativeHost({ home, add }: Doctor): Promise<void> {
  const statuses = await hostStatuses(localHostTarget(home, {}));
  const hosted = statuses.filter((s) => s.registered.length > 0);
  if (hosted.length > 0)
    add(
      'ok',
      'native host',
      `installed for ${hosted.map((s) => s.place.label).join(', ')}: Chrome starts clawd for the extension`,
    );
  else
    add(
      'warn',
      'native host',
      'not installed: `clawd install` lets Chrome start clawd, and the extension connects with nothing to pair',
    );
  for (const status of statuses) {
    const { verdict, detail } = browserHostLine(status);
    add(verdict, `host for ${status.place.label}`, detail);
  }
}

/** One browser's line: registered (and what its sandbox needs), partly, or found and not registered. */
function browserHostLine({ place, found, registered, missing, note }: HostStatus): {
  verdict: Verdict;
  detail: string;
} {
  const install =
    place.browser === 'user-data-dir' ? `--user-data-dir ${place.userDataDir}` : `--browser ${place.browser}`;
  if (registered.length === 0)
    return {
      verdict: 'warn',
      detail: `${found ? `found (${place.userDataDir})` : 'named at install'}, not registered: \`clawd install ${install}\``,
    };
  const where = `registered (${registered.join(', ')})${found ? '' : ', its user data folder is not there yet'}`;
  if (missing.length > 0)
    return { verdict: 'warn', detail: `${where} but not in ${missing.join(', ')}: \`clawd install ${install}\`` };
  if (note) return { verdict: note.warn ? 'warn' : 'ok', detail: `${where}; ${note.text}` };
  return { verdict: 'ok', detail: where };
}

async function checkTabEvaluate({ config, relayUrl, add }: Doctor, connected: boolean): Promise<void> {
  if (!connected) return void add('skip', 'tab evaluate', 'not checked: no extension');
  const list = await getJson(`${relayUrl}/json/list`, config.token);
  const tab = (list?.body as Array<{ id: string; url: string }> | undefined)?.[0];
  if (!tab)
    return void add(
      'warn',
      'tab evaluate',
      'no tab is attached: click the clawd toolbar button on a tab to hand it over',
    );
  try {
    add('ok', 'tab evaluate', `${await evaluateThroughRelay(relayUrl, config.token, tab.id)} on ${tab.url}`);
  } catch (error) {
    add(
      'fail',
      'tab evaluate',
      `Runtime.evaluate on ${tab.url} failed: ${(error as Error).message}; reload the extension or click its button again`,
    );
  }
}

async function checkBrowser({ home, config, add }: Doctor): Promise<void> {
  try {
    const executable = findExecutable(config.browser.executablePath);
    const snap = snapProblem(executable.path, home);
    if (snap) add('fail', 'browser', snap);
    else
      add(
        'ok',
        'browser',
        `${(await browserVersion(executable.path)) ?? 'found'} at ${executable.path} (${executable.source})`,
      );
  } catch (error) {
    add('fail', 'browser', (error as Error).message);
  }
}

/** Which sites agents may reach, per profile (from the config: what the server enforces). */
function checkPolicies({ config, add }: Doctor): void {
  for (const name of Object.keys(config.browser.profiles)) {
    const { source, config: rules } = policyOf(config.browser, name);
    if (source === 'none')
      add('ok', `policy ${name}`, 'none: agents may load any site (set one with clawd policy-set --allow …)');
    else
      add(
        'ok',
        `policy ${name}`,
        `${source === 'profile' ? 'its own' : 'the global one'}: ${[rules.allow ? `allow ${rules.allow.join(', ') || '(nothing)'}` : 'allow any site', ...(rules.block?.length ? [`block ${rules.block.join(', ')}`] : [])].join('; ')}`,
      );
  }
}

/** Every managed profile's fixed CDP port: free, or held by its own browser. */
async function checkProfilePorts({ home, config, add }: Doctor): Promise<void> {
  for (const [name, profile] of Object.entries(config.browser.profiles)) {
    if (profile.cdpPort === undefined) continue; // a port of its own: clawd's own browser
    const port = profile.cdpPort;
    if (await isPortFree(port)) {
      add('ok', `profile ${name}`, `CDP port ${port} is free`);
      continue;
    }
    const ours = await browserProcess(path.join(home, 'profiles', name, 'user-data'), port);
    if (ours) add('ok', `profile ${name}`, `CDP port ${port} is held by its own browser (pid ${ours.pid})`);
    else {
      const holder = await listeningPid(port);
      add(
        'fail',
        `profile ${name}`,
        `CDP port ${port} is held by another program${holder ? ` (pid ${holder})` : ''}: stop it, or delete and re-create the profile to get another port`,
      );
    }
  }
}
