/**
 * Accuracy benchmark: word error rate and real-time factor of each model (the fast and the accurate one) ×
 * decoding (greedy, beam search 5; both with the temperature fallback), on clips with reference texts:
 *
 * - `fixtures`: the test fixtures with a known text (goforward.wav, espeak-en/es/it.wav);
 * - `librivox`: five sentences of a public-domain LibriVox audiobook (Sense and Sensibility, chapter 1);
 * - `cards`: five recordings of card names read aloud ("eight of spades four of clubs seven of hearts");
 *
 * (librivox and cards come from Debian's pocketsphinx-testdata; see test/fixtures/README.md). The language is
 * given (each clip's own), so the numbers measure recognition, not language detection. WER is the corpus
 * rate after Whisper-style normalisation (workers/engine/wer.ts). Real-time factor is wall seconds per audio
 * second over the clips (short clips: ffmpeg and VAD start-up per file count too), CPU s / audio s the
 * process's CPU time per audio second (steadier on a shared host), and the last column the real-time factor
 * on the 60 s lecture (no reference text; what a longer file costs).
 *
 * `npm run bench -- accuracy` prints the table. BENCH_ACCURACY_MODELS=whisper-tiny,whisper-small picks other
 * models; BENCH_ACCURACY_LECTURE=0 skips the lecture.
 */
import { readFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { DEFAULT_MODELS, SpeechEngine } from '../workers/engine/index.js';
import { loadSpellings, wordErrorRate, type Spellings } from '../workers/engine/wer.js';
import { fixture } from '../test/helpers/fixtures.js';

export interface Clip {
  set: string;
  file: string;
  language: string;
  reference: string;
}

/** `<s> words </s> (id)` lines of a Sphinx transcription file → id → words. */
function sphinxTranscription(path: string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*(?:<s>)?(.*?)(?:<\/s>)?\s*\(([^)]+)\)\s*$/.exec(line);
    if (match) texts.set(match[2]!.trim(), match[1]!.trim());
  }
  return texts;
}

/** Every clip with a reference text, by set. */
export function accuracyClips(): Clip[] {
  const clips: Clip[] = [
    { set: 'fixtures', file: fixture('goforward.wav'), language: 'en', reference: 'go forward ten meters' },
    { set: 'fixtures', file: fixture('espeak-en.wav'), language: 'en', reference: 'The weather is nice today. We are going to the park to play football with our friends.' },
    { set: 'fixtures', file: fixture('espeak-es.wav'), language: 'es', reference: 'Buenos días. Hoy hace muy buen tiempo y vamos al parque a jugar al fútbol con nuestros amigos.' },
    { set: 'fixtures', file: fixture('espeak-it.wav'), language: 'it', reference: 'Buongiorno. Oggi il tempo è molto bello e andiamo al parco a giocare a calcio con i nostri amici.' },
  ];
  for (const [id, text] of sphinxTranscription(fixture('librivox/transcription'))) {
    clips.push({ set: 'librivox', file: fixture(`librivox/${id}.wav`), language: 'en', reference: text });
  }
  for (const [id, text] of sphinxTranscription(fixture('cards/cards.transcription'))) {
    clips.push({ set: 'cards', file: fixture(`cards/${id}.wav`), language: 'en', reference: text });
  }
  return clips;
}

export interface AccuracyRow {
  model: string;
  beamSize: number;
  /** set → WER (0..1) and reference words */
  wer: Record<string, { wer: number; words: number; errors: number }>;
  audioS: number;
  processingS: number;
  cpuS: number;
  lectureRtf: number | null;
  /** clip file name → hypothesis text, for reading the errors */
  hypotheses: Record<string, string>;
}

const SETS = ['fixtures', 'librivox', 'cards'] as const;

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

