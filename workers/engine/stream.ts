/**
 * Live transcription with a LocalAgreement-2 policy (Macháček et al., whisper_streaming): every step()
 * transcribes the audio not yet committed; words that two consecutive passes agree on (same words, same
 * order, after what is already committed) are committed for good, the rest is a draft that may still
 * change. The committed text is the prompt of the next pass, and once enough is committed the audio
 * buffer is cut at the last committed word so each pass stays short.
 */
import { errors } from '../../src/errors.js';
import { detectLanguage, WindowDecoder } from './decoding.js';
import { logMelSpectrogram, N_SAMPLES, SAMPLE_RATE } from './mel.js';
import { transcribeWindow, type PipelineModel, type Segment, type Word } from './pipeline.js';
import { DEFAULT_VAD_OPTIONS, VAD_CHUNK, type VadStream } from './vad.js';
import type { SpeechWindow } from './windows.js';

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

/** Once this much audio is buffered, cut it at the last committed word. */
const TRIM_AFTER_S = 12;
/** Never let the buffer reach the model's 30 s limit: commit what the last pass said and cut. */
const FORCE_COMMIT_S = 26;
/** Buffers shorter than this are not worth a pass. */
const MIN_PASS_S = 0.5;
/** Committed text the next pass is prompted with: ~200 characters, as whisper_streaming does. */
const PROMPT_TOKENS = 50;

const normalise = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');

export class StreamingTranscriber {
  private buffer = new Float32Array(0);
  /** Source seconds where buffer[0] is. */
  private bufferStartS = 0;
  private pushedSamples = 0;
  private language: string | undefined;
  private readonly beamSize: number;
  /** Fewer, bigger fallback steps than a file job: a pass must stay short for live latency. */
  private readonly temperatures: number[];
  private committedWords: StreamWord[] = [];
  private lastCommittedEndS = 0;
  /** The previous pass's words after the committed point (the "hypothesis" to agree with). */
  private previousHypothesis: StreamWord[] = [];
  private readonly vadStream: VadStream;
  private vadPending = new Float32Array(0);
  /** Source seconds of the last chunk the VAD heard as speech (−1: none yet). */
  private lastSpeechS = -1;
  private audioSinceLastPass = 0;

  constructor(
    private readonly engine: PipelineModel,
    options: StreamOptions = {},
  ) {
    this.language = this.checkedLanguage(options.language);
    this.beamSize = options.mode === 'accuracy' ? 5 : 1;
    this.temperatures = options.mode === 'accuracy' ? [0, 0.2, 0.4, 0.6, 0.8, 1.0] : [0, 0.4, 0.8];
    this.vadStream = engine.vad.createStream();
  }

  /** Seconds of audio pushed so far. */
  get audioS(): number {
    return this.pushedSamples / SAMPLE_RATE;
  }

  /** Forces a language from the next pass on; undefined or 'auto' detects it again. */
  setLanguage(language?: string): void {
    this.language = this.checkedLanguage(language);
  }

  private checkedLanguage(language?: string): string | undefined {
    if (!language || language === 'auto') return undefined;
    if (!this.engine.tokenizer.languageTokens.has(language)) {
      throw errors.invalidOptions(`language '${language}' is not one the model knows`, { field: 'language' });
    }
    return language;
  }

  push(pcm: Float32Array): void {
    const grown = new Float32Array(this.buffer.length + pcm.length);
    grown.set(this.buffer);
    grown.set(pcm, this.buffer.length);
    this.buffer = grown;
    this.pushedSamples += pcm.length;
    this.audioSinceLastPass += pcm.length;
    const vadInput = new Float32Array(this.vadPending.length + pcm.length);
    vadInput.set(this.vadPending);
    vadInput.set(pcm, this.vadPending.length);
    this.vadPending = vadInput;
  }

  /** Runs the VAD over what was pushed since the last step; remembers where speech was last heard. */
  private async updateVoiceActivity(): Promise<void> {
    if (this.vadPending.length < VAD_CHUNK) return;
    const startSample = this.pushedSamples - this.vadPending.length;
    const usable = this.vadPending.length - (this.vadPending.length % VAD_CHUNK);
    const probabilities = await this.vadStream.push(this.vadPending.subarray(0, usable));
    probabilities.forEach((p, i) => {
      if (p >= DEFAULT_VAD_OPTIONS.threshold) this.lastSpeechS = (startSample + (i + 1) * VAD_CHUNK) / SAMPLE_RATE;
    });
    this.vadPending = this.vadPending.slice(usable);
  }

