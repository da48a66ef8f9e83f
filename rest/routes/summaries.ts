/** A recording's title and summary: read it, ask for one (src/summaries/service.ts). */
import { RecordingSummaryDocument, RecordingSummaryFieldsFragmentDoc, SummarizeRecordingDocument } from '../../src/generated/graphql.js';
import { fragmentSchema } from '../shapes.js';
import { single } from '../query.js';
import { graphqlRoute, type RouteEntry } from '../types.js';

const summarySchema = fragmentSchema(RecordingSummaryFieldsFragmentDoc);

const notFound = { status: 404, code: 'not_found', description: 'No such recording in this account (or reached by this share link).' };

export const summaryRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/summary', operationId: 'getRecordingSummary', tags: ['summaries'],
    summary: 'The recording\'s title and summary: `ready`, `pending` or `unavailable`. Queues nothing, so a share-link reader may ask.',
    description: 'Owner (`read`), or a share link (`shareCode`). Through a share link a `lang` other than the spoken language needs `allowTranslate` (else 403); translations do not exist on this server yet, so another language is 400. Which summariser wrote it is `provider`: `builtin` is extractive (the best-ranked sentences of the corrected transcript and a title from its key phrases, not a language model); `openai:<model>` is an OpenAI-compatible chat API chosen by SUMMARY_PROVIDER. '
      + 'Summaries follow corrections: a correction batch, a retranscription or a revert of a finished recording whose summary is `ready` makes it `pending` from that moment, and it is written again from the corrected text SUMMARY_REWRITE_DELAY_MS (default 5 s) after the last correction of a burst (one rewrite per burst). While it is rewritten the old summary is not served (it may repeat what was just corrected): the answer is `pending`, then `ready` with the new one (a new `writtenAt`), or `unavailable` `failed` (retryable) if the rewrite fails. Naming a speaker does not rewrite it (the summary is made from the sentences\' text).',
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'shareCode', in: 'query', schema: { type: 'string' }, description: 'Read through a share link, with its permissions.' },
      { name: 'lang', in: 'query', schema: { type: 'string' }, description: 'Read in this language; through a share link another language than the spoken one needs `allowTranslate`.' },
    ],
    document: RecordingSummaryDocument,
    variables: ({ params, query }) => ({ recordingId: params.id!, lang: single(query.lang), shareCode: single(query.shareCode) }),
    result: (data) => ({ status: 200, body: data.recordingSummary }),
    response: { status: 200, description: 'The summary\'s state, with title and summary when `ready`.', schema: summarySchema },
    errors: [
      notFound,
      { status: 403, code: 'forbidden', description: 'A share link without `allowTranslate` asked for another language; or a media token or broadcast listener (summaries are for the owner and share links).' },
      { status: 400, code: 'invalid_options', description: '`lang` other than the spoken language (no translations on this server).' },
    ],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/summarize', operationId: 'summarizeRecording', tags: ['summaries'],
    summary: 'Ask for the title and summary of a finished recording that has none (or whose last attempt failed); poll `GET .../summary`. Answers the state after asking: `pending` while it is written, `ready` when one exists, `unavailable` (`reason: off`) when the server has no summariser. Idempotent: asking again while one is pending or ready changes nothing. Owner only.',
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: SummarizeRecordingDocument,
    variables: ({ params }) => ({ recordingId: params.id! }),
    result: (data) => ({ status: 200, body: data.summarizeRecording }),
    response: { status: 200, description: 'The summary\'s state after asking.', schema: summarySchema },
    errors: [notFound],
  }),
];