async function measure(engine: SpeechEngine, beamSize: number, clips: Clip[], spellings: Spellings, lecture: boolean): Promise<AccuracyRow> {
  const hypotheses: Record<string, string> = {};
  const pairs: (Clip & { hypothesis: string })[] = [];
  let audioS = 0;
  let processingS = 0;
  const cpuBefore = process.cpuUsage();
  for (const clip of clips) {
    const started = performance.now();
    const result = await engine.transcribeFile(clip.file, { language: clip.language, beamSize });
    processingS += (performance.now() - started) / 1000;
    audioS += result.durationS;
    const hypothesis = result.segments.map((segment) => segment.text).join(' ').trim();
    hypotheses[clip.file.split('/').slice(-2).join('/')] = hypothesis;
    pairs.push({ ...clip, hypothesis });
  }
  const cpuS = cpuSeconds(cpuBefore);
  const wer: AccuracyRow['wer'] = {};
  const score = (name: string, members: typeof pairs) => {
    const result = wordErrorRate(members, spellings);
    wer[name] = { wer: result.wer, words: result.words, errors: result.errors };
  };
  for (const set of SETS) score(set, pairs.filter((pair) => pair.set === set));
  score('read speech', pairs.filter((pair) => pair.set === 'librivox' || pair.set === 'cards'));
  let lectureRtf: number | null = null;
  if (lecture) {
    const result = await engine.transcribeFile(fixture('political-philosophy-60s.wav'), { language: 'en', beamSize });
    lectureRtf = result.processingS / result.durationS;
  }
  return { model: engine.modelName, beamSize, wer, audioS, processingS, cpuS, lectureRtf, hypotheses };
}

export interface AccuracyBenchOptions {
  models?: string[];
  beamSizes?: number[];
  lecture?: boolean;
  log?: (line: string) => void;
}

export async function benchAccuracy(options: AccuracyBenchOptions = {}): Promise<{ rows: AccuracyRow[]; table: string }> {
  const models = options.models ?? (process.env.BENCH_ACCURACY_MODELS?.split(',').filter(Boolean) ?? [DEFAULT_MODELS.fast, DEFAULT_MODELS.accurate]);
  const beamSizes = options.beamSizes ?? [1, 5];
  const lecture = options.lecture ?? process.env.BENCH_ACCURACY_LECTURE !== '0';
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const clips = accuracyClips();
  const loadBefore = loadavg();
  log(`accuracy bench: ${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')}; ${clips.length} clips`);
  const rows: AccuracyRow[] = [];
  for (const model of models) {
    const engine = await SpeechEngine.load({ model });
    const spellings = loadSpellings(engine.modelDir);
    await engine.transcribeFile(fixture('goforward.wav'), { language: 'en' }); // warm-up
    for (const beamSize of beamSizes) {
      log(`accuracy bench: ${engine.modelName}, ${beamSize > 1 ? `beam ${beamSize}` : 'greedy'} …`);
      const row = await measure(engine, beamSize, clips, spellings, lecture);
      rows.push(row);
      log(formatRow(row));
    }
    await engine.model.release();
  }
  const loadAfter = loadavg();
  const table = [
    HEADER,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(formatRow),
    '',
    `${cpus().length} cores; load average ${loadBefore[0]!.toFixed(1)} at the start, ${loadAfter[0]!.toFixed(1)} at the end (1-minute).`,
    '',
    ...rows.map((row) => `${row.model} ${row.beamSize > 1 ? `beam ${row.beamSize}` : 'greedy'}: ${Object.entries(row.hypotheses).filter(([name]) => !name.startsWith('fixtures/')).map(([name, text]) => `${name.split('/').pop()}: "${text}"`).join('; ')}`),
  ].join('\n');
  return { rows, table };
}

const HEADER =
  '| model | decoding | WER fixtures | WER librivox | WER cards | WER read speech (librivox + cards) | real-time factor (clips) | CPU s / audio s | real-time factor (60 s lecture) | audio s |';

function formatRow(row: AccuracyRow): string {
  const pct = (set: string) => {
    const entry = row.wer[set];
    return entry ? `${(entry.wer * 100).toFixed(1)} % (${entry.errors}/${entry.words})` : '—';
  };
  return (
    `| ${row.model} | ${row.beamSize > 1 ? `beam ${row.beamSize}` : 'greedy'} | ${pct('fixtures')} | ${pct('librivox')} | ${pct('cards')} | ${pct('read speech')} | ` +
    `${(row.processingS / row.audioS).toFixed(3)} | ${(row.cpuS / row.audioS).toFixed(3)} | ${row.lectureRtf === null ? '—' : row.lectureRtf.toFixed(3)} | ${row.audioS.toFixed(1)} |`
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { table } = await benchAccuracy();
  console.log(table);
}
