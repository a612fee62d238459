import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDecoration } from '../../relay/browser/decorate';
import { isAlive, usesUserDataDir } from '../../relay/browser/processes';
import { until } from '../helpers/waits';
import { CdpClient } from '../helpers/cdp-client';
import { upgradeStatus } from '../helpers/http';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';

describe('the managed clawd profile', () => {
  let t: TestServer;
  let pages: PageServer;
  beforeAll(async () => {
    [t, pages] = await Promise.all([startTestServer(), startPageServer()]);
  });
  afterAll(async () => {
    await t?.close();
    await pages?.close();
  });
  const userDataDir = () => path.join(t.home, 'profiles', 'clawd', 'user-data');
  const exitType = () =>
    JSON.parse(readFileSync(path.join(userDataDir(), 'Default', 'Preferences'), 'utf8')).profile.exit_type;

  it("answers only clawd: the browser listens on no port, and the profile's port wants the token", async () => {
    const started = await t.api('POST', '/start');
    expect(started.status).toBe(200);
    const { pid, cdpPort, cdpUrl } = started.body as { pid: number; cdpPort: number; cdpUrl: string };
    // Every process of the browser (its own process group) and every TCP socket they listen on: none.
    const group = execFileSync('ps', ['-axo', 'pid=,pgid='], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter(([, pgid]) => pgid === pid)
      .map(([p]) => p!);
    expect(group).toContain(pid);
    const sockets = new Set(
      group.flatMap((p) => {
        try {
          return readdirSync(`/proc/${p}/fd`).flatMap((fd) => {
            const link = readlinkSync(`/proc/${p}/fd/${fd}`, { encoding: 'utf8' });
            return link.startsWith('socket:[') ? [link.slice(8, -1)] : [];
          });
        } catch {
          return []; // a process that ended meanwhile
        }
      }),
    );
    const listening = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((cols) => cols[3] === '0A' && sockets.has(cols[9]!)),
    );
    expect(listening).toEqual([]);
    expect(existsSync(path.join(userDataDir(), 'DevToolsActivePort'))).toBe(false);

    // The profile's port is clawd's: nothing without the token, no web page even with it.
    expect((await fetch(`${cdpUrl}/json/version`)).status).toBe(401);
    expect((await fetch(`${cdpUrl}/json/version?token=wrong-token-0123456789`)).status).toBe(401);
    expect(await upgradeStatus(`ws://127.0.0.1:${cdpPort}/devtools/browser/x`)).toBe(401);
    expect(
      await upgradeStatus(`ws://127.0.0.1:${cdpPort}/devtools/browser/x?token=${t.token}`, {}, 'https://evil.example'),
    ).toBe(403);
    // With it, what Chrome's own port answers.
    const version = await (await fetch(`${cdpUrl}/json/version?token=${t.token}`)).json();
    expect(version.Browser).toMatch(/^(Headless)?Chrome\/\d+/);
    const client = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      expect((await client.send('Browser.getVersion')).product).toBe(version.Browser);
      // Browser.close from a client closes its own connection, not the browser.
      await client.send('Browser.close').catch(() => {});
      await until('its connection closed', () => client.ws.readyState === client.ws.CLOSED);
      expect((await t.api('GET', '/')).body.running).toBe(true);
    } finally {
      await client.close();
    }
    await t.api('POST', '/stop');
  });

  it('starts, lists, opens, focuses and closes tabs, and stops, through the API', async () => {
    const started = await t.api('POST', '/start');
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      profile: 'clawd',
      running: true,
      cdpReady: true,
      pid: expect.any(Number),
      userDataDir: userDataDir(),
      browser: expect.stringMatching(/^Chrome\/\d+/),
    });
    expect(started.body.userDataDir.startsWith(t.home)).toBe(true);
    expect(await readDecoration(userDataDir())).toEqual({ name: 'clawd', color: '#FF4500' });

    const opened = await t.api('POST', '/tabs/open', { body: { url: pages.url('/form') } });
    expect(opened.body).toMatchObject({ targetId: expect.any(String), url: pages.url('/form'), type: 'page' });
    const list = await until('the tab title', async () => {
      const tabs = (await t.api('GET', '/tabs')).body.tabs as Array<{ targetId: string; title: string }>;
      return tabs.find((tab) => tab.targetId === opened.body.targetId && tab.title === 'form') ? tabs : undefined;
    });
    expect(list.length).toBeGreaterThanOrEqual(2); // and the start page
    const prefix = opened.body.targetId.slice(0, 10);
    expect((await t.api('POST', '/tabs/focus', { body: { targetId: prefix } })).body.targetId).toBe(
      opened.body.targetId,
    );
    expect((await t.api('DELETE', `/tabs/${prefix}`)).body.targetId).toBe(opened.body.targetId);
    await until(
      'the tab to close',
      async () =>
        !(await t.api('GET', '/tabs')).body.tabs.some(
          (tab: { targetId: string }) => tab.targetId === opened.body.targetId,
        ),
    );

    const pid = started.body.pid as number;
    const singletonFolder = path.dirname(readlinkSync(path.join(userDataDir(), 'SingletonSocket')));
    const stopped = await t.api('POST', '/stop');
    expect(stopped.body).toMatchObject({ stopped: true, status: { running: false, pid: null } });
    expect(isAlive(pid)).toBe(false);
    // A clean shutdown: Chromium recorded a normal exit, and nothing is left in the temp dir.
    expect(exitType()).toBe('Normal');
    expect(existsSync(singletonFolder)).toBe(false);

    // Name and colour survive the restart.
    const again = await t.api('POST', '/start');
    expect(again.body.running).toBe(true);
    expect(await readDecoration(userDataDir())).toEqual({ name: 'clawd', color: '#FF4500' });
    await t.api('POST', '/stop');
  });

  it('does the same through the CLI, with progress while it starts', async () => {
    const start = await t.cli(['start']);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stderr).toMatch(/^starting the browser …/);
    expect(start.stdout).toMatch(/^clawd started in \d+\.\d s\nclawd \(managed\): running, CDP ready/);
    const status = JSON.parse((await t.cli(['status', '--json'])).stdout);
    expect(status).toMatchObject({ profile: 'clawd', running: true, userDataDir: userDataDir() });

    const opened = await t.cli(['open', pages.url('/console')]);
    expect(opened.stdout).toMatch(/^opened [0-9A-F]{8} {2}http:\/\/127\.0\.0\.1:\d+\/console\n$/);
    const id = opened.stdout.split(' ')[1]!;
    expect((await t.cli(['tabs'])).stdout).toContain(`${id}  `);
    expect((await t.cli(['focus', id])).stdout).toMatch(new RegExp(`^focused ${id}`));
    expect((await t.cli(['close', id])).code).toBe(0);
    await until('the CLI to list the tab no more', async () => !(await t.cli(['tabs'])).stdout.includes(id));
    const unknown = await t.cli(['close', 'ZZZZ']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^clawd: no tab with id "ZZZZ"/);

    const stop = await t.cli(['stop']);
    expect(stop.stdout).toBe('clawd stopped\n');
    expect(JSON.parse((await t.cli(['status', '--json'])).stdout).running).toBe(false);
  });

  it('launches one browser for two concurrent starts', async () => {
    const [a, b] = await Promise.all([t.api('POST', '/start'), t.api('POST', '/start')]);
    expect(a.body.pid).toBe(b.body.pid);
    // Each browser the server launches leads a process group of its own; a helper it forks and has
    // not yet exec'd shows the browser's command line for a moment (seen in CI, once over 5 s on a
    // loaded machine) but stays in its group. So the groups of the profile's processes are read: a
    // second browser would be a second group.
    const groups = () =>
      execFileSync('ps', ['-axww', '-o', 'pgid=,args='], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
        .filter((m): m is RegExpMatchArray => m !== null && usesUserDataDir(m[2]!, userDataDir()))
        .map((m) => Number(m[1]));
    expect([...new Set(groups())]).toEqual([a.body.pid]);
    await t.api('POST', '/stop');
  });

  it('notices a browser killed from outside, and the next start relaunches it', async () => {
    const first = (await t.api('POST', '/start')).body.pid as number;
    const singletonFolder = path.dirname(readlinkSync(path.join(userDataDir(), 'SingletonSocket')));
    process.kill(-first, 'SIGKILL'); // the browser and its helpers, as a crash or `kill -9` would
    await until('status to say not running', async () => (await t.api('GET', '/')).body.running === false);
    const second = await t.api('POST', '/start');
    expect(second.body).toMatchObject({ running: true, cdpReady: true });
    expect(second.body.pid).not.toBe(first);
    expect(existsSync(singletonFolder)).toBe(false); // the killed browser's leftovers went before the relaunch
    await t.api('POST', '/stop');
  });
});
