/**
 * One engine worker thread: loads a `SpeechEngine` once and runs the `StreamingTranscriber`s of the realtime
 * sessions the host assigns to it. Inference happens here, never on the gateway's event loop.
 *
 * Per session, a loop runs one pass whenever at least `minStepS` of new audio arrived (so a session that
 * keeps up reacts within one pass, and one that falls behind takes bigger bites instead of queueing passes).
 * Audio is handed to the transcriber only between passes, never while one is running.
 *
 * Latency modes: `fast` and `accuracy` are the engine's two decoding paths. `auto` decodes accurately while
 * the pass keeps up with the audio and hands over to the fast path when the backlog grows past
 * `catchupLagS` (those commits are marked `decoder: 'fast'`), returning once the backlog is small again.
 * A hand-over starts a new transcriber on the audio not yet committed, so no audio is lost or repeated.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { concatSamples, SAMPLE_RATE, SpeechEngine, type StreamingTranscriber, type Segment } from '../../workers/engine/index.js';
import type { EngineLoadOptions, EngineMode, HostToWorker, LatencyMode, SessionTuning, WorkerSegment, WorkerToHost } from './engine-messages.js';

/** Consecutive small-backlog passes before `auto` goes back to the accurate path (avoids flapping). */
const RESUME_AFTER_PASSES = 3;
/** Whisper's window: the most audio a transcriber keeps, hence the most a decoder hand-over has to replay. */
const MAX_REPLAY_S = 30;

const port = parentPort!;
const post = (message: WorkerToHost) => port.postMessage(message);

