/**
 * What the REST routes of every resource with a lifecycle (transcriptions, recordings, broadcasts) share: its times
 * in the answer, the newest-first listing's query, and the moves `POST /v1/<collection>/{id}/archive`, `/restore` and
 * `/purge`, each running its GraphQL mutation (`archive<Type>`…) and answering the resource, or `{id, purged: true}`;
 * purge only from archived (`409 invalid_state`). Each move's summary is in the resource's operations file
 * (`## archiveTranscription` in rest/operations/transcriptions.md).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { errors } from '../src/core/errors.js';
import { PurgedFieldsFragmentDoc } from '../src/generated/graphql.js';
import { fragmentSchema } from './shapes.js';
import { graphqlRoute, type JsonSchema, type RouteEntry } from './types.js';

/** The times of a resource with a lifecycle (transcriptions, broadcasts). */
export const lifecycleTimesSchema: Record<string, JsonSchema> = {
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
  archivedAt: { type: 'string', format: 'date-time', nullable: true },
  purgeAfter: { type: 'string', format: 'date-time', nullable: true },
};

/** The query of a newest-first listing by lifecycle (transcriptions, broadcasts): its parameters and variables. */
export const lifecycleListParameters = [
  {
    name: 'cursor', in: 'query' as const, description: 'The `nextCursor` of the previous page (never an offset).',
    schema: { type: 'string' },
  },
  {
    name: 'lifecycle', in: 'query' as const, description: '`active` (default), `archived`, or `all` (both).',
    schema: { type: 'string', enum: ['active', 'archived', 'all'], default: 'active' },
  },
  {
    name: 'limit', in: 'query' as const, description: 'Items per page, per lifecycle: with `all`, up to `limit` of each.',
    schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
];

export function lifecycleListVariables(query: Record<string, unknown>): { cursor?: string; lifecycle?: string; limit?: number } {
  const limit = query.limit === undefined ? undefined : Number(query.limit);
  if (limit !== undefined && !Number.isInteger(limit)) {
    throw errors.invalidOptions('limit must be an integer from 1 to 500.', { field: 'limit' });
  }
  return { cursor: query.cursor as string | undefined, lifecycle: query.lifecycle as string | undefined, limit };
}

const purgedSchema = fragmentSchema(PurgedFieldsFragmentDoc);

export type LifecycleMove = 'archive' | 'restore' | 'purge';

export function lifecycleMoveRoutes(resource: {
  /** The path segment: `transcriptions`. */
  collection: string;
  /** The GraphQL type's name, as the mutations end: `Transcription`. */
  type: string;
  tag: string;
  documents: Record<LifecycleMove, TypedDocumentNode<unknown, { id: string }>>;
  schema: JsonSchema;
  notFound: { status: number; code: string; description: string };
}): RouteEntry[] {
  const noun = resource.type.toLowerCase();
  return (['archive', 'restore', 'purge'] as const).map((move) =>
    graphqlRoute({
      method: 'post', path: `/v1/${resource.collection}/{id}/${move}`, operationId: `${move}${resource.type}`, tags: [resource.tag],
      auth: { mode: 'userOrKey', scopes: ['write'] },
      document: resource.documents[move],
      variables: ({ params }) => ({ id: params.id! }),
      result: (data) => ({ status: 200, body: (data as Record<string, unknown>)[`${move}${resource.type}`] }),
      response: move === 'purge'
        ? { status: 200, description: '`{id, purged: true}`.', schema: purgedSchema }
        : { status: 200, description: `The ${noun}.`, schema: resource.schema },
      errors: move === 'purge' ? [resource.notFound, { status: 409, code: 'invalid_state', description: `Only an archived ${noun} can be `
        + `purged.` }] : [resource.notFound],
    }),
  );
}
