/**
 * File transcriptions through the public REST interface: upload real speech, follow the job, read the text back,
 * export it in every format (opened by real parsers), fetch its audio, and the events log and socket.
 */
import { readFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import SrtParser from 'srt-parser-2';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const speech = await readFile(new URL('../fixtures/goforward.wav', import.meta.url));

beforeAll(async () => {
  server = await startTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1', WORKER_SWEEP_MS: '1000' } });
});
afterAll(async () => {
  await server?.close();
});

export function uploadForm(bytes: Buffer, options?: Record<string, unknown>, name = 'goforward.wav') {
  const form = new FormData();
  if (options) form.append('options', JSON.stringify(options));
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'audio/wav' }), name);
  return form;
}

async function json(res: Response) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
}

async function waitForJob(recordingId: string, states: string[], timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await json(await server.request(`/v1/recordings/${recordingId}/job`));
    if (states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job stayed ${job.state}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('POST /v1/transcriptions with a file', () => {
  let transcription: { id: string; recordingId: string; job: { recordingId: string; state: string }; shareLink: { code: string } | null };
  const socketFrames: Array<{ type: string; state?: string; progress?: { pct: number } }> = [];

  it('answers 201 at once with job.recordingId, and the job reaches done with the spoken text', async () => {
    const res = await server.request('/v1/transcriptions', { method: 'POST', body: uploadForm(speech, { name: 'Directions', settings: { spokenLanguage: 'en' } }) });
    expect(res.status).toBe(201);
    transcription = await json(res);
    expect(transcription).toMatchObject({ kind: 'file', name: 'Directions', state: 'active', settings: { spokenLanguage: 'en' } });
    expect(transcription.job.recordingId).toBe(transcription.recordingId);
    expect(['queued', 'transcribing']).toContain(transcription.job.state);
    expect(transcription.shareLink).toMatchObject({ isDefault: true, allowDownload: true, allowExport: true, allowTranslate: true });

    const socket = new WebSocket(`${server.wsUrl}/v1/transcriptions/${transcription.id}/events`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    socket.on('message', (data) => socketFrames.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });

    const job = await waitForJob(transcription.recordingId, ['done', 'failed']);
    expect(job).toMatchObject({ state: 'done', error: null, progress: { pct: 100 } });
    socket.close();

    const transcript = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript`));
    const text = transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase();
    expect(text).toContain('forward');
    expect(text).toMatch(/\b(ten|10)\b/);
    expect(transcript).toMatchObject({ partial: false, language: 'en', lastSeq: transcript.segments.length - 1 });
    expect(transcript.segments[0].words.length).toBeGreaterThan(1);
    // `after` returns only what follows.
    const after = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript?after=${transcript.lastSeq}`));
    expect(after.segments).toEqual([]);
  });

  it('sent the state changes and progress on the events socket and keeps them in the durable log', async () => {
    expect(socketFrames[0]).toMatchObject({ type: 'events.ready' });
    expect(socketFrames.some((f) => f.type === 'job.progress')).toBe(true);
    expect(socketFrames.filter((f) => f.type === 'job.state').at(-1)).toMatchObject({ state: 'done' });
    const log = await json(await server.request(`/v1/recordings/${transcription.recordingId}/events?limit=2`));
    expect(log.events.map((e: { seq: number }) => e.seq)).toEqual([0, 1]);
    expect(log.nextCursor).toBeTruthy();
    const rest = await json(await server.request(`/v1/recordings/${transcription.recordingId}/events?cursor=${log.nextCursor}&limit=500`));
    const all = [...log.events, ...rest.events];
    expect(all.map((e: { seq: number }) => e.seq)).toEqual(all.map((_: unknown, i: number) => i));
    expect(all.filter((e: { type: string }) => e.type === 'job.state').map((e: { frame: { state: string } }) => e.frame.state)).toEqual(['queued', 'transcribing', 'done']);
    expect(rest.nextCursor).toBeUndefined();
    const both = await server.request(`/v1/recordings/${transcription.recordingId}/events?cursor=${log.nextCursor}&after=3`);
    expect(both.status).toBe(400);
    expect((await json(both)).message).toContain('after');
  });

  it('exports srt, json, xlsx and pdf that real parsers read', async () => {
    const base = `/v1/recordings/${transcription.recordingId}/export?format=`;
    const srt = await server.request(`${base}srt`);
    expect(srt.headers.get('content-disposition')).toContain('Directions.srt');
    const cues = new SrtParser().fromSrt(await srt.text());
    expect(cues.map((c) => c.text).join(' ').toLowerCase()).toContain('forward');
    const parsed = await json(await server.request(`${base}json`));
    expect(parsed).toMatchObject({ partial: false, recordingId: transcription.recordingId });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await (await server.request(`${base}xlsx`)).arrayBuffer());
    expect(String(workbook.getWorksheet('Transcript')!.getRow(2).getCell(4).value).toLowerCase()).toContain('forward');
    const pdf = await server.request(`${base}pdf`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    expect(text.toLowerCase()).toContain('forward');
    const bad = await server.request(`${base}docx`);
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'format' } } });
  });

  it('redirects /audio to signed URLs per kind and format, serves WAV clips, and honours the media token', async () => {
    for (const [kind, format, magic] of [['delivery', 'ogg', 'OggS'], ['delivery', 'caf', 'caff'], ['master', 'mp3', ''], ['source', 'ogg', 'OggS']] as const) {
      const res = await server.request(`/v1/recordings/${transcription.recordingId}/audio?kind=${kind}&format=${format}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = res.headers.get('location')!;
      expect(location).toMatch(/sig=/);
      const media = await fetch(location);
      expect(media.status).toBe(200);
      const bytes = Buffer.from(await media.arrayBuffer());
      if (magic) expect(bytes.subarray(0, 4).toString('latin1')).toBe(magic);
      else expect(bytes.length).toBeGreaterThan(1000);
      // A tampered signature is refused.
      expect((await fetch(location.replace(/sig=./, 'sig=A'))).status).toBe(403);
    }
    const clip = await server.request(`/v1/recordings/${transcription.recordingId}/audio/clip?startS=0.5&endS=1.5`);
    expect(clip.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await clip.arrayBuffer());
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect((await server.request(`/v1/recordings/${transcription.recordingId}/audio/clip?startS=0&endS=121`)).status).toBe(400);

    const { token } = await json(await server.request(`/v1/recordings/${transcription.recordingId}/media-token`));
    const again = await json(await server.request(`/v1/recordings/${transcription.recordingId}/media-token`));
    expect(again.token).toBe(token);
    const viaToken = await server.request(`/v1/recordings/${transcription.recordingId}/audio?media=${token}`, { auth: null, redirect: 'manual' });
    expect(viaToken.status).toBe(302);
    const noCredential = await server.request(`/v1/recordings/${transcription.recordingId}/audio`, { auth: null, redirect: 'manual' });
    expect(noCredential.status).toBe(401);
    // The token reads media only.
    expect((await server.request(`/v1/recordings/${transcription.recordingId}/transcript?media=${token}`, { auth: null })).status).toBe(401);
  });
});
