/**
 * Live transcription with a LocalAgreement-2 policy (Macháček et al., whisper_streaming): every step()
 * transcribes the audio not yet cut from the buffer; words that two consecutive passes agree on (same words,
 * same order, after what is already committed) are committed for good, the rest is a draft that may still
 * change. Once enough is committed the audio buffer is cut after a committed sentence so each pass stays short.
 * When a take ends (a pause, the end of audio, or TAKE_ENDED_S of silence) everything it said is committed at once.
 *
 * Two things keep a pass short enough for sub-second drafts:
 * - The committed words still inside the buffer are forced as the transcript's prefix (one decoder call),
 *   so a pass decodes only the uncommitted tail token by token instead of re-decoding the whole buffer.
 * - The encoder gets a context sized to the buffer (whisper.cpp's audio_ctx, see encoder-context.ts) rather
 *   than a 30 s window: its cost follows the audio buffered, not the model's window.
 */
import { alignWords } from './whisper/alignment.js';
import { decodeWithFallback, detectLanguage, isSilence, WindowDecoder } from './whisper/decoding.js';
import { concatSamples } from './audio.js';
import { HOP_LENGTH, LiveLogMel, logMelSpectrogram, N_FRAMES, N_SAMPLES, SAMPLE_RATE } from './whisper/mel.js';
import {
  longestWordS, uncoveredStretches, wordKey, type PipelineModel, type Segment, type UncoveredSpeech, type Word,
} from './pipeline.js';
import { DEFAULT_VAD_OPTIONS, VAD_CHUNK, type VadStream } from './vad.js';

export interface StreamOptions {
  language?: string;
  /** fast: greedy decoding; accuracy: beam search of 5. */
  mode?: 'fast' | 'accuracy';
}

export interface StreamUpdate {
  committed: Segment[];
  draft: { start: number; text: string }[];
}

interface StreamWord extends Word {
  tokens: number[];
}

/** Once this much audio is buffered, cut it after the last committed sentence. */
const TRIM_AFTER_S = 12;
/** Never let the buffer reach the model's 30 s limit: commit what the last pass said and cut. */
const FORCE_COMMIT_S = 26;
/** Buffers shorter than this are not worth a pass. */
const MIN_PASS_S = 0.5;
/** Words ending closer than this to the end of the audio are not committed yet (while speech goes on). */
const COMMIT_MARGIN_S = 0.6;
/** Trailing audio without speech after which the last words count as whole. */
const SPEECH_STOPPED_S = 0.3;
/**
 * Trailing audio without speech after which the take is over: what it said is committed from one pass, as a pause
 * would commit it, instead of waiting for a second pass to agree (passes come only as audio does, and a busy
 * machine takes a few seconds a bite).
 */
const TAKE_ENDED_S = 1.5;
/** Speech heard this far past the last committed word was not transcribed yet (word ends jitter by ~0.2 s). */
const UNCOVERED_SPEECH_S = 0.3;
/** Passes a take's end may add to decode speech the model left after its last word. */
const TAIL_PASSES = 2;
/** A pass that skipped speech is made again on the buffer cut this long after that speech. */
const CUT_MARGIN_S = 0.3;
/** Passes a take's end may add after passes that were cut short (each decodes the buffer up to skipped speech). */
const MAX_CUT_PASSES = 4;
/** Audio kept before the next speech once a take has ended on silence (its first word may start in it). */
const LEAD_IN_S = 1;
/** Tokens a pass may decode per second of uncommitted audio. */
const MAX_TOKENS_PER_S = 8;
/** A word aligned to less than this has no audio of its own; SQUEEZED_RUN of them in a row are not speech. */
const SQUEEZED_S = 0.05;
const SQUEEZED_RUN = 3;
/** A word farther than this from speech the VAD heard is not speech (the file path's windows keep this padding). */
const SPEECH_PAD_S = DEFAULT_VAD_OPTIONS.speechPadMs / 1000;
/** Word times come from cross-attention frames of 20 ms: a word's edges move by one from pass to pass. */
const ALIGNMENT_FRAME_S = 0.02;
/** Silence after the buffered audio in the encoder's context. */
const CONTEXT_PADDING_S = 2;
/** The shortest encoder context. */
const MIN_CONTEXT_S = 5;
/** Committed text that left the buffer, as the prompt (~80 characters; the prefix carries the rest). */
const PROMPT_TOKENS = 20;

