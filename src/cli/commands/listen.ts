/**
 * `speechgate listen <code>`: follows a broadcast in the terminal as its listener page does
 * (rest/pages/listener/listener.js), with no key: `GET /v1/listen/{code}` says what this listener may follow (a
 * private broadcast's password is proven once at `POST /v1/listen/{code}/token`), the recording in flight (or the
 * last one) is followed with the SDK's subscribe procedure, and the broadcast's events socket names each recording
 * that starts later. Lines print as they commit; Ctrl-C ends it cleanly (exit 0). `--once` ends when the recording
 * followed is finalized.
 */
import crypto from 'node:crypto';
import { Command } from 'commander';
import { WebSocket } from 'ws';
import {
  defaultReconnectDelayMs, type paths, type RecordingSubscription, type SpeechgateClient, type SubscribedSegment,
} from '../../sdk/index.js';
import { action, type CommandContext } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { ask } from '../prompt.js';

type ListenerView = paths['/v1/listen/{code}']['get']['responses'][200]['content']['application/json'];

interface ListenOptions {
  password?: string;
  shareCode?: string;
  lang?: string;
  once?: boolean;
}

/** What the listener sends as its credential: a listener token (private broadcast), a share code, or nothing. */
interface ListenerCredential {
  listenerToken?: string;
  shareCode?: string;
}

const UNCLEAR = '[audio unclear]';

/** What the text mode has shown of a line: its text (as printed) and the translation it showed, if any. */
export interface ShownLine {
  text: string;
  translation: string | undefined;
}

/**
 * The text mode's lines for a transcript line seen `before` (undefined: first seen) and now `now`: the first time its
 * text (or its translation with --lang); later a corrected text as `  ✎ <text>` (finalization's accurate pass, a
 * correction: a reader who saw the live line sees what it became), and a translation that arrived late as
 * `  <lang>: <translation>`. Nothing when nothing they showed changed.
 */
export function textOfLine(
  before: ShownLine | undefined,
  now: { text: string; unclear: boolean; translation: string | undefined },
  lang: string | undefined,
): { lines: string[]; shown: ShownLine } {
  const text = now.unclear ? UNCLEAR : now.text;
  if (!before) return { lines: [now.unclear ? UNCLEAR : (now.translation ?? text)], shown: { text, translation: now.translation } };
  const lines: string[] = [];
  if (text !== before.text) lines.push(`  ✎ ${text}`);
  if (now.translation && now.translation !== before.translation) lines.push(`  ${lang}: ${now.translation}`);
  return { lines, shown: { text, translation: now.translation ?? before.translation } };
}

async function listenerView(client: SpeechgateClient, code: string, credential: ListenerCredential): Promise<ListenerView> {
  return (await client.GET('/v1/listen/{code}', { params: { path: { code }, query: credential } })).data!;
}

/** The view, proving a private broadcast's password when the listener is not yet let in. */
async function openBroadcast(ctx: CommandContext, client: SpeechgateClient, code: string, options: ListenOptions): Promise<{
  view: ListenerView; credential: ListenerCredential;
}> {
  let credential: ListenerCredential = options.shareCode ? { shareCode: options.shareCode } : {};
  let view = await listenerView(client, code, credential);
  if (view.authorized) return { view, credential };
  const password = options.password ?? (process.stdin.isTTY && ctx.out.interactive ? await ask(
    `Password for ${view.name}`, { hidden: true },
  ) : undefined);
  if (!password) throw new CliError(`${view.name} is private: pass --password (or a --share-code of it).`, EXIT.auth, 'unauthorized');
  const { data: token } = await client.POST('/v1/listen/{code}/token', { params: { path: { code } }, body: { password } });
  credential = { listenerToken: token!.listenerToken };
  view = await listenerView(client, code, credential);
  return { view, credential };
}

class BroadcastFollower {
  private readonly subscriptions = new Map<string, RecordingSubscription>();
  /** Per recording, what the text mode showed of each line. */
  private readonly printed = new Map<string, Map<number, ShownLine>>();
  /** A page's presence id: the broadcast counts this listener once across its sockets. */
  private readonly presence = crypto.randomBytes(12).toString('hex');
  private events: WebSocket | null = null;
  private eventsAttempt = 0;
  private eventsTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private finish!: (error?: unknown) => void;
  readonly ended = new Promise<void>((resolve, reject) => (this.finish = (error) => (error ? reject(error) : resolve())));

  constructor(
    private readonly ctx: CommandContext,
    private readonly client: SpeechgateClient,
    private readonly baseUrl: string,
    private readonly view: ListenerView,
    private readonly credential: ListenerCredential,
    private readonly options: ListenOptions,
  ) {}

  start(): void {
    // The page shows the last recording while nothing is in flight; `--once` waits for one in flight instead.
    const recording = this.options.once ? this.view.currentRecording : (this.view.currentRecording ?? this.view.lastRecording);
    if (recording?.recordingId) this.follow(recording.recordingId);
    else this.ctx.out.note('waiting for the broadcast to start…');
    this.openEvents();
  }

