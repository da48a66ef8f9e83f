/**
 * The live streaming policy (workers/engine/live.ts) on its own, around a scripted transcriber whose passes the
 * test lets finish: pacing, `auto`'s decoder hand-over (in place: every sample reaches the transcriber once),
 * setting changes between passes, capture loss, cancel. Then once with the real engine.
 */
import { describe, expect, it } from 'vitest';
import { concatSamples, decodeFileToPcm, SAMPLE_RATE, SpeechEngine, type Segment } from '../../workers/engine/speech-engine.js';
import { LiveTranscription, type LiveTranscriber, type LiveUpdate } from '../../workers/engine/live.js';
import { fixture } from '../helpers/fixtures.js';
import { normaliseWords } from './text.js';

const TUNING = { minStepS: 0.3, catchupLagS: 3, resumeLagS: 1 };
const seconds = (s: number) => new Float32Array(Math.round(s * SAMPLE_RATE));
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A transcriber whose passes wait for the test; each pass commits what `nextCommit` holds. */
class ScriptedTranscriber implements LiveTranscriber {
  mode: 'fast' | 'accuracy' = 'fast';
  pushedSamples = 0;
  pushes = 0;
  /** Seconds each push carried. */
  readonly pushedS: number[] = [];
  /** What the transcriber says it holds (the test decides). */
  bufferedS = 0;
  readonly passKinds: string[] = [];
  language: string | undefined;
  readonly passModes: string[] = [];
  nextCommit: Segment[] = [];
  private finishPass: (() => void) | null = null;

  push(pcm: Float32Array): void {
    this.pushedSamples += pcm.length;
    this.pushes++;
    this.pushedS.push(pcm.length / SAMPLE_RATE);
  }
  setMode(mode: 'fast' | 'accuracy'): void {
    this.mode = mode;
  }
  setLanguage(language?: string): void {
    this.language = language;
  }
  step() {
    this.passKinds.push('step');
    return this.pass();
  }
  flush() {
    this.passKinds.push('flush');
    return this.pass();
  }
  get passing(): boolean {
    return this.finishPass !== null;
  }
  /** Lets the pass in flight finish and waits until its update is out. */
  async finish(): Promise<void> {
    for (let i = 0; i < 20 && !this.finishPass; i++) await tick();
    const finish = this.finishPass;
    this.finishPass = null;
    finish?.();
    await tick();
  }
  private async pass() {
    this.passModes.push(this.mode);
    await new Promise<void>((resolve) => (this.finishPass = resolve));
    const committed = this.nextCommit;
    this.nextCommit = [];
    return { committed, draft: [{ start: 0, text: 'draft' }] };
  }
}

function segment(words: [string, number, number][]): Segment {
  return {
    start: words[0]![1],
    end: words[words.length - 1]![2],
    text: words.map(([text]) => text).join(' '),
    words: words.map(([text, start, end]) => ({ text, start, end, prob: 0.9 })),
    confidence: 0.9,
    language: 'en',
  };
}

function start(mode: 'auto' | 'fast' | 'accuracy') {
  const transcriber = new ScriptedTranscriber();
  const live = new LiveTranscription(transcriber, { language: 'en', latencyMode: mode }, TUNING);
  const updates: LiveUpdate[] = [];
  const ended = live.run((update) => updates.push(update));
  return { transcriber, live, updates, ended };
}

/** A live transcription on the real engine, running, with goforward.wav to feed it. */
async function withEngine(mode: 'fast' | 'accuracy') {
  const engine = await SpeechEngine.load();
  const pcm = await decodeFileToPcm(fixture('goforward.wav'));
  const live = new LiveTranscription(engine.createStream({ language: 'en' }), { language: 'en', latencyMode: mode }, TUNING);
  const updates: LiveUpdate[] = [];
  const ended = live.run((update) => updates.push(update));
  return { pcm, live, updates, ended };
}

let loaded: Promise<SpeechEngine> | null = null;

/**
 * A live transcription on the real engine (beam search), running, and a read sentence that ends "… more respectable
 * than he was" with 3 s of silence after it (`take`), to push all at once: one bite, as a busy machine takes it.
 */
