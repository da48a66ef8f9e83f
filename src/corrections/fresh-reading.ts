/**
 * A fresh automatic reading of a line's audio, for the voiced rule: the line's stretch of the recording's audio (its
 * master, or an open live recording's capture) is cut as a WAV clip and decoded on the gateway's engine threads
 * (the realtime host, injected by src/entry/services.ts) with the recording's language and beam search. It is
 * asked for only when the recognizer's text does not hold every word a correction says. Null when none can be had
 * (no audio yet, the line past its end or longer than a clip, the engine unavailable or slower than
 * READ_TIMEOUT_MS): the rule then judges against the recognizer's text alone, so such a correction is not voiced.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { capturedSeconds, CAPTURE_FILE, MAX_CLIP_S, mediaPath, wavClip } from '../recordings/media.js';
import type { EngineThreads } from '../../workers/engine/threads.js';

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

export class FreshReader {
  /** `engine`: the host to decode on, or null where this process has none. */
  constructor(private readonly dataDir: string, private readonly engine: () => EngineHost | null) {}

  /** The text the engine hears in [startS, endS) of the recording's audio, or null when no reading can be had. */
  async read(recording: RecordingAudio, startS: number, endS: number, language: string | null): Promise<string | null> {
    const capture = recording.kind === 'live' && !recording.masterPath;
    const lengthS = capture ? capturedSeconds(this.dataDir, recording.id) : recording.durationS;
    const input = capture ? mediaPath(this.dataDir, path.join(recording.id, CAPTURE_FILE)) : recording.masterPath && mediaPath(this.dataDir, recording.masterPath);
    const to = Math.min(endS, lengthS ?? 0);
    if (!input || to <= startS || to - startS > MAX_CLIP_S) return null;
    let engine: EngineHost | null;
    try {
      engine = this.engine();
    } catch {
      return null;
    }
    if (!engine || engine.unavailable()) return null;
    const file = path.join(os.tmpdir(), `sg-line-${randomUUID()}.wav`);
    let timer: NodeJS.Timeout | undefined;
    try {
      await writeFile(file, await wavClip(input, startS, to, { rawPcm: capture }));
      const texts: string[] = [];
      const reading = engine.transcribeFile({
        path: file,
        beamSize: BEAM_SIZE,
        ...(language ?? recording.spokenLanguage ? { language: (language ?? recording.spokenLanguage)! } : {}),
        onSegment: async (segment) => { texts.push(segment.text); },
      }).then(() => texts.join(' '), () => null);
      const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), READ_TIMEOUT_MS); });
      return await Promise.race([reading, timeout]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
      // After a timeout the engine's late answer is ignored (and its failure, once the clip is gone, too).
      await rm(file, { force: true }).catch(() => undefined);
    }
  }
}
