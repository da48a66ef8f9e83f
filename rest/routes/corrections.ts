/** Corrections of a recording's settled text: apply a batch, list them, revert one (src/corrections/service.ts). */
import {
  CorrectionFieldsFragmentDoc, CorrectRecordingDocument, RecordingCorrectionsDocument, RetranscribeLineDocument, RevertCorrectionDocument,
} from '../../src/generated/graphql.js';
import { fragmentSchema, inputSchema, pageSchema, resultSchema } from '../shapes.js';
import type { CorrectionBatchInput } from '../../src/generated/graphql.js';
import { parseCorrectionBatch, parseRetranscribe } from '../../src/corrections/service.js';
import { intParam, pageParameters, single, withoutLastCursor } from '../query.js';
import { graphqlRoute, type RouteSpec } from '../types.js';


export const correctionSchema = fragmentSchema(CorrectionFieldsFragmentDoc);

const notFound = { status: 404, code: 'not_found', description: 'No such recording in this account.' };

/** What every change of a line does to its stored translations (src/corrections/service.ts). */
const RETRANSLATED = 'Translations follow: a changed segment that had stored translations loses them in the same transaction and, once '
  + 'applied, is translated again into those languages (stored, a `transcript.translated` frame to subscribers; the translation cache '
  + 'keys on the text, so corrected text is translated anew). A translation provider\'s failure never fails the change: that language '
  + 'stays cleared for the segment and a reader asking for `lang` has the sentence translated on demand.';

export const correctionRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/corrections', operationId: 'listCorrections', tags: ['corrections'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: pageParameters(50),
    document: RecordingCorrectionsDocument,
    variables: ({ params, query }) => ({
      recordingId: params.id!,
      cursor: single(query.cursor),
      limit: intParam(query, 'limit', 'limit must be an integer from 1 to 500.', { minimum: 1, maximum: 500 }),
    }),
    result: (data) => ({
      status: 200,
      body: withoutLastCursor(data.recordingCorrections),
    }),
    response: { status: 200, description: 'A page of corrections.', schema: pageSchema('corrections', correctionSchema) },
    errors: [notFound, { status: 400, code: 'invalid_options' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/corrections', operationId: 'createCorrections', tags: ['corrections'],
    summary: 'Apply a CorrectionBatch: word edits (`edits`), then whole-line rewrites (`lines`), atomically: one transaction, and on any '
      + 'refusal nothing is applied. Every target must be settled (a committed segment). A line over several segments lists '
      + 'neighbouring segments only (consecutive seqs). Each correction is one segment\'s change and one `transcript.corrected` frame '
      + 'to subscribers; snapshots and exports read the corrected text. Owner only.',
    description: RETRANSLATED,
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CorrectRecordingDocument,
    idempotent: true,
    // The service's parser first: a wrong field is refused naming it (`lines[0].seqs`), before GraphQL coercion.
    variables: ({ params, body }) => {
      parseCorrectionBatch(body);
      return { recordingId: params.id!, input: body as CorrectionBatchInput };
    },
    request: { schema: inputSchema('CorrectionBatchInput') },
    response: {
      status: 201, description: 'The batch: one correction per corrected segment, in the order applied.',
      schema: resultSchema(CorrectRecordingDocument),
    },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/retranscribe', operationId: 'retranscribeLine', tags: ['corrections'],
    summary: 'Read one line\'s stored audio again with the language forced and apply the result as a line rewrite. Owner only.',
    description: 'The line is named as a LineEdit\'s `seqs` (committed segments, consecutive, in order); its audio (from the first '
      + 'segment\'s start to the last one\'s end, at most 120 s; a finished recording\'s master, or an open live recording\'s capture) '
      + 'is decoded with `language` forced and beam search (5). What the engine heard is applied exactly as `POST .../corrections` '
      + 'applies `lines: [{seqs, text}]`: one `line` correction per segment in one batch, voiced (its words are the audio\'s; it is '
      + 'still `voiced: false` if it drops a negation the recognizer heard), each revertible with `POST /v1/corrections/{id}/revert`, a '
      + '`transcript.corrected` frame each, read by snapshots and exports. `language` defaults to the recording\'s spoken language, '
      + 'else the one the line was recognized in. 503 `engine_unavailable` with `Retry-After` means nothing was applied and a retry is '
      + 'worthwhile: the line\'s audio has not reached this machine yet (`details.reason: audio_not_here`, `haveS`, `needS`: a live '
      + 'capture shorter than the line), or the engine is unavailable or busy (`details.reason: engine`). ' + RETRANSLATED,
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RetranscribeLineDocument,
    idempotent: true,
    variables: ({ params, body }) => {
      const { seqs, language } = parseRetranscribe(body);
      return { recordingId: params.id!, input: { seqs, language } };
    },
    request: { schema: inputSchema('RetranscribeInput') },
    response: {
      status: 201, description: 'The corrections made (one `line` correction per segment, in order), the text the engine heard and the '
        + 'language it was read in.',
      schema: resultSchema(RetranscribeLineDocument),
    },
    errors: [
      notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' },
      { status: 503, code: 'engine_unavailable' },
    ],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/corrections/{id}/revert', operationId: 'revertCorrection', tags: ['corrections'],
    summary: 'Undo one correction: its segment reads as it did before it, `transcript.corrected` goes out again and the correction shows '
      + '`revertedAt`. Refused (409 `invalid_state`) when already reverted, or when a later correction that stands changed the same '
      + 'words (a later line rewrite of the segment, an edit of the same word, or any later change of a line correction\'s segment): '
      + '`details.laterCorrectionId` names it; revert that one first. Owner only.',
    description: RETRANSLATED,
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RevertCorrectionDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The reverted correction.', schema: correctionSchema },
    errors: [{ status: 404, code: 'not_found' }, { status: 409, code: 'invalid_state' }],
  }),
];
