/**
 * The rules of the transcriptions API that need no transcription (workers off: jobs stay queued): upload limits
 * with nothing half-stored, validation envelopes, Idempotency-Key, listing and paging, lifecycle moves.
 */
import crypto from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { upgradeRefusal } from '../helpers/sockets.js';
import { expectInvalidOption, goForward, json, upload, uploadForm } from '../helpers/http.js';

let server: TestServer;
beforeAll(async () => {
  // 100 kB: goforward.wav (89 kB) fits, a 150 kB body does not.
  server = await startTestServer({ workers: [], env: { MAX_UPLOAD_BYTES: '100000' } });
});
afterAll(async () => {
  await server?.close();
});

const mediaFiles = async () => readdir(path.join(server.app.config.dataDir, 'media')).catch(() => [] as string[]);

describe('creating', () => {
  it('refuses an upload over limits.maxUploadBytes with the envelope and keeps nothing', async () => {
    const before = await mediaFiles();
    const big = Buffer.concat([goForward, Buffer.alloc(60_000)]);
    const res = await upload(server, { name: 'too big' }, big);
    expect(res.status).toBe(413);
    const body = await json(res);
    expect(body).toMatchObject(
      { defined: true, code: 'invalid_options', status: 413, data: { details: { field: 'file', limit: 100000 } } },
    );
    expect(body.message).toContain('limits.maxUploadBytes');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(await mediaFiles()).toEqual(before);
    const list = await json(await server.request('/v1/transcriptions?lifecycle=all'));
    expect(list.transcriptions.find((t: { name: string }) => t.name === 'too big')).toBeUndefined();
  });

  it('refuses what is not audio, unknown fields and bad values, naming the field', async () => {
    const notAudio = await upload(server, {}, Buffer.from('this is plain text, not audio at all'.repeat(20)));
    expect(notAudio.status).toBe(400);
    expect(await json(notAudio)).toMatchObject({ code: 'invalid_audio', data: { details: { field: 'file' } } });
    const cases: Array<[unknown, string]> = [
      [{ url: 'https://example.org/a.mp3', colour: 'red' }, 'colour'],
      [{ url: 'https://example.org/a.mp3', crop: true, startS: 3 }, 'startS'],
      [{ url: 'https://example.org/a.mp3', startS: 5, endS: 2 }, 'endS'],
      [{ url: 'https://example.org/a.mp3', settings: { spokenLanguage: 42 } }, 'settings.spokenLanguage'],
      [{ url: 'https://example.org/a.mp3', settings: { confidencePolicy: { hideBelow: 3 } } }, 'settings.confidencePolicy.hideBelow'],
      [{ name: 'no url, no file' }, 'url'],
      [{ url: 'ftp://example.org/a.mp3' }, 'url'],
    ];
    for (const [body, field] of cases) {
      const res = await server.postJson('/v1/transcriptions', body);
      const envelope = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(envelope.code).toBe('invalid_options');
      expect(envelope.data.details.field).toBe(field);
      expect(envelope.message).toContain(field.split('.').pop());
    }
    const wrongType = await server.request('/v1/transcriptions', {
      method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello',
    });
    expect(wrongType.status).toBe(415);
  });

  it('takes a name of up to 300 characters and refuses a longer one naming it: link, upload and rename', async () => {
    const longest = 'n'.repeat(300);
    const created = await json(await server.postJson('/v1/transcriptions', { url: 'https://example.org/named.mp3', name: longest }));
    expect(created.name).toBe(longest);
    const tooLong = `${longest}n`;
    const refused = [
      await server.postJson('/v1/transcriptions', { url: 'https://example.org/named.mp3', name: tooLong }),
      await upload(server, { name: tooLong }),
      await server.postJson(`/v1/transcriptions/${created.id}`, { name: tooLong }, { method: 'PATCH' }),
    ];
    for (const res of refused) expect((await expectInvalidOption(res, 'name')).message).toContain('300');
    expect((await json(await server.request(`/v1/transcriptions/${created.id}`))).name).toBe(longest);
  });

  it('refuses links to private, loopback and metadata addresses at once', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:9/a.mp3', 'http://[::1]/a.mp3', 'http://metadata.google.internal/',
      'http://10.0.0.8/a.wav', 'http://[::127.0.0.1]/a.mp3', 'http://[::ffff:0:7f00:1]/', 'http://[2002:7f00:1::]/',
      'http://[64:ff9b:1::1]/', 'http://[2001::1]/',
    ]) {
      const res = await server.postJson('/v1/transcriptions', { url });
      expect(res.status, url).toBe(400);
      expect(await json(res)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'url', problem: 'link_refused' } } });
    }
  });

  it('honours Idempotency-Key: the same upload twice is one transcription', async () => {
    const key = crypto.randomUUID();
    const first = await upload(server, { name: 'idem' }, goForward, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const second = await upload(server, { name: 'idem' }, goForward, { 'idempotency-key': key });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(second)).id).toBe((await json(first)).id);
    const list = await json(await server.request('/v1/transcriptions?limit=500'));
    expect(list.transcriptions.filter((t: { name: string }) => t.name === 'idem')).toHaveLength(1);
  });
});

