/**
 * `GET /v1/search`: sentence search. An owner (a credential with `read`) searches the transcriptions and broadcasts
 * of its account; a listener (no credential, or a private broadcast's listener token) names broadcasts by code and
 * searches what they are fed: a public broadcast's recordings, or the private one its token opens, never a line
 * the confidence policy suppresses for listeners.
 *
 * Matching, on PostgreSQL and the embedded database alike (src/search/sentence-index.ts keeps the rows): full-text search
 * (websearch syntax: words, `"a phrase"`, `or`, `-word`; stemmed in the spoken language and exact) OR the literal text
 * as a substring (`ILIKE`, trigram index) OR, unless the query quotes a phrase, a close misspelling (pg_trgm's `<%`
 * word similarity). Ranked by
 * `ts_rank_cd` plus a literal bonus plus word similarity; paged by a keyset cursor over (score, recording, position).
 *
 * The English pivot (the spec's "English pivot union literal match"): the query is in `lang`, English when no `lang`
 * is given. For every other language spoken in the recordings searched, the query is translated into that language
 * (through English when the server translates the query's language only to and from English) and matched,
 * full-text in that language's stemming configuration, against the sentences spoken in it. Translating the query
 * rather than indexing every sentence in English costs one short translation per language searched (the
 * translation cache answers a query asked before), needs no translation of a recording before it can be found, and
 * works the moment a recording is transcribed; the literal half still matches the query as typed. A language the
 * server cannot translate the query into, or a provider that fails, leaves that language to the literal half.
 *
 * `lang` also says what the results read in: a hit spoken in another language comes back translated into `lang`
 * (`text` and `snippet`; `original` keeps the spoken text), translated on demand and cached; a hit whose language
 * the server cannot translate into `lang` stays as spoken (its `lang` says so). A `lang` that is neither a
 * translation target of this server nor a language spoken in the recordings searched is `400` naming `lang`.
 */
import { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import type { ServiceDeps } from '../core/services.js';
import type { ReaderCredentials } from '../recordings/service.js';
import { recordingConfidencePolicy, isUnclear } from '../transcript/index.js';
import type { ListenerAccess } from '../listeners/index.js';
import type { TranslationService } from '../translation/service.js';
import { createLogger, type Logger } from '../core/logger.js';
import { refreshIndex, scopeCondition, textSearchConfig, type IndexScope } from './sentence-index.js';
import { FUZZY_THRESHOLD, literalText, snippet } from './highlight.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

declare module '../core/services.js' {
  interface Services {
    search: SearchService;
  }
}

export const SEARCH_MAX_QUERY = 200;
export const SEARCH_MAX_LIMIT = 100;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_BROADCASTS = 20;

export interface SearchQuery {
  q?: string | null;
  lang?: string | null;
  transcriptionId?: string | null;
  /** Broadcast codes (a listener must name at least one). */
  broadcast?: string[] | null;
  cursor?: string | null;
  limit?: number | null;
}

export interface SearchHit {
  recordingId: string;
  transcriptionId: string;
  sentenceId: string;
  start: number;
  end: number;
  speaker: number;
  text: string;
  /** HTML-escaped text with matched words in `<mark>`…`</mark>`. */
  snippet: string;
  score: number;
  /** The spoken language of its recording. */
  language: string | null;
  /** The language `text` and `snippet` read in: the search's `lang` when rendered into it, else the spoken one. */
  lang: string | null;
  /** The sentence as spoken when `text` is its translation into `lang`; null otherwise. */
  original: string | null;
  /** Under the confidence policy's `hideBelow` (owners only: listeners never get such lines). */
  unclear: boolean;
}

export interface SearchPage {
  results: SearchHit[];
  nextCursor: string | null;
}

interface Row {
  recordingId: string;
  transcriptionId: string;
  sentenceId: string;
  firstSeq: number;
  firstWord: number;
  start: number;
  end: number;
  speaker: number;
  text: string;
  confidence: number | null;
  language: string | null;
  score: number;
}

interface CursorKey { score: number; recordingId: string; firstSeq: number; firstWord: number }

const LANG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/** Checks the parameters; every refusal is 400 `invalid_options` naming its field. */
export function parseSearchQuery(query: SearchQuery): { q: string; lang: string | null; limit: number; codes: string[] } {
  const q = typeof query.q === 'string' ? query.q.trim() : '';
  if (!q) throw errors.invalidOptions('q: give the words to search for.', { field: 'q' });
  if (q.length > SEARCH_MAX_QUERY) throw errors.invalidOptions(`q: at most ${SEARCH_MAX_QUERY} characters.`, { field: 'q' });
  if (!literalText(q).replace(/[^\p{L}\p{N}]/gu, '')) throw errors.invalidOptions('q: needs at least one letter or digit.', { field: 'q' });
  const lang = query.lang ?? null;
  if (lang !== null && !LANG.test(lang)) throw errors.invalidOptions('lang: a language code such as en or pt-BR.', { field: 'lang' });
  const limit = query.limit ?? SEARCH_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
    throw errors.invalidOptions(`limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}.`, { field: 'limit' });
  }
  const codes = [...new Set((query.broadcast ?? []).flatMap((each) => each.split(',')).map((code) => code.trim()).filter(Boolean))];
  if (query.broadcast && (codes.length === 0 || codes.length > SEARCH_MAX_BROADCASTS)) {
    throw errors.invalidOptions(`broadcast: 1 to ${SEARCH_MAX_BROADCASTS} broadcast codes, comma-separated.`, { field: 'broadcast' });
  }
  return { q, lang, limit, codes };
}