class WorkerSession {
  private transcriber!: StreamingTranscriber;
  private mode!: EngineMode;
  /** Session time at which the current transcriber's audio starts (its segment times count from here). */
  private offsetS = 0;
  /** Audio not yet committed (from `retainedStartS`), kept so a decoder hand-over can replay it. */
  private retained: Float32Array[] = [];
  private retainedStartS = 0;
  /** Audio received but not yet given to the transcriber. */
  private incoming: Float32Array[] = [];
  private receivedSamples = 0;
  private lastPassSamples = 0;
  private smallBacklogPasses = 0;
  /** A decoder the client switched to, applied before the next pass. */
  private requestedMode: EngineMode | null = null;
  private eof = false;
  private cancelled = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly engine: SpeechEngine,
    readonly sessionId: string,
    private language: string | null,
    private latencyMode: LatencyMode,
    private readonly tuning: SessionTuning,
  ) {
    this.startTranscriber(latencyMode === 'fast' ? 'fast' : 'accuracy');
  }

  push(pcm: Float32Array): void {
    this.incoming.push(pcm);
    this.retained.push(pcm);
    this.receivedSamples += pcm.length;
    // A transcriber never looks further back than one model window, so neither does a replay; without this a
    // long silence (no commits) would keep every sample.
    const retainedS = this.receivedSamples / SAMPLE_RATE - this.retainedStartS;
    if (retainedS > MAX_REPLAY_S + 5) this.dropRetainedBefore(this.receivedSamples / SAMPLE_RATE - MAX_REPLAY_S);
    this.signal();
  }

  update(language: string | null | undefined, latencyMode: LatencyMode | undefined): void {
    if (language !== undefined && language !== this.language) {
      this.language = language;
      this.transcriber.setLanguage(language ?? undefined);
    }
    if (latencyMode !== undefined && latencyMode !== this.latencyMode) {
      this.latencyMode = latencyMode;
      // `auto` keeps whichever path is running; its backlog rule decides from the next pass on. The hand-over
      // itself waits for the pass in flight: that pass still belongs to the old transcriber and its timeline.
      this.requestedMode = latencyMode === 'auto' ? null : latencyMode;
      this.signal();
    }
  }

  endOfAudio(): void {
    this.eof = true;
    this.signal();
  }

  cancel(): void {
    this.cancelled = true;
    this.signal();
  }

  async run(): Promise<void> {
    try {
      while (!this.cancelled) {
        if (this.requestedMode && this.requestedMode !== this.mode) this.handOver(this.requestedMode);
        this.requestedMode = null;
        const newSamples = this.receivedSamples - this.lastPassSamples;
        if (this.eof) {
          this.applyBacklogRule();
          this.feed();
          await this.pass(() => this.transcriber.flush());
          if (!this.cancelled) post({ type: 'done', sessionId: this.sessionId, reason: 'eof' });
          break;
        }
        if (newSamples >= this.tuning.minStepS * SAMPLE_RATE) {
          this.feed();
          await this.pass(() => this.transcriber.step());
          this.applyBacklogRule();
        } else {
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      }
      if (this.cancelled) post({ type: 'done', sessionId: this.sessionId, reason: 'cancelled' });
    } catch (error) {
      post({ type: 'session_failed', sessionId: this.sessionId, message: error instanceof Error ? error.message : String(error) });
    }
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private startTranscriber(mode: EngineMode): void {
    this.mode = mode;
    this.transcriber = this.engine.createStream({ language: this.language ?? undefined, mode });
  }

  /** Replaces the transcriber by one of the other decoder, replaying the audio not committed yet. */
  private handOver(mode: EngineMode): void {
    this.startTranscriber(mode);
    this.offsetS = this.retainedStartS;
    this.incoming = [...this.retained];
    this.smallBacklogPasses = 0;
  }

  private feed(): void {
    // One push for everything that arrived: each push copies the transcriber's buffer once.
    if (this.incoming.length > 0) this.transcriber.push(concatSamples(this.incoming));
    this.incoming = [];
  }

  private async pass(run: () => Promise<{ committed: Segment[]; draft: { start: number; text: string }[] }>): Promise<void> {
    const coveredSamples = this.receivedSamples;
    const decoder = this.mode;
    const offsetS = this.offsetS;
    const started = performance.now();
    const result = await run();
    const processingS = (performance.now() - started) / 1000;
    this.lastPassSamples = coveredSamples;
    const committed = result.committed.map((segment) => toSessionTime(segment, offsetS, decoder));
    if (committed.length > 0) this.dropRetainedBefore(committed[committed.length - 1]!.end);
    post({
      type: 'update',
      sessionId: this.sessionId,
      committed,
      draft: result.draft.map((item) => ({ start: item.start + offsetS, text: item.text })),
      coveredS: coveredSamples / SAMPLE_RATE,
      processingS,
      decoder,
    });
  }

  /**
   * `auto` only: hand over to the fast path when the accurate one falls behind, and back once it keeps up.
   * Also at the end of audio: a large backlog is flushed by the fast path.
   */
  private applyBacklogRule(): void {
    if (this.latencyMode !== 'auto' || this.cancelled) return;
    const backlogS = (this.receivedSamples - this.lastPassSamples) / SAMPLE_RATE;
    if (this.mode === 'accuracy' && backlogS > this.tuning.catchupLagS) {
      this.handOver('fast');
    } else if (this.mode === 'fast') {
      this.smallBacklogPasses = backlogS < this.tuning.resumeLagS ? this.smallBacklogPasses + 1 : 0;
      if (this.smallBacklogPasses >= RESUME_AFTER_PASSES && !this.eof) this.handOver('accuracy');
    }
  }

  private dropRetainedBefore(sessionS: number): void {
    let dropSamples = Math.floor((sessionS - this.retainedStartS) * SAMPLE_RATE);
    while (dropSamples > 0 && this.retained.length > 0) {
      const head = this.retained[0]!;
      if (head.length <= dropSamples) {
        this.retained.shift();
        dropSamples -= head.length;
        this.retainedStartS += head.length / SAMPLE_RATE;
      } else {
        this.retained[0] = head.subarray(dropSamples);
        this.retainedStartS += dropSamples / SAMPLE_RATE;
        dropSamples = 0;
      }
    }
  }
}

/** A transcriber's segment on the session's timeline (the transcriber started `offsetS` into the session). */
function toSessionTime(segment: Segment, offsetS: number, decoder: EngineMode): WorkerSegment {
  return {
    start: segment.start + offsetS,
    end: segment.end + offsetS,
    text: segment.text,
    words: segment.words.map((word) => ({ start: word.start + offsetS, end: word.end + offsetS, text: word.text, prob: word.prob })),
    confidence: segment.confidence,
    language: segment.language,
    decoder,
  };
}

async function main(): Promise<void> {
  const options = workerData.engine as EngineLoadOptions;
  const sessions = new Map<string, WorkerSession>();
  const early: HostToWorker[] = [];
  let engine: SpeechEngine | null = null;

  const handle = (message: HostToWorker) => {
    if (!engine) {
      early.push(message);
      return;
    }
    if (message.type === 'open') {
      let session: WorkerSession;
      try {
        session = new WorkerSession(engine, message.sessionId, message.language, message.latencyMode, message.tuning);
      } catch (error) {
        post({ type: 'session_failed', sessionId: message.sessionId, message: error instanceof Error ? error.message : String(error) });
        return;
      }
      sessions.set(message.sessionId, session);
      void session.run().finally(() => sessions.delete(message.sessionId));
      return;
    }
    const session = sessions.get(message.sessionId);
    if (!session) return; // ended already: late audio or a second cancel
    try {
      if (message.type === 'audio') session.push(new Float32Array(message.pcm));
      else if (message.type === 'update') session.update(message.language, message.latencyMode);
      else if (message.type === 'eof') session.endOfAudio();
      else if (message.type === 'cancel') session.cancel();
    } catch (error) {
      // One session's failure (e.g. a language the engine refuses) must not take the thread and its other sessions down.
      session.cancel();
      sessions.delete(message.sessionId);
      post({ type: 'session_failed', sessionId: message.sessionId, message: error instanceof Error ? error.message : String(error) });
    }
  };
  port.on('message', handle);

  try {
    post({ type: 'loading', stage: 'model' });
    engine = await SpeechEngine.load(options);
  } catch (error) {
    post({ type: 'load_failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  post({ type: 'ready', modelName: engine.modelName, languages: engine.languages() });
  for (const message of early.splice(0)) handle(message);
}

void main();
