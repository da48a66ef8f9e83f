/**
 * `npm run bench -- translation`: segments translated per second by each provider, through the translation
 * service with its cache on a real PostgreSQL database (the tests' server, a fresh database): Apertium on this
 * machine (en→es, when installed), Google Cloud Translation v2 and an OpenAI-compatible chat model against the
 * loopback fakes the tests use (so their rows measure this server's side — batching, HTTP, JSON, the cache — not
 * Google's or a model's own speed).
 *
 * Each provider translates SEGMENTS distinct transcript-like sentences in calls of BATCH (as a caller translating a
 * recording's sentences would): `no cache` is the first pass (every segment asked of the provider and stored),
 * `cache` the second pass over the same segments (every one a cache hit, the provider not asked). `one call` is a
 * first pass with all of them in one call (Apertium: one process), `one by one` a first pass for a few segments one
 * call each, as a live session commits them (Apertium: a process each, about half a second to start).
 */
import os from 'node:os';
import { findExecutable } from '../src/core/config/translation.js';
import { openDatabase } from '../src/core/db/index.js';
import type { ServiceDeps } from '../src/core/services.js';
import { apertiumProvider } from '../src/translation/apertium.js';
import { googleProvider } from '../src/translation/google.js';
import { llmProvider } from '../src/translation/llm.js';
import type { TranslationProvider } from '../src/translation/provider.js';
import { TranslationService } from '../src/translation/service.js';
import { createTestDatabase } from '../test/helpers/db.js';
import { startFakeChat } from '../test/summaries/fake-chat.js';
import { startFakeGoogle } from '../test/translation/fake-google.js';

const SEGMENTS = 400;
const BATCH = 20;
const ONE_BY_ONE = 20;

const SUBJECTS = [
  'The house', 'My brother', 'The old woman', 'Our teacher', 'The small dog', 'The new car', 'The city council', 'Every child',
];
const VERBS = ['is near', 'looks at', 'walks to', 'waits for', 'talks about', 'comes from'];
const OBJECTS = ['the river', 'the big school', 'the red door', 'the market', 'the green park', 'the train station', 'the white church'];

/** Distinct sentences (a run number keeps each pass's texts new to the cache). */
function sentences(count: number, run: string): string[] {
  return Array.from({ length: count }, (_, i) =>
    `${SUBJECTS[i % SUBJECTS.length]} ${VERBS[Math.floor(i / SUBJECTS.length) % VERBS.length]} ${OBJECTS[i % OBJECTS.length]} ${run} `
      + `${i}.`);
}

async function rate(texts: string[], batch: number, translate: (batch: string[]) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < texts.length; i += batch) await translate(texts.slice(i, i + batch));
  return texts.length / ((performance.now() - started) / 1000);
}

export async function benchTranslation(): Promise<{ table: string }> {
  const database = await createTestDatabase();
  const db = await openDatabase({ databaseUrl: database.url, dataDir: os.tmpdir() });
  const google = await startFakeGoogle();
  const chat = await startFakeChat();
  chat.answer = (body) => {
    const { to, texts } = JSON.parse(body.messages.at(-1).content) as { to: string; texts: string[] };
    return JSON.stringify({ translations: texts.map((text) => `<${to}> ${text}`) });
  };
  const apertiumPath = findExecutable('apertium', process.env.PATH);
  const providers: TranslationProvider[] = [
    ...(apertiumPath ? [apertiumProvider({ apertium: { bin: 'apertium', path: apertiumPath }, timeoutMs: 60_000 })] : []),
    googleProvider({ google: { apiUrl: google.url, apiKey: google.key }, timeoutMs: 10_000 }),
    llmProvider({ llm: { apiUrl: chat.url, apiKey: 'sk-bench', model: 'bench', timeoutMs: 10_000, languages: ['es'] } }),
  ];
  const rows = ['| provider | pass | segments | per call | segments/s |', '|---|---|---:|---:|---:|'];
  try {
    for (const provider of providers) {
      const service = new TranslationService({ prisma: db.prisma } as ServiceDeps, [provider]);
      const texts = sentences(SEGMENTS, provider.name);
      const translate = (batch: string[]) => service.translate(batch, 'en', 'es');
      const first = await rate(texts, BATCH, translate);
      const cached = await rate(texts, BATCH, translate);
      const whole = await rate(sentences(SEGMENTS, `${provider.name}-whole`), SEGMENTS, translate);
      const single = await rate(sentences(ONE_BY_ONE, `${provider.name}-single`), 1, translate);
      const where = provider.name === 'apertium' ? 'apertium (local, en→es)' : `${provider.name} (loopback fake)`;
      rows.push(`| ${where} | no cache | ${SEGMENTS} | ${BATCH} | ${first.toFixed(0)} |`);
      rows.push(`| ${where} | cache | ${SEGMENTS} | ${BATCH} | ${cached.toFixed(0)} |`);
      rows.push(`| ${where} | no cache, one call | ${SEGMENTS} | ${SEGMENTS} | ${whole.toFixed(0)} |`);
      rows.push(`| ${where} | no cache, one by one | ${ONE_BY_ONE} | 1 | ${single.toFixed(1)} |`);
    }
  } finally {
    await db.close();
    await google.close();
    await chat.close();
    await database.drop();
  }
  if (!apertiumPath) rows.push('', 'Apertium is not installed here: its rows are missing.');
  return { table: rows.join('\n') };
}
