/**
 * A fresh automatic reading of a line's audio, for the voiced rule: the line's stretch of the recording's audio (its
 * master, or an open live recording's capture) is cut as a WAV clip and decoded on the gateway's engine threads
 * (the realtime host, injected by src/entry/services.ts) with the recording's language and beam search. It is
 * asked for only when the recognizer's text does not hold every word a correction says. Null when none can be had
 * (no audio yet, the line past its end or longer than a clip, the engine unavailable or slower than
 * READ_TIMEOUT_MS): the rule then judges against the recognizer's text alone, so such a correction is not voiced.
 * Retranscribe (`readLine` with `whole`) needs the whole line and is told why a reading could not be had.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { capturedSeconds, CAPTURE_FILE, MAX_CLIP_S, mediaPath, wavClip } from '../transcript/index.js';
import type { EngineThreads } from '../../workers/engine/index.js';

/** The part of the engine host a reading uses. */
export type EngineHost = Pick<EngineThreads, 'transcribeFile' | 'unavailable'>;

export interface RecordingAudio {
  id: string;
  kind: string;
  masterPath: string | null;
  durationS: number | null;
  spokenLanguage: string | null;
}

const READ_TIMEOUT_MS = 30_000;
const BEAM_SIZE = 5;

/**
 * A reading of a line, or why none was had: `no_audio` (the line's audio has not reached this machine yet: an open
 * live recording's capture, or a master not written yet, ends before the line does), `too_long` (over a clip),
 * `past_end` (the line ends past a finished recording's audio), `engine` (no engine here, unavailable, busy past
 * READ_TIMEOUT_MS, or it failed; `retryAfterS` when it said).
 */
export type LineReading =
  | { kind: 'text'; text: string }
  | { kind: 'no_audio'; haveS: number }
  | { kind: 'too_long' }
  | { kind: 'past_end'; haveS: number }
  | { kind: 'engine'; retryAfterS: number; message: string };

/** Audio may end a little before the line's last word does (rounding of times). */
const END_SLACK_S = 0.25;

export class FreshReader {
  /** `engine`: the host to decode on, or null where this process has none. */
  constructor(private readonly dataDir: string, private readonly engine: () => EngineHost | null) {}

  /** The text the engine hears in [startS, endS) of the recording's audio, or null when no reading can be had. */
  async read(recording: RecordingAudio, startS: number, endS: number, language: string | null): Promise<string | null> {
    const reading = await this.readLine(recording, startS, endS, language, { whole: false });
    return reading.kind === 'text' ? reading.text : null;
  }

  /**
   * The line's audio decoded with `language` forced and beam search. `whole`: the line's audio must all be there
   * (retranscribe); otherwise what there is of it is read (the voiced rule).
   */
  async readLine(
    recording: RecordingAudio, startS: number, endS: number, language: string | null, options: { whole: boolean },
  ): Promise<LineReading> {
    const capture = recording.kind === 'live' && !recording.masterPath;
    const lengthS = (capture ? capturedSeconds(this.dataDir, recording.id) : recording.durationS) ?? 0;
    const input = capture ? mediaPath(this.dataDir, path.join(recording.id, CAPTURE_FILE)) : recording.masterPath && mediaPath(
      this.dataDir, recording.masterPath,
    );
    if (endS - startS > MAX_CLIP_S) return { kind: 'too_long' };
    if (!input) return { kind: 'no_audio', haveS: 0 };
    // An open capture still grows: what it lacks has not arrived yet. A master is whole: what it lacks never will.
    const missing = (): LineReading => (capture ? { kind: 'no_audio', haveS: lengthS } : { kind: 'past_end', haveS: lengthS });
    if (options.whole && lengthS + END_SLACK_S < endS) return missing();
    const to = Math.min(endS, lengthS);
    if (to <= startS) return missing();
    let engine: EngineHost | null;
    try {
      engine = this.engine();
    } catch (error) {
      return { kind: 'engine', retryAfterS: 5, message: (error as Error).message };
    }
    const refusal = engine ? engine.unavailable() : null;
    if (!engine || refusal) {
      return {
        kind: 'engine', retryAfterS: Number(refusal?.details.retryAfterS ?? 5) || 5,
        message: refusal?.message ?? 'This process runs no speech engine.',
      };
    }
    const file = path.join(os.tmpdir(), `sg-line-${randomUUID()}.wav`);
    let timer: NodeJS.Timeout | undefined;
    try {
      await writeFile(file, await wavClip(input, startS, to, { rawPcm: capture }));
      const texts: string[] = [];
      const forced = language ?? recording.spokenLanguage;
      const reading = engine.transcribeFile({
        path: file,
        beamSize: BEAM_SIZE,
        ...(forced ? { language: forced } : {}),
        onSegment: async (segment) => { texts.push(segment.text); },
      }).then(
        (): LineReading => ({ kind: 'text', text: texts.join(' ').replace(/\s+/g, ' ').trim() }),
        (error: Error): LineReading => ({ kind: 'engine', retryAfterS: 5, message: error.message }),
      );
      const timeout = new Promise<LineReading>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'engine', retryAfterS: 5, message: `The speech engine did not answer within `
          + `${READ_TIMEOUT_MS / 1000} s (busy).` }), READ_TIMEOUT_MS);
      });
      return await Promise.race([reading, timeout]);
    } catch (error) {
      return { kind: 'engine', retryAfterS: 5, message: (error as Error).message };
    } finally {
      clearTimeout(timer);
      // After a timeout the engine's late answer is ignored (and its failure, once the clip is gone, too).
      await rm(file, { force: true }).catch(() => undefined);
    }
  }
}
