/**
 * What `transcribe` and `transcriptions` share: following a file or link job to its end (state and percent on a
 * progress bar), and writing a recording's transcript out, as text or as one of the export route's files.
 */
import fs from 'node:fs/promises';
import type { paths, SpeechgateClient, Transcription } from '../sdk/index.js';
import type { CommandContext } from './context.js';
import { CliError, EXIT, exitCodeOfCode, usageError } from './errors.js';

export type { Transcription };
type Job = NonNullable<Transcription['job']>;
export type TranscriptSnapshot = paths['/v1/recordings/{id}/transcript']['get']['responses'][200]['content']['application/json'];

/** The export route's formats (`GET /v1/recordings/{id}/export`). */
export const EXPORT_FORMATS = ['srt', 'json', 'xlsx', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** Not text: never poured onto a terminal. */
const BINARY_FORMATS = new Set<ExportFormat>(['xlsx', 'pdf']);

const POLL_MS = 1_000;
const FINISHED = new Set(['done', 'failed']);

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => {
    clearTimeout(timer);
    resolve();
  }, { once: true });
});

/** The progress bar's words for a job: its state, the queue position or the fetch phase. */
function jobLine(job: Job): { label: string; fraction: number | null; detail: string } {
  const progress = (job.progress ?? {}) as Record<string, unknown>;
  const pct = typeof progress.pct === 'number' ? progress.pct : null;
  if (job.state === 'queued') {
    return { label: 'queued', fraction: null, detail: job.queue?.position ? `position ${job.queue.position}` : '' };
  }
  if (job.state === 'fetching') {
    const phasePct = typeof progress.phasePct === 'number' ? progress.phasePct : null;
    return {
      label: typeof progress.phase === 'string' ? progress.phase : 'fetching', fraction: phasePct === null ? null : phasePct / 100,
      detail: '',
    };
  }
  return { label: job.state, fraction: pct === null ? null : pct / 100, detail: '' };
}

export function recordingOf(transcription: Transcription): string {
  const id = transcription.job?.recordingId ?? transcription.recordingId;
  if (!id) throw new CliError(`${transcription.id} has no recording yet.`, EXIT.notFound, 'not_found');
  return id;
}

/**
 * Polls `GET /v1/transcriptions/{id}` until the job is done or failed; a failed job throws with its errorCode's exit
 * code. Ctrl-C stops the wait, not the job.
 */
export async function waitForJob(ctx: CommandContext, client: SpeechgateClient, transcription: Transcription): Promise<Transcription> {
  const bar = ctx.out.progress();
  let current = transcription;
  try {
    while (current.job && !FINISHED.has(current.job.state)) {
      const line = jobLine(current.job);
      bar?.update(line.label.padEnd(12), line.fraction, line.detail);
      await sleep(POLL_MS, ctx.signal);
      if (ctx.signal.aborted) {
        throw new CliError(
          `interrupted: the job goes on on the server; follow it with \`speechgate transcriptions wait ${current.id}\``, EXIT.interrupted,
          'interrupted',
        );
      }
      current = (await client.GET('/v1/transcriptions/{id}', { params: { path: { id: current.id } } })).data!;
    }
    if (current.job?.state === 'done') bar?.update('done'.padEnd(12), 1);
  } finally {
    bar?.done();
  }
  const job = current.job;
  if (job?.state === 'failed') {
    const code = job.errorCode ?? 'job_failed';
    throw new CliError(`the job failed (${code}): ${job.error ?? 'no reason given'}`, exitCodeOfCode(code), code);
  }
  return current;
}

/** The snapshot's sentences as lines, with speaker labels when there are several speakers. */
export function transcriptLines(snapshot: TranscriptSnapshot, lang?: string): string[] {
  const sentences = snapshot.sentences;
  const speakers = new Set(sentences.map((sentence) => sentence.speaker ?? -1));
  const labelled = speakers.size > 1 || !speakers.has(-1);
  return sentences.map((sentence) => {
    const translated = lang ? (sentence.translations as Record<string, string> | undefined)?.[lang] : undefined;
    const text = (translated ?? sentence.text ?? '').trim();
    return labelled && (sentence.speaker ?? -1) >= 0 ? `Speaker ${sentence.speaker! + 1}: ${text}` : text;
  });
}

export interface TranscriptOutput {
  format?: ExportFormat;
  /** A file to write; stdout when absent. */
  output?: string;
  lang?: string;
}

/**
 * The transcript, as text or an export file. Answers what `--json` reports: the snapshot itself, or where the
 * file went. An export to stdout writes the file's bytes there (never a binary format onto a terminal).
 */
export async function writeTranscript(
  ctx: CommandContext, client: SpeechgateClient, recordingId: string, options: TranscriptOutput,
): Promise<Record<string, unknown>> {
  if (!options.format) {
    const { data } = await client.GET('/v1/recordings/{id}/transcript', { params: {
      path: { id: recordingId }, query: { lang: options.lang },
    } });
    const lines = transcriptLines(data!, options.lang);
    if (options.output) {
      await fs.writeFile(options.output, lines.length ? `${lines.join('\n')}\n` : '');
      ctx.out.note(`Transcript written to ${options.output}.`);
      return { transcript: { file: options.output, lines: lines.length } };
    }
    ctx.out.print(lines);
    return { transcript: data };
  }
  if (!options.output && (ctx.out.json || (BINARY_FORMATS.has(options.format) && ctx.out.stdoutIsTerminal))) {
    throw usageError(ctx.out.json ? 'With --json, --export needs -o FILE (stdout holds the JSON document).' : `${options.format} is `
      + `binary: write it with -o FILE or redirect stdout.`);
  }
  const { data, response } = await client.GET('/v1/recordings/{id}/export', {
    params: { path: { id: recordingId }, query: { format: options.format, lang: options.lang } },
    parseAs: 'arrayBuffer',
  });
  const bytes = new Uint8Array(data as ArrayBuffer);
  const partial = response.headers.get('x-export-partial') === 'true';
  const fileName = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? null;
  if (options.output) {
    await fs.writeFile(options.output, bytes);
    ctx.out.note(`${options.format} written to ${options.output} (${bytes.byteLength} `
      + `bytes${partial ? ', partial: the job still runs' : ''}).`);
  } else {
    await ctx.out.raw(bytes);
  }
  return { export: { format: options.format, file: options.output ?? null, bytes: bytes.byteLength, partial, fileName } };
}
