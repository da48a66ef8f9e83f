import type { ExportSnapshot } from './types.js';
import { speakerLabel } from './types.js';

/** 3725.5 → "01:02:05,500" (SRT's comma before milliseconds). */
export function srtTimestamp(seconds: number): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const ms = totalMs % 1000;
  const totalS = Math.floor(totalMs / 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(totalS / 3600))}:${pad(Math.floor((totalS % 3600) / 60))}:${pad(totalS % 60)},${pad(ms, 3)}`;
}

/**
 * One cue per sentence: sentences are what a reader sees as lines, and a cue per sentence keeps captions short.
 * With speaker labels on, the cue opens with the speaker's name, the common caption convention.
 */
export function renderSrt(snapshot: ExportSnapshot): string {
  const cues: string[] = [];
  for (const sentence of snapshot.sentences) {
    const text = sentence.text.trim();
    if (!text) continue;
    // An SRT cue ends at a blank line: collapse any line breaks inside the text.
    const oneLine = text.replace(/\s*\n+\s*/g, ' ');
    const speaker = speakerLabel(snapshot, sentence.speaker);
    const end = sentence.end > sentence.start ? sentence.end : sentence.start + 0.5;
    cues.push(
      `${cues.length + 1}\n${srtTimestamp(sentence.start)} --> ${srtTimestamp(end)}\n${speaker ? `${speaker}: ` : ''}${oneLine}\n`,
    );
  }
  return cues.join('\n');
}
