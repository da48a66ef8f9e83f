/**
 * File transcriptions through the public REST interface: upload real speech, follow the job, read the text back,
 * export it in every format (opened by real parsers), fetch its audio, and the events log and socket.
 */
import ExcelJS from 'exceljs';
import SrtParser from 'srt-parser-2';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { goForward, json, upload, uploadForm, waitForJob as waitFor } from '../helpers/http.js';

let server: TestServer;
const speech = goForward;

beforeAll(async () => {
  server = await startTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1', WORKER_SWEEP_MS: '1000' } });
});
afterAll(async () => {
  await server?.close();
});

describe('POST /v1/transcriptions with a file', () => {
  let transcription: {
    id: string; recordingId: string; job: { recordingId: string; state: string; startedAt: string | null };
    shareLink: { code: string } | null;
  };
  const socketFrames: Array<{ type: string; state?: string; progress?: { pct: number } }> = [];

  it('answers 201 at once with job.recordingId, and the job reaches done with the spoken text', async () => {
    const res = await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(speech, { name: 'Directions', settings: { spokenLanguage: 'en' } }),
    });
    expect(res.status).toBe(201);
    transcription = await json(res);
    expect(transcription).toMatchObject({ kind: 'file', name: 'Directions', state: 'active', settings: { spokenLanguage: 'en' } });
    expect(transcription.job.recordingId).toBe(transcription.recordingId);
    expect(['queued', 'transcribing']).toContain(transcription.job.state);
    // A job has started only once it left `queued` (an admitted job is still waiting for an engine thread).
    if (transcription.job.state === 'queued') expect(transcription.job.startedAt).toBeNull();
    expect(transcription.shareLink).toMatchObject({ isDefault: true, allowDownload: true, allowExport: true, allowTranslate: true });

    const socket = new WebSocket(`${server.wsUrl}/v1/transcriptions/${transcription.id}/events`, { headers: {
      authorization: `Bearer ${server.apiKey}`,
    } });
    socket.on('message', (data) => socketFrames.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });

    const job = await waitFor(server, transcription.recordingId, ['done', 'failed']);
    // uncoveredSpeechS: speech the engine heard that no word covers (words lost): none here.
    expect(job).toMatchObject({ state: 'done', error: null, progress: { pct: 100, uncoveredSpeechS: 0 } });
    socket.close();
    // The recording is finalized with its time, as a live one is.
    const recording = await json(await server.request(`/v1/recordings/${transcription.recordingId}`));
    expect(recording).toMatchObject({ state: 'finalized', finalizedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });

    const transcript = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript`));
    const text = transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase();
    expect(text).toContain('forward');
    expect(text).toMatch(/\b(ten|10)\b/);
    expect(transcript).toMatchObject({ partial: false, language: 'en' });
    // lastSeq is the durable log's cursor the snapshot reflects (job frames count too), not the last segment's seq.
    const log = await json(await server.request(`/v1/recordings/${transcription.recordingId}/events?limit=500`));
    expect(transcript.lastSeq).toBe(log.lastSeq);
    expect(transcript.segments[0].words.length).toBeGreaterThan(1);
    // The confidence policy: a sentence under `hideBelow` is flagged unclear, its words kept.
    const strict = await server.request(`/v1/transcriptions/${transcription.id}`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { confidencePolicy: { hideBelow: 1 } } }),
    });
    expect(strict.status).toBe(200);
    const flagged = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript`));
    expect(flagged.sentences.every((s: { unclear?: boolean; text: string }) => s.unclear === true && s.text.length > 0)).toBe(true);
    await server.request(`/v1/transcriptions/${transcription.id}`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { confidencePolicy: null } }),
    });
    const relaxed = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript`));
    for (const sentence of relaxed.sentences) expect(sentence.unclear ?? false).toBe(sentence.confidence < 0.6);
    // `after` returns only what follows.
    const after = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript?after=${transcript.lastSeq}`));
    expect(after.segments).toEqual([]);
    // After the cursor of the first commit: every later segment, and the sentences holding them.
    const firstCommit = log.events.find((e: { type: string }) => e.type === 'transcript.committed');
    expect(firstCommit.frame).toMatchObject({ cursor: firstCommit.seq, seq: 0 });
    const rest = await json(await server.request(`/v1/recordings/${transcription.recordingId}/transcript?after=${firstCommit.seq}`));
    expect(rest.segments.map((s: { seq: number }) => s.seq)).toEqual(transcript.segments.slice(1).map((s: { seq: number }) => s.seq));
    expect(rest.lastSeq).toBe(transcript.lastSeq);
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
    expect(all.filter((e: { type: string }) => e.type === 'job.state').map((e: { frame: { state: string } }) => e.frame.state)).toEqual(
      ['queued', 'transcribing', 'done'],
    );
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
    for (const [kind, format, magic] of [
      ['delivery', 'ogg', 'OggS'], ['delivery', 'caf', 'caff'], ['master', 'mp3', ''], ['source', 'ogg', 'OggS'],
    ] as const) {
      const res = await server.request(
        `/v1/recordings/${transcription.recordingId}/audio?kind=${kind}&format=${format}`, { redirect: 'manual' },
      );
      expect(res.status).toBe(302);
      const location = res.headers.get('location')!;
      expect(location).toMatch(/sig=/);
      const media = await fetch(location);
      expect(media.status).toBe(200);
      const bytes = Buffer.from(await media.arrayBuffer());
      if (magic) expect(bytes.subarray(0, 4).toString('latin1')).toBe(magic);
      else expect(bytes.length).toBeGreaterThan(1000);
      // A tampered signature is refused.
      // (Its first character is changed to another one: a signature that already began with 'A' stayed valid.)
      const tampered = location.replace(/sig=(.)/, (_match, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`);
      expect((await fetch(tampered)).status).toBe(403);
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
    const viaToken = await server.request(
      `/v1/recordings/${transcription.recordingId}/audio?media=${token}`, { auth: null, redirect: 'manual' },
    );
    expect(viaToken.status).toBe(302);
    const noCredential = await server.request(`/v1/recordings/${transcription.recordingId}/audio`, { auth: null, redirect: 'manual' });
    expect(noCredential.status).toBe(401);
    // A signed-in person's access token rides in access_token= (an audio element sends no header); an API key may not.
    const person = await server.createUser();
    expect((await server.request(
      `/v1/recordings/${transcription.recordingId}/audio?access_token=${person.token}`, { auth: null, redirect: 'manual' },
    )).status).toBe(302);
    const personClip = await server.request(
      `/v1/recordings/${transcription.recordingId}/audio/clip?startS=0&endS=1&access_token=${person.token}`, { auth: null },
    );
    expect(personClip.status).toBe(200);
    expect(personClip.headers.get('content-type')).toBe('audio/wav');
    const keyInUrl = await server.request(
      `/v1/recordings/${transcription.recordingId}/audio?access_token=${server.apiKey}`, { auth: null, redirect: 'manual' },
    );
    expect(keyInUrl.status).toBe(403);
    expect((await keyInUrl.json()).code).toBe('key_from_browser');
    const otherPerson = await server.createUser({ accountId: await server.createAccount('elsewhere') });
    expect((await server.request(
      `/v1/recordings/${transcription.recordingId}/audio?access_token=${otherPerson.token}`, { auth: null, redirect: 'manual' },
    )).status).toBe(404);
    // The token reads media only: the transcript takes no media parameter (refused by name).
    const transcriptByToken = await server.request(`/v1/recordings/${transcription.recordingId}/transcript?media=${token}`, { auth: null });
    expect(transcriptByToken.status).toBe(400);
    expect(await transcriptByToken.json()).toMatchObject({ code: 'invalid_options', data: { details: { field: 'media' } } });
  });

  it('answers /audio as data with Accept: application/json: the signed URL, and media listing the sealed renditions', async () => {
    const audio = (query: string, accept: string) => server.request(`/v1/recordings/${transcription.recordingId}/audio${query}`, {
      headers: { accept }, redirect: 'manual',
    });
    type Rendition = { rendition: string; format: string; contentType: string; bytes: number; url: string; expiresAt: string };
    const asData = async (query = '') => {
      const res = await audio(query, 'application/json');
      expect(res.status).toBe(200);
      return (await res.json()) as { url: string; expiresAt: string; media: Rendition[] };
    };
    // An audio element asks for anything: it gets the redirect.
    expect((await audio('', 'audio/webm,audio/ogg,audio/*;q=0.9,*/*;q=0.5')).status).toBe(302);
    const before = await asData('?format=mp3');
    expect(before.url).toMatch(/\/delivery\.mp3\?exp=\d+&sig=/);
    expect(before.media.map((m) => m.rendition)).not.toContain('delivery_mp3');
    // Asking encoded nothing; the first request of the URL makes the rendition, which is then listed, sealed.
    const made = await fetch(before.url);
    expect(made.status).toBe(200);
    const bytes = (await made.arrayBuffer()).byteLength;
    const after = await asData();
    const mp3 = after.media.find((m) => m.rendition === 'delivery_mp3')!;
    expect(mp3).toMatchObject({ format: 'mp3', contentType: 'audio/mpeg', bytes });
    expect(after.media.map((m) => m.rendition)).toEqual(
      ['delivery', 'delivery_caf', 'delivery_mp3'].filter((r) => after.media.some((m) => m.rendition === r)),
    );
    const served = await fetch(mp3.url);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'audio/mpeg']);
    expect(Date.parse(mp3.expiresAt)).toBeGreaterThan(Date.now());
  });
});

describe('GraphQL', () => {
  it('refuses a file sent as JSON, even shaped like an upload the server stored', async () => {
    const forged = await (await server.graphql('mutation($file: Upload) { createTranscription(file: $file) { id } }', {
      file: { recordingId: 'rec_forged', bytes: 10, sha256: '0'.repeat(64), fileName: 'x.wav', mimeType: 'audio/wav' },
    })).json();
    expect(forged.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'file' } });
  });

  it('uploads with the multipart request spec, follows the subscription, and reads the transcript', async () => {
    const { createClient } = await import('graphql-ws');
    const form = new FormData();
    form.append('operations', JSON.stringify({
      query: 'mutation($file: Upload, $options: CreateTranscriptionInput) { createTranscription(file: $file, options: $options) { id '
        + 'recordingId job { state } } }',
      variables: { file: null, options: { name: 'via GraphQL', crop: true } },
    }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(speech)], { type: 'audio/wav' }), 'goforward.wav');
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${server.apiKey}` }, body: form });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    const { id, recordingId } = body.data.createTranscription;

    // Cropping holds the job until we start it, so the subscription is listening before anything happens.
    expect(body.data.createTranscription.job.state).toBe('cropping');
    const graphql = async (query: string) => (await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    })).json();
    const client = createClient({
      url: `${server.wsUrl}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${server.apiKey}` },
    });
    const states: string[] = [];
    const finished = new Promise<void>((resolve, reject) => {
      const stop = client.subscribe<{ transcriptionEvents: { type: string; state: string | null } }>(
        { query: `subscription { transcriptionEvents(id: "${id}") { type state recordingId seq frame } }` },
        {
          next: (message) => {
            const event = message.data?.transcriptionEvents;
            if (event?.type === 'job.state' && event.state) states.push(event.state);
            if (event?.state === 'done' && event.type === 'job.state') {
              stop();
              resolve();
            }
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    // Wait for the waveform (the window cannot start before the file is measured), then release the whole file.
    for (let i = 0; i < 100; i++) {
      const job = (await graphql(`{ recordingJob(recordingId: "${recordingId}") { preview { peaks } } }`)).data.recordingJob;
      if (job.preview?.peaks) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = await graphql(`mutation { startRecordingJob(recordingId: "${recordingId}", window: { startS: 0 }) { state } }`);
    expect(started.errors).toBeUndefined();
    await finished;
    await client.dispose();
    expect(states).toContain('queued');
    expect(states.at(-1)).toBe('done');

    const query = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ recordingTranscript(recordingId: "${recordingId}") { lastSeq partial sentences { text } segments { `
        + `seq words { text prob } } } }` }),
    });
    const transcript = (await query.json()).data.recordingTranscript;
    expect(transcript.partial).toBe(false);
    expect(transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toContain('forward');
    expect(transcript.segments[0].words[0].prob).toBeGreaterThan(0);
  });
});

describe('queue order under a concurrency of 1', () => {
  it('never refuses: later jobs wait queued with their position and start in creation order, one at a time', async () => {
    await server.prisma.account.update({ where: { id: server.accountId }, data: { concurrencyLimit: 1 } });
    try {
      const created = [];
      for (let i = 0; i < 3; i++) {
        // The last one also asks for a window at creation: its transcript counts from 1 s into the file.
        const res = await upload(server, i === 2 ? { name: `queued ${i}`, startS: 1 } : { name: `queued ${i}` });
        expect(res.status).toBe(201);
        created.push(await json(res));
      }
      const jobs = await Promise.all(created.map(async (t) => json(await server.request(`/v1/recordings/${t.recordingId}/job`))));
      const waiting = jobs.filter((job) => job.state === 'queued');
      expect(waiting.length).toBeGreaterThanOrEqual(2);
      expect(waiting.map((job) => job.queue.position)).toEqual(waiting.map((_, i) => i + 1));
      expect(jobs.filter((job) => job.state === 'transcribing').length).toBeLessThanOrEqual(1);
      const finished = [];
      for (const t of created) finished.push(await waitFor(server, t.recordingId, ['done', 'failed']));
      expect(finished.map((job) => job.state)).toEqual(['done', 'done', 'done']);
      for (let i = 1; i < finished.length; i++) {
        expect(Date.parse(finished[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(finished[i - 1].finishedAt));
      }
      const windowed = await json(await server.request(`/v1/recordings/${created[2].recordingId}/transcript`));
      expect(finished[2].window).toEqual({ startS: 1, endS: null });
      expect(windowed.durationS).toBeCloseTo(1.8, 1);
      expect(windowed.segments.length).toBeGreaterThan(0);
      for (const segment of windowed.segments) expect(segment.end).toBeLessThanOrEqual(1.9);
    } finally {
      await server.prisma.account.update({ where: { id: server.accountId }, data: { concurrencyLimit: 2 } });
    }
  });
});

describe('cropping', () => {
  it('opens cropping with peaks and preview media, starts with a window, and counts times from its start', async () => {
    const created = await json(await upload(server, { crop: true, name: 'Cropped' }));
    expect(created.job.state).toBe('cropping');
    const recordingId = created.recordingId;
    let job;
    for (let i = 0; i < 200; i++) {
      job = await json(await server.request(`/v1/recordings/${recordingId}/job`));
      if (job.preview?.peaks) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job.preview.peaks.length).toBeGreaterThan(100);
    expect(job.preview.durationS).toBeCloseTo(2.8, 0);
    const preview = await server.request(`/v1/recordings/${recordingId}/job/preview`);
    expect(preview.status).toBe(200);
    expect(Buffer.from(await preview.arrayBuffer()).subarray(0, 4).toString('latin1')).toBe('OggS');
    const bad = await server.request(`/v1/recordings/${recordingId}/job/start`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ startS: 2, endS: 1 }),
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).data.details.field).toBe('endS');
    const started = await json(await server.request(`/v1/recordings/${recordingId}/job/start`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ startS: 1 }),
    }));
    expect(['queued', 'transcribing']).toContain(started.state);
    expect(started.window).toEqual({ startS: 1, endS: null });
    await waitFor(server, recordingId, ['done']);
    const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    expect(transcript.durationS).toBeCloseTo(1.8, 1);
    for (const segment of transcript.segments) expect(segment.end).toBeLessThanOrEqual(1.9);
    expect(transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toMatch(/met(er|re)s/);
    expect((await server.request(`/v1/recordings/${recordingId}/job/preview`)).status).toBe(404);
  });
});

describe('failure while transcribing', () => {
  it('ends failed with error and errorCode, and retry queues it again (failing again while the cause stays)', async () => {
    const { rm } = await import('node:fs/promises');
    const path = await import('node:path');
    const created = await json(await upload(server, { crop: true, name: 'Lost source' }));
    await waitFor(server, created.recordingId, ['cropping']);
    for (let i = 0; i < 100; i++) {
      if ((await json(await server.request(`/v1/recordings/${created.recordingId}/job`))).preview?.peaks) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The stored upload disappears before the job starts (storage lost it).
    await rm(path.join(server.app.config.dataDir, 'media', created.recordingId, 'source'));
    await server.request(`/v1/recordings/${created.recordingId}/job/start`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ startS: 0 }),
    });
    const failed = await waitFor(server, created.recordingId, ['failed', 'done']);
    expect(failed).toMatchObject({ state: 'failed', errorCode: 'source_missing', attempts: 1 });
    expect(failed.error).toContain('stored source');
    const retried = await json(await server.request(`/v1/recordings/${created.recordingId}/job/retry`, { method: 'POST' }));
    expect(['queued', 'transcribing', 'failed']).toContain(retried.state);
    const again = await waitFor(server, created.recordingId, ['failed', 'done']);
    expect(again).toMatchObject({ state: 'failed', errorCode: 'source_missing', attempts: 2 });
    const log = await json(await server.request(`/v1/recordings/${created.recordingId}/events?limit=500`));
    const states = log.events.filter((e: { type: string }) => e.type === 'job.state').map(
      (e: { frame: { state: string } }) => e.frame.state,
    );
    expect(states).toEqual(['cropping', 'queued', 'transcribing', 'failed', 'queued', 'transcribing', 'failed']);
  });
});
