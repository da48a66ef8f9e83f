/** Committed segments of known text, stored the way every path commits text (`commitSegment` + its durable frame). */
import { commitSegment, inTransaction } from '../../src/transcript/events.js';
import type { TestServer } from './server.js';

export interface KnownSegment {
  text: string;
  start: number;
  /** Every word's probability (default 0.9). */
  prob?: number;
  /** The speaker label (default -1: labels off). */
  speaker?: number;
  language?: string;
}

/** Commits `segment` to the recording with its next seq; answers the seq. */
export async function commitKnown(server: TestServer, recordingId: string, segment: KnownSegment): Promise<number> {
  const prob = segment.prob ?? 0.9;
  const words = segment.text.split(' ').map((word, i) => ({
    text: ` ${word}`, prob, start: segment.start + 0.4 * i, end: segment.start + 0.4 * i + 0.3,
  }));
  const end = words.at(-1)!.end;
  return inTransaction({ prisma: server.prisma, pubsub: server.app.pubsub }, recordingId, async (tx) => {
    const committed = await commitSegment(tx, recordingId, {
      speaker: segment.speaker ?? -1, start: segment.start, end, text: segment.text, words, confidence: prob,
      language: segment.language ?? 'en', decoder: 'accuracy',
    });
    return { result: committed.seq, frames: [committed.frame] };
  });
}
