import type { ExportSnapshot } from './types.js';
import { speakerLabel } from './types.js';

/**
 * The JSON export: the snapshot in the transcript endpoint's vocabulary, plus the export flags. In another language
 * (`lang`) `translated` is true and each sentence's `text` is its translation, `original` the spoken text; the
 * segments stay as spoken (their words are timed on the audio).
 */
export function renderJson(snapshot: ExportSnapshot): string {
  return JSON.stringify(
    {
      recordingId: snapshot.recordingId,
      name: snapshot.name,
      language: snapshot.language,
      lang: snapshot.lang ?? snapshot.language,
      durationS: snapshot.durationS,
      partial: snapshot.partial,
      translated: !!snapshot.lang,
      lastSeq: snapshot.lastSeq,
      createdAt: snapshot.createdAt.toISOString(),
      speakers: snapshot.speakers.map((s) => ({ index: s.index, name: speakerLabel(snapshot, s.index) })),
      sentences: snapshot.sentences.map((s) => ({
        id: s.id,
        speaker: s.speaker,
        start: s.start,
        end: s.end,
        text: s.text,
        ...(s.original !== undefined ? { original: s.original } : {}),
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
