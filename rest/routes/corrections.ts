/** Corrections of a recording's settled text: apply a batch, list them, revert one (src/corrections/service.ts). */
import { parseCorrectionBatch, parseRetranscribe } from '../../src/corrections/service.js';
import {
  type CorrectionBatchInput, CorrectionFieldsFragmentDoc, CorrectRecordingDocument, RecordingCorrectionsDocument, RetranscribeLineDocument,
  RevertCorrectionDocument,
} from '../../src/generated/graphql.js';
import { intParam, pageParameters, single, withoutLastCursor } from '../query.js';
import { fragmentSchema, inputSchema, pageSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const correctionSchema = fragmentSchema(CorrectionFieldsFragmentDoc);
const notFound = { status: 404, code: 'not_found', description: 'No such recording in this account.' };

export const correctionRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/corrections', operationId: 'listCorrections', tags: ['corrections'],
    parameters: pageParameters(50),
    document: RecordingCorrectionsDocument,
    variables: ({ params, query }) => ({
      recordingId: params.id!, cursor: single(query.cursor),
      limit: intParam(query, 'limit', 'limit must be an integer from 1 to 500.', { minimum: 1, maximum: 500 }),
    }),
    result: (data) => ({ status: 200, body: withoutLastCursor(data.recordingCorrections) }),
    response: { status: 200, description: 'A page of corrections.', schema: pageSchema('corrections', correctionSchema) },
    errors: [notFound, { status: 400, code: 'invalid_options' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/corrections', operationId: 'createCorrections', tags: ['corrections'], idempotent: true,
    document: CorrectRecordingDocument,
    // The service's parser first: a wrong field is refused naming it (`lines[0].seqs`), before GraphQL coercion.
    variables: ({ params, body }) => {
      parseCorrectionBatch(body);
      return { recordingId: params.id!, input: body as CorrectionBatchInput };
    },
    request: { schema: inputSchema('CorrectionBatchInput') },
    response: { status: 201, description: 'The batch: one correction per corrected segment, in the order applied.' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/retranscribe', operationId: 'retranscribeLine', tags: ['corrections'], idempotent: true,
    document: RetranscribeLineDocument,
    variables: ({ params, body }) => {
      const { seqs, language } = parseRetranscribe(body);
      return { recordingId: params.id!, input: { seqs, language } };
    },
    request: { schema: inputSchema('RetranscribeInput') },
    response: { status: 201, description: 'The corrections made (one `line` correction per segment, in order), the text the engine '
      + 'heard and the language it was read in.' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' },
      { status: 503, code: 'engine_unavailable' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/corrections/{id}/revert', operationId: 'revertCorrection', tags: ['corrections'],
    document: RevertCorrectionDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The reverted correction.' },
    errors: [{ status: 404, code: 'not_found' }, { status: 409, code: 'invalid_state' }],
  }),
];