describe('listing and lifecycle', () => {
  it('pages newest first without repeats or gaps while items are created and archived between pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await json(await server.postJson('/v1/transcriptions', {
      url: `https://example.org/page-${i}.mp3`, name: `page ${i}`,
    }))).id);
    const first = await json(await server.request('/v1/transcriptions?limit=2'));
    expect(first.transcriptions.map((t: { id: string }) => t.id)).toEqual([made[4], made[3]]);
    // Between pages: a new one appears (newer than the cursor: not in later pages) and one already seen is archived.
    await server.postJson('/v1/transcriptions', { url: 'https://example.org/late.mp3', name: 'late' });
    await server.request(`/v1/transcriptions/${made[4]}/archive`, { method: 'POST' });
    const seen = [...first.transcriptions.map((t: { id: string }) => t.id)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await json(await server.request(`/v1/transcriptions?limit=2&cursor=${encodeURIComponent(cursor)}`));
      seen.push(...page.transcriptions.map((t: { id: string }) => t.id));
      cursor = page.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of made) expect(seen).toContain(id);
    const archived = await json(await server.request('/v1/transcriptions?lifecycle=archived'));
    expect(archived.transcriptions.map((t: { id: string; state: string }) => [t.id, t.state])).toEqual([[made[4], 'archived']]);
    const all = await json(await server.request('/v1/transcriptions?lifecycle=all&limit=500'));
    expect(all.transcriptions.find((t: { id: string }) => t.id === made[4]).state).toBe('archived');
    expect((await server.request('/v1/transcriptions?lifecycle=deleted')).status).toBe(400);
    expect((await server.request('/v1/transcriptions?limit=501')).status).toBe(400);
    expect((await server.request('/v1/transcriptions?cursor=garbage')).status).toBe(400);
  });

  it('renames, archives, restores, and purges only archived transcriptions', async () => {
    const created = await json(await server.postJson('/v1/transcriptions', { url: 'https://example.org/life.mp3' }));
    expect(created.name).toBe('https://example.org/life.mp3');
    const renamed = await json(await server.postJson(
      `/v1/transcriptions/${created.id}`, { name: 'Life', settings: { spokenLanguage: 'de' } }, { method: 'PATCH' },
    ));
    expect(renamed).toMatchObject({ name: 'Life', settings: { spokenLanguage: 'de' } });
    const cleared = await json(await server.postJson(
      `/v1/transcriptions/${created.id}`, { settings: { spokenLanguage: null } }, { method: 'PATCH' },
    ));
    expect(cleared.settings).toEqual({
      spokenLanguage: null, speakerLabels: null, confidencePolicy: null, voiceByLang: null, latencyMode: null, translate: null,
      llmFix: null,
    });
    expect((await server.postJson(`/v1/transcriptions/${created.id}`, { kind: 'live' }, { method: 'PATCH' })).status).toBe(400);
    const early = await server.request(`/v1/transcriptions/${created.id}/purge`, { method: 'POST' });
    expect(early.status).toBe(409);
    expect((await json(early)).code).toBe('invalid_state');
    expect((await json(await server.request(`/v1/transcriptions/${created.id}/archive`, { method: 'POST' }))).state).toBe('archived');
    expect((await json(await server.request(`/v1/transcriptions/${created.id}/restore`, { method: 'POST' }))).state).toBe('active');
    await server.request(`/v1/transcriptions/${created.id}/archive`, { method: 'POST' });
    expect(await json(await server.request(`/v1/transcriptions/${created.id}/purge`, { method: 'POST' }))).toEqual({
      id: created.id, purged: true,
    });
    expect((await server.request(`/v1/transcriptions/${created.id}`)).status).toBe(404);
  });

  it('keeps accounts apart', async () => {
    const other = await server.createAccount();
    const { key } = await server.createKey(['*'], { accountId: other });
    const mine = await json(await server.postJson('/v1/transcriptions', { url: 'https://example.org/mine.mp3' }));
    expect((await server.request(`/v1/transcriptions/${mine.id}`, { auth: key })).status).toBe(404);
    expect((await server.request(`/v1/recordings/${mine.recordingId}/job`, { auth: key })).status).toBe(404);
    expect((await server.request(`/v1/recordings/${mine.recordingId}/transcript`, { auth: key })).status).toBe(404);
    const { key: readOnly } = await server.createKey(['read']);
    const refused = await server.postJson('/v1/transcriptions', { url: 'https://example.org/x.mp3' }, { auth: readOnly });
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toContain('write');
  });
});