/**
 * Encoder context for `samples` of audio: the audio plus some silence, in whole seconds, never under
 * MIN_CONTEXT_S. Whisper decides where speech ends from what follows it: with no silence after the audio it
 * tends to drop or garble the last words, and very short contexts make it hallucinate.
 */
export function contextFrames(samples: number): number {
  const seconds = Math.max(MIN_CONTEXT_S, Math.ceil(samples / SAMPLE_RATE + CONTEXT_PADDING_S));
  return Math.min(N_FRAMES, seconds * 100);
}


export class StreamingTranscriber {
  private buffer: Float32Array = new Float32Array(0);
  /** Features of the buffer, recomputed only where it changed. */
  private readonly mel = new LiveLogMel();
  /** Source seconds where buffer[0] is. */
  private bufferStartS = 0;
  private pushedSamples = 0;
  private language: string | undefined;
  private decoder: 'fast' | 'accuracy' = 'fast';
  private beamSize = 1;
  /**
   * Fast: temperature 0 only. A pass must stay short, a hotter retry of a few uncommitted words is rarely
   * better, and LocalAgreement already keeps a one-off bad pass from being committed.
   */
  private temperatures: number[] = [0];
  private committedWords: StreamWord[] = [];
  private lastCommittedEndS = 0;
  /** The previous pass's words after the committed point (the "hypothesis" to agree with). */
  private previousHypothesis: StreamWord[] = [];
  private readonly vadStream: VadStream;
  /** Audio pushed since the voice activity last ran (it runs at the next step, not on push). */
  private vadQueue: Float32Array[] = [];
  /** VAD chunks heard so far: where the next probability's chunk ends. */
  private vadChunks = 0;
  /** Source seconds of the last chunk the VAD heard as speech (−1: none yet). */
  private lastSpeechS = -1;
  /** Stretches of source seconds the VAD heard as speech (merged chunks), from a little before the buffer on. */
  private speech: { start: number; end: number }[] = [];
  /**
   * Source seconds where the take being said began: the end of the last take's words (a pause, a long silence). Words
   * before it are not the prompt: prompted with "Go forward 10 meters." beam search read the same sentence said again
   * as "Go over 10 meters", shunning the repeat. Until a word after it is committed, words that repeat the last ones
   * committed were said again, not re-decoded from the prompt.
   */
  private takeStartS = 0;
  /** Whether the last freshWords() decoded only the buffer's start (speech was skipped after it). */
  private lastPassCut = false;

  constructor(
    private readonly engine: PipelineModel,
    options: StreamOptions = {},
  ) {
    this.language = engine.tokenizer.forcedLanguage(options.language);
    this.setMode(options.mode ?? 'fast');
    this.vadStream = engine.vad.createStream();
  }

  /** The decoder of the passes to come. */
  get mode(): 'fast' | 'accuracy' {
    return this.decoder;
  }

  /**
   * Switches the decoder from the next pass on. The buffer, the committed words (the next pass's prefix) and the
   * hypothesis to agree with stay: a hand-over neither replays audio nor loses any, and words committed before it
   * are never said again.
   */
  setMode(mode: 'fast' | 'accuracy'): void {
    this.decoder = mode;
    this.beamSize = mode === 'accuracy' ? 5 : 1;
    this.temperatures = mode === 'accuracy' ? [0, 0.2, 0.4, 0.6, 0.8, 1.0] : [0];
  }

  /** Seconds of audio pushed so far. */
  get audioS(): number {
    return this.pushedSamples / SAMPLE_RATE;
  }

  /** Seconds of audio the next pass will hear (pushed and not cut away yet). */
  get bufferedS(): number {
    return this.buffer.length / SAMPLE_RATE;
  }

  /** Forces a language from the next pass on; undefined or 'auto' detects it again. */
  setLanguage(language?: string): void {
    this.language = this.engine.tokenizer.forcedLanguage(language);
  }

  push(pcm: Float32Array): void {
    this.buffer = concatSamples([this.buffer, pcm]);
    this.pushedSamples += pcm.length;
    this.vadQueue.push(pcm);
  }