function encodeCursor(key: CursorKey, q: string): string {
  return Buffer.from(JSON.stringify([key.score, key.recordingId, key.firstSeq, key.firstWord, q])).toString('base64url');
}

function decodeCursor(raw: string, q: string): CursorKey {
  const refuse = () => errors.invalidOptions(
    'cursor is not one this search returned (a cursor belongs to its query).', { field: 'cursor' },
  );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) throw refuse();
  const [score, recordingId, firstSeq, firstWord, forQuery] = parsed as unknown[];
  if (
    typeof score !== 'number' ||
    typeof recordingId !== 'string' ||
    !Number.isInteger(firstSeq) ||
    !Number.isInteger(firstWord) ||
    forQuery !== q
  )
    throw refuse();
  return { score, recordingId, firstSeq: firstSeq as number, firstWord: firstWord as number };
}

/** Where a search looks: the recordings, and for listeners the confidence floor of each. */
interface Scope {
  index: IndexScope;
  /** Listeners: each recording's `hideBelow`; a line under it never matches. */
  floors: Map<string, number> | null;
}

/** The query in another spoken language of the scope (the English pivot): matched full-text in that language. */
interface PivotQuery { language: string; text: string }

/** The language the query is taken to be in when no `lang` is given: the pivot's. */
const PIVOT = 'en';

/** The query's words for translation: web-search syntax off (quotes, `or`, `-excluded` words). */
function pivotText(q: string): string {
  return literalText(q.split(/\s+/).filter((word) => !word.startsWith('-') && word.toLowerCase() !== 'or').join(' '));
}

