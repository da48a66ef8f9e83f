/**
 * Query-string parameters as routes read them: one string per name, checked against the entry's declared schema
 * before they reach an operation, so `/v1/openapi.json` and what the server accepts are the same thing.
 */
import { errors } from '../src/core/errors.js';
import type { JsonSchema, RouteParameter } from './types.js';

/** GraphQL's `Int` (and the database's seq columns): the widest integer a declared parameter may allow. */
export const INT32_MAX = 2147483647;

/** The query of a cursor-paged listing, `cursor` and `limit` (1 to 500); each operation's file says what they page. */
export function pageParameters(defaultLimit: number): RouteParameter[] {
  return [
    { name: 'cursor', in: 'query', schema: { type: 'string' } },
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: defaultLimit } },
  ];
}

/** A page as the convention answers it: `nextCursor` only when there is a next page (absent on the last one). */
export function withoutLastCursor<T extends { nextCursor?: string | null }>(page: T): Omit<T, 'nextCursor'> & { nextCursor?: string } {
  const { nextCursor, ...rest } = page;
  return nextCursor ? { ...rest, nextCursor } : rest;
}

/** The parameter's value: the first of a repeated one, `undefined` when absent or not a string. */
export function single(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * An integer parameter: `undefined` when absent, else decimal digits with an optional leading `-` (digits only with
 * `unsigned`) inside `minimum`..`maximum` (default: GraphQL's 32-bit Int); anything else is `400 invalid_options`
 * with `message`, naming the parameter in `details.field`.
 */
export function intParam(
  query: Record<string, unknown>, name: string, message: string, options: { unsigned?: boolean; minimum?: number; maximum?: number } = {},
): number | undefined {
  const value = single(query[name]);
  if (value === undefined) return undefined;
  const number = Number(value);
  const minimum = options.minimum ?? (options.unsigned ? 0 : -INT32_MAX - 1);
  const maximum = options.maximum ?? INT32_MAX;
  if (!(options.unsigned ? /^\d+$/ : /^-?\d+$/).test(value) || number < minimum || number > maximum) {
    throw errors.invalidOptions(message, { field: name });
  }
  return number;
}

const describeRange = (schema: JsonSchema) => {
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` at or above ${minimum}`;
  if (maximum !== undefined) return ` at or below ${maximum}`;
  return '';
};

/** Why `value` does not fit the declared `schema` (a sentence naming `name`), or null when it fits. */
function mismatch(name: string, value: string, schema: JsonSchema): string | null {
  const s = schema as { type?: string; enum?: string[]; minimum?: number; maximum?: number; minLength?: number; maxLength?: number };
  if (s.enum && !s.enum.includes(value)) return `${name} must be one of ${s.enum.join(', ')}.`;
  if (s.type === 'integer' || s.type === 'number') {
    const number = Number(value);
    const ok = (s.type === 'integer' ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/).test(value) && Number.isFinite(number)
      && (s.minimum === undefined || number >= s.minimum) && (s.maximum === undefined || number <= s.maximum);
    return ok ? null : `${name} must be ${s.type === 'integer' ? 'an integer' : 'a number'}${describeRange(s)}.`;
  }
  if (s.type === 'boolean' && value !== 'true' && value !== 'false') return `${name} must be true or false.`;
  if (s.minLength !== undefined && value.length < s.minLength) {
    return `${name} must be at least ${s.minLength} character${s.minLength === 1 ? '' : 's'}.`;
  }
  if (s.maxLength !== undefined && value.length > s.maxLength) return `${name} must be at most ${s.maxLength} characters.`;
  return null;
}

/**
 * Checks the query string against the route's declared query parameters: each one given at most once, required
 * ones present, every value of its declared type, range, length and enum. The first mismatch is `400
 * invalid_options` naming the parameter (`details.field`). A parameter the route does not declare is refused the
 * same way, as an unknown body field is: a misspelt `limt` would otherwise be silently ignored. Routes outside the
 * document (`refuseUnknown` false: OAuth's authorize endpoint, whose RFC 6749 §3.1 says to ignore unknown
 * parameters) keep that rule.
 */
export function checkQuery(parameters: readonly RouteParameter[] | undefined, query: Record<string, unknown>, refuseUnknown = true): void {
  const declared = (parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
  for (const name of refuseUnknown ? Object.keys(query) : []) {
    if (!declared.includes(name)) {
      throw errors.invalidOptions(`${name} is not a parameter of this route `
        + `(${declared.length ? `it takes ${declared.join(', ')}` : 'it takes none'}).`, { field: name });
    }
  }
  for (const parameter of parameters ?? []) {
    if (parameter.in !== 'query') continue;
    const raw = query[parameter.name];
    if (raw === undefined) {
      if (parameter.required) throw errors.invalidOptions(`${parameter.name} is required.`, { field: parameter.name });
      continue;
    }
    if (typeof raw !== 'string') throw errors.invalidOptions(`${parameter.name} must be given once.`, { field: parameter.name });
    const problem = mismatch(parameter.name, raw, parameter.schema);
    if (problem) throw errors.invalidOptions(problem, { field: parameter.name });
  }
}
