/**
 * `GET /v1/recordings/{id}/export` with `lang`: a real transcript (goforward.wav, English) exported in Spanish by the
 * server's default provider (Apertium) in all four formats, each read back (file name with the language, JSON's
 * `translated`); the spoken language named is the untranslated file; a share link without `allowTranslate` is 403,
 * a language no provider serves 400 naming `lang`.
 */
import ExcelJS from 'exceljs';
import SrtParser from 'srt-parser-2';
import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
/** goforward.wav spoken in English, its job done: the recording, its transcription and its default share link. */
const made = { recordingId: '', transcriptionId: '', shareCode: '' };
let recordingId = '';

beforeAll(async () => {
  const { recordingId: id, id: transcriptionId, shareLink } = await json(await upload(server, {
    name: 'Directions', settings: { spokenLanguage: 'en' },
  }));
  Object.assign(made, { recordingId: id, transcriptionId, shareCode: shareLink.code });
  recordingId = id;
  await waitForJob(server, id, ['done'], 180_000);
}, 200_000);

async function exported(query: string, auth?: string | null): Promise<{ body: Buffer; fileName: string }> {
  const response = await server.request(`/v1/recordings/${recordingId}/export?${query}`, { auth });
  expect(response.status).toBe(200);
  const fileName = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? '';
  return { body: Buffer.from(await response.arrayBuffer()), fileName };
}

describe('an export in another language', () => {
  it('srt: one cue per sentence, in Spanish, the file name carrying es', async () => {
    const spoken = new SrtParser().fromSrt((await exported('format=srt')).body.toString('utf8'));
    const { body, fileName } = await exported('format=srt&lang=es');
    expect(fileName).toBe('Directions.es.srt');
    const cues = new SrtParser().fromSrt(body.toString('utf8'));
    expect(cues.length).toBe(spoken.length);
    expect(cues.map((c) => c.text).join(' ').toLowerCase()).toMatch(/metros/);
    expect(cues[0]!.startSeconds).toBe(spoken[0]!.startSeconds);
  });

  it('json: translated true, lang es, each sentence in Spanish with its spoken text as original', async () => {
    const { body, fileName } = await exported('format=json&lang=es');
    expect(fileName).toBe('Directions.es.json');
    const parsed = JSON.parse(body.toString('utf8'));
    expect(parsed).toMatchObject({ recordingId, translated: true, lang: 'es', language: 'en' });
    expect(parsed.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toMatch(/metros/);
    expect(parsed.sentences.map((s: { original: string }) => s.original).join(' ').toLowerCase()).toMatch(/forward/);
    // The segments and their words stay as spoken.
    expect(parsed.segments.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toMatch(/forward/);
  });

  it('xlsx: the Text column in Spanish, the spoken text in Original', async () => {
    const { body, fileName } = await exported('format=xlsx&lang=es');
    expect(fileName).toBe('Directions.es.xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Transcript')!;
    expect(sheet.getRow(1).getCell(6).value).toBe('Original');
    const rows = Array.from({ length: sheet.rowCount - 1 }, (_, i) => sheet.getRow(i + 2));
    expect(rows.map((row) => String(row.getCell(4).value)).join(' ').toLowerCase()).toMatch(/metros/);
    expect(rows.map((row) => String(row.getCell(6).value)).join(' ').toLowerCase()).toMatch(/forward/);
  });

  it('pdf: paragraphs in Spanish', async () => {
    const { body, fileName } = await exported('format=pdf&lang=es');
    expect(fileName).toBe('Directions.es.pdf');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(body)), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ').toLowerCase();
    expect(flat).toMatch(/metros/);
    expect(flat).not.toMatch(/forward/);
    expect(flat).toContain('language: es (translated from en)');
  });

  it('the spoken language named in lang is the untranslated file', async () => {
    const { body, fileName } = await exported('format=json&lang=en');
    expect(fileName).toBe('Directions.json');
    const parsed = JSON.parse(body.toString('utf8'));
    expect(parsed).toMatchObject({ translated: false, lang: 'en' });
    expect(parsed.sentences[0].original).toBeUndefined();
    expect(parsed.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toMatch(/forward/);
  });

  it('through a share link: in Spanish by default; 403 without allowTranslate, the spoken language still allowed', async () => {
    expect((await exported(`format=srt&lang=es&shareCode=${made.shareCode}`, null)).fileName).toBe('Directions.es.srt');
    const closed = await json(await server.postJson(`/v1/transcriptions/${made.transcriptionId}/share-links`, {
      label: 'No translation', allowTranslate: false,
    }));
    for (const format of ['srt', 'json', 'xlsx', 'pdf']) {
      const refused = await expectStatus(
        await server.request(`/v1/recordings/${recordingId}/export?format=${format}&lang=es&shareCode=${closed.code}`, { auth: null }), 403,
        'forbidden',
      );
      expect(refused.data.details).toMatchObject({ field: 'lang', permission: 'allowTranslate' });
    }
    expect((await exported(`format=srt&lang=en&shareCode=${closed.code}`, null)).fileName).toBe('Directions.srt');
  });

  it.each(['fr', 'not a language'])('refuses lang=%s naming lang', async (lang) => {
    await expectInvalidOption(
      await server.request(`/v1/recordings/${recordingId}/export?format=srt&lang=${encodeURIComponent(lang)}`), 'lang',
    );
  });
});