  /** One pass: what two passes agree on is committed; the rest is the draft. */
  async step(): Promise<StreamUpdate> {
    await this.updateVoiceActivity();
    const bufferS = this.buffer.length / SAMPLE_RATE;
    if (bufferS < MIN_PASS_S) return { committed: [], draft: this.draft() };
    if (this.lastSpeechS < this.bufferStartS) {
      // No speech in the buffer at all: keep only a second of lead-in for the next word.
      this.trimTo(Math.max(this.bufferStartS, this.audioS - 1));
      this.previousHypothesis = [];
      return { committed: [], draft: [] };
    }
    const words = await this.pass();
    const fresh = this.afterCommitted(words);
    let agreed = 0;
    while (
      agreed < fresh.length &&
      agreed < this.previousHypothesis.length &&
      normalise(fresh[agreed].text) === normalise(this.previousHypothesis[agreed].text)
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

  /** End of audio: one last pass, and everything it says is committed. */
  async flush(): Promise<StreamUpdate> {
    await this.updateVoiceActivity();
    let committed: Segment[] = [];
    if (this.buffer.length / SAMPLE_RATE >= 0.1 && this.lastSpeechS >= this.bufferStartS) {
      const words = await this.pass();
      committed = this.commit(this.afterCommitted(words));
    }
    this.previousHypothesis = [];
    this.trimTo(this.audioS);
    return { committed, draft: [] };
  }

  private draft(): { start: number; text: string }[] {
    if (this.previousHypothesis.length === 0) return [];
    return [{ start: this.previousHypothesis[0].start, text: this.previousHypothesis.map((w) => w.text).join(' ') }];
  }

  /** Transcribes the whole buffer as one window; word times on the stream's timeline. */
  private async pass(): Promise<StreamWord[]> {
    const { model, tokenizer } = this.engine;
    this.audioSinceLastPass = 0;
    const audio = this.buffer.length > N_SAMPLES ? this.buffer.subarray(this.buffer.length - N_SAMPLES) : this.buffer;
    const startSample = Math.round(this.bufferStartS * SAMPLE_RATE) + (this.buffer.length - audio.length);
    const window: SpeechWindow = {
      audio,
      pieces: [{ offset: 0, sourceStart: startSample, length: audio.length }],
      sourceEnd: startSample + audio.length,
    };
    const windowDecoder = new WindowDecoder(model, await model.encode([logMelSpectrogram(audio)]));
    if (!this.language) {
      // Detect once there is a second of speech to go on, then keep it (setLanguage can change it).
      const detected = await detectLanguage(tokenizer, windowDecoder);
      if (audio.length >= SAMPLE_RATE) this.language = detected.language;
      else return [];
    }
    // Prompt with committed text that has scrolled out of the buffer only: words still inside it are heard
    // again, and a prompt that already holds them tempts the model to skip that audio.
    const prompt = this.committedWords
      .filter((w) => w.end <= this.bufferStartS + 0.05)
      .flatMap((w) => w.tokens)
      .slice(-PROMPT_TOKENS);
    const { segments, wordTokens } = await transcribeWindow(
      this.engine,
      window,
      windowDecoder,
      this.language,
      { beamSize: this.beamSize, bestOf: 1, temperatures: this.temperatures },
      prompt,
    );
    const words = segments.flatMap((s) => s.words);
    return words.map((w, i) => ({ ...w, tokens: wordTokens[i] ?? [] }));
  }

  /**
   * The words of a pass that come after the committed text: later than the last committed word (with a
   * little slack for alignment jitter), minus any repeat of the committed tail (1–5 words).
   */
  private afterCommitted(words: StreamWord[]): StreamWord[] {
    let fresh = words.filter((w) => w.start > this.lastCommittedEndS - 0.1 || w.end > this.lastCommittedEndS + 0.2);
    const tail = this.committedWords.slice(-5).map((w) => normalise(w.text));
    for (let n = Math.min(5, tail.length, fresh.length); n >= 1; n--) {
      const head = fresh.slice(0, n).map((w) => normalise(w.text));
      if (head.join(' ') === tail.slice(-n).join(' ')) {
        fresh = fresh.slice(n);
        break;
      }
    }
    return fresh;
  }

  private commit(words: StreamWord[]): Segment[] {
    if (words.length === 0) return [];
    this.committedWords.push(...words);
    this.lastCommittedEndS = Math.max(this.lastCommittedEndS, words[words.length - 1].end);
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
    }
    // Keep the committed-word list (only its tail is used as the prompt) from growing without end.
    if (this.committedWords.length > 400) this.committedWords = this.committedWords.slice(-200);
  }

  private trimTo(sourceS: number): void {
    const drop = Math.min(this.buffer.length, Math.max(0, Math.round((sourceS - this.bufferStartS) * SAMPLE_RATE)));
    if (drop === 0) return;
    this.buffer = this.buffer.slice(drop);
    this.bufferStartS += drop / SAMPLE_RATE;
  }
}