  /** Runs the VAD over what was pushed since the last step; remembers where speech was last heard. */
  private async updateVoiceActivity(): Promise<void> {
    // Everything pushed since the last pass in one call (vad.ts runs the chunks it completes together). The VAD keeps
    // a partial chunk until the next push: probabilities come for whole chunks, in order.
    if (this.vadQueue.length > 0) {
      for (const probability of await this.vadStream.push(concatSamples(this.vadQueue.splice(0)))) {
        this.vadChunks++;
        if (probability < DEFAULT_VAD_OPTIONS.threshold) continue;
        const end = (this.vadChunks * VAD_CHUNK) / SAMPLE_RATE;
        const start = end - VAD_CHUNK / SAMPLE_RATE;
        const last = this.speech[this.speech.length - 1];
        if (last && last.end >= start - 1e-9) last.end = end;
        else this.speech.push({ start, end });
        this.lastSpeechS = end;
      }
    }
  }

  /** One pass: what two passes agree on is committed; the rest is the draft. */
  async step(): Promise<StreamUpdate> {
    await this.updateVoiceActivity();
    const bufferS = this.buffer.length / SAMPLE_RATE;
    if (bufferS < MIN_PASS_S) return { committed: [], draft: this.draft() };
    if (this.lastSpeechS < this.bufferStartS) {
      // No speech in the buffer at all: keep only a second of lead-in for the next word.
      this.trimTo(Math.max(this.bufferStartS, this.audioS - LEAD_IN_S));
      this.previousHypothesis = [];
      return { committed: [], draft: [] };
    }
    if (this.lastSpeechS <= this.audioS - TAKE_ENDED_S) {
      // The speaker stopped a while ago: more silence will not change what the take said, so it is all committed.
      const committed = await this.commitTake();
      this.trimTo(Math.max(this.bufferStartS, this.audioS - LEAD_IN_S));
      return { committed, draft: [] };
    }
    const fresh = await this.freshWords();
    // Voice activity says the speech stopped before the end: the words heard are whole, none has to wait.
    const speechStopped = this.lastSpeechS < this.audioS - SPEECH_STOPPED_S;
    let agreed = 0;
    while (
      agreed < fresh.length &&
      agreed < this.previousHypothesis.length &&
      wordKey(fresh[agreed].text) === wordKey(this.previousHypothesis[agreed].text) &&
      // A word at the very end of the audio may be cut mid-way ("son" of "sonny", "his..."): it waits for
      // the audio after it, so the prefix it becomes is whole.
      (speechStopped || fresh[agreed].end <= this.audioS - COMMIT_MARGIN_S)
    ) {
      agreed++;
    }
    const forced = bufferS >= FORCE_COMMIT_S;
    // At the buffer's limit keep the newest ~5 s uncommitted so the cut does not split a word.
    const commitCount = forced ? Math.max(agreed, fresh.filter((w) => w.end < this.audioS - 5).length) : agreed;
    const committed = this.commit(fresh.slice(0, commitCount));
    this.previousHypothesis = fresh.slice(commitCount);
    this.maybeTrim(forced);
    return { committed, draft: this.draft() };
  }

  /** End of audio (or a pause): everything said is committed. */
  async flush(): Promise<StreamUpdate> {
    await this.updateVoiceActivity();
    const committed = this.buffer.length / SAMPLE_RATE >= 0.1 && this.lastSpeechS >= this.bufferStartS ? await this.commitTake() : [];
    this.previousHypothesis = [];
    this.trimTo(this.audioS);
    this.takeStartS = this.lastCommittedEndS;
    return { committed, draft: [] };
  }

  /**
   * The take is over (a pause, the end of audio, a long silence): one pass, and everything it says is committed.
   * Beam search may end the text before the speech ends (an early end of text outranks the last words: "… more
   * respectable than" for "… than he was"); while voice activity heard speech after the last committed word, another
   * pass, with what was just committed as its prefix, decodes only that speech.
   */
  private async commitTake(): Promise<Segment[]> {
    const taken: StreamWord[] = [];
    for (let passes = 0, cut = 0; passes <= TAIL_PASSES + cut && cut <= MAX_CUT_PASSES; passes++) {
      const words = await this.freshWords();
      this.record(words);
      taken.push(...words);
      // A pass cut short of the buffer's end leaves the rest to the passes after it.
      if (this.lastPassCut) cut++;
      if (words.length === 0 || this.lastSpeechS <= this.lastCommittedEndS + UNCOVERED_SPEECH_S) break;
    }
    this.previousHypothesis = [];
    this.takeStartS = this.lastCommittedEndS;
    return this.segmentOf(taken);
  }

