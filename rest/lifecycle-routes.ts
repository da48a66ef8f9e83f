/**
 * The lifecycle moves every resource with a lifecycle has (transcriptions, recordings, broadcasts):
 * `POST /v1/<collection>/{id}/archive`, `/restore` and `/purge`, each running its GraphQL mutation (`archive<Type>`…)
 * and answering the resource, or `{id, purged: true}`; purge only from archived (`409 invalid_state`).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { graphqlRoute, type JsonSchema, type RouteEntry } from './types.js';

export type LifecycleMove = 'archive' | 'restore' | 'purge';

export function lifecycleMoveRoutes(resource: {
  /** The path segment: `transcriptions`. */
  collection: string;
  /** The GraphQL type's name, as the mutations end: `Transcription`. */
  type: string;
  tag: string;
  documents: Record<LifecycleMove, TypedDocumentNode<unknown, { id: string }>>;
  summaries: Record<LifecycleMove, string>;
  schema: JsonSchema;
  notFound: { status: number; code: string; description: string };
}): RouteEntry[] {
  const noun = resource.type.toLowerCase();
  return (['archive', 'restore', 'purge'] as const).map((move) =>
    graphqlRoute({
      method: 'post', path: `/v1/${resource.collection}/{id}/${move}`, operationId: `${move}${resource.type}`, tags: [resource.tag],
      summary: resource.summaries[move],
      auth: { mode: 'userOrKey', scopes: ['write'] },
      document: resource.documents[move],
      variables: ({ params }) => ({ id: params.id! }),
      result: (data) => ({ status: 200, body: (data as Record<string, unknown>)[`${move}${resource.type}`] }),
      response: move === 'purge'
        ? { status: 200, description: '`{id, purged: true}`.', schema: { type: 'object', properties: { id: { type: 'string' }, purged: { type: 'boolean' } } } }
        : { status: 200, description: `The ${noun}.`, schema: resource.schema },
      errors: move === 'purge' ? [resource.notFound, { status: 409, code: 'invalid_state', description: `Only an archived ${noun} can be purged.` }] : [resource.notFound],
    }),
  );
}
