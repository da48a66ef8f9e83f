/**
 * The CreateApiKey body's shape (unknown fields, types), checked before GraphQL coerces it so the 422 names the field;
 * scopes, the name's length and the expiry are the service's (400 `invalid_options`).
 */
import { errors } from '../core/errors.js';
import { bodyWithFields } from '../core/validate.js';

export interface ApiKeyFields { name?: string | null; scopes?: string[] | null; expiresAt?: string | null }

/** A body that is not a JSON object never gets here: the router refuses it first (400 `invalid_options` naming `body`). */
export function createApiKeyFields(body: unknown): ApiKeyFields {
  if (body === undefined || body === null) return {};
  const { name, scopes, expiresAt } = bodyWithFields(body, ['name', 'scopes', 'expiresAt'], 'a JSON object');
  if (name != null && typeof name !== 'string') throw errors.invalidBody('name must be a string.', { field: 'name' });
  if (scopes != null && (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string'))) {
    throw errors.invalidBody('scopes must be an array of strings.', { field: 'scopes' });
  }
  if (expiresAt != null && (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt)))) {
    throw errors.invalidBody('expiresAt must be an RFC 3339 timestamp.', { field: 'expiresAt' });
  }
  return { name, scopes, expiresAt } as ApiKeyFields;
}
