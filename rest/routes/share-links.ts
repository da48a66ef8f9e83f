/** Share links of transcriptions and broadcasts: list, create, change, revoke. */
import {
  BroadcastShareLinksDocument, CreateBroadcastShareLinkDocument, CreateShareLinkDocument, RevokeShareLinkDocument,
  ShareLinkFieldsFragmentDoc,
  ShareLinksDocument, UpdateShareLinkDocument,
} from '../../src/generated/graphql.js';
import type { CreateShareLinkInput, UpdateShareLinkInput } from '../../src/generated/graphql.js';
import { parseShareLinkInput } from '../../src/share-links/service.js';
import { fragmentSchema, inputSchema, listSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

/** A share link as `ShareLinkFields` selects it (the ShareLink GraphQL type is the one source). */
export const shareLinkSchema = fragmentSchema(ShareLinkFieldsFragmentDoc);

const invalid = { status: 400, code: 'invalid_options', description: 'An unknown field, a blank or too long `label`, a permission that is '
  + 'not a boolean; `details.field` names it.' };
const notFound = {
  status: 404, code: 'not_found', description: 'No such transcription or link in this account (or the link was revoked).',
};
const notFoundOf = (kind: 'transcription' | 'broadcast') => ({ status: 404, code: 'not_found', description: `No such ${kind} in this `
  + `account.` });

export const shareLinkRoutes: RouteSpec[] = [
  // The links of a transcription and of a broadcast: the same two routes under each.
  ...(['transcription', 'broadcast'] as const).flatMap((kind) => [
    graphqlRoute({
      method: 'get', path: `/v1/${kind}s/{id}/share-links`,
      operationId: kind === 'transcription' ? 'listShareLinks' : 'listBroadcastShareLinks', tags: ['share links'],
      summary: `Active share links of a ${kind}, oldest first.`,
      auth: { mode: 'userOrKey', scopes: ['read'] },
      document: (kind === 'transcription' ? ShareLinksDocument : BroadcastShareLinksDocument) as typeof ShareLinksDocument,
      variables: ({ params }) => (kind === 'transcription' ? { transcriptionId: params.id! } : { broadcastId: params.id! }) as {
        transcriptionId: string;
      },
      result: (data) => ({
        status: 200,
        body: { shareLinks: (data as Record<string, unknown>)[kind === 'transcription' ? 'shareLinks' : 'broadcastShareLinks'] },
      }),
      response: { status: 200, description: 'The links.', schema: listSchema('shareLinks', shareLinkSchema) },
      errors: [notFoundOf(kind)],
    }),
    graphqlRoute({
      method: 'post', path: `/v1/${kind}s/{id}/share-links`,
      operationId: kind === 'transcription' ? 'createShareLink' : 'createBroadcastShareLink', tags: ['share links'],
      summary: `Create a share link of a ${kind} (CreateShareLink); permissions default to on.`,
      auth: { mode: 'userOrKey', scopes: ['write'] },
      document: (kind === 'transcription' ? CreateShareLinkDocument : CreateBroadcastShareLinkDocument) as typeof CreateShareLinkDocument,
      idempotent: true,
      // The service's parser first: an unknown field or a wrong type is refused naming it, before GraphQL coercion.
      variables: ({ params, body }) => {
        parseShareLinkInput(body ?? {}, 'create');
        const input = (body ?? {}) as CreateShareLinkInput;
        return (kind === 'transcription' ? { transcriptionId: params.id!, input } : { broadcastId: params.id!, input }) as {
          transcriptionId: string; input: CreateShareLinkInput;
        };
      },
      request: { schema: inputSchema('CreateShareLinkInput') },
      response: { status: 201, description: 'The link.', schema: shareLinkSchema },
      errors: [notFoundOf(kind), invalid, { status: 409, code: 'invalid_state', description: `The ${kind} is archived.` }],
    }),
  ]),
  graphqlRoute({
    method: 'patch', path: '/v1/share-links/{id}', operationId: 'updateShareLink', tags: ['share links'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: UpdateShareLinkDocument,
    variables: ({ params, body }) => {
      parseShareLinkInput(body ?? {}, 'patch');
      return { id: params.id!, input: (body ?? {}) as UpdateShareLinkInput };
    },
    request: { schema: inputSchema('UpdateShareLinkInput') },
    response: { status: 200, description: 'The link.', schema: shareLinkSchema },
    errors: [notFound, invalid],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/share-links/{id}', operationId: 'revokeShareLink', tags: ['share links'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RevokeShareLinkDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The revoked link.', schema: shareLinkSchema },
    errors: [notFound],
  }),
];
