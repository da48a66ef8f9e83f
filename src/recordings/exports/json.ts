import type { ExportSnapshot } from './types.js';
import { speakerLabel } from './types.js';

/** The JSON export: the snapshot in the transcript endpoint's vocabulary, plus the export flags. */
export function renderJson(snapshot: ExportSnapshot): string {
  return JSON.stringify(
    {
      recordingId: snapshot.recordingId,
      name: snapshot.name,
      language: snapshot.language,
      durationS: snapshot.durationS,
      partial: snapshot.partial,
      // Exports in another language are not produced by this module yet; the field is kept for clients that branch on it.
      translated: false,
      lastSeq: snapshot.lastSeq,
      createdAt: snapshot.createdAt.toISOString(),
      speakers: snapshot.speakers.map((s) => ({ index: s.index, name: speakerLabel(snapshot, s.index) })),
      sentences: snapshot.sentences.map((s) => ({
        id: s.id,
        speaker: s.speaker,
        start: s.start,
        end: s.end,
        text: s.text,
        ...(s.unclear ? { unclear: true } : {}),
      })),
      segments: snapshot.segments.map((s) => ({
        seq: s.seq,
        speaker: s.speaker,
        start: s.start,
        end: s.end,
        text: s.text,
        confidence: s.confidence,
        language: s.language,
        words: s.words,
      })),
    },
    null,
    2,
  );
}
