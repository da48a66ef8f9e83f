/**
 * Share links through REST, with no transcription running: the default link, and exactly each link's
 * permissions on transcript, export and audio.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectInvalidOption, json, upload } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

describe('share links', () => {
  it('enforces exactly each link\'s permissions on transcript, export and audio', async () => {
    const created = await json(await upload(server, { name: 'Shared' }));
    const recordingId = created.recordingId;
    const defaultLink = created.shareLink;
    expect(defaultLink).toMatchObject({ isDefault: true, allowDownload: true, allowExport: true, allowTranslate: true });
    const noLink = await json(await upload(server, { name: 'Unshared', shareLink: false }));
    expect(noLink.shareLink).toBeNull();
    expect(await json(await server.request(`/v1/transcriptions/${noLink.id}/share-links`))).toEqual({ shareLinks: [] });

    const make = async (body: Record<string, unknown>) => {
      const res = await server.postJson(`/v1/transcriptions/${created.id}/share-links`, body);
      expect(res.status).toBe(201);
      return json(res);
    };
    const viewOnly = await make({ label: 'viewer', allowDownload: false, allowExport: false, allowTranslate: false });
    const exporter = await make({ label: 'exporter', allowDownload: false, allowExport: true });
    const downloader = await make({ label: 'downloader', allowExport: false });
    expect((await server.postJson(`/v1/transcriptions/${created.id}/share-links`, {})).status).toBe(400);
    expect((await server.postJson(`/v1/transcriptions/${created.id}/share-links`, { label: 'x', allowExport: 'yes' })).status).toBe(400);

    const read = (code: string, what: string) => server.request(
      `/v1/recordings/${recordingId}/${what}${what.includes('?') ? '&' : '?'}shareCode=${code}`, { auth: null, redirect: 'manual' },
    );
    const matrix: Array<[string, string, number]> = [
      // [link, read, status]
      [defaultLink.code, 'transcript', 200], [defaultLink.code, 'export?format=json', 200], [defaultLink.code, 'audio?kind=source', 302],
      [viewOnly.code, 'transcript', 200], [viewOnly.code, 'export?format=json', 403], [viewOnly.code, 'audio?kind=source', 403],
      [viewOnly.code, 'transcript?lang=fr', 403],
      [exporter.code, 'export?format=srt', 200], [exporter.code, 'audio?kind=delivery', 403], [
        exporter.code, 'audio/clip?startS=0&endS=1', 403,
      ],
      [downloader.code, 'export?format=pdf', 403], [downloader.code, 'audio?kind=source', 302], [downloader.code, 'audio?kind=master', 403],
      [downloader.code, 'events', 401], [downloader.code, 'media-token', 401],
    ];
    for (const [code, what, status] of matrix) {
      const res = await read(code, what);
      expect(
        res.status,
        `${what} with ${code === viewOnly.code ? 'viewer' : code === exporter.code ? 'exporter' : code === downloader.code ? 'downloader'
          : 'default'}`,
      ).toBe(status);
      if (status === 403) expect((await json(res)).code).toBe('forbidden');
    }
    // A link reads only its own transcription.
    expect(
      (await server.request(`/v1/recordings/${noLink.recordingId}/transcript?shareCode=${defaultLink.code}`, { auth: null })).status,
    ).toBe(404);

    // PATCH applies from the next request; omitted fields stay.
    const patched = await json(await server.postJson(`/v1/share-links/${viewOnly.id}`, { allowExport: true }, { method: 'PATCH' }));
    expect(patched).toMatchObject({ label: 'viewer', allowExport: true, allowDownload: false });
    expect((await read(viewOnly.code, 'export?format=json')).status).toBe(200);
    expect((await json(await server.request(`/v1/transcriptions/${created.id}/share-links`))).shareLinks).toHaveLength(4);

    // DELETE: 404 at once.
    expect((await server.request(`/v1/share-links/${exporter.id}`, { method: 'DELETE' })).status).toBe(200);
    const revoked = await read(exporter.code, 'transcript');
    expect(revoked.status).toBe(404);
    expect((await json(revoked)).code).toBe('not_found');
    expect((await json(await server.request(`/v1/transcriptions/${created.id}/share-links`))).shareLinks).toHaveLength(3);

    // Archived: every link is dead until restored.
    await server.request(`/v1/transcriptions/${created.id}/archive`, { method: 'POST' });
    expect((await read(defaultLink.code, 'transcript')).status).toBe(404);
    await server.request(`/v1/transcriptions/${created.id}/restore`, { method: 'POST' });
    expect((await read(defaultLink.code, 'transcript')).status).toBe(200);
  });
});

describe('share link labels', () => {
  it('takes a label of up to 200 characters and refuses a longer one naming it, at create and on change', async () => {
    const created = await json(await upload(server, { name: 'Labelled', shareLink: false }));
    const longest = 'l'.repeat(200);
    const link = await json(await server.postJson(`/v1/transcriptions/${created.id}/share-links`, { label: longest }));
    expect(link.label).toBe(longest);
    const refused = [
      await server.postJson(`/v1/transcriptions/${created.id}/share-links`, { label: `${longest}l` }),
      await server.postJson(`/v1/share-links/${link.id}`, { label: `${longest}l` }, { method: 'PATCH' }),
    ];
    for (const res of refused) expect((await expectInvalidOption(res, 'label')).message).toContain('200');
    expect((await json(await server.request(`/v1/transcriptions/${created.id}/share-links`))).shareLinks).toEqual([
      expect.objectContaining({ id: link.id, label: longest }),
    ]);
  });
});

describe('creating a share link with Idempotency-Key', () => {
  it('replays the first link for the same body and refuses another body under the same key', async () => {
    const created = await json(await upload(server, { name: 'Keyed links', shareLink: false }));
    const path = `/v1/transcriptions/${created.id}/share-links`;
    const key = crypto.randomUUID();
    const first = await server.postJson(path, { label: 'press' }, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const again = await server.postJson(path, { label: 'press' }, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(again)).id).toBe((await json(first)).id);
    const other = await server.postJson(path, { label: 'another' }, { headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(await json(other)).toMatchObject({ code: 'idempotency_key_reused' });
    expect((await json(await server.request(path))).shareLinks).toHaveLength(1);
  });
});