  private draft(): { start: number; text: string }[] {
    if (this.previousHypothesis.length === 0) return [];
    return [{ start: this.previousHypothesis[0].start, text: this.previousHypothesis.map((w) => w.text).join(' ') }];
  }

  /**
   * A pass's new words, checked against voice activity. Whisper may skip speech that other speech follows in the
   * same window: a 10 s bite holding a lecturer's sentence and then a reader's came out as the reader's sentence
   * said twice, its first "He" stretched over the lecturer's five seconds. Speech of more than MIN_UNCOVERED_SPEECH_S
   * before the last new word that no word covers (each reaching at most longestWordS, as the file path counts it) was
   * skipped, and is decoded again:
   * - the pass again on the buffer cut CUT_MARGIN_S after that speech, so the audio that drew the model away is not
   *   heard;
   * - if that skips it too (conditioned on the words before it, the model may end the text there), the speech alone,
   *   without prefix or prompt (as the file path decodes uncovered speech), after the pass's words before it.
   * The first that covers more speech gives the pass's words, those clear of the cut; the rest of the buffer is left to
   * the passes after (`lastPassCut`).
   */
  private async freshWords(): Promise<StreamWord[]> {
    this.lastPassCut = false;
    const fresh = await this.withoutRedecodedTail(this.afterCommitted(await this.pass()));
    const skipped = this.skippedSpeech(fresh);
    if (!skipped) return fresh;
    const cutS = skipped.end + CUT_MARGIN_S;
    // A word running into the cut may be cut mid-way; it waits for the pass after, unless the cut is in a pause.
    const speechAtCut = this.speech.some((run) => run.start < cutS && run.end > cutS - SPEECH_STOPPED_S);
    const clearOfCut = (word: StreamWord) => !speechAtCut || word.end <= cutS - COMMIT_MARGIN_S;
    const coversMore = (words: StreamWord[]) => words.length > 0
      && (this.skippedSpeech(words, cutS)?.speechS ?? 0) < skipped.speechS;
    const cut = (await this.withoutRedecodedTail(this.afterCommitted(await this.pass({ untilS: cutS })))).filter(clearOfCut);
    if (coversMore(cut)) {
      this.lastPassCut = true;
      return cut;
    }
    const fromS = Math.max(this.lastCommittedEndS, skipped.start - CUT_MARGIN_S);
    const before = fresh.filter((word) => (word.start + word.end) / 2 < skipped.start);
    const alone = this.afterCommitted(await this.pass({ fromS, untilS: cutS }))
      .filter((word) => (word.start + word.end) / 2 >= skipped.start - CUT_MARGIN_S && clearOfCut(word));
    if (!coversMore([...before, ...alone])) return fresh;
    this.lastPassCut = true;
    return [...before, ...alone];
  }

  /**
   * The first stretch of speech voice activity heard after the committed words and before `untilS` (default: the
   * start of the last of `fresh`) that neither committed nor fresh words cover, if it holds over
   * MIN_UNCOVERED_SPEECH_S. Speech after the last word is not asked about here: it is the draft's or a take's tail.
   */
  private skippedSpeech(fresh: StreamWord[], untilS = fresh[fresh.length - 1]?.start): UncoveredSpeech | undefined {
    if (untilS === undefined || untilS <= this.lastCommittedEndS) return undefined;
    const fromS = this.lastCommittedEndS;
    const speech = this.speech
      .filter((run) => run.end > fromS)
      .map((run) => ({ start: Math.max(run.start, fromS), end: run.end }));
    // The last committed word may reach past its end (WORD_REACH_S) into the speech asked about.
    const spans = [...this.committedWords.slice(-1), ...fresh].map((word) => ({
      start: word.start, end: Math.min(word.end, word.start + longestWordS(word.text)),
    }));
    return uncoveredStretches(speech, spans, untilS)[0];
  }

