/**
 * Reading environment variables: one set of parsers for every settings block (gateway, realtime,
 * transcriptions), so a bad value fails the start with the same kind of message wherever it is read.
 */
export type Env = Record<string, string | undefined>;

/** A non-negative integer, or `fallback` when unset or empty. */
export function envInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** A number > 0 (≥ 0 with `allowZero`; whole with `integer`), or `fallback` when unset or empty. */
export function envPositive(env: Env, name: string, fallback: number, { integer = false, allowZero = false } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  const ok = Number.isFinite(value) && (allowZero ? value >= 0 : value > 0) && (!integer || Number.isInteger(value));
  if (!ok) throw new Error(`${name} must be a ${integer ? 'whole' : ''} number ${allowZero ? '≥ 0' : '> 0'}, got "${raw}"`);
  return value;
}

export function envBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}

/** The value, or null when unset or empty. */
export function envString(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}
