import ExcelJS from 'exceljs';
import type { ExportSnapshot } from './types.js';
import { speakerLabel } from './types.js';

/**
 * Workbook with three sheets: "Transcript" (one row per sentence, what people edit and filter), "Words" (word
 * timings, for people who re-time captions) and "About" (name, language, whether the file is partial). In another
 * language (`lang`) "Text" holds each sentence's translation and an "Original" column the spoken text.
 * Times are seconds as numbers so spreadsheets can compute with them.
 */
export async function renderXlsx(snapshot: ExportSnapshot): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'speechgate';
  workbook.created = snapshot.createdAt;

  const transcript = workbook.addWorksheet('Transcript');
  transcript.columns = [
    { header: 'Start (s)', key: 'start', width: 10 },
    { header: 'End (s)', key: 'end', width: 10 },
    { header: 'Speaker', key: 'speaker', width: 14 },
    { header: 'Text', key: 'text', width: 80 },
    { header: 'Unclear', key: 'unclear', width: 9 },
    ...(snapshot.lang ? [{ header: 'Original', key: 'original', width: 80 }] : []),
  ];
  transcript.getRow(1).font = { bold: true };
  for (const sentence of snapshot.sentences) {
    transcript.addRow({
      start: round3(sentence.start),
      end: round3(sentence.end),
      speaker: speakerLabel(snapshot, sentence.speaker) ?? '',
      text: sentence.text,
      unclear: sentence.unclear ? 'yes' : '',
      ...(snapshot.lang ? { original: sentence.original ?? '' } : {}),
    });
  }
  transcript.getColumn('text').alignment = { wrapText: true, vertical: 'top' };
  if (snapshot.lang) transcript.getColumn('original').alignment = { wrapText: true, vertical: 'top' };

  const words = workbook.addWorksheet('Words');
  words.columns = [
    { header: 'Segment', key: 'seq', width: 9 },
    { header: 'Start (s)', key: 'start', width: 10 },
    { header: 'End (s)', key: 'end', width: 10 },
    { header: 'Word', key: 'text', width: 24 },
    { header: 'Probability', key: 'prob', width: 12 },
  ];
  words.getRow(1).font = { bold: true };
  for (const segment of snapshot.segments) {
    for (const word of segment.words) {
      words.addRow({ seq: segment.seq, start: round3(word.start), end: round3(word.end), text: word.text.trim(), prob: round3(word.prob) });
    }
  }

  const about = workbook.addWorksheet('About');
  about.columns = [{ key: 'field', width: 14 }, { key: 'value', width: 60 }];
  about.addRows([
    { field: 'Name', value: snapshot.name },
    { field: 'Recording', value: snapshot.recordingId },
    { field: 'Language', value: snapshot.language ?? '' },
    { field: 'Duration (s)', value: snapshot.durationS === null ? '' : round3(snapshot.durationS) },
    { field: 'Partial', value: snapshot.partial ? 'yes: the job is still running' : 'no' },
    ...(snapshot.lang ? [{ field: 'Translated into', value: snapshot.lang }] : []),
  ]);

  const data = await workbook.xlsx.writeBuffer();
  return Buffer.from(data as ArrayBuffer);
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