  /**
   * Transcribes the buffer as one window, the committed words inside it forced as the prefix; returns the words
   * after them, timed on the stream's timeline. `untilS` (source seconds) cuts the buffer short; `fromS` decodes only
   * the buffer from there, alone: no prefix, no prompt.
   */
  private async pass(range: { fromS?: number; untilS?: number } = {}, temperatures = this.temperatures): Promise<StreamWord[]> {
    const { model, tokenizer } = this.engine;
    const sampleAt = (sourceS: number) => Math.min(
      this.buffer.length, Math.max(0, Math.round((sourceS - this.bufferStartS) * SAMPLE_RATE)),
    );
    const alone = range.fromS !== undefined;
    const from = alone ? sampleAt(range.fromS!) : 0;
    const heard = range.untilS === undefined && !alone ? this.buffer : this.buffer.subarray(from, sampleAt(range.untilS ?? Infinity));
    const audio = heard.length > N_SAMPLES ? heard.subarray(heard.length - N_SAMPLES) : heard;
    const audioStartS = this.bufferStartS + (from + heard.length - audio.length) / SAMPLE_RATE;
    const frames = model.variableLength ? contextFrames(audio.length) : N_FRAMES;
    let features: Float32Array;
    if (audio === this.buffer) features = this.mel.features(audio);
    else if (heard !== this.buffer) features = logMelSpectrogram(audio);
    else {
      this.mel.reset();
      features = logMelSpectrogram(audio);
    }
    const windowDecoder = new WindowDecoder(model, await model.encode([features], frames));
    if (!this.language) {
      // Detect once there is a second of speech to go on, then keep it (setLanguage can change it).
      const detected = await detectLanguage(tokenizer, windowDecoder);
      if (audio.length >= SAMPLE_RATE) this.language = detected.language;
      else return [];
    }
    // Committed words the audio still holds are the prefix; the last of those already cut away (this take's), the prompt.
    const inAudio = (w: StreamWord) => w.end > audioStartS + 0.05;
    const prefix = alone ? [] : this.committedWords.filter(inAudio).flatMap((w) => w.tokens);
    const prompt = this.committedWords
      .filter((w) => !alone && !inAudio(w) && w.end > this.takeStartS)
      .flatMap((w) => w.tokens)
      .slice(-PROMPT_TOKENS);
    const audioS = audio.length / SAMPLE_RATE;
    const uncommittedS = Math.max(0, audioStartS + audioS - Math.max(this.lastCommittedEndS, audioStartS));
    const decoded = await decodeWithFallback(
      tokenizer,
      windowDecoder,
      {
        language: this.language,
        beamSize: this.beamSize,
        bestOf: 1,
        previousTokens: prompt,
        prefix,
        withoutTimestamps: true,
        maxInitialTimestampS: 1,
        // Speech runs at 2–5 tokens a second: far more than that for the uncommitted audio is a loop.
        maxNewTokens: Math.ceil(uncommittedS * MAX_TOKENS_PER_S) + 8,
      },
      temperatures,
    );
    if (decoded.tokens.length === 0 || isSilence(decoded)) return [];
    // Align prefix and tail together (the prefix anchors where the tail starts), keep the tail's words.
    const aligned = await alignWords(
      model,
      tokenizer,
      windowDecoder.encoderHidden,
      decoded.sotSequence,
      [...prefix, ...decoded.tokens],
      Math.ceil(audio.length / HOP_LENGTH),
      this.language,
      prefix.length,
    );
    let tokensSeen = 0;
    const words: StreamWord[] = [];
    for (const word of aligned) {
      tokensSeen += word.tokens.length;
      if (tokensSeen <= prefix.length) continue;
      const text = word.text.trim();
      if (!text) continue;
      const start = audioStartS + Math.min(word.start, audioS);
      words.push({ start, end: Math.max(start, audioStartS + Math.min(word.end, audioS)), text, prob: word.prob, tokens: word.tokens });
    }
    return words;
  }