export class SearchService {
  /** `translator`: the query's pivot into other spoken languages and hits rendered into `lang` (none: literal only). */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly listenerAccess: ListenerAccess,
    private readonly translator: Pick<TranslationService, 'translate' | 'serves' | 'targets'> | null = null,
  ) {}

  private loggerInstance: Logger | null = null;

  private get logger(): Logger {
    return (this.loggerInstance ??= createLogger(this.deps.config.logLevel));
  }

  async search(credentials: ReaderCredentials, query: SearchQuery): Promise<SearchPage> {
    const { q, lang, limit, codes } = parseSearchQuery(query);
    const after = query.cursor ? decodeCursor(query.cursor, q) : null;
    const scope = await this.scope(credentials, codes, query.transcriptionId ?? null);
    if ('recordingIds' in scope.index && scope.index.recordingIds.length === 0) return { results: [], nextCursor: null };
    await refreshIndex(this.deps.prisma, scope.index);
    const spoken = await this.spokenLanguages(scope);
    await this.checkLang(lang, spoken);
    const pivots = await this.pivots(q, lang ?? PIVOT, spoken);
    const rows = await this.query(scope, q, lang ?? PIVOT, pivots, limit + 1, after);
    const page = rows.slice(0, limit);
    const unclear = await this.unclearOf(page, scope);
    const rendered = lang ? await this.render(page, lang) : new Map<Row, string>();
    const pivotOf = new Map(pivots.map((p) => [p.language, p.text]));
    return {
      results: page.map((row) => {
        const translation = rendered.get(row);
        const text = translation ?? row.text;
        // A hit found through the pivot and left as spoken marks the words of the query as translated.
        const marks = translation === undefined && row.language && pivotOf.has(row.language) ? `${q} ${pivotOf.get(row.language)}` : q;
        return {
          recordingId: row.recordingId,
          transcriptionId: row.transcriptionId,
          sentenceId: row.sentenceId,
          start: row.start,
          end: row.end,
          speaker: row.speaker,
          text,
          snippet: snippet(text, marks),
          score: row.score,
          language: row.language,
          lang: translation === undefined ? row.language : lang,
          original: translation === undefined ? null : row.text,
          unclear: unclear.has(`${row.recordingId}/${row.sentenceId}`),
        };
      }),
      nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!, q) : null,
    };
  }

  /** The spoken languages of the sentences searched. */
  private async spokenLanguages(scope: Scope): Promise<string[]> {
    const rows = await this.deps.prisma.$queryRaw<Array<{ language: string }>>`
      SELECT DISTINCT s.language FROM "SearchSentence" s JOIN "Recording" r ON r.id = s."recordingId"
      WHERE ${scopeCondition(scope.index)} AND s.language IS NOT NULL`;
    return rows.map((row) => row.language);
  }

  /** `lang` is a language this server translates into, or one spoken in the recordings searched; else 400. */
  private async checkLang(lang: string | null, spoken: string[]): Promise<void> {
    if (!lang || spoken.includes(lang)) return;
    const targets = (await this.translator?.targets().catch(() => [])) ?? [];
    if (targets.includes(lang)) return;
    throw errors.invalidOptions(
      `lang: this server does not translate into ${lang} (GET /v1/languages lists the translation `
        + `targets)${spoken.length ? `; the recordings searched are spoken in ${spoken.join(', ')}` : ''}.`,
      { field: 'lang' },
    );
  }

  /**
   * The query in each other spoken language of the scope: translated from `from` directly, or through English when
   * only that way is served. A language it cannot be had in is left to the literal half (a provider's failure is
   * logged: the search still answers).
   */
  private async pivots(q: string, from: string, spoken: string[]): Promise<PivotQuery[]> {
    const translator = this.translator;
    const text = pivotText(q);
    if (!translator || !text) return [];
    const out: PivotQuery[] = [];
    for (const language of spoken) {
      if (language.split('-')[0] === from.split('-')[0]) continue;
      try {
        let route: string[] | null = null;
        if (await translator.serves(from, language)) route = [language];
        else if (from !== PIVOT && language !== PIVOT && (await translator.serves(from, PIVOT)) && (await translator.serves(
          PIVOT, language,
        ))) route = [PIVOT, language];
        if (!route) continue;
        let said = text;
        let source = from;
        for (const step of route) {
          said = (await translator.translate([said], source, step))[0]!.text;
          source = step;
        }
        if (said.trim()) out.push({ language, text: said.trim() });
      } catch (error) {
        this.logger.warn({ from, to: language, error: String(error) }, 'translating a search query failed; that language is searched '
          + 'literally only');
      }
    }
    return out;
  }

  /** Hits spoken in another language than `lang`, translated into it (cached), by row; pairs not served stay out. */
  private async render(rows: Row[], lang: string): Promise<Map<Row, string>> {
    const out = new Map<Row, string>();
    if (!this.translator) return out;
    const byLanguage = new Map<string, Row[]>();
    for (const row of rows) {
      if (!row.language || row.language === lang) continue;
      byLanguage.set(row.language, [...(byLanguage.get(row.language) ?? []), row]);
    }
    for (const [language, group] of byLanguage) {
      if (!(await this.translator.serves(language, lang))) continue;
      const translated = await this.translator.translate(group.map((row) => row.text), language, lang);
      group.forEach((row, i) => out.set(row, translated[i]!.text));
    }
    return out;
  }

  /** The recordings searched, decided from who asks; refusals name what is wrong. */
  private async scope(credentials: ReaderCredentials, codes: string[], transcriptionId: string | null): Promise<Scope> {
    const prisma = this.deps.prisma;
    if (credentials.shareCode || credentials.media) throw errors.invalidToken('Search takes a bearer token, or (a listener) broadcast '
      + 'codes and a listenerToken.');
    if (transcriptionId) {
      const transcription = await prisma.transcription.findUnique({
        where: { id: transcriptionId }, select: { accountId: true, lifecycle: true },
      });
      const owned = !!credentials.accountId && transcription?.accountId === credentials.accountId;
      if (!transcription || (credentials.accountId && !owned)) throw errors.notFound('The transcription');
    }
    if (credentials.accountId && codes.length === 0) {
      return { index: { accountId: credentials.accountId, ...(transcriptionId ? { transcriptionId } : {}) }, floors: null };
    }
    if (!credentials.accountId && codes.length === 0) {
      throw errors.invalidToken('Search needs a credential, or (a listener) the codes of the broadcasts to search: '
        + 'broadcast=<code>[,<code>…].');
    }
    const broadcastIds = await this.broadcastsOf(credentials, codes);
    const recordings = await prisma.$queryRaw<Array<{ id: string; settings: unknown; tsettings: unknown; broadcastIds: unknown }>>`
      SELECT r.id, r.settings, t.settings AS tsettings, t."broadcastIds" FROM "Recording" r JOIN "Transcription" t ON t.id =
        r."transcriptionId"
      WHERE t."broadcastIds" ?| ${broadcastIds}::text[] AND r.lifecycle = 'active' AND t.lifecycle = 'active'
        ${transcriptionId ? Prisma.sql`AND t.id = ${transcriptionId}` : Prisma.empty}
        ${credentials.accountId ? Prisma.sql`AND r."accountId" = ${credentials.accountId}` : Prisma.empty}`;
    if (transcriptionId && recordings.length === 0 && !credentials.accountId) throw errors.notFound('The transcription');
    let floors: Map<string, number> | null = null;
    if (!credentials.accountId) {
      floors = new Map();
      for (const r of recordings) {
        const policy = await recordingConfidencePolicy(prisma, {
          settings: r.settings, transcription: { settings: r.tsettings, broadcastIds: r.broadcastIds },
        });
        floors.set(r.id, policy.hideBelow);
      }
    }
    return { index: { recordingIds: recordings.map((r) => r.id) }, floors };
  }

  /**
   * The broadcasts named by `codes` (current or earlier codes): the owner's own; for a listener each must be public,
   * or the private one its listener token opens. An unknown or archived code is 404.
   */
  private async broadcastsOf(credentials: ReaderCredentials, codes: string[]): Promise<string[]> {
    const rows = await this.deps.prisma.broadcastCode.findMany({
      where: { code: { in: codes } },
      select: { code: true, broadcast: { select: { id: true, accountId: true, access: true, lifecycle: true } } },
    });
    const byCode = new Map(rows.map((row) => [row.code, row.broadcast]));
    const opened = credentials.listenerToken ? (await this.listenerAccess.verify(credentials.listenerToken)).id : null;
    const ids: string[] = [];
    for (const code of codes) {
      const broadcast = byCode.get(code);
      const visible =
        broadcast && broadcast.lifecycle === 'active' && (!credentials.accountId || broadcast.accountId === credentials.accountId);
      if (!visible) throw errors.notFound(`The broadcast ${code}`);
      if (!credentials.accountId && broadcast.access !== 'public' && broadcast.id !== opened) {
        throw errors.invalidToken(`broadcast ${code} is private: send its listenerToken (POST /v1/listen/{code}/token).`);
      }
      ids.push(broadcast.id);
    }
    return ids;
  }

  private async query(
    scope: Scope, q: string, queryLang: string, pivots: PivotQuery[], take: number, after: CursorKey | null,
  ): Promise<Row[]> {
    const literal = literalText(q);
    const like = `%${literal.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const config = textSearchConfig(queryLang);
    // The English pivot: the query as translated into each other spoken language, matched (and ranked) full-text
    // against the sentences spoken in it, each language its own index scan.
    const pivotTsq = (p: PivotQuery) => Prisma.sql`plainto_tsquery(${textSearchConfig(p.language)}::regconfig, ${p.text})`;
    const pivotMatch = pivots.length
      ? Prisma.join(
        pivots.map((p) => Prisma.sql`UNION SELECT ctid FROM "SearchSentence" WHERE language = ${p.language} AND tsv @@ ${pivotTsq(p)}`),
        ' ',
      )
      : Prisma.empty;
    const pivotRank = pivots.length
      ? Prisma.sql`+ CASE ${Prisma.join(
        pivots.map((p) => Prisma.sql`WHEN s.language = ${p.language} THEN ts_rank_cd(s.tsv, ${pivotTsq(p)})::float8`), ' ',
      )} ELSE 0 END`
      : Prisma.empty;
    // A quoted phrase means those words in that order: no fuzzy match (trigram similarity ignores word order).
    const fuzzy = q.includes('"') ? Prisma.empty : Prisma.sql`UNION SELECT ctid FROM "SearchSentence" WHERE ${literal} <% text`;
    const floors = scope.floors
      ? Prisma.sql`JOIN unnest(${[...scope.floors.keys()]}::text[], ${[...scope.floors.values()]}::float8[]) AS f(rid, floor) ON f.rid =
        s."recordingId"
                   AND (s.confidence IS NULL OR s.confidence >= f.floor)`
      : Prisma.empty;
    const cursor = after
      ? Prisma.sql`WHERE hit.score < ${after.score}::float8 OR (hit.score = ${after.score}::float8 AND (hit."recordingId", hit."firstSeq",
        hit."firstWord") > (${after.recordingId}, ${after.firstSeq}::int, ${after.firstWord}::int))`
      : Prisma.empty;
    const prisma = this.deps.prisma;
    // Each way of matching is its own index scan (one OR over the three makes the planner read every row); the
    // union's row addresses are then fetched directly (a TID scan), scoped, scored and ordered.
    // pg_trgm's default word similarity threshold (0.6) misses one dropped letter in a short word ("forwrd").
    const [, rows] = await prisma.$transaction([
      prisma.$executeRaw`SELECT set_config('pg_trgm.word_similarity_threshold', ${String(FUZZY_THRESHOLD)}, true)`,
      prisma.$queryRaw<Row[]>`
      WITH query AS (SELECT websearch_to_tsquery('simple', ${q}) || websearch_to_tsquery(${config}::regconfig, ${q}) AS tsq)
      SELECT * FROM (
        SELECT s."recordingId", s."transcriptionId", s."sentenceId", s."firstSeq", s."firstWord", s.start, s."end", s.speaker, s.text,
          s.confidence, s.language,
               (ts_rank_cd(s.tsv, query.tsq)::float8 + CASE WHEN s.text ILIKE ${like} THEN 0.5 ELSE 0 END + word_similarity(${literal},
                 s.text)::float8 ${pivotRank}) AS score
        FROM "SearchSentence" s CROSS JOIN query
        JOIN "Recording" r ON r.id = s."recordingId" AND r.lifecycle = 'active'
        JOIN "Transcription" t ON t.id = s."transcriptionId" AND t.lifecycle = 'active'
        ${floors}
        WHERE s.ctid = ANY(ARRAY(
            SELECT ctid FROM "SearchSentence", query WHERE tsv @@ query.tsq
            UNION SELECT ctid FROM "SearchSentence" WHERE text ILIKE ${like}
            ${fuzzy}
            ${pivotMatch}))
          AND ${scopeCondition(scope.index)}
      ) hit
      ${cursor}
      ORDER BY hit.score DESC, hit."recordingId", hit."firstSeq", hit."firstWord"
      LIMIT ${take}`,
    ], TX_OPTIONS);
    return rows;
  }

  /** Owners see lines under the confidence policy too, marked `unclear`: the policy of each recording on the page. */
  private async unclearOf(rows: Row[], scope: Scope): Promise<Set<string>> {
    const out = new Set<string>();
    if (scope.floors || rows.length === 0) return out;
    const ids = [...new Set(rows.map((row) => row.recordingId))];
    const recordings = await this.deps.prisma.recording.findMany({
      where: { id: { in: ids } }, select: { id: true, settings: true, transcription: { select: { settings: true, broadcastIds: true } } },
    });
    const policies = new Map(await Promise.all(recordings.map(
      async (r) => [r.id, await recordingConfidencePolicy(this.deps.prisma, r)] as const,
    )));
    for (const row of rows) {
      const policy = policies.get(row.recordingId);
      if (policy && isUnclear(row, policy)) out.add(`${row.recordingId}/${row.sentenceId}`);
    }
    return out;
  }
}
