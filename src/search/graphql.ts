import { builder } from '../core/builder.js';
import { readerOf } from '../recordings/service.js';
import type { SearchHit, SearchPage } from './service.js';

export const SearchHitType = builder.objectRef<SearchHit>('SearchHit').implement({
  description: 'A sentence that matched: where it is (recording, transcription, sentence id of the transcript snapshot, times, speaker), '
    + 'its text as corrected (in the search\'s `lang` when rendered into it), and a snippet with the matched words marked.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    transcriptionId: t.exposeID('transcriptionId'),
    sentenceId: t.exposeString('sentenceId', { description: 'The sentence id the transcript snapshot gives it (`<seq>.<word>`).' }),
    start: t.exposeFloat('start', { description: 'Seconds on the recording\'s media time line.' }),
    end: t.exposeFloat('end'),
    speaker: t.exposeInt('speaker', { description: 'The speaker label (-1: labels off).' }),
    text: t.exposeString('text', { description: 'The sentence as readers see it (corrections applied), translated into the search\'s '
      + '`lang` when spoken in another language and the server translates it (`lang` says which).' }),
    snippet: t.exposeString('snippet', { description: 'The text HTML-escaped, matched words (exact, same stem, or close misspellings) '
      + 'wrapped in `<mark>`…`</mark>`; a long sentence is cut around the first match with `…`.' }),
    score: t.exposeFloat('score', { description: 'Relevance (higher first): full-text rank, plus 0.5 for the literal text, plus trigram '
      + 'word similarity.' }),
    language: t.exposeString('language', { nullable: true, description: 'The spoken language of its recording.' }),
    lang: t.exposeString('lang', { nullable: true, description: 'The language `text` and `snippet` read in: the search\'s `lang` when the '
      + 'hit was rendered into it, else the spoken language.' }),
    original: t.exposeString('original', { nullable: true, description: 'The sentence as spoken when `text` is its translation; null '
      + 'otherwise.' }),
    unclear: t.exposeBoolean('unclear', { description: 'Below the confidence policy\'s `hideBelow` (owners only; listeners never get such '
      + 'lines).' }),
  }),
});

export const SearchPageType = builder.objectRef<SearchPage>('SearchPage').implement({
  description: 'One page of search hits, best first; `nextCursor` continues (absent on the last page).',
  fields: (t) => ({
    results: t.field({ type: [SearchHitType], resolve: (page) => page.results }),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  search: t.field({
    type: SearchPageType,
    description: 'Sentence search (full-text in the spoken language and exact words, `"phrases"`, literal substrings, close '
      + 'misspellings). An owner searches its transcriptions and broadcasts (`transcriptionId`, `broadcast` narrow it); a listener '
      + 'names `broadcast` codes: public ones, or the private one its `listenerToken` opens; lines the confidence policy suppresses '
      + 'never match for listeners. The query is in `lang` (English when absent) and also matches, through the English pivot, sentences '
      + 'of other spoken languages (the query translated into each); hits in another language than `lang` read translated into it '
      + '(`original` keeps the spoken text). A `lang` this server neither translates into nor finds spoken is refused.',
    // A listener sends no credential: the service decides who is asking.
    authScopes: { public: true },
    args: {
      q: t.arg.string({ required: true }),
      lang: t.arg.string(),
      transcriptionId: t.arg.id(),
      broadcast: t.arg.stringList({ description: 'Broadcast codes.' }),
      listenerToken: t.arg.string(),
      cursor: t.arg.string(),
      limit: t.arg.int(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.search.search(readerOf(ctx, { listenerToken: args.listenerToken }), {
        q: args.q, lang: args.lang, transcriptionId: args.transcriptionId === null || args.transcriptionId === undefined ? null : String(
          args.transcriptionId,
        ),
        broadcast: args.broadcast, cursor: args.cursor, limit: args.limit,
      }),
  }),
}));
