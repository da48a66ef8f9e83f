/**
 * `npm run bench -- search`: `GET /v1/search` over 100,000 sentences. The gateway runs as a deployment runs it (its
 * own process, PostgreSQL); the sentences are inserted straight into the database as committed segments (synthetic
 * but realistic: two sentences per segment, words with timings, a few hundred recordings), then the first search
 * builds the index (timed), then each query runs `RUNS` times through REST: a word, a quoted phrase and a
 * misspelling, p50/p95 end to end over HTTP.
 *
 * Baseline: what a search without the index does, a sequential scan of the segments' text in SQL (run straight on
 * the database, so without any HTTP cost), ranked as a search is (every match read, ordered by trigram word
 * similarity, the best 20): `ILIKE '%word%'` for the word and the phrase, and pg_trgm's
 * `word_similarity(q, text) >= 0.5` for the misspelling (ILIKE cannot find a misspelt word at all).
 */
import os from 'node:os';
import pg from 'pg';
import { percentile } from './realtime.js';
import { withBenchServices } from './helpers/services.js';
import { openDatabase } from '../src/core/db/index.js';
import type { ServiceDeps } from '../src/core/services.js';
import { SearchService } from '../src/search/service.js';

const SENTENCES = 100_000;
const SENTENCES_PER_SEGMENT = 2;
const SEGMENTS_PER_RECORDING = 250;
const RUNS = 40;

const SUBJECTS = [
  'The committee', 'Our team', 'The minister', 'My grandmother', 'The speaker', 'Every student', 'The engineer', 'Local farmers',
  'The council', 'A reporter', 'The doctor', 'Most people', 'The captain', 'The choir', 'Our neighbours',
];
const VERBS = [
  'discussed', 'reviewed', 'questioned', 'described', 'explained', 'remembered', 'proposed', 'rejected', 'supported', 'measured', 'visited',
  'built', 'compared', 'announced', 'studied',
];
const OBJECTS = [
  'the new budget', 'the harbour wall', 'a wooden bridge', 'the evening service', 'the water supply', 'the school garden',
  'the train timetable', 'the summer festival', 'the hospital wing', 'the football pitch', 'the library archive', 'the wind farm',
  'the bus route', 'the village hall', 'the river crossing', 'the night shift', 'the housing plan', 'the museum roof',
];
/** What the queries look for: each in about one sentence in a hundred, as a searched-for topic is. */
const RARE = ['the old lighthouse', 'the climate policy', 'the parliament vote'];
const TAILS = [
  'before the meeting ended', 'after a long debate', 'with some hesitation', 'for the third time this year',
  'in front of the whole village', 'despite the heavy rain', 'without any notes', 'as the sun went down', 'during the morning session',
  'at the request of the mayor', 'in great detail', 'for nearly an hour',
];

