// A small leveled logger writing one line per entry to stderr (stdout is kept for command
// output such as `clawd token`). Tests pass `silentLogger`; `CLAWD_LOG=debug` shows the detail.

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): Logger {
  const at = LEVELS[level];
  const emit = (name: Exclude<LogLevel, 'silent'>) => (message: string) => {
    if (LEVELS[name] >= at) write(`${new Date().toISOString()} ${name.padEnd(5)} ${message}`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const value = env.CLAWD_LOG;
  return value && Object.hasOwn(LEVELS, value) ? (value as LogLevel) : 'info';
}

export const silentLogger: Logger = createLogger('silent');