  stop(error?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.eventsTimer);
    this.events?.close();
    for (const subscription of this.subscriptions.values()) subscription.close();
    this.finish(error);
  }

  private follow(recordingId: string): void {
    if (this.stopped || this.subscriptions.has(recordingId)) return;
    this.ctx.out.jsonLine({ type: 'recording', recordingId });
    this.ctx.out.note(`following recording ${recordingId}`);
    const printed = new Map<number, ShownLine>();
    this.printed.set(recordingId, printed);
    const subscription = this.client.recordings.subscribe(recordingId, {
      ...this.credential,
      lang: this.options.lang ?? null,
      query: { presence: this.presence },
      onEvent: (event) => {
        if (event.type === 'snapshot' && event.full) {
          for (const segment of [...subscription.segments.values()].sort((a, b) => a.seq - b.seq)) this.show(recordingId, segment);
        } else if (event.type === 'segment') this.show(recordingId, event.segment);
        else if (event.type === 'state') {
          this.ctx.out.jsonLine({ type: 'state', recordingId, state: event.state });
          this.ctx.out.note(`● ${event.state}`);
        } else if (event.type === 'connection' && event.status === 'reconnecting') this.ctx.out.note('connection lost; reconnecting…');
        else if (event.type === 'error') this.ctx.out.note(`${event.error.code}: ${event.error.message}`);
      },
    });
    this.subscriptions.set(recordingId, subscription);
    // The subscription closes itself once the recording is finalized (or on a refusal it cannot get past).
    void subscription.closed.then(() => {
      if (this.options.once && !this.stopped) {
        this.stop(
          subscription.state === 'finalized' ? undefined : new CliError(
            `stopped following ${recordingId} before it was finalized`, EXIT.failure, 'closed',
          ),
        );
      }
    });
    subscription.ready.catch((error: unknown) => {
      if (this.options.once) this.stop(error);
    });
  }

  /** Prints a line the first time it is seen, then what changes in it (a correction, a late translation). */
  private show(recordingId: string, segment: SubscribedSegment): void {
    const printed = this.printed.get(recordingId)!;
    const lang = this.options.lang;
    const translation = lang ? segment.translations?.[lang] : undefined;
    const text = segment.unclear ? '' : segment.text.trim();
    const before = printed.get(segment.seq);
    if (!before) {
      this.ctx.out.jsonLine({
        type: 'line', recordingId, seq: segment.seq, text, unclear: segment.unclear, start: segment.start ?? null, end: segment.end ?? null,
        speaker: segment.speaker ?? null, ...(lang ? { lang, translation: translation ?? null } : {}),
      });
    } else {
      this.ctx.out.jsonLine({
        type: 'line.updated', recordingId, seq: segment.seq, text, unclear: segment.unclear,
        ...(lang ? { lang, translation: translation ?? null } : {}),
      });
    }
    const { lines, shown } = textOfLine(before, { text, unclear: segment.unclear, translation }, lang);
    printed.set(segment.seq, shown);
    for (const line of lines) this.ctx.out.print(line);
  }

  /** The broadcast's events socket: the recording in flight at `events.ready`, then each `recording.started`. */
  private openEvents(): void {
    if (this.stopped) return;
    const url = new URL(`${this.baseUrl}/v1/broadcasts/${encodeURIComponent(this.view.broadcastId)}/events`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    for (const [name, value] of Object.entries({ ...this.credential, presence: this.presence })) url.searchParams.set(name, value);
    const socket = new WebSocket(url);
    this.events = socket;
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: { type?: string; recordingId?: string; currentRecording?: { recordingId?: string } | null };
      try {
        frame = JSON.parse(data.toString()) as typeof frame;
      } catch {
        return;
      }
      if (frame.type === 'events.ready') {
        this.eventsAttempt = 0;
        if (frame.currentRecording?.recordingId && !(this.options.once && this.subscriptions.size > 0)) {
          this.follow(frame.currentRecording.recordingId);
        }
      } else if (frame.type === 'recording.started' && frame.recordingId && !(this.options.once && this.subscriptions.size > 0))
        this.follow(frame.recordingId);
    });
    socket.on('unexpected-response', (_request, response) => {
      // Refused (archived, a token gone stale): the broadcast cannot be followed any more.
      const status = response.statusCode ?? 0;
      socket.terminate();
      if (status === 404 || status === 401) {
        this.stop(new CliError(
          `the broadcast refused its events socket (HTTP ${status}): it is gone or no longer open to this listener`,
          status === 404 ? EXIT.notFound : EXIT.auth, status === 404 ? 'not_found' : 'invalid_token',
        ));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (socket !== this.events || this.stopped) return;
      this.events = null;
      this.eventsTimer = setTimeout(() => this.openEvents(), defaultReconnectDelayMs(this.eventsAttempt++));
    });
  }
}

async function listen(ctx: CommandContext, [code]: string[], options: ListenOptions): Promise<void> {
  const client = await ctx.anonymousClient();
  const { url } = await ctx.credentials();
  const { view, credential } = await openBroadcast(ctx, client, code!, options);
  ctx.out.jsonLine({
    type: 'broadcast', broadcastId: view.broadcastId, code: view.code, name: view.name, access: view.access, languages: view.languages,
  });
  ctx.out.note(`${view.name} (${view.code})${options.lang ? ` in ${options.lang}` : ''}; Ctrl-C to stop`);
  const follower = new BroadcastFollower(ctx, client, url, view, credential, options);
  ctx.signal.addEventListener('abort', () => follower.stop(), { once: true });
  follower.start();
  await follower.ended;
}

export function listenCommand(): Command {
  return new Command('listen')
    .description('follow a broadcast by its code: print its lines as they are committed (Ctrl-C to stop)')
    .argument('<code>', 'the broadcast\'s code (the end of its listener link, /b/<code>)')
    .option('--password <password>', 'a private broadcast\'s password (asked for when it is needed and a terminal is there)')
    .option('--share-code <code>', 'a share link\'s code of the broadcast')
    .option('--lang <code>', 'read it translated into this language')
    .option('--once', 'follow one recording (in flight, or the next to start) and end when it is finalized')
    .action(action(listen));
}