async function withTake() {
  const engine = await (loaded ??= SpeechEngine.load());
  const speech = await decodeFileToPcm(fixture('librivox/sense_and_sensibility_01_austen_64kb-0920.wav'));
  const live = new LiveTranscription(engine.createStream({ language: 'en' }), { language: 'en', latencyMode: 'accuracy' }, TUNING);
  const updates: LiveUpdate[] = [];
  const ended = live.run((update) => updates.push(update));
  const take = concatSamples([speech, seconds(3)]);
  /** The words committed end with the sentence's last words. */
  const expectLastWords = () => {
    const words = normaliseWords(updates.flatMap((update) => update.committed).map((part) => part.text).join(' '));
    expect(words.slice(-3), words.join(' ')).toEqual(['than', 'he', 'was']);
  };
  /** Waits for `count` updates, then cancels. */
  const cancelAfter = async (count: number) => {
    while (updates.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
    live.cancel();
    expect(await ended).toBe('cancelled');
  };
  return { take, speechS: speech.length / SAMPLE_RATE, live, updates, ended, expectLastWords, cancelAfter };
}

describe('live transcription policy', () => {
  it('runs a pass once enough new audio arrived, and feeds what arrived during a pass in one push', async () => {
    const { transcriber, live, updates, ended } = start('fast');
    live.push(seconds(0.1));
    await tick();
    expect(transcriber.passing).toBe(false);
    live.push(seconds(0.25));
    await tick();
    expect(transcriber.passing).toBe(true);
    for (let i = 0; i < 5; i++) live.push(seconds(0.1));
    await transcriber.finish();
    expect(updates).toHaveLength(1);
    expect(updates[0]!.coveredS).toBeCloseTo(0.35, 5);
    await transcriber.finish();
    expect(transcriber.pushes).toBe(2);
    expect(transcriber.pushedSamples).toBe(Math.round(0.35 * SAMPLE_RATE) + 5 * Math.round(0.1 * SAMPLE_RATE));
    live.endOfAudio();
    await transcriber.finish();
    expect(await ended).toBe('eof');
  });

  it('auto hands over to the fast decoder when the backlog grows, in place, and comes back once it keeps up', async () => {
    const { transcriber, live, updates, ended } = start('auto');
    let sent = 0;
    const send = (s: number) => {
      live.push(seconds(s));
      sent += Math.round(s * SAMPLE_RATE);
    };
    send(0.5);
    await tick();
    expect(transcriber.passModes).toEqual(['accuracy']);
    send(4); // arrives during the pass: a 4 s backlog, over catchupLagS
    transcriber.nextCommit = [segment([['one', 0, 0.4]])];
    await transcriber.finish();
    expect(updates[0]!.committed[0]!.decoder).toBe('accuracy');
    // The next pass is the fast decoder's, on the same transcriber: nothing replayed.
    expect(transcriber.passModes).toEqual(['accuracy', 'fast']);
    transcriber.nextCommit = [segment([['two', 0.5, 1]])];
    await transcriber.finish();
    expect(updates[1]!.committed[0]!.decoder).toBe('fast');
    // Small backlogs for three passes: back to the accurate decoder.
    for (let i = 0; i < 3; i++) {
      send(0.4);
      await transcriber.finish();
    }
    send(0.4);
    await tick();
    expect(transcriber.passModes.at(-1)).toBe('accuracy');
    live.endOfAudio();
    while ((await Promise.race([ended.then(() => 'ended'), tick().then(() => 'running')])) === 'running') await transcriber.finish();
    expect(transcriber.pushedSamples).toBe(sent);
  });

  it('a decoder the client asks for applies from the next pass; the pass in flight keeps its own', async () => {
    const { transcriber, live, updates } = start('accuracy');
    live.push(seconds(0.5));
    await tick();
    live.update({ latencyMode: 'fast', language: 'es' });
    live.push(seconds(0.5));
    transcriber.nextCommit = [segment([['uno', 0, 0.3]])];
    await transcriber.finish();
    expect(updates[0]!.decoder).toBe('accuracy');
    expect(updates[0]!.committed[0]!.decoder).toBe('accuracy');
    await tick();
    expect(transcriber.passModes).toEqual(['accuracy', 'fast']);
    expect(transcriber.language).toBe('es');
    live.cancel();
    await transcriber.finish();
  });

  it('a commit spanning a capture loss is cut at the first word ending after it, and the next part carries gapBefore', async () => {
    const { transcriber, live, updates } = start('fast');
    live.push(seconds(1));
    // Captured 3 s of which 1 s arrived: 2 s lost at the 1 s mark.
    live.clock(3 * SAMPLE_RATE, 3);
    live.push(seconds(1));
    transcriber.nextCommit = [segment([['before', 0.2, 0.6], ['the', 0.7, 0.9], ['after', 0.95, 1.4], ['loss', 1.5, 1.8]])];
    await transcriber.finish();
    const committed = updates[0]!.committed;
    expect(committed.map((part) => part.text)).toEqual(['before the', 'after loss']);
    expect(committed[0]!.gapBefore).toBeUndefined();
    expect(committed[1]!.gapBefore).toBeCloseTo(2, 5);
    // A second more arrives (2 s received, 4 s captured); 0.1 s in flight and 50 ms of clock drift are jitter, no gap.
    live.push(seconds(1));
    live.clock(4.1 * SAMPLE_RATE, 4.15);
    transcriber.nextCommit = [segment([['more', 2.1, 2.5]])];
    await transcriber.finish();
    expect(updates[1]!.committed[0]!.gapBefore).toBeUndefined();
    live.cancel();
    await transcriber.finish();
  });

  it('cancel drops what was not committed: the pass in flight reports nothing', async () => {
    const { transcriber, live, updates, ended } = start('fast');
    live.push(seconds(1));
    await tick();
    transcriber.nextCommit = [segment([['dropped', 0, 0.5]])];
    live.cancel();
    live.push(seconds(1)); // after the cancel: ignored
    await transcriber.finish();
    expect(await ended).toBe('cancelled');
    expect(updates).toHaveLength(0);
    expect(transcriber.pushedSamples).toBe(SAMPLE_RATE);
  });

  it('a flush (a pause) commits what was said before it, and only that; audio after it goes on in later passes', async () => {
    const { transcriber, live, updates, ended } = start('fast');
    live.push(seconds(1));
    await tick();
    live.flush();
    live.push(seconds(0.5)); // arrives after the flush point, while the first pass runs
    await transcriber.finish();
    await tick();
    expect(transcriber.passKinds).toEqual(['step', 'flush']);
    expect(transcriber.pushedS.map((s) => +s.toFixed(3))).toEqual([1]);
    expect(updates.map((update) => update.flushed)).toEqual([undefined]);
    await transcriber.finish();
    await tick();
    // The half second after the flush point is the next pass's.
    expect(transcriber.passKinds).toEqual(['step', 'flush', 'step']);
    expect(transcriber.pushedS.map((s) => +s.toFixed(3))).toEqual([1, 0.5]);
    // The flush's pass says which flush it answers (the session's pause waits for it); other passes say none.
    expect(updates.map((update) => update.flushed)).toEqual([undefined, 1]);
    live.cancel();
    await transcriber.finish();
    expect(await ended).toBe('cancelled');
  });

  it('never gives the transcriber more than its window holds: a long backlog goes in by passes, none of it skipped', async () => {
    const { transcriber, live, updates, ended } = start('fast');
    live.push(seconds(0.5));
    await tick();
    transcriber.bufferedS = 20;
    live.push(seconds(30)); // arrives during the first pass, and so does the end
    live.endOfAudio();
    await transcriber.finish();
    await tick();
    expect(transcriber.pushedS.map((s) => +s.toFixed(3))).toEqual([0.5, 8]);
    transcriber.bufferedS = 5; // the pass committed and cut
    await transcriber.finish();
    await transcriber.finish();
    expect(await ended).toBe('eof');
    expect(transcriber.pushedS.map((s) => +s.toFixed(3))).toEqual([0.5, 8, 22]);
    // The end is a step while audio still waited, then the flush once all of it was in.
    expect(transcriber.passKinds).toEqual(['step', 'step', 'flush']);
    expect(updates.at(-1)!.coveredS).toBeCloseTo(30.5, 5);
  });

  it('with the real engine: the same words said again after a flush are kept, not taken for a re-decoded tail', async () => {
    const { pcm, live, updates, ended } = await withEngine('fast');
    // All of it at once, the end too: the flush still commits the audio before it on its own.
    live.push(pcm);
    live.flush();
    live.push(pcm);
    live.endOfAudio();
    expect(await ended).toBe('eof');
    const commits = updates.flatMap((update) => update.committed);
    expect(commits.map((part) => normaliseWords(part.text).filter((said) => said === 'forward').length)).toEqual([1, 1]);
    expect(commits[1]!.start).toBeGreaterThanOrEqual(pcm.length / SAMPLE_RATE - 0.5);
  });

  // The client sent nothing for a few seconds after the first saying (a recording's publisher, idle): the first was
  // committed alone, and the second, heard right after it, was taken for the committed words read out again and dropped.
  it.each(['fast', 'accuracy'] as const)('with the real engine (%s): a sentence said again right after its commit is kept', async (
    mode,
  ) => {
    const { pcm, live, updates, ended } = await withEngine(mode);
    const passes = async (count: number) => {
      while (updates.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const committedWords = () => normaliseWords(updates.flatMap((update) => update.committed).map((part) => part.text).join(' '));
    const chunk = Math.round(0.4 * SAMPLE_RATE);
    for (let i = 0; i < pcm.length; i += chunk) {
      const before = updates.length;
      live.push(pcm.slice(i, i + chunk));
      await passes(before + 1);
    }
    // A pass that agrees with the last commits the sentence's end (the sentence is followed by less than 1.5 s of silence).
    for (let tries = 0; tries < 3 && !committedWords().includes('meters'); tries++) {
      const before = updates.length;
      live.push(seconds(0.3));
      await passes(before + 1);
    }
    expect(committedWords()).toEqual(['go', 'forward', 'ten', 'meters']);
    live.push(pcm.slice());
    live.endOfAudio();
    expect(await ended).toBe('eof');
    expect(committedWords()).toEqual(['go', 'forward', 'ten', 'meters', 'go', 'forward', 'ten', 'meters']);
  });

  // Beam search ended this sentence's text at "than" (before decoding.ts stopped as the reference does), and the take's
  // end committed only that: it now decodes again speech voice activity heard after the last word.
  it('with the real engine: a pause commits the last words said before it', async () => {
    const { take, live, expectLastWords, cancelAfter } = await withTake();
    // In the same turn: the first pass is the flush's.
    live.push(take);
    live.flush();
    await cancelAfter(1);
    expectLastWords();
  });

  it.each([
    ['a stop (a pause, then the end)', true],
    ['the end of audio', false],
  ])('with the real engine: %s commits the last words said before it', async (_, pausedFirst) => {
    const { take, live, ended, expectLastWords } = await withTake();
    live.push(take);
    if (pausedFirst) live.flush();
    live.endOfAudio();
    expect(await ended).toBe('eof');
    expectLastWords();
  });

  it('with the real engine: 3 s of silence after a take commits its last words, with no pause or end', async () => {
    const { take, live, updates, speechS, expectLastWords, cancelAfter } = await withTake();
    live.push(take);
    await cancelAfter(1);
    expectLastWords();
    expect(updates[0]!.draft).toEqual([]);
    expect(updates[0]!.committed.flatMap((part) => part.words).every((word) => word.end <= speechS + 0.3)).toBe(true);
  });

  // Paced 60 ms apart, on this host the fast model's last pass looped ("meters. Go forward 10 meters. …", squeezed
  // into one instant) and a last squeezed "Go" after the loop's end was committed: "Go" twice.
  it.each([20, 60])('with the real engine: a hand-over mid-sentence says every word once (pushes %i ms apart)', async (pace) => {
    const { pcm, live, updates, ended } = await withEngine('accuracy');
    const chunk = SAMPLE_RATE / 4;
    for (let i = 0; i < pcm.length; i += chunk) {
      if (i === Math.floor(pcm.length / 2 / chunk) * chunk) live.update({ latencyMode: 'fast' });
      live.push(pcm.slice(i, i + chunk));
      await new Promise((resolve) => setTimeout(resolve, pace));
    }
    live.endOfAudio();
    expect(await ended).toBe('eof');
    const committed = updates.flatMap((update) => update.committed);
    const words = normaliseWords(committed.map((part) => part.text).join(' '));
    for (const word of ['go', 'forward', 'ten', 'meters']) expect(words.filter((said) => said === word)).toHaveLength(1);
    expect(new Set(updates.map((update) => update.decoder))).toEqual(new Set(['accuracy', 'fast']));
  });
});