  /**
   * The words of a pass that are new. A small model given a prefix that already covers all it hears tends
   * to say some of it again ("… to Dublin? And says, how do I get to Dublin?"). Such words have no audio
   * left to align to, so the alignment squeezes them into one instant: runs of SQUEEZED_RUN words shorter
   * than a frame are dropped wherever they are. Such a run is often a loop ("meters. Go forward 10 meters." over the
   * audio of "meters."): its last word, saying the word before the run again, took the rest of that word's audio,
   * and is taken as that word's end. A loop's first words may have got the silence after the speech instead ("10
   * meters. Go" + a squeezed "forward 10 meters."): those that with the run say the words before them again go too.
   * A loop may go on past its last word in a shorter squeezed run ("meters." + a squeezed "Go" at the end of the
   * audio): squeezed words that say only the loop's words go with it.
   *
   * The model may also reject the prefix and say the committed audio again in other words (a prefix "I was
   * just saying, much of" for speech that was "That is to say, much of …"): prefix and tail are aligned
   * together, the prefix is squeezed and the repeat gets the committed words' audio. A word lying mostly in
   * audio already committed (its middle before the committed end, less one alignment frame of jitter) is
   * not new, whatever it says: it is dropped (whisper_streaming keeps only words after the last committed
   * time too). Words in audio voice activity heard as silence are dropped (`inSilence`).
   */
  private afterCommitted(words: StreamWord[]): StreamWord[] {
    const squeezed = (w: StreamWord) => w.end - w.start < SQUEEZED_S;
    const committedAudio = (w: StreamWord) => (w.start + w.end) / 2 < this.lastCommittedEndS - ALIGNMENT_FRAME_S;
    const kept: StreamWord[] = [];
    /** The words of a loop just dropped (till a word with audio of its own): a shorter squeezed run saying only them goes on with it. */
    let loop: Set<string> | null = null;
    for (let i = 0; i < words.length; ) {
      let run = 0;
      while (i + run < words.length && squeezed(words[i + run])) run++;
      if (run === 0) {
        kept.push(words[i++]);
        loop = null;
      } else {
        const last = kept[kept.length - 1];
        const next = words[i + run];
        const said = words.slice(i, i + run);
        if (run < SQUEEZED_RUN) {
          if (!loop || !said.every((w) => loop!.has(wordKey(w.text)))) kept.push(...said);
        } else if (last && next && wordKey(next.text) === wordKey(last.text)) {
          // A loop's last word: the end of the word it repeats, not a word said again.
          kept[kept.length - 1] = { ...last, end: next.end };
          run++;
        } else kept.splice(kept.length - this.loopHead(kept, said));
        if (run >= SQUEEZED_RUN) loop = new Set(said.map((w) => wordKey(w.text)));
        i += run;
      }
    }
    for (let i = kept.length - 1; i >= 0; i--) if (committedAudio(kept[i]) || this.inSilence(kept[i])) kept.splice(i, 1);
    return kept;
  }

  /** How many of the last of `kept` begin a copy, `run` its squeezed rest, of the words said just before it (0: none). */
  private loopHead(kept: StreamWord[], run: StreamWord[]): number {
    const key = (w: StreamWord) => wordKey(w.text);
    const rest = run.map(key);
    for (let head = 1; head <= Math.min(5, kept.length); head++) {
      const copy = [...kept.slice(-head).map(key), ...rest];
      const before = [...this.committedWords.slice(-copy.length), ...kept.slice(0, -head)].slice(-copy.length).map(key);
      if (before.length === copy.length && before.every((word, index) => word === copy[index])) return head;
    }
    return 0;
  }

  /**
   * A pass that starts by saying the committed tail again (1–5 words, e.g. just after a cut, the prompt read out once
   * more) loses that repeat, unless the speaker did say it again: the audio after the committed words, decoded alone
   * (no prefix, no prompt to read out, greedy), starts with the same words. Dropped unchecked, a sentence said twice
   * lost its second saying ("Go forward 10 meters." twice, the first committed before the second was heard).
   */
  private async withoutRedecodedTail(words: StreamWord[]): Promise<StreamWord[]> {
    const repeated = this.repeatOfCommittedTail(words);
    if (repeated === 0) return words;
    const alone = this.afterCommitted(await this.pass({ fromS: this.lastCommittedEndS }, [0]));
    return this.repeatOfCommittedTail(alone) >= repeated ? words : words.slice(repeated);
  }

