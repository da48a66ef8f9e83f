/**
 * `speechgate transcriptions …`: the account's transcriptions (`/v1/transcriptions`): list (paged by the server's
 * cursor, or `--all` pages), get, wait for a job, print or export the transcript, and the lifecycle moves the API
 * offers (archive, restore, purge: only an archived one can be purged, for good).
 */
import { Command, Option } from 'commander';
import type { SpeechgateClient } from '../../sdk/index.js';
import { action, type CommandContext } from '../context.js';
import { usageError } from '../errors.js';
import { shortTime, table } from '../output.js';
import { EXPORT_FORMATS, recordingOf, waitForJob, writeTranscript, type ExportFormat, type Transcription } from '../transcripts.js';

interface ListOptions { lifecycle: 'active' | 'archived' | 'all'; limit?: string; cursor?: string; all?: boolean }

/** What a row says about a transcription's progress: the job's state, or a live one's newest recording. */
function stateOf(transcription: Transcription): string {
  if (transcription.state === 'archived') return 'archived';
  const job = transcription.job;
  if (!job) return transcription.kind === 'live' ? (transcription.recordingId ? 'recorded' : 'idle') : '-';
  const pct = (job.progress as { pct?: number } | undefined)?.pct;
  return job.state === 'transcribing' && typeof pct === 'number' ? `transcribing ${Math.floor(pct)}%` : job.state;
}

async function list(ctx: CommandContext, _args: string[], options: ListOptions): Promise<void> {
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 500)) {
    throw usageError('--limit must be a whole number from 1 to 500.');
  }
  const client = await ctx.client();
  const transcriptions: Transcription[] = [];
  let cursor = options.cursor;
  let nextCursor: string | undefined;
  do {
    const { data } = await client.GET('/v1/transcriptions', { params: { query: { lifecycle: options.lifecycle, limit, cursor } } });
    transcriptions.push(...data!.transcriptions);
    nextCursor = data!.nextCursor;
    cursor = nextCursor;
  } while (options.all && nextCursor);
  ctx.out.result({ transcriptions, ...(nextCursor ? { nextCursor } : {}) }, transcriptions.length
    ? table(
      ['ID', 'KIND', 'STATE', 'CREATED', 'NAME'], transcriptions.map((t) => [t.id, t.kind, stateOf(t), shortTime(t.createdAt), t.name]),
    )
    : 'No transcriptions.');
  if (nextCursor) {
    ctx.out.note(`More: speechgate transcriptions list --cursor `
      + `${nextCursor}${options.lifecycle !== 'active' ? ` --lifecycle ${options.lifecycle}` : ''} (or --all)`);
  }
}

async function fetchOne(client: SpeechgateClient, id: string): Promise<Transcription> {
  return (await client.GET('/v1/transcriptions/{id}', { params: { path: { id } } })).data!;
}

function describe(transcription: Transcription): string[] {
  const rows: Array<[string, string | number | null | undefined]> = [
    ['id', transcription.id],
    ['name', transcription.name],
    ['kind', transcription.kind],
    ['lifecycle', transcription.state],
    ['state', stateOf(transcription)],
    ['recording', transcription.job?.recordingId ?? transcription.recordingId],
    ['language', transcription.spokenLanguage],
    ['duration', transcription.durationS == null ? null : `${transcription.durationS.toFixed(1)} s`],
    ['source', transcription.sourceUrl],
    ['error', transcription.job?.error],
    ['share code', transcription.shareLink?.code],
    ...(transcription.broadcasts ?? []).map((broadcast): [string, string] => ['broadcast', `${broadcast.name}: ${broadcast.shareUrl} `
      + `(speechgate listen ${broadcast.code})`]),
    ['created', shortTime(transcription.createdAt)],
  ];
  return rows.filter((row) => row[1] !== null && row[1] !== undefined && row[1] !== '').map(
    ([name, value]) => `${`${name}:`.padEnd(12)}${value}`,
  );
}

async function get(ctx: CommandContext, [id]: string[]): Promise<void> {
  const transcription = await fetchOne(await ctx.client(), id!);
  ctx.out.result(transcription, describe(transcription));
}

async function wait(ctx: CommandContext, [id]: string[]): Promise<void> {
  const client = await ctx.client();
  const transcription = await waitForJob(ctx, client, await fetchOne(client, id!));
  ctx.out.result(transcription, `${transcription.id}: ${stateOf(transcription)}`);
}

interface TranscriptOptions { format?: ExportFormat; output?: string; lang?: string }

async function transcript(ctx: CommandContext, [id]: string[], options: TranscriptOptions): Promise<void> {
  const client = await ctx.client();
  const written = await writeTranscript(ctx, client, recordingOf(await fetchOne(client, id!)), options);
  ctx.out.result(written);
}

type Move = 'archive' | 'restore' | 'purge';

function moveAction(move: Move) {
  return action(async (ctx, [id]) => {
    const client = await ctx.client();
    const path = `/v1/transcriptions/{id}/${move}` as const;
    const { data } = await client.POST(path, { params: { path: { id: id! } } });
    const done = { archive: 'Archived', restore: 'Restored', purge: 'Purged' }[move];
    ctx.out.result(data ?? { id, purged: true }, `${done} ${id}.`);
  });
}

export function transcriptionsCommand(): Command {
  const transcriptions = new Command('transcriptions').alias('tr').description('list, read, export and archive transcriptions');
  transcriptions.command('list').alias('ls')
    .description('newest first, a page at a time (`nextCursor` names the next page)')
    .addOption(new Option('--lifecycle <which>', 'active, archived or all').choices(['active', 'archived', 'all']).default('active'))
    .option('--limit <n>', 'items per page (1 to 500; the server\'s default 50)')
    .option('--cursor <cursor>', 'the page after a previous listing\'s nextCursor')
    .option('--all', 'every page, not just one')
    .action(action(list));
  transcriptions.command('get').description('one transcription').argument('<id>').action(action(get));
  transcriptions.command('wait').description('follow a file or link job until it is done or failed').argument('<id>').action(action(wait));
  transcriptions.command('transcript')
    .description('print the transcript as text, or write an export file')
    .argument('<id>')
    .addOption(new Option('--format <format>', 'an export file instead of text').choices(EXPORT_FORMATS))
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--lang <code>', 'translated into this language')
    .action(action(transcript));
  transcriptions.command('archive').description('hide it and kill its links (data kept until purged)').argument('<id>').action(
    moveAction('archive'),
  );
  transcriptions.command('restore').description('bring an archived one back').argument('<id>').action(moveAction('restore'));
  transcriptions.command('purge').description('delete an archived one and its media for good').argument('<id>').action(moveAction('purge'));
  return transcriptions;
}
