import { errors } from '../../core/errors.js';
import { renderJson } from './json.js';
import { renderPdf } from './pdf.js';
import { renderSrt } from './srt.js';
import { renderXlsx } from './xlsx.js';
import type { ExportFormat, ExportSnapshot, RenderedExport } from './types.js';
import { EXPORT_FORMATS } from './types.js';

export * from './types.js';
export { paragraphsOf } from './pdf.js';
export { srtTimestamp } from './srt.js';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  srt: 'application/x-subrip; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

export function parseExportFormat(value: unknown): ExportFormat {
  if (typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw errors.invalidOptions(`format must be one of ${EXPORT_FORMATS.join(', ')}.`, { field: 'format', allowed: EXPORT_FORMATS });
}

/**
 * A file name safe in a Content-Disposition header on every OS: the transcription name, "-partial" while running,
 * and the language before the extension when the file reads in another one (`name.es.srt`).
 */
export function exportFileName(snapshot: ExportSnapshot, format: ExportFormat): string {
  const base =
    snapshot.name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/\.[a-z0-9]{2,4}$/i, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'transcript';
  return `${base}${snapshot.partial ? '-partial' : ''}${snapshot.lang ? `.${snapshot.lang}` : ''}.${format}`;
}

export interface RenderOptions {
  /** PDF only: the configured font (`config.pdfFontPath`). */
  pdfFontPath?: string | null;
}

export async function renderExport(snapshot: ExportSnapshot, format: ExportFormat, options: RenderOptions = {}): Promise<RenderedExport> {
  let body: Buffer;
  switch (format) {
    case 'srt':
      body = Buffer.from(renderSrt(snapshot), 'utf8');
      break;
    case 'json':
      body = Buffer.from(renderJson(snapshot), 'utf8');
      break;
    case 'xlsx':
      body = await renderXlsx(snapshot);
      break;
    case 'pdf':
      body = await renderPdf(snapshot, { fontPath: options.pdfFontPath });
      break;
  }
  return { body, contentType: CONTENT_TYPES[format], fileName: exportFileName(snapshot, format), partial: snapshot.partial };
}
