/**
 * A recording's own reads and lifecycle (GET /v1/recordings/{id}, archive, restore, purge), with no
 * transcription running.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, upload } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });
const mediaFiles = async () => readdir(path.join(server.app.config.dataDir, 'media')).catch(() => [] as string[]);

describe('GET /v1/recordings/{id} and the recording lifecycle', () => {
  it('reads the recording as owner or through a link; archive hides it from links, purge only when archived', async () => {
    const created = await json(await upload(server, { name: 'Recording life' }));
    const id = created.recordingId;
    const own = await json(await server.request(`/v1/recordings/${id}`));
    expect(own).toMatchObject({ id, transcriptionId: created.id, state: 'processing', lifecycle: 'active', lastSeq: -1 });
    expect(own.durationS).toBeCloseTo(2.8, 0);
    expect((await server.request(`/v1/recordings/${id}?shareCode=${created.shareLink.code}`, { auth: null })).status).toBe(200);
    expect((await server.request(`/v1/recordings/${id}`, { auth: null })).status).toBe(401);

    const early = await server.request(`/v1/recordings/${id}/purge`, { method: 'POST' });
    expect(early.status).toBe(409);
    expect((await json(await server.request(`/v1/recordings/${id}/archive`, { method: 'POST' }))).lifecycle).toBe('archived');
    expect((await server.request(`/v1/recordings/${id}/transcript?shareCode=${created.shareLink.code}`, { auth: null })).status).toBe(404);
    expect((await json(await server.request(`/v1/recordings/${id}/restore`, { method: 'POST' }))).lifecycle).toBe('active');
    expect((await server.request(`/v1/recordings/${id}/transcript?shareCode=${created.shareLink.code}`, { auth: null })).status).toBe(200);
    await server.request(`/v1/recordings/${id}/archive`, { method: 'POST' });
    // Archived keeps the data: the media is still there until the purge.
    expect(await mediaFiles()).toContain(id);
    expect(await json(await server.request(`/v1/recordings/${id}/purge`, { method: 'POST' }))).toEqual({ id, purged: true });
    expect((await server.request(`/v1/recordings/${id}`)).status).toBe(404);
    expect(await mediaFiles()).not.toContain(id);
    expect((await json(await server.request(`/v1/transcriptions/${created.id}`))).recordingId).toBeNull();
  });
});
