/** Share links of transcriptions and broadcasts: list, create, change, revoke. */
import {
  BroadcastShareLinksDocument, CreateBroadcastShareLinkDocument, CreateShareLinkDocument, RevokeShareLinkDocument,
  ShareLinkFieldsFragmentDoc, ShareLinksDocument, UpdateShareLinkDocument, type CreateShareLinkInput, type UpdateShareLinkInput,
} from '../../src/generated/graphql.js';
import { parseShareLinkInput } from '../../src/share-links/service.js';
import { checkedBody } from '../bodies.js';
import { fragmentSchema, inputSchema, listSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

/** Share links as `ShareLinkFields` selects them (the ShareLink GraphQL type is the one source). */
const linksSchema = listSchema('shareLinks', fragmentSchema(ShareLinkFieldsFragmentDoc));

/** The service's parser first: an unknown field or a wrong type is refused naming it, before GraphQL coercion. */
const createInput = (body: unknown) => checkedBody(body ?? {}, (b) => parseShareLinkInput(b, 'create')) as CreateShareLinkInput;
const patchInput = (body: unknown) => checkedBody(body ?? {}, (b) => parseShareLinkInput(b, 'patch')) as UpdateShareLinkInput;

const invalid = { status: 400, code: 'invalid_options', description: 'An unknown field, a blank or too long `label`, a permission that is '
  + 'not a boolean; `details.field` names it.' };
const notFound = { status: 404, code: 'not_found', description: 'No such transcription or link in this account (or the link was '
  + 'revoked).' };
const notFoundOf = (kind: string) => ({ status: 404, code: 'not_found', description: `No such ${kind} in this account.` });

export const shareLinkRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/{id}/share-links', operationId: 'listShareLinks', tags: ['share links'],
    document: ShareLinksDocument, variables: ({ params }) => ({ transcriptionId: params.id! }),
    result: (data) => ({ status: 200, body: { shareLinks: data.shareLinks } }),
    response: { status: 200, description: 'The links.', schema: linksSchema }, errors: [notFoundOf('transcription')],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/transcriptions/{id}/share-links', operationId: 'createShareLink', tags: ['share links'],
    idempotent: true, document: CreateShareLinkDocument,
    variables: ({ params, body }) => ({ transcriptionId: params.id!, input: createInput(body) }),
    request: { schema: inputSchema('CreateShareLinkInput') }, response: { status: 201, description: 'The link.' },
    errors: [notFoundOf('transcription'), invalid, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}/share-links', operationId: 'listBroadcastShareLinks', tags: ['share links'],
    document: BroadcastShareLinksDocument, variables: ({ params }) => ({ broadcastId: params.id! }),
    result: (data) => ({ status: 200, body: { shareLinks: data.broadcastShareLinks } }),
    response: { status: 200, description: 'The links.', schema: linksSchema }, errors: [notFoundOf('broadcast')],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts/{id}/share-links', operationId: 'createBroadcastShareLink', tags: ['share links'],
    idempotent: true, document: CreateBroadcastShareLinkDocument,
    variables: ({ params, body }) => ({ broadcastId: params.id!, input: createInput(body) }),
    request: { schema: inputSchema('CreateShareLinkInput') }, response: { status: 201, description: 'The link.' },
    errors: [notFoundOf('broadcast'), invalid, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/share-links/{id}', operationId: 'updateShareLink', tags: ['share links'], document: UpdateShareLinkDocument,
    variables: ({ params, body }) => ({ id: params.id!, input: patchInput(body) }),
    request: { schema: inputSchema('UpdateShareLinkInput') }, response: { status: 200, description: 'The link.' },
    errors: [notFound, invalid],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/share-links/{id}', operationId: 'revokeShareLink', tags: ['share links'],
    document: RevokeShareLinkDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The revoked link.' }, errors: [notFound],
  }),
];
