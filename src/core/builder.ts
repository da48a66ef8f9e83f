/**
 * The one Pothos builder. Plugins: scope-auth (authorization declared on fields: `authScopes: { read: true }`),
 * prisma (object types from the data model, relation loading), errors (typed error results where a resource
 * wants them), dataloader (per-request batching). Each resource module under src/<resource>/ adds its
 * types and fields to this builder.
 */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure } from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { ApiError, errors } from './errors.js';
import { requireIdentity, requireScope, type Scope } from './identity/scopes.js';
import type { Context } from './context.js';

/**
 * Scopes a field may require. `read`, `write`, `recordings:publish`, `*` are the credential scopes of the spec
 * (a person holds all of them); `authenticated` needs any valid credential, `user` a signed-in person (refuses
 * API keys), `key` an API key (refuses persons' tokens), `public` nothing. The REST route table publishes the same names as its auth modes.
 */
export interface AuthScopes {
  public: boolean;
  authenticated: boolean;
  user: boolean;
  key: boolean;
  read: boolean;
  write: boolean;
  'recordings:publish': boolean;
  '*': boolean;
}

function firstError(failure: AuthFailure): Error | null {
  if ('error' in failure && failure.error) return failure.error;
  if ('failures' in failure) {
    for (const inner of failure.failures) {
      const found = firstError(inner);
      if (found) return found;
    }
  }
  return null;
}

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: AuthScopes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    LanguageMap: { Input: Record<string, string>; Output: Record<string, string> };
    Upload: { Input: unknown; Output: never };
    Frame: { Input: never; Output: { type: string } };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, ErrorsPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Loaders throw the exact refusal so the response says *why* (401 invalid_token, 403 forbidden naming the scope...).
    authScopes: (ctx) => {
      const scoped = (scope: Scope) => () => Boolean(requireScope(ctx, scope));
      return {
        public: true,
        authenticated: () => Boolean(requireIdentity(ctx)),
        user: () => {
          if (requireIdentity(ctx).principal.kind !== 'user') throw errors.forbidden('This operation needs a signed-in person; API keys '
            + 'cannot use it.', { needs: 'user' });
          return true;
        },
        key: () => {
          if (requireIdentity(ctx).principal.kind !== 'api_key') throw errors.forbidden('This operation needs an API key; a signed-in '
            + 'person\'s token cannot use it.', { needs: 'key' });
          return true;
        },
        read: scoped('read'),
        write: scoped('write'),
        'recordings:publish': scoped('recordings:publish'),
        '*': scoped('*'),
      };
    },
    // Subscriptions are authorized when they start, not only per event.
    authorizeOnSubscribe: true,
    unauthorizedError: (_parent, _ctx, _info, result) => firstError(result.failure) ?? errors.forbidden(result.message),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  errors: { defaultTypes: [] },
});

builder.scalarType('DateTime', {
  description: 'RFC 3339 timestamp.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString()),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (typeof value !== 'string' || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an RFC 3339 string.');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.scalarType('Upload', {
  description: 'A file sent with the GraphQL multipart request spec.',
  serialize: () => {
    throw new GraphQLError('Upload is an input-only scalar.');
  },
  // Checked where it is read (src/core/uploads.ts): a file, or an upload the REST route stored first.
  parseValue: (value) => value,
});

/**
 * A socket frame. Frames are described once, as the sockets' JSON Schemas (rest/frame-schemas.ts, in
 * /v1/openapi.json: `SubscribeFrame`, `RealtimeServerFrame`, each a union told apart by `type`); GraphQL carries the
 * same frames whole, so this scalar names that shape instead of restating each member as a GraphQL type.
 */
builder.scalarType('Frame', {
  description: 'A socket frame, `{"type": …, …}`: its fields by `type` as /v1/openapi.json describes the socket\'s frames '
    + '(`SubscribeFrame` for a recording\'s, the events sockets\' frames under `x-websocket`).',
  serialize: (value) => {
    if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
      throw new GraphQLError('A Frame must be an object with a string `type`.');
    }
    return value as { type: string };
  },
  parseValue: () => {
    throw new GraphQLError('Frame is an output-only scalar.');
  },
});

builder.scalarType('LanguageMap', {
  description: 'An object from a language code to a string: `{"de": "…", "fr": "…"}`; `{}` when empty.',
  serialize: (value) => languageMap(value, 'A LanguageMap value'),
  parseValue: (value) => languageMap(value, 'A LanguageMap'),
});

function languageMap(value: unknown, what: string): Record<string, string> {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    Object.values(value).some((text) => typeof text !== 'string')
  ) {
    throw new GraphQLError(`${what} must be an object from language codes to strings.`);
  }
  return value as Record<string, string>;
}

/** The spec's error, as a typed result for fields that opt in with `errors: { types: [ApiError] }`. */
builder.objectType(ApiError, {
  name: 'ApiError',
  fields: (t) => ({
    code: t.exposeString('code'),
    status: t.exposeInt('status'),
    message: t.exposeString('message'),
    retryable: t.exposeBoolean('retryable'),
    details: t.field({ type: 'JSON', resolve: (error) => error.details }),
  }),
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
