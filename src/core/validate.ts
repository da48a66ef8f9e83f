/** Checks shared by the services' parsers of raw JSON input (REST bodies and the JSON they run as GraphQL). */
import { errors } from './errors.js';

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A number of seconds ≥ 0, or null when absent; anything else is `invalid_options` naming `prefix + field`. */
export function optionalNumber(input: Record<string, unknown>, field: string, prefix = ''): number | null {
  const value = input[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw errors.invalidOptions(`${prefix}${field} must be a number of seconds at or above 0, or null.`, { field: `${prefix}${field}` });
  }
  return value;
}

/** A JSON object body holding only `fields`; otherwise 422 `invalid_body` naming `body` or the first unknown field. */
export function bodyWithFields(body: unknown, fields: readonly string[], shape: string): Record<string, unknown> {
  if (!isObject(body)) throw errors.invalidBody(`The body must be ${shape}.`, { field: 'body' });
  const unknown = Object.keys(body).find((key) => !fields.includes(key));
  if (unknown !== undefined) throw errors.invalidBody(`Unknown field: ${unknown}.`, { field: unknown });
  return body;
}
