/**
 * The search index: one `SearchSentence` row per sentence as readers see it (`buildSentences` over a recording's
 * segments, so the corrected text, with the snapshot's sentence ids), each with a tsvector (the spoken language's
 * text search configuration plus `simple`, for stemmed and exact words) and a trigram index on its text (literal
 * substrings and misspelt words).
 *
 * The rows are rebuilt per recording, lazily: `SearchIndexState.eventSeq` is the recording's `lastEventSeq` when its
 * rows were built, and every change of a segment (commit, amendment, correction, revert, retranscription) appends to
 * the durable log in the same transaction (src/transcript/events.ts), so a recording whose log moved on is stale.
 * A search first rebuilds the stale recordings of its scope, then queries: no writer has to know search exists, and
 * a correction is searchable on the very next query.
 */
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { buildSentences } from '../transcript/index.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

/** Text search configurations PostgreSQL (and PGlite) ship, by the language codes the engine reports. */
const CONFIGURATIONS: Record<string, string> = {
  ar: 'arabic', ca: 'catalan', da: 'danish', de: 'german', el: 'greek', en: 'english', es: 'spanish', eu: 'basque', fi: 'finnish',
  fr: 'french', ga: 'irish', hi: 'hindi', hu: 'hungarian', hy: 'armenian', id: 'indonesian', it: 'italian', lt: 'lithuanian',
  ne: 'nepali', nl: 'dutch', no: 'norwegian', pt: 'portuguese', ro: 'romanian', ru: 'russian', sr: 'serbian', sv: 'swedish',
  ta: 'tamil', tr: 'turkish', yi: 'yiddish',
};

/** The stemming configuration of a language code (`en`, `en-GB`), `simple` when PostgreSQL has none for it. */
export function textSearchConfig(language: string | null | undefined): string {
  return (language && CONFIGURATIONS[language.toLowerCase().split('-')[0]!]) || 'simple';
}

/** Which recordings a search covers: an account's, or named ones. */
export type IndexScope = { accountId: string; transcriptionId?: string } | { recordingIds: string[] };

export function scopeCondition(scope: IndexScope, recording = Prisma.raw('r')): Prisma.Sql {
  if ('recordingIds' in scope) return Prisma.sql`${recording}.id = ANY(${scope.recordingIds}::text[])`;
  return scope.transcriptionId
    ? Prisma.sql`${recording}."accountId" = ${scope.accountId} AND ${recording}."transcriptionId" = ${scope.transcriptionId}`
    : Prisma.sql`${recording}."accountId" = ${scope.accountId}`;
}

/** Rebuilds the rows of every recording in `scope` whose durable log moved since they were built; answers how many. */
export async function refreshIndex(prisma: PrismaClient, scope: IndexScope): Promise<number> {
  const stale = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT r.id FROM "Recording" r LEFT JOIN "SearchIndexState" s ON s."recordingId" = r.id
    WHERE ${scopeCondition(scope)} AND (s."recordingId" IS NULL OR s."eventSeq" <> r."lastEventSeq")`;
  for (const { id } of stale) await indexRecording(prisma, id);
  return stale.length;
}

/** Rebuilds one recording's sentence rows from its segments, under a lock so concurrent searches build it once. */
export async function indexRecording(prisma: PrismaClient, recordingId: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`search:${recordingId}`}))`;
    // The log's position first: segments read after it are at least as new, so a change racing this build only
    // makes the next search rebuild again, never leaves the rows stale.
    const recording = await tx.recording.findUnique({
      where: { id: recordingId },
      select: {
        lastEventSeq: true, accountId: true, transcriptionId: true, spokenLanguage: true, searchIndex: { select: { eventSeq: true } },
      },
    });
    if (!recording || recording.searchIndex?.eventSeq === recording.lastEventSeq) return;
    const segments = await tx.segment.findMany({
      where: { recordingId }, orderBy: { seq: 'asc' },
      select: { seq: true, speaker: true, start: true, end: true, text: true, words: true, confidence: true, language: true },
    });
    const language = recording.spokenLanguage ?? segments[0]?.language ?? null;
    const sentences = buildSentences(segments.map((s) => ({ ...s, words: s.words as never })));
    await tx.$executeRaw`DELETE FROM "SearchSentence" WHERE "recordingId" = ${recordingId}`;
    if (sentences.length) {
      const config = textSearchConfig(language);
      await tx.$executeRaw`
        INSERT INTO "SearchSentence" ("recordingId", "sentenceId", "accountId", "transcriptionId", "firstSeq", "firstWord", speaker,
          start, "end", text, confidence, language, tsv)
        SELECT ${recordingId}, u.id, ${recording.accountId}, ${recording.transcriptionId}, u.fseq, u.fword, u.speaker, u.st, u.en, u.text,
          u.conf, ${language},
               to_tsvector(${config}::regconfig, u.text) || to_tsvector('simple', u.text)
        FROM unnest(${sentences.map((s) => s.id)}::text[], ${sentences.map((s) => Number(s.id.split('.')[0]))}::int[], ${sentences.map(
          (s) => Number(s.id.split('.')[1]),
        )}::int[],
                    ${sentences.map((s) => s.speaker)}::int[], ${sentences.map((s) => s.start)}::float8[],
                      ${sentences.map((s) => s.end)}::float8[],
                    ${sentences.map((s) => s.text)}::text[], ${sentences.map((s) => s.confidence)}::float8[])
             AS u(id, fseq, fword, speaker, st, en, text, conf)`;
    }
    await tx.searchIndexState.upsert({
      where: { recordingId },
      create: { recordingId, eventSeq: recording.lastEventSeq },
      update: { eventSeq: recording.lastEventSeq, indexedAt: new Date() },
    });
  }, TX_OPTIONS);
}
