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
    summary: 'Sentence search over transcripts: words, phrases, literal text and close misspellings.',
    description: [
      'An owner (a credential with `read`) searches the sentences of its transcriptions and broadcasts; `transcriptionId` and `broadcast` '
        + 'narrow it. A listener sends no credential and names `broadcast` codes: public broadcasts, or the private one its '
        + '`listenerToken` opens (a private one without it is `401 invalid_token`); lines the confidence policy suppresses for '
        + 'listeners never match.',
      '`q` takes web-search syntax: words (all must match, stemmed in the spoken language or exact), `"a phrase"`, `or`, `-word`; the '
        + 'literal text also matches as a substring, and a misspelt word matches by trigram similarity. Sentences are as the transcript '
        + 'snapshot gives them (same ids, corrections applied: the old text no longer matches).',
      'English pivot: the query is taken to be in `lang` (English when absent). For every other language spoken in the recordings '
        + 'searched, it is translated into that language (through English when the server translates only to and from English) and '
        + 'matched full-text against the sentences spoken in it, so an English query finds a Spanish sentence. A language the query '
        + 'cannot be translated into is matched literally only.',
      'Results are best first and paged with `cursor` (`nextCursor`, absent on the last page). With `lang`, a hit spoken in another '
        + 'language reads translated into it (`text` and `snippet`, translated on demand and cached; `original` keeps the spoken text, '
        + 'the hit\'s `lang` says what `text` reads in); a hit whose language the server cannot translate into `lang` stays as spoken. '
        + 'A `lang` that is neither a translation target of this server (`GET /v1/languages`) nor spoken in the recordings searched is '
        + '`400 invalid_options`.',
    ].join('\n\n'),
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'q', in: 'query', required: true, description: 'What to search for.', schema: { type: 'string', minLength: 1, maxLength: SEARCH_MAX_QUERY } },
      { name: 'lang', in: 'query', description: 'The language of the query and of the results: hits spoken in another language are '
        + 'rendered into it. Absent: the query is taken as English for the pivot and hits read as spoken.', schema: { type: 'string' } },
      { name: 'transcriptionId', in: 'query', description: 'Only this transcription.', schema: { type: 'string' } },
      { name: 'broadcast', in: 'query', description: 'Broadcast codes, comma-separated: a listener must name at least one; an owner '
        + 'narrows to its broadcasts.', schema: { type: 'string' } },
      { name: 'listenerToken', in: 'query', description: 'A private broadcast\'s listener (`POST /v1/listen/{code}/token`).', schema: { type: 'string' } },
      { name: 'cursor', in: 'query', description: 'The `nextCursor` of the previous page of the same query.', schema: { type: 'string' } },
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
    errors: [
      { status: 400, code: 'invalid_options', description: 'A blank or too long `q`, a bad `lang`, `limit`, `cursor` or `broadcast`, or a '
        + '`lang` this server neither translates into nor finds spoken in the recordings searched; `details.field` names it.' },
      { status: 404, code: 'not_found', description: 'An unknown or archived broadcast code, or a transcription not in this account.' },
    ],
  }),
];
