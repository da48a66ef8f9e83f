/** A small structured logger (JSON lines on stderr) with levels from LOG_LEVEL. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type Level = keyof typeof LEVELS;

export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

function serialize(fields: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? {
      name: value.name, message: value.message, stack: value.stack, cause: value.cause instanceof Error ? value.cause.message : value.cause,
    } : value;
  }
  return out;
}

export function createLogger(level: Level): Logger {
  const threshold = LEVELS[level];
  const write = (at: Exclude<Level, 'silent'>) => (fields: Record<string, unknown>, message: string) => {
    if (LEVELS[at] < threshold) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...serialize(fields) })}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
