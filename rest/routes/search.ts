/** `GET /v1/search`: sentence search over the owner's transcriptions and broadcasts, or (a listener) broadcasts named by code. */
import { SearchDocument } from '../../src/generated/graphql.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY } from '../../src/search/service.js';
import { intParam, single } from '../query.js';
import { resultSchema } from '../shapes.js';
import { graphqlRoute, type RouteEntry } from '../types.js';

const hit = {
  type: 'object',
  required: ['recordingId', 'transcriptionId', 'sentenceId', 'start', 'end', 'speaker', 'text', 'snippet', 'score', 'unclear'],
  properties: {
    recordingId: { type: 'string' },
    transcriptionId: { type: 'string' },
    sentenceId: { type: 'string', description: 'The sentence id the transcript snapshot gives it (`<seq>.<word>`).' },
    start: { type: 'number', description: 'Seconds on the recording\'s media time line.' },
    end: { type: 'number' },
    speaker: { type: 'integer', description: 'The speaker label (-1: labels off).' },
    text: { type: 'string', description: 'The sentence as readers see it (corrections applied); in `lang` when spoken in another language '
      + 'and rendered into it.' },
    snippet: { type: 'string', description: 'The text HTML-escaped with matched words (exact, same stem, or close misspellings) wrapped '
      + 'in `<mark>`…`</mark>`; a long sentence is cut around the first match with `…`.' },
    score: { type: 'number', description: 'Relevance, higher first: full-text rank, plus 0.5 for the literal text, plus trigram word '
      + 'similarity.' },
    language: { type: 'string', nullable: true, description: 'The spoken language of its recording.' },
    lang: { type: 'string', nullable: true, description: 'The language `text` and `snippet` read in: `lang` when the hit was rendered '
      + 'into it, else the spoken language.' },
    original: { type: 'string', nullable: true, description: 'The sentence as spoken when `text` is its translation into `lang`; null '
      + 'otherwise.' },
    unclear: { type: 'boolean', description: 'Below the confidence policy\'s `hideBelow` (owners only; listeners never get such lines).' },
  },
};

export const searchRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/search', operationId: 'search', tags: ['search'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: SEARCH_MAX_QUERY } },
      { name: 'lang', in: 'query', schema: { type: 'string' } }, { name: 'transcriptionId', in: 'query', schema: { type: 'string' } },
      { name: 'broadcast', in: 'query', schema: { type: 'string' } }, { name: 'listenerToken', in: 'query', schema: { type: 'string' } },
      { name: 'cursor', in: 'query', schema: { type: 'string' } },
      { name: 'limit', in: 'query', description: `Results per page (default ${SEARCH_DEFAULT_LIMIT}).`, schema: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_LIMIT } },
    ],
    document: SearchDocument,
    variables: ({ query }) => {
      const broadcast = single(query.broadcast);
      return {
        q: single(query.q) ?? '',
        lang: single(query.lang),
        transcriptionId: single(query.transcriptionId),
        broadcast: broadcast === undefined ? undefined : [broadcast],
        listenerToken: single(query.listenerToken),
        cursor: single(query.cursor),
        limit: intParam(query, 'limit', `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}.`, { minimum: 1, maximum: SEARCH_MAX_LIMIT }),
      };
    },
    result: (data) => ({ status: 200, body: data.search }),
    response: { status: 200, description: 'One page of hits, best first.', schema: resultSchema(SearchDocument) },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 404, code: 'not_found' }],
  }),
];