/** A deterministic pseudo-random source, so every run searches the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function sentence(next: () => number): string {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const object = next() < 0.03 ? pick(RARE) : pick(OBJECTS);
  return `${pick(SUBJECTS)} ${pick(VERBS)} ${object} ${pick(TAILS)}.`;
}

const QUERIES: Array<{ kind: string; q: string; baseline: string }> = [
  { kind: 'word', q: 'lighthouse', baseline: `"text" ILIKE '%lighthouse%'` },
  { kind: 'phrase', q: '"climate policy"', baseline: `"text" ILIKE '%climate policy%'` },
  { kind: 'misspelling', q: 'parliment', baseline: `word_similarity('parliment', "text") >= 0.5` },
];

export async function insertCorpus(client: pg.Client, accountId: string, principalId: string): Promise<number> {
  const next = random(42);
  const recordings = Math.ceil(SENTENCES / SENTENCES_PER_SEGMENT / SEGMENTS_PER_RECORDING);
  for (let r = 0; r < recordings; r++) {
    const transcriptionId = `trn_bench${r}`;
    const recordingId = `rec_bench${r}`;
    await client.query(`INSERT INTO "Transcription" (id, "accountId", "ownerPrincipalId", kind, name, "updatedAt") VALUES ($1, $2, $3, `
      + `'file', $4, now())`, [transcriptionId, accountId, principalId, `Bench ${r}`]);
    await client.query(`INSERT INTO "Recording" (id, "transcriptionId", "accountId", state, "spokenLanguage", "lastSeq", "lastEventSeq", `
      + `"updatedAt") VALUES ($1, $2, $3, 'finalized', 'en', $4, $4, now())`, [
        recordingId, transcriptionId, accountId, SEGMENTS_PER_RECORDING - 1,
      ]);
    const ids: string[] = [];
    const texts: string[] = [];
    const words: string[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    let t = 0;
    for (let seq = 0; seq < SEGMENTS_PER_RECORDING; seq++) {
      const lines = Array.from({ length: SENTENCES_PER_SEGMENT }, () => sentence(next));
      const timed = lines.join(' ').split(' ').map((word) => {
        const start = t;
        t += 0.35;
        return { text: ` ${word}`, start: Number(start.toFixed(2)), end: Number((start + 0.3).toFixed(2)), prob: 0.9 };
      });
      ids.push(`${recordingId}:${seq}`);
      texts.push(lines.join(' '));
      words.push(JSON.stringify(timed));
      starts.push(timed[0]!.start);
      ends.push(timed.at(-1)!.end);
    }
    await client.query(
      `INSERT INTO "Segment" (id, "recordingId", seq, start, "end", text, words, confidence, language, cursor)
       SELECT u.id, $1, u.seq, u.st, u.en, u.text, u.words::jsonb, 0.9, 'en', u.seq FROM unnest($2::text[], $3::int[], $4::float8[], `
         + `$5::float8[], $6::text[], $7::text[]) AS u(id, seq, st, en, text, words)`,
      [recordingId, ids, ids.map((_, seq) => seq), starts, ends, texts, words],
    );
  }
  return recordings;
}

interface Row {
  kind: string; q: string; hits: number; p50: number; p95: number; serviceP50: number; serviceP95: number; baseP50: number; baseP95: number;
  baseHits: number;
}

export async function benchSearch(): Promise<{ rows: Row[]; table: string }> {
  return withBenchServices({}, async ({ base, headers, databaseUrl }) => {
    const client = new pg.Client({ connectionString: databaseUrl! });
    await client.connect();
    try {
      const { rows: [account] } = await client.query<{ accountId: string; id: string }>(`SELECT "accountId", id FROM "Principal" LIMIT 1`);
      const accountId = account!.accountId;
      let started = performance.now();
      const recordings = await insertCorpus(client, accountId, account!.id);
      const insertS = (performance.now() - started) / 1000;
      process.stderr.write(`inserted ${SENTENCES} sentences in ${recordings} recordings (${insertS.toFixed(1)} s)\n`);
      const search = async (q: string) => {
        const response = await fetch(`${base}/v1/search?${new URLSearchParams({ q, limit: '20' })}`, { headers });
        const body = (await response.json()) as { results?: unknown[] };
        if (response.status !== 200) throw new Error(`search ${q}: ${response.status} ${JSON.stringify(body)}`);
        return body.results!.length;
      };
      started = performance.now();
      await search('warmup');
      const indexS = (performance.now() - started) / 1000;
      const { rows: [count] } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "SearchSentence"`);
      process.stderr.write(`first search built the index: ${count!.n} sentences in ${indexS.toFixed(1)} s\n`);
      // Planner statistics as autovacuum would have them a minute later, for the search's tables and the baseline's.
      await client.query('ANALYZE "SearchSentence", "Segment", "Recording", "Transcription"');
      // The same search in-process (the service on its own connection pool): what HTTP, auth and GraphQL add is the rest.
      const db = await openDatabase({ databaseUrl: databaseUrl!, dataDir: os.tmpdir() });
      const service = new SearchService({ prisma: db.prisma } as ServiceDeps, null as never);
      const rows: Row[] = [];
      try {
        for (const query of QUERIES) {
          const serviceTimes: number[] = [];
          const times: number[] = [];
          const baseTimes: number[] = [];
          let hits = 0;
          let baseHits = 0;
          for (let i = 0; i < RUNS; i++) {
            let at = performance.now();
            hits = await search(query.q);
            times.push(performance.now() - at);
            at = performance.now();
            await service.search({ accountId }, { q: query.q, limit: 20 });
            serviceTimes.push(performance.now() - at);
            at = performance.now();
            // Ranked like a search (every match read and ordered), not the first 20 rows the scan meets.
            baseHits = (await client.query(`SELECT id, text FROM "Segment" WHERE ${query.baseline} ORDER BY word_similarity($1, text) `
              + `DESC, id LIMIT 20`, [query.q.replace(/"/g, '')])).rowCount ?? 0;
            baseTimes.push(performance.now() - at);
          }
          rows.push({
            kind: query.kind, q: query.q, hits, p50: percentile(times, 50), p95: percentile(times, 95),
            serviceP50: percentile(serviceTimes, 50), serviceP95: percentile(serviceTimes, 95), baseP50: percentile(baseTimes, 50),
            baseP95: percentile(baseTimes, 95), baseHits,
          });
        }
      } finally {
        await db.close();
      }
      const f = (ms: number) => ms.toFixed(1);
      const table = [
        `${SENTENCES.toLocaleString('en')} sentences (${recordings} recordings × ${SEGMENTS_PER_RECORDING} segments × `
          + `${SENTENCES_PER_SEGMENT}); inserted in ${insertS.toFixed(1)} s; the first search indexed them in ${indexS.toFixed(1)} s; `
            + `${RUNS} runs per query, PostgreSQL.`,
        '',
        '| query | q | hits (page of 20) | REST p50 ms | REST p95 ms | service p50 ms (in-process) | service p95 ms | baseline p50 ms '
          + '(seq scan, SQL) | baseline p95 ms | baseline hits | p50 ratio baseline/REST | p50 ratio baseline/service |',
        '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...rows.map((r) => `| ${r.kind} | \`${r.q}\` | ${r.hits} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.serviceP50)} | ${f(r.serviceP95)} | `
          + `${f(r.baseP50)} | ${f(r.baseP95)} | ${r.baseHits} | ${(r.baseP50 / r.p50).toFixed(2)}× | `
            + `${(r.baseP50 / r.serviceP50).toFixed(2)}× |`),
      ].join('\n');
      return { rows, table };
    } finally {
      await client.end();
    }
  });
}
