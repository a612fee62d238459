import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli';
import { useTempDirs } from '../helpers/temp-dirs';

describe('the clawd command', () => {
  const temp = useTempDirs('clawd-cli-');
  const tempHome = () => temp.home();

  it('prints the same token every time, creating the home on first use ($CLAWD_HOME)', async () => {
    const home = tempHome();
    const first = await runCli(['token'], { CLAWD_HOME: home });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^[A-Za-z0-9_-]{32}\n$/);
    expect((await runCli(['token', '--home', home])).stdout).toBe(first.stdout);
  });

  it('serves the relay, says where everything is, and stops cleanly on SIGINT and SIGTERM', async () => {
    const home = tempHome();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const { child, match, stdout } = await startCli(
        ['serve', '--relay-port', '0', '--control-port', '0', '--home', home],
        /Relay \(CDP\)\s+(http:\/\/127\.0\.0\.1:\d+)[\s\S]*Token\s+(\S+)[\s\S]*Extension\s+(\S+)[\s\S]*Ctrl\+C/,
      );
      const [, url, token, extension] = match;
      expect(token).toBe((await runCli(['token', '--home', home])).stdout.trim());
      expect(path.isAbsolute(extension!)).toBe(true);
      expect(existsSync(path.join(extension!, 'manifest.json'))).toBe(true);
      expect(stdout()).toContain('Load unpacked');
      expect(stdout()).toContain(`connectOverCDP('${url}/?token=${token}')`);
      const health = await (await fetch(`${url}/`)).json();
      expect(health).toMatchObject({ ok: true, name: 'clawd-browser', extensionConnected: false });
      const version = await (await fetch(`${url}/json/version?token=${token}`)).json();
      expect(version.webSocketDebuggerUrl).toBe(`${url!.replace('http', 'ws')}/cdp?token=${token}`);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill(signal);
      expect(await exited).toBe(0);
      await expect(fetch(`${url}/`)).rejects.toThrow();
    }
  });

  it('names the port when it is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await runCli(['serve', '--relay-port', String(port), '--control-port', '0', '--home', tempHome()]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `clawd: relay port ${port} on 127.0.0.1 is already in use (another clawd serve?); choose another port\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('answers bad usage with a one-line reason and exit code 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['bogus'], /^clawd: unknown command "bogus"\. See clawd --help\n$/],
      [
        ['serve', '--relay-port', 'abc'],
        /^clawd: --relay-port must be a port number from 0 to 65535, got "abc"\. See clawd serve --help\n$/,
      ],
      [
        ['token', '--nope'],
        /^clawd: token does not take --nope; it takes --rotate, --home, --help\. See clawd token --help\n$/,
      ],
      [
        ['snapshot', '--double'],
        /^clawd: snapshot does not take --double; it takes --format, --interactive, .*--target, --session, --timeout, --profile, --json, --home, --help\. See clawd snapshot --help\n$/,
      ],
      [['snapshot', '--format'], /^clawd: Option '--format <value>' argument missing\. See clawd snapshot --help\n$/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: clawd <command>');
    // Every command is in the overview, with the arguments it needs.
    for (const line of ['  type REF TEXT ', '  open URL ', '  serve ', '  pdf ']) expect(help.stdout).toContain(line);
    const clickHelp = await runCli(['click', '--help']);
    expect(clickHelp.code).toBe(0);
    expect(clickHelp.stdout).toMatch(/^Usage: clawd click REF \[--double\]/);
    expect(clickHelp.stdout).toContain('--modifiers KEYS');
    expect(clickHelp.stdout).toContain('--target ID');
  });
});
