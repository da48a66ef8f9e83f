/**
 * `speechgate transcribe <file|url>`: a file is uploaded (`POST /v1/transcriptions`, multipart, with a progress
 * bar from the SDK's byte progress), a URL becomes a link transcription (the same route, JSON `url`: the server
 * fetches it). Then the job is followed to its end (state and percent) and the transcript printed as text, or
 * exported (`--export srt|json|xlsx|pdf`) to stdout or `-o FILE`. `--no-wait` stops after the create.
 */
import { Command, Option } from 'commander';
import type { CreateTranscriptionOptions, SpeechgateClient, UploadProgress } from '../../sdk/index.js';
import { action, type CommandContext } from '../context.js';
import { usageError } from '../errors.js';
import type { ProgressBar } from '../output.js';
import { readableFile } from '../local-file.js';
import { EXPORT_FORMATS, recordingOf, waitForJob, writeTranscript, type ExportFormat, type Transcription } from '../transcripts.js';

interface TranscribeOptions {
  name?: string;
  language?: string;
  speakers?: 'on' | 'off' | 'auto';
  start?: string;
  end?: string;
  shareLink: boolean;
  wait: boolean;
  export?: ExportFormat;
  output?: string;
  lang?: string;
}

const isLink = (source: string) => /^https?:\/\//i.test(source);

function seconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw usageError(`${flag} must be a number of seconds, not ${value}.`);
  return parsed;
}

/** The create body's fields from the flags (CreateTranscription without `url`). */
function createOptions(options: TranscribeOptions): CreateTranscriptionOptions {
  const settings = {
    ...(options.language ? { spokenLanguage: options.language } : {}),
    ...(options.speakers ? { speakerLabels: options.speakers } : {}),
  };
  return {
    ...(options.name ? { name: options.name } : {}),
    ...(Object.keys(settings).length ? { settings } : {}),
    ...(options.start !== undefined ? { startS: seconds(options.start, '--start') } : {}),
    ...(options.end !== undefined ? { endS: seconds(options.end, '--end') } : {}),
    ...(options.shareLink ? {} : { shareLink: false }),
  };
}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

async function upload(
  ctx: CommandContext, client: SpeechgateClient, file: string, body: CreateTranscriptionOptions,
): Promise<Transcription> {
  const bar: ProgressBar | null = ctx.out.progress();
  const onProgress = ({ loaded, total }: UploadProgress) => bar?.update(
    'uploading'.padEnd(12), total ? loaded / total : 1, `${megabytes(loaded)} / ${megabytes(total)}`,
  );
  try {
    return await client.transcriptions.upload(file, body, { onProgress, signal: ctx.signal });
  } finally {
    bar?.done();
  }
}

async function transcribe(ctx: CommandContext, [source]: string[], options: TranscribeOptions): Promise<void> {
  const body = createOptions(options);
  const client = await ctx.client();
  let transcription: Transcription;
  if (isLink(source!)) {
    transcription = (await client.POST('/v1/transcriptions', { body: { ...body, url: source! } })).data!;
  } else {
    transcription = await upload(ctx, client, await readableFile(source!), body);
  }
  ctx.out.note(`Created ${transcription.id} (${transcription.name}).`);
  if (!options.wait) {
    ctx.out.result({ transcription }, transcription.id);
    return;
  }
  transcription = await waitForJob(ctx, client, transcription);
  const written = await writeTranscript(ctx, client, recordingOf(transcription), {
    format: options.export, output: options.output, lang: options.lang,
  });
  ctx.out.result({ transcription, ...written });
}

export function transcribeCommand(): Command {
  return new Command('transcribe')
    .description('transcribe a local audio or video file (uploaded) or a link (fetched by the server), then print or export the transcript')
    .argument('<file|url>', 'a local file, or an http(s) link')
    .option('--name <name>', 'the transcription\'s name (default: the file name or the URL)')
    .option('--language <code>', 'the spoken language, e.g. en (default: detected)')
    .addOption(new Option('--speakers <mode>', 'speaker labels').choices(['on', 'off', 'auto']))
    .option('--start <seconds>', 'transcribe from this point of the file')
    .option('--end <seconds>', 'transcribe up to this point')
    .option('--no-share-link', 'do not make the default share link')
    .option('--no-wait', 'only create it: print its id and leave the job running')
    .addOption(new Option('--export <format>', 'write the export route\'s file instead of text').choices(EXPORT_FORMATS))
    .option('-o, --output <file>', 'write the transcript or export to this file instead of stdout')
    .option('--lang <code>', 'read the transcript translated into this language')
    .action(action(transcribe));
}