  /** How many of the first of `words` say the last committed words again (0 at a take's start: nothing to repeat). */
  private repeatOfCommittedTail(words: StreamWord[]): number {
    if (this.lastCommittedEndS <= this.takeStartS) return 0;
    const tail = this.committedWords.slice(-5).map((w) => wordKey(w.text));
    for (let n = Math.min(5, tail.length, words.length); n >= 1; n--) {
      if (words.slice(0, n).map((w) => wordKey(w.text)).join(' ') === tail.slice(-n).join(' ')) return n;
    }
    return 0;
  }

  /**
   * Whether voice activity heard no speech within SPEECH_PAD_S of a word: the model filled a pause (e.g. it said
   * the committed text again into the silence after it). The file path never decodes such audio (its windows
   * are speech regions with the same padding). A word starting too near the end of what the VAD scored is not judged
   * (a hallucination stretched over the trailing silence to the end of the audio is).
   */
  private inSilence(word: StreamWord): boolean {
    const scoredS = (this.vadChunks * VAD_CHUNK) / SAMPLE_RATE;
    if (word.start + SPEECH_PAD_S > scoredS) return false;
    // Judged on the audio scored so far: a real word heard for SPEECH_PAD_S from its start has had speech heard in it.
    const from = word.start - SPEECH_PAD_S;
    const to = Math.min(word.end + SPEECH_PAD_S, scoredS);
    return !this.speech.some((r) => r.start < to && r.end > from);
  }

  private commit(words: StreamWord[]): Segment[] {
    this.record(words);
    return this.segmentOf(words);
  }

  /** Words committed for good: the next passes' prefix. */
  private record(words: StreamWord[]): void {
    if (words.length === 0) return;
    this.committedWords.push(...words);
    this.lastCommittedEndS = Math.max(this.lastCommittedEndS, words[words.length - 1].end);
  }

  /** Committed words as the segment that reports them (none for no words). */
  private segmentOf(words: StreamWord[]): Segment[] {
    if (words.length === 0) return [];
    const publicWords: Word[] = words.map(({ start, end, text, prob }) => ({ start, end, text, prob }));
    return [
      {
        start: publicWords[0].start,
        end: publicWords[publicWords.length - 1].end,
        text: publicWords.map((w) => w.text).join(' '),
        words: publicWords,
        confidence: publicWords.reduce((sum, w) => sum + w.prob, 0) / publicWords.length,
        language: this.language ?? 'en',
      },
    ];
  }

  private maybeTrim(forced: boolean): void {
    const bufferS = this.buffer.length / SAMPLE_RATE;
    if (bufferS > TRIM_AFTER_S || forced) {
      // Cut after a committed sentence (a clean boundary for the next pass); cutting after any word loses
      // the words around the cut. Only at the buffer's limit is a mid-sentence cut taken.
      const inBuffer = this.committedWords.filter((w) => w.end > this.bufferStartS);
      const sentenceEnd = inBuffer.filter((w) => /[.?!。？！]$/.test(w.text)).pop();
      if (sentenceEnd) this.trimTo(sentenceEnd.end);
      else if (forced && inBuffer.length) this.trimTo(this.lastCommittedEndS);
      // Voice activity heard speech but the model says nothing of the older audio (music, noise): it goes, or the
      // buffer would outgrow the model's window and keep growing.
      else if (forced) this.trimTo(this.audioS - 5);
    }
    // Keep the committed-word list (only its tail is used as the prompt) from growing without end.
    if (this.committedWords.length > 400) this.committedWords = this.committedWords.slice(-200);
  }

  private trimTo(sourceS: number): void {
    // Whole hops (10 ms), so the features of the audio kept can be kept too.
    const hops = Math.round(((sourceS - this.bufferStartS) * SAMPLE_RATE) / HOP_LENGTH);
    const drop = Math.min(this.buffer.length, Math.max(0, hops * HOP_LENGTH));
    if (drop === 0) return;
    this.mel.cut(drop);
    this.buffer = this.buffer.slice(drop);
    this.bufferStartS += drop / SAMPLE_RATE;
    // Speech heard before the buffer (less the padding a word there could still reach) is no longer asked about.
    const keepFrom = this.bufferStartS - SPEECH_PAD_S - 1;
    while (this.speech.length > 0 && this.speech[0].end < keepFrom) this.speech.shift();
  }
}
