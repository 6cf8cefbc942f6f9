export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** One JSON line per entry on stderr; stdout stays free for tools that read it. */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const log = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (rank[at] > rank[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg: message, ...fields })}\n`);
  };
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}
