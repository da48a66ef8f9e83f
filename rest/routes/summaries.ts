/** A recording's title and summary: read it, ask for one (src/summaries/service.ts). */
import { RecordingSummaryDocument, SummarizeRecordingDocument } from '../../src/generated/graphql.js';
import { single } from '../query.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const notFound = { status: 404, code: 'not_found', description: 'No such recording in this account (or reached by this share link).' };

export const summaryRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/summary', operationId: 'getRecordingSummary', tags: ['summaries'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [{ name: 'shareCode', in: 'query', schema: { type: 'string' } }, { name: 'lang', in: 'query', schema: { type: 'string' } }],
    document: RecordingSummaryDocument,
    variables: ({ params, query }) => ({ recordingId: params.id!, lang: single(query.lang), shareCode: single(query.shareCode) }),
    response: { status: 200, description: 'The summary\'s state, with title and summary when `ready`.' },
    errors: [notFound, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/summarize', operationId: 'summarizeRecording', tags: ['summaries'],
    document: SummarizeRecordingDocument, variables: ({ params }) => ({ recordingId: params.id! }),
    response: { status: 200, description: 'The summary\'s state after asking.' }, errors: [notFound],
  }),
];
