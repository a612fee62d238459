// The command line of a managed profile's Chromium (spec: dedicated user data dir and CDP port,
// no first run, no sync, no background networking …). Headless unless the config says
// `headless: false` (one default on every OS: no window over the person's work, and the live
// view shows the tab); headed without a display on Linux is headless all the same. Adds
// --no-sandbox when running as root (Chromium refuses to start otherwise); both are reported in
// status so nobody wonders why. macOS: a mock keychain, so no keychain prompt ever shows.

export interface LaunchChoice {
  headless: boolean;
  /** Why headless: 'config' or 'no display'. */
  headlessReason?: string;
  noSandbox: boolean;
  /** Why no sandbox: 'config' or 'running as root'. */
  noSandboxReason?: string;
}

export function decideLaunch(
  config: { headless: boolean; noSandbox: boolean },
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  uid: number | undefined = process.getuid?.(),
): LaunchChoice {
  const noDisplay = platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY;
  const root = uid === 0;
  return {
    headless: config.headless || noDisplay,
    ...(config.headless ? { headlessReason: 'config' } : noDisplay ? { headlessReason: 'no display' } : {}),
    noSandbox: config.noSandbox || root,
    ...(config.noSandbox ? { noSandboxReason: 'config' } : root ? { noSandboxReason: 'running as root' } : {}),
  };
}

export function launchArgs(options: {
  userDataDir: string;
  /** The port Chrome listens on itself; none: CDP over the pipe only (clawd serves the port). */
  cdpPort?: number;
  choice: LaunchChoice;
  extraArgs: string[];
  platform?: NodeJS.Platform;
}): string[] {
  const args = [
    ...(options.cdpPort === undefined
      ? ['--remote-debugging-pipe']
      : [`--remote-debugging-port=${options.cdpPort}`, '--remote-debugging-address=127.0.0.1']),
    `--user-data-dir=${options.userDataDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-sync',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-quic',
    '--disable-features=Translate,MediaRouter',
    '--disable-session-crashed-bubble',
    '--hide-crash-restore-bubble',
    '--password-store=basic',
    // Chrome loads a page that failed again by itself after 1 s, 5 s, 30 s … while its tab shows:
    // a load the person refused (a watch's refusal, fetch-hold.ts) would ask them again each time.
    '--disable-auto-reload',
  ];
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') args.push('--disable-dev-shm-usage');
  if (platform === 'darwin') args.push('--use-mock-keychain');
  // Headless windows default to 800×600 (a 780×437 page): narrow enough for many sites to serve
  // their phone layout to the agent. browser.extraArgs can set another size (the last one wins).
  if (options.choice.headless) args.push('--headless=new', '--disable-gpu', '--window-size=1280,900');
  if (options.choice.noSandbox) args.push('--no-sandbox', '--disable-setuid-sandbox');
  args.push(...options.extraArgs, 'about:blank');
  return args;
}
