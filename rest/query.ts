/** Query-string parameters as routes read them: one string per name, integers checked before they reach an operation. */
import { errors } from '../src/errors.js';

/** The parameter's value: the first of a repeated one, `undefined` when absent or not a string. */
export function single(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * An integer parameter: `undefined` when absent, else decimal digits with an optional leading `-` (digits only with
 * `unsigned`); anything else is `400 invalid_options` with `message`, naming the parameter in `details.field`.
 */
export function intParam(query: Record<string, unknown>, name: string, message: string, options: { unsigned?: boolean } = {}): number | undefined {
  const value = single(query[name]);
  if (value === undefined) return undefined;
  if (!(options.unsigned ? /^\d+$/ : /^-?\d+$/).test(value)) throw errors.invalidOptions(message, { field: name });
  return Number(value);
}
