/**
 * What every export format is rendered from: one transcript snapshot as the transcript endpoint shows it to the
 * reader (lines under the confidence threshold flagged). Renderers never read the database, so a partial
 * snapshot of a running job renders the same way as a finished one, only flagged.
 */
import type { CommittedSegment } from '../../transcript/index.js';

export type { CommittedSegment };
export interface ExportSentence {
  id: string;
  speaker: number;
  start: number;
  end: number;
  text: string;
  /** Below the confidence policy's `hideBelow`: owners and share-link readers still see the words. */
  unclear?: boolean;
  /** An export in another language (`lang`): the sentence as spoken; `text` is then its translation. */
  original?: string;
}

export interface ExportSpeaker { index: number; name: string | null }

export interface ExportSnapshot {
  recordingId: string;
  /** The transcription's name, used for titles and file names. */
  name: string;
  language: string | null;
  /**
   * The language the file reads in when it is not the spoken one (`?lang=`): every sentence's `text` is its
   * translation (`original` the spoken text), and the file name carries the code. Absent or null: the spoken language.
   */
  lang?: string | null;
  durationS: number | null;
  /** True while the job still runs: the file holds what is committed so far. */
  partial: boolean;
  createdAt: Date;
  lastSeq: number;
  sentences: ExportSentence[];
  segments: CommittedSegment[];
  speakers: ExportSpeaker[];
}

export type ExportFormat = 'srt' | 'json' | 'xlsx' | 'pdf';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['srt', 'json', 'xlsx', 'pdf'];

export interface RenderedExport {
  body: Buffer;
  contentType: string;
  fileName: string;
  partial: boolean;
}

/** "Speaker 2" unless the speaker was named; null when speaker labels were off (-1). */
export function speakerLabel(snapshot: ExportSnapshot, speaker: number): string | null {
  if (speaker < 0) return null;
  const named = snapshot.speakers.find((s) => s.index === speaker)?.name;
  return named && named.trim() ? named : `Speaker ${speaker + 1}`;
}
