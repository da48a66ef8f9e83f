import { existsSync } from 'node:fs';
import PDFDocument from 'pdfkit';
import type { ExportSentence, ExportSnapshot } from './types.js';
import { speakerLabel } from './types.js';
import { srtTimestamp } from './srt.js';

/** A pause this long between sentences starts a new paragraph even when the speaker stays the same. */
const PARAGRAPH_PAUSE_S = 2;
/** Long monologues still break into readable paragraphs. */
const MAX_SENTENCES_PER_PARAGRAPH = 6;

/**
 * Fonts with wide Unicode coverage, first found wins. pdfkit's built-in Helvetica only covers Latin-1, so a
 * transcript in Greek or Cyrillic needs a TrueType font; PDF_FONT_PATH (`config.pdfFontPath`) lets a deployment
 * name its own.
 */
const UNICODE_FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf',
];

/** The font each configured path resolves to, looked up on the first render only (null: pdfkit's Helvetica). */
const resolvedFonts = new Map<string | null, string | null>();

/** The first of `configured` and the system candidates that exists; resolved once per configured path. */
function resolvePdfFont(configured: string | null = null): string | null {
  let font = resolvedFonts.get(configured);
  if (font === undefined) {
    font = [configured, ...UNICODE_FONT_CANDIDATES].find((p): p is string => !!p && existsSync(p)) ?? null;
    resolvedFonts.set(configured, font);
  }
  return font;
}

export interface PdfOptions {
  /** The configured font (`config.pdfFontPath`); the system candidates are tried after it. */
  fontPath?: string | null;
}

export interface Paragraph { speaker: number; start: number; end: number; text: string; unclear: boolean }

/** Groups sentences into paragraphs: a new one at each speaker change, long pause, or after a few sentences. */
export function paragraphsOf(sentences: ExportSentence[]): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  let current: (Paragraph & { count: number }) | null = null;
  for (const sentence of sentences) {
    const text = sentence.text.trim();
    if (!text) continue;
    const startsNew =
      !current ||
      current.speaker !== sentence.speaker ||
      sentence.start - current.end >= PARAGRAPH_PAUSE_S ||
      current.count >= MAX_SENTENCES_PER_PARAGRAPH;
    if (startsNew) {
      if (current) paragraphs.push(strip(current));
      current = { speaker: sentence.speaker, start: sentence.start, end: sentence.end, text, unclear: !!sentence.unclear, count: 1 };
    } else if (current) {
      current.text = `${current.text} ${text}`;
      current.end = sentence.end;
      current.unclear ||= !!sentence.unclear;
      current.count += 1;
    }
  }
  if (current) paragraphs.push(strip(current));
  return paragraphs;
}

function strip(p: Paragraph & { count: number }): Paragraph {
  return { speaker: p.speaker, start: p.start, end: p.end, text: p.text, unclear: p.unclear };
}

export function renderPdf(snapshot: ExportSnapshot, options: PdfOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: snapshot.name, Creator: 'speechgate' } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);

    const fontPath = resolvePdfFont(options.fontPath ?? null);
    if (fontPath) doc.font(fontPath);

    doc.fontSize(18).text(snapshot.name);
    const facts = [
      snapshot.lang
        ? `Language: ${snapshot.lang} ` + `(translated${snapshot.language ? ` from ${snapshot.language}` : ''})`
        : snapshot.language
          ? `Language: ${snapshot.language}`
          : null,
      snapshot.durationS !== null ? `Duration: ${srtTimestamp(snapshot.durationS).slice(0, 8)}` : null,
    ].filter(Boolean);
    doc.moveDown(0.3).fontSize(9).fillColor('#555555').text(facts.join('   '));
    if (snapshot.partial) {
      doc.moveDown(0.3).fillColor('#a04000').text('Partial transcript: the job was still running when this file was made.');
    }
    doc.fillColor('#000000').moveDown(1);

    for (const paragraph of paragraphsOf(snapshot.sentences)) {
      const speaker = speakerLabel(snapshot, paragraph.speaker);
      const heading = `${srtTimestamp(paragraph.start).slice(0, 8)}${speaker ? `  ${speaker}` : ''}`
        + `${paragraph.unclear ? '  (partly unclear audio)' : ''}`;
      doc.fontSize(8).fillColor('#777777').text(heading);
      doc.fontSize(11).fillColor('#000000').text(paragraph.text, { align: 'left', lineGap: 2 });
      doc.moveDown(0.8);
    }
    if (snapshot.sentences.length === 0) doc.fontSize(11).text('No speech has been transcribed yet.');
    doc.end();
  });
}
