import ExcelJS from 'exceljs';
import SrtParser from 'srt-parser-2';
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { parseExportFormat, renderExport, type ExportSnapshot } from '../../src/recordings/exports/index.js';
import { buildSentences, isUnclear, type SentenceSource } from '../../src/transcript/sentences.js';

// Segments shaped as the engine writes them (leading spaces on words, probabilities per word). The integration
// suite exports real transcripts; this file pins each format's structure with a transcript whose content is known.
function segment(seq: number, speaker: number, start: number, words: Array<[string, number]>): SentenceSource {
  const timed = words.map(([text, prob], i) => ({ start: start + i * 0.4, end: start + i * 0.4 + 0.35, text, prob }));
  return {
    seq, speaker, start, end: timed[timed.length - 1]!.end, text: timed.map((w) => w.text).join('').trim(), words: timed, confidence: null,
  };
}

const segments = [
  segment(0, 0, 0, [[' Go', 0.9], [' forward', 0.95], [' ten', 0.9], [' meters.', 0.92], [' Then', 0.9]]),
  segment(1, 0, 2.2, [[' turn', 0.88], [' left.', 0.9]]),
  segment(2, 1, 10, [[' Grüße', 0.3], [' aus', 0.4], [' Köln.', 0.2]]),
  segment(3, 1, 20, [[' Is', 0.9], [' that', 0.9], [' clear?', 0.9]]),
];

function snapshot(partial: boolean): ExportSnapshot {
  const sentences = buildSentences(segments).map((s) => ({ ...s, unclear: isUnclear(s) }));
  return {
    recordingId: 'rec_1',
    name: 'Directions: "north" / süd.wav',
    language: 'en',
    durationS: 21.5,
    partial,
    createdAt: new Date('2026-01-02T03:04:05Z'),
    lastSeq: 3,
    sentences,
    segments: segments.map((s) => ({ ...s, confidence: 0.9, language: 'en' })),
    speakers: [{ index: 0, name: 'Ada' }, { index: 1, name: null }],
  };
}

describe('sentences', () => {
  it('splits at sentence ends across segments and at speaker changes', () => {
    const sentences = buildSentences(segments);
    expect(sentences.map((s) => s.text)).toEqual(['Go forward ten meters.', 'Then turn left.', 'Grüße aus Köln.', 'Is that clear?']);
    expect(sentences[1]!.seqs).toEqual([0, 1]);
    expect(sentences[1]!.start).toBeCloseTo(1.6);
    expect(isUnclear(sentences[2]!)).toBe(true);
    expect(isUnclear(sentences[0]!)).toBe(false);
  });
});