describe('exports before the job finishes', () => {
  it('are partial: flagged in the file and its name', async () => {
    const created = await json(await upload(server, { name: 'Still running' }));
    const res = await server.request(`/v1/recordings/${created.recordingId}/export?format=json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-export-partial')).toBe('true');
    expect(res.headers.get('content-disposition')).toContain('Still-running-partial.json');
    expect(await json(res)).toMatchObject({ partial: true, sentences: [], segments: [] });
    const transcript = await json(await server.request(`/v1/recordings/${created.recordingId}/transcript`));
    expect(transcript).toMatchObject({ partial: true, segments: [], job: { state: 'queued' } });
  });
});

describe('spec details', () => {
  it('lifecycle=all pages up to limit of each lifecycle, newest first, without repeats or gaps', async () => {
    const account = await server.createAccount('Lifecycles');
    const { key } = await server.createKey(['*'], { accountId: account });
    const made: { id: string; archived: boolean }[] = [];
    for (let i = 0; i < 3; i++) {
      for (const archived of [true, false]) {
        const created = await json(await server.postJson(
          '/v1/transcriptions', { url: `https://example.org/all-${i}-${archived}.mp3` }, { auth: key },
        ));
        if (archived) await server.request(`/v1/transcriptions/${created.id}/archive`, { method: 'POST', auth: key });
        made.push({ id: created.id, archived });
      }
    }
    const first = await json(await server.request('/v1/transcriptions?lifecycle=all&limit=2', { auth: key }));
    const states = first.transcriptions.map((t: { state: string }) => t.state);
    // More than `limit` in all, never more than `limit` of either.
    expect(first.transcriptions.length).toBeGreaterThan(2);
    expect(states.filter((state: string) => state === 'active').length).toBeLessThanOrEqual(2);
    expect(states.filter((state: string) => state === 'archived').length).toBeLessThanOrEqual(2);
    const seen = first.transcriptions.map((t: { id: string }) => t.id);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await json(await server.request(
        `/v1/transcriptions?lifecycle=all&limit=2&cursor=${encodeURIComponent(cursor)}`, { auth: key },
      ));
      seen.push(...page.transcriptions.map((t: { id: string }) => t.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(made.map((t) => t.id).reverse());
  });

  it('a failed job\'s export and transcript are not partial', async () => {
    const created = await json(await upload(server, { name: 'Gave up' }));
    await server.prisma.job.updateMany({ where: { recordingId: created.recordingId }, data: { state: 'failed', error: 'test' } });
    const res = await server.request(`/v1/recordings/${created.recordingId}/export?format=json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-export-partial')).toBe('false');
    expect(res.headers.get('content-disposition')).not.toContain('partial');
    expect(await json(res)).toMatchObject({ partial: false });
    expect(await json(await server.request(`/v1/recordings/${created.recordingId}/transcript`))).toMatchObject({
      partial: false, job: { state: 'failed' },
    });
  });

  it('the cropping preview takes the owner\'s media token (media=), as /audio does, and refuses a share link', async () => {
    const created = await json(await upload(server, { name: 'Crop me', crop: true }));
    expect(created.job.state).toBe('cropping');
    // The prepare worker is off here: point the preview at the stored source, as it would.
    const recording = await server.prisma.recording.findUniqueOrThrow({ where: { id: created.recordingId } });
    await server.prisma.job.updateMany({ where: { recordingId: created.recordingId }, data: { previewPath: recording.sourcePath } });
    const { token } = await json(await server.request(`/v1/recordings/${created.recordingId}/media-token`));
    const preview = await server.request(
      `/v1/recordings/${created.recordingId}/job/preview?media=${encodeURIComponent(token)}`, { auth: null },
    );
    expect(preview.status).toBe(200);
    expect(Buffer.from(await preview.arrayBuffer()).subarray(0, 4).toString('latin1')).toBe('OggS');
    expect((await server.request(`/v1/recordings/${created.recordingId}/job/preview?media=nope`, { auth: null })).status).toBe(401);
    // A share link does not open it: the route takes no shareCode (refused by name, as any parameter it does not declare).
    const shared = await server.request(
      `/v1/recordings/${created.recordingId}/job/preview?shareCode=${created.shareLink.code}`, { auth: null },
    );
    expect(shared.status).toBe(400);
    expect(await shared.json()).toMatchObject({ code: 'invalid_options', data: { details: { field: 'shareCode' } } });
  });
});

describe('events socket', () => {
  const refusal = async (url: string, headers: Record<string, string>) => (await upgradeRefusal(url, headers)).status;

  it('refuses the upgrade without a credential or for another account\'s transcription, and opens with the job', async () => {
    const created = await json(await server.postJson('/v1/transcriptions', { url: 'https://example.org/socket.mp3' }));
    const url = `${server.wsUrl}/v1/transcriptions/${created.id}/events`;
    expect(await refusal(url, {})).toBe(401);
    const other = await server.createAccount();
    const { key } = await server.createKey(['*'], { accountId: other });
    expect(await refusal(url, { authorization: `Bearer ${key}` })).toBe(404);
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${server.apiKey}` } });
    const first = await new Promise<Record<string, any>>((resolve, reject) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data))));
      socket.once('error', reject);
    });
    socket.close();
    expect(first).toMatchObject({
      type: 'events.ready', transcriptionId: created.id, job: { state: 'fetching', recordingId: created.recordingId },
    });
  });
});
