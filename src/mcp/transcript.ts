/** A transcript snapshot (the RecordingTranscript operation's answer) as text a model reads: one line per sentence. */
import type { RecordingTranscriptQuery } from '../generated/graphql.js';

type Snapshot = RecordingTranscriptQuery['recordingTranscript'];

const clock = (seconds: number) => {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const mm = String(Math.floor((whole % 3600) / 60)).padStart(2, '0');
  const ss = String(whole % 60).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
};

/** `[mm:ss] Speaker: text` lines (the translation in `lang` where there is one), under a one-line header. */
export function transcriptText(snapshot: Snapshot, lang?: string): string {
  const names = new Map(snapshot.speakers.map((speaker) => [speaker.index, speaker.name]));
  const several = new Set(snapshot.sentences.map((sentence) => sentence.speaker)).size > 1;
  const lines = snapshot.sentences.filter((sentence) => !sentence.suppressed).map((sentence) => {
    const translated = lang ? (sentence.translations as Record<string, string> | null)?.[lang] : undefined;
    const who = several || names.get(sentence.speaker) ? `${names.get(sentence.speaker) ?? `Speaker ${sentence.speaker + 1}`}: ` : '';
    return `[${clock(sentence.start)}] ${who}${translated ?? sentence.text}`;
  });
  const state = snapshot.partial ? `partial, job ${snapshot.job?.state ?? 'running'}` : snapshot.state;
  const header = `Recording ${snapshot.recordingId} (transcription ${snapshot.transcriptionId}), ${state}, language `
    + `${snapshot.language ?? 'unknown'}${snapshot.durationS != null ? `, ${clock(snapshot.durationS)}` : ''}`;
  return [header, '', ...(lines.length ? lines : ['(no speech yet)'])].join('\n');
}