describe('exports', () => {
  it('srt parses into one cue per sentence with speaker names and timings', async () => {
    const rendered = await renderExport(snapshot(false), 'srt');
    expect(rendered.fileName).toBe('Directions-north-sud.srt');
    const cues = new SrtParser().fromSrt(rendered.body.toString('utf8'));
    expect(cues.map((c) => c.text)).toEqual([
      'Ada: Go forward ten meters.',
      'Ada: Then turn left.',
      'Speaker 2: Grüße aus Köln.',
      'Speaker 2: Is that clear?',
    ]);
    expect(cues[1]!.startSeconds).toBeCloseTo(1.6, 2);
    expect(cues[2]!.startSeconds).toBeCloseTo(10, 2);
  });

  it('json carries partial, sentences with unclear and segments with words', async () => {
    const rendered = await renderExport(snapshot(true), 'json');
    expect(rendered.fileName).toBe('Directions-north-sud-partial.json');
    const parsed = JSON.parse(rendered.body.toString('utf8'));
    expect(parsed.partial).toBe(true);
    expect(parsed.sentences[2]).toMatchObject({ text: 'Grüße aus Köln.', unclear: true, speaker: 1 });
    expect(parsed.segments[0].words[1]).toMatchObject({ text: ' forward', prob: 0.95 });
  });

  it('xlsx reads back with one row per sentence, words and the partial flag', async () => {
    const rendered = await renderExport(snapshot(true), 'xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(rendered.body as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Transcript')!;
    expect(sheet.rowCount).toBe(5);
    expect(sheet.getRow(4).getCell(4).value).toBe('Grüße aus Köln.');
    expect(sheet.getRow(4).getCell(5).value).toBe('yes');
    expect(sheet.getRow(2).getCell(3).value).toBe('Ada');
    expect(workbook.getWorksheet('Words')!.rowCount).toBe(1 + 13);
    const about = workbook.getWorksheet('About')!;
    expect(String(about.getRow(5).getCell(2).value)).toMatch(/^yes/);
  });

  it('pdf text extracts in paragraphs per speaker with the partial notice', async () => {
    const rendered = await renderExport(snapshot(true), 'pdf');
    expect(rendered.body.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await getDocumentProxy(new Uint8Array(rendered.body));
    const { text } = await extractText(pdf, { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Partial transcript');
    // Ada's two sentences share a paragraph; Speaker 2 starts a new one, and a 10 s pause splits again.
    expect(flat).toContain('Go forward ten meters. Then turn left.');
    expect(flat).toMatch(/00:00:10 Speaker 2 \(partly unclear audio\) Grüße aus Köln\./);
    expect(flat).toMatch(/00:00:20 Speaker 2 Is that clear\?/);
  });

  it('refuses an unknown format naming the field', () => {
    try {
      parseExportFormat('docx');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('invalid_options');
      expect((error as ApiError).message).toContain('format');
    }
  });
});

describe('joining words', () => {
  it('spaces trimmed words, keeps leading-space words, glues punctuation and CJK', async () => {
    const { joinWords } = await import('../../src/transcript/sentences.js');
    expect(joinWords(['Go', 'forward', '10', 'meters', '.'])).toBe('Go forward 10 meters.');
    expect(joinWords([' Go', ' forward.'])).toBe('Go forward.');
    expect(joinWords(['你好', '世界', '。'])).toBe('你好世界。');
  });
});

describe('exports in another language', () => {
  /** The snapshot as `export()` hands it over with `lang`: each sentence's text translated, the spoken one as `original`. */
  function translated(): ExportSnapshot {
    const spanish = ['Avanza diez metros.', 'Entonces gira a la izquierda.', 'Saludos desde Colonia.', '¿Está claro?'];
    const base = snapshot(false);
    return { ...base, lang: 'es', sentences: base.sentences.map((s, i) => ({ ...s, text: spanish[i]!, original: s.text })) };
  }

  it('every format reads in the language, its file name carrying the code', async () => {
    const srt = await renderExport(translated(), 'srt');
    expect(srt.fileName).toBe('Directions-north-sud.es.srt');
    expect(new SrtParser().fromSrt(srt.body.toString('utf8')).map((c) => c.text)).toEqual([
      'Ada: Avanza diez metros.', 'Ada: Entonces gira a la izquierda.', 'Speaker 2: Saludos desde Colonia.', 'Speaker 2: ¿Está claro?',
    ]);

    const json = JSON.parse((await renderExport(translated(), 'json')).body.toString('utf8'));
    expect(json).toMatchObject({ translated: true, lang: 'es', language: 'en' });
    expect(json.sentences[0]).toMatchObject({ text: 'Avanza diez metros.', original: 'Go forward ten meters.' });
    // Untranslated, the flag is false and the language the spoken one.
    expect(JSON.parse((await renderExport(snapshot(false), 'json')).body.toString('utf8'))).toMatchObject(
      { translated: false, lang: 'en' },
    );

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await renderExport(translated(), 'xlsx')).body as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Transcript')!;
    expect(sheet.getRow(1).getCell(6).value).toBe('Original');
    expect(sheet.getRow(2).getCell(4).value).toBe('Avanza diez metros.');
    expect(sheet.getRow(2).getCell(6).value).toBe('Go forward ten meters.');
    expect(workbook.getWorksheet('About')!.getRow(6).values).toEqual([undefined, 'Translated into', 'es']);

    const pdf = await renderExport(translated(), 'pdf');
    expect(pdf.fileName).toBe('Directions-north-sud.es.pdf');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.body)), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Language: es (translated from en)');
    expect(flat).toContain('Avanza diez metros. Entonces gira a la izquierda.');
    expect(flat).not.toContain('Go forward');
  });
});
