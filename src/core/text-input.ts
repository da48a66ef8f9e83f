/**
 * Text that reaches storage: PostgreSQL's `text` cannot hold a NUL character (U+0000), so every string a client
 * sends — path ids, query values, JSON bodies and their keys, GraphQL variables and literals, multipart options —
 * is checked once where it enters (the REST router and JSON parser, the GraphQL plugin, the multipart reader) and
 * refused as `400 invalid_options` naming the field, instead of failing deep inside a query as a 500.
 */
import { errors } from './errors.js';

/** The path (`settings.name`, `items[2]`) of the first string or key in `value` holding a NUL character, or null. */
export function nulCharacterAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulCharacterAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const itemPath = path ? `${path}.${key}` : key;
      if (key.includes('\0')) return itemPath;
      const found = nulCharacterAt(item, itemPath);
      if (found) return found;
    }
  }
  return null;
}

/** Throws `400 invalid_options` naming the field when `value` holds a NUL character anywhere. */
export function refuseNulCharacters(value: unknown, path = ''): void {
  const at = nulCharacterAt(value, path);
  if (at !== null) throw errors.invalidOptions(`${at || 'The body'} contains a NUL character (\\u0000), which no field accepts.`, { field: at || 'body' });
}
