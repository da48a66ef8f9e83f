/**
 * Broadcasts through REST and GraphQL: codes (derived, chosen, taken, changed — old codes stay the broadcast's),
 * access and passwords, settings, listing by lifecycle, archive/restore/purge, other accounts, and what the live
 * transcriptions feeding a broadcast show on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidOption, expectStatus, json } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const unique = () => Math.random().toString(36).slice(2, 8);

async function create(body: Record<string, unknown>) {
  const response = await server.postJson('/v1/broadcasts', body);
  const created = await json(response);
  expect(response.status, JSON.stringify(created)).toBe(201);
  return created;
}

const patch = (id: string, body: unknown, auth?: string) =>
  server.request(`/v1/broadcasts/${id}`, {
    method: 'PATCH', auth, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });

describe('broadcasts', () => {
  it('are created with a code derived from the name, public and fed by the microphone by default', async () => {
    const name = `Sunday Service — Main Hall ${unique()}`;
    const created = await create({ name, settings: { spokenLanguage: 'en' } });
    const slug = name.toLowerCase().replace('— ', '').replace(/ /g, '-');
    expect(created).toMatchObject({
      kind: 'broadcast', name, code: slug, access: 'public', lifecycle: 'active', source: { kind: 'mic' },
      settings: { spokenLanguage: 'en' }, recordingCount: 0, transcriptions: [], audioSources: [], currentRecording: null,
      lastRecording: null, lastRecordedAt: null,
    });
    expect(created.id).toMatch(/^brd_/);
    expect(created.shareUrl).toMatch(new RegExp(`^http://[^/]+/b/${slug}$`));
    expect(created).not.toHaveProperty('password');
    expect(created).not.toHaveProperty('passwordHash');
    // The same name again: the derived code is taken, so it gets a short suffix rather than a refusal.
    const again = await create({ name });
    expect(again.code).toMatch(new RegExp(`^${slug.slice(0, 43)}-[a-z0-9]{4}$`));
    expect((await json(await server.request(`/v1/broadcasts/${created.id}`))).code).toBe(slug);
    const accented = await create({ name: 'Ça va? Ünïcode!' });
    expect(accented.code).toMatch(/^ca-va-unicode(-[a-z0-9]{4})?$/);
    const stream = await create({ name: 'Radio', source: { kind: 'stream', url: 'https://radio.example.com/live.mp3' } });
    expect(stream.source).toEqual({ kind: 'stream', url: 'https://radio.example.com/live.mp3' });
  });

  it('refuse a chosen code that is taken, once under concurrent creates too', async () => {
    const code = `choir-${unique()}`;
    await create({ name: 'Choir', code });
    const taken = await expectStatus(await server.postJson('/v1/broadcasts', { name: 'Other choir', code }), 409, 'conflict');
    expect(taken.data.details.field).toBe('code');
    // Sending the same again cannot succeed: not retryable.
    expect(taken.data.retryable).toBe(false);
    const race = `race-${unique()}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => server.postJson('/v1/broadcasts', { name: 'Race', code: race })));
    expect(answers.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it.each([
    [{ name: 'x', extra: 1 }, 'extra'],
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x', code: 'AB' }, 'code'],
    [{ name: 'x', code: '-starts-with-hyphen' }, 'code'],
    [{ name: 'x', code: 'a'.repeat(65) }, 'code'],
    [{ name: 'x', access: 'secret' }, 'access'],
    [{ name: 'x', access: 'private' }, 'password'],
    [{ name: 'x', access: 'private', password: 'abc' }, 'password'],
    [{ name: 'x', settings: { spokenLanguage: 'xx' } }, 'settings.spokenLanguage'],
    [{ name: 'x', settings: { colour: 'red' } }, 'settings.colour'],
    [{ name: 'x', source: { kind: 'stream', url: 'http://169.254.169.254/latest' } }, 'source.url'],
    [{ name: 'x', source: { kind: 'tape' } }, 'source.kind'],
  ])('refuse %j naming %s', async (body, field) => {
    await expectInvalidOption(await server.postJson('/v1/broadcasts', body), field);
  });

  it('change name, access and password, settings and code; every code they had keeps being theirs', async () => {
    const first = `first-${unique()}`;
    const broadcast = await create({ name: 'Lecture', code: first, settings: { spokenLanguage: 'en', speakerLabels: 'off' } });
    const second = `second-${unique()}`;
    const changed = await expectStatus(
      await patch(broadcast.id, { name: 'Lecture hall', code: second, settings: { speakerLabels: null, spokenLanguage: 'fr' } }), 200,
    );
    expect(changed).toMatchObject({ name: 'Lecture hall', code: second, settings: { spokenLanguage: 'fr' } });
    expect(changed.settings.speakerLabels).toBeNull();
    expect(changed.shareUrl).toMatch(new RegExp(`/b/${second}$`));
    // The old code still belongs to it: nobody else may take it, and it may go back to it.
    const other = await create({ name: 'Other' });
    await expectStatus(await patch(other.id, { code: first }), 409, 'conflict');
    await expectStatus(await server.postJson('/v1/broadcasts', { name: 'Thief', code: first }), 409, 'conflict');
    expect((await expectStatus(await patch(broadcast.id, { code: first }), 200)).code).toBe(first);

    await expectInvalidOption(await patch(broadcast.id, { access: 'private' }), 'password');
    expect((await expectStatus(await patch(broadcast.id, { access: 'private', password: 'open sesame' }), 200)).access).toBe('private');
    await expectInvalidOption(await patch(broadcast.id, { password: null }), 'password');
    expect((await expectStatus(await patch(broadcast.id, { access: 'public', password: null }), 200)).access).toBe('public');
    await expectInvalidOption(await patch(broadcast.id, { source: { kind: 'mic' } }), 'source');
    await expectInvalidOption(await patch(broadcast.id, { name: '' }), 'name');
    await expectInvalidOption(await patch(broadcast.id, { code: 'No Spaces' }), 'code');
    await expectInvalidOption(await patch(broadcast.id, null), 'body');
  });

  it('are listed newest first by lifecycle, paged, and archived, restored and purged (a purged one\'s code is free again)', async () => {
    const accountId = await server.createAccount('Lister');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    const made = [];
    for (const name of ['One', 'Two', 'Three']) {
      const response = await server.postJson('/v1/broadcasts', { name, code: `${name.toLowerCase()}-${unique()}` }, { auth: key });
      made.push(await expectStatus(response, 201));
    }
    const [one, two, three] = made;
    await expectStatus(await server.postJson(`/v1/broadcasts/${two.id}/purge`, {}, { auth: key }), 409, 'invalid_state');
    expect((await expectStatus(await server.postJson(`/v1/broadcasts/${two.id}/archive`, {}, { auth: key }), 200)).lifecycle).toBe(
      'archived',
    );
    const active = await json(await server.request('/v1/broadcasts', { auth: key }));
    expect(active.broadcasts.map((b: { id: string }) => b.id)).toEqual([three.id, one.id]);
    const archived = await json(await server.request('/v1/broadcasts?lifecycle=archived', { auth: key }));
    expect(archived.broadcasts.map((b: { id: string; archivedAt: string | null }) => [b.id, Boolean(b.archivedAt)])).toEqual([[
      two.id, true,
    ]]);
    // Paged one at a time over both lifecycles: every broadcast once, newest first.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await json(await server.request(
        `/v1/broadcasts?lifecycle=all&limit=1${cursor ? `&cursor=${cursor}` : ''}`, { auth: key },
      ));
      seen.push(...page.broadcasts.map((b: { id: string }) => b.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([three.id, two.id, one.id]);
    await expectInvalidOption(await server.request('/v1/broadcasts?lifecycle=gone', { auth: key }), 'lifecycle');
    await expectInvalidOption(await server.request('/v1/broadcasts?limit=0', { auth: key }), 'limit');
    await expectInvalidOption(await server.request('/v1/broadcasts?cursor=nope', { auth: key }), 'cursor');

    expect((await expectStatus(await server.postJson(`/v1/broadcasts/${two.id}/restore`, {}, { auth: key }), 200)).lifecycle).toBe(
      'active',
    );
    await server.postJson(`/v1/broadcasts/${two.id}/archive`, {}, { auth: key });
    expect(await expectStatus(await server.postJson(`/v1/broadcasts/${two.id}/purge`, {}, { auth: key }), 200)).toEqual({
      id: two.id, purged: true,
    });
    await expectStatus(await server.request(`/v1/broadcasts/${two.id}`, { auth: key }), 404, 'not_found');
    expect((await create({ name: 'Reuse', code: two.code })).code).toBe(two.code);
  });

  it('another account sees none of it: 404, never a hint', async () => {
    const broadcast = await create({ name: 'Private matters' });
    const accountId = await server.createAccount('Stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    for (const response of [
      await server.request(`/v1/broadcasts/${broadcast.id}`, { auth: key }),
      await patch(broadcast.id, { name: 'Mine now' }, key),
      await server.postJson(`/v1/broadcasts/${broadcast.id}/archive`, {}, { auth: key }),
      await server.postJson(`/v1/broadcasts/${broadcast.id}/purge`, {}, { auth: key }),
    ]) {
      await expectStatus(response, 404, 'not_found');
    }
    expect((await json(await server.request('/v1/broadcasts', { auth: key }))).broadcasts).toEqual([]);
    await expectStatus(await server.request(`/v1/broadcasts/${broadcast.id}`, { auth: null }), 401);
  });

  it('show the live transcriptions that feed them, their recordings and the one in flight', async () => {
    const broadcast = await create({ name: 'Fed' });
    const live = await json(await server.postJson('/v1/transcriptions/live', { name: 'Feeding', broadcasts: [broadcast.id] }));
    const grant = await json(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}));
    const fed = await json(await server.request(`/v1/broadcasts/${broadcast.id}`));
    expect(fed).toMatchObject({
      transcriptions: [{ id: live.id, name: 'Feeding' }],
      recordingCount: 1,
      currentRecording: { recordingId: grant.recording.id, state: 'live', transcriptionId: live.id },
    });
    expect(fed.lastRecordedAt).toBeTruthy();
  });

  it('are listed with a few queries for any number of them, each as GET shows it', async () => {
    const { key } = await server.createKey(['*'], { accountId: await server.createAccount('Many halls') });
    const addFed = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const broadcast = await json(await server.postJson('/v1/broadcasts', { name: `Hall ${unique()}` }, { auth: key }));
        const live = await json(await server.postJson(
          '/v1/transcriptions/live', { name: `Feed ${i}`, broadcasts: [broadcast.id] }, { auth: key },
        ));
        await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}, { auth: key }), 201);
      }
    };
    const listCounting = async () => {
      await server.request('/v1/me', { auth: key }); // the key's last-used stamp, out of the way
      const queries: string[] = [];
      const stop = server.app.db.onQuery((sql) => queries.push(sql));
      const listed = await expectStatus(await server.request('/v1/broadcasts?limit=100', { auth: key }), 200);
      stop();
      return { items: listed.broadcasts as Array<Record<string, unknown> & { id: string }>, queries };
    };
    await addFed(2);
    const few = await listCounting();
    await addFed(4);
    // Plus one with no feed: no recording queries for it, and nothing borrowed from the others.
    await json(await server.postJson('/v1/broadcasts', { name: `Quiet ${unique()}` }, { auth: key }));
    const many = await listCounting();
    expect(few.items).toHaveLength(2);
    expect(many.items).toHaveLength(7);
    expect(many.queries.length).toBe(few.queries.length);
    for (const item of many.items) {
      const { listenersNow: _now, ...shown } = await expectStatus(await server.request(`/v1/broadcasts/${item.id}`, { auth: key }), 200);
      const { listenersNow: _listed, ...listed } = item;
      expect(listed).toEqual(shown);
    }
    expect(many.items.filter((item) => item.recordingCount === 1 && item.currentRecording)).toHaveLength(6);
  });

  it('are fed by live transcriptions attached and detached either way, many to many', async () => {
    const [a, b] = [await create({ name: 'Hall A' }), await create({ name: 'Hall B' })];
    const live = await json(await server.postJson('/v1/transcriptions/live', { name: 'Keynote' }));
    const other = await json(await server.postJson('/v1/transcriptions/live', { name: 'Panel' }));
    const attach = (transcriptionId: string, broadcastId: string, auth?: string) => server.request(
      `/v1/transcriptions/${transcriptionId}/broadcasts/${broadcastId}`, { method: 'PUT', auth },
    );
    const detach = (transcriptionId: string, broadcastId: string) => server.request(
      `/v1/transcriptions/${transcriptionId}/broadcasts/${broadcastId}`, { method: 'DELETE' },
    );
    // Concurrent attaches to one transcription all land; repeating one changes nothing.
    await Promise.all([attach(live.id, a.id), attach(live.id, b.id), attach(live.id, a.id)]);
    const both = await expectStatus(await attach(live.id, b.id), 200);
    expect(both.broadcasts.map((ref: { id: string }) => ref.id).sort()).toEqual([a.id, b.id].sort());
    expect(both.broadcasts[0]).toMatchObject({
      name: expect.any(String), code: expect.any(String), access: 'public', shareUrl: expect.stringMatching(/\/b\//),
    });
    await expectStatus(await attach(other.id, a.id), 200);
    expect((await json(await server.request(`/v1/broadcasts/${a.id}`))).transcriptions.map((t: { id: string }) => t.id)).toEqual([
      live.id, other.id,
    ]);

    const after = await expectStatus(await detach(live.id, a.id), 200);
    expect(after.broadcasts.map((ref: { id: string }) => ref.id)).toEqual([b.id]);
    await expectStatus(await detach(live.id, a.id), 200);
    expect((await json(await server.request(`/v1/broadcasts/${a.id}`))).transcriptions.map((t: { id: string }) => t.id)).toEqual(
      [other.id],
    );
    // GraphQL, the same move.
    const viaGraphql = await (await server.graphql('mutation($t: ID!, $b: ID!) { attachTranscriptionBroadcast(transcriptionId: $t, '
      + 'broadcastId: $b) { broadcasts { id } } }', { t: live.id, b: a.id })).json();
    expect(viaGraphql.data.attachTranscriptionBroadcast.broadcasts.map((ref: { id: string }) => ref.id)).toEqual([b.id, a.id]);

    // Refusals: a file transcription, archived ends, and other accounts' ids (404 either way).
    const file = await json(await server.postJson('/v1/transcriptions', { url: 'https://example.org/a.mp3' }));
    await expectStatus(await attach(file.id, a.id), 409, 'invalid_state');
    await server.postJson(`/v1/broadcasts/${b.id}/archive`, {});
    await expectStatus(await attach(other.id, b.id), 409, 'invalid_state');
    await expectStatus(await attach(live.id, 'brd_missing'), 404, 'not_found');
    await expectStatus(await attach('trn_missing', a.id), 404, 'not_found');
    const accountId = await server.createAccount('Feed stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    await expectStatus(await attach(live.id, a.id, key), 404, 'not_found');
    const theirs = await json(await server.postJson('/v1/transcriptions/live', { name: 'Theirs' }, { auth: key }));
    await expectStatus(await attach(theirs.id, a.id, key), 404, 'not_found');
  });

  it('start recordings in a new live transcription that feeds them, one device at a time', async () => {
    const broadcast = await create({ name: 'Town hall', settings: { spokenLanguage: 'en' } });
    const [first, second] = await Promise.all([
      server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, { scriptText: 'welcome everyone' }),
      server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}),
    ]);
    // Of two starts at once exactly one wins; the other is told how to take over.
    const [won, lost] = first.status === 201 ? [first, second] : [second, first];
    const grant = await expectStatus(won, 201);
    const conflict = await expectStatus(lost, 409, 'conflict');
    expect(conflict.data.details.takeover).toMatchObject({ recordingId: grant.recording.id });
    expect(grant.streamUrl).toMatch(/^ws:\/\/.*\/publish\//);
    expect(grant.recording).toMatchObject({ kind: 'live', state: 'live', scriptText: won === first ? 'welcome everyone' : null });
    const transcription = await json(await server.request(`/v1/transcriptions/${grant.recording.transcriptionId}`));
    expect(transcription).toMatchObject({
      kind: 'live', name: 'Town hall', settings: { spokenLanguage: 'en' }, broadcasts: [{ id: broadcast.id }],
    });
    const fed = await json(await server.request(`/v1/broadcasts/${broadcast.id}`));
    expect(fed.currentRecording).toMatchObject({ recordingId: grant.recording.id, state: 'live', transcriptionId: transcription.id });
    expect(fed.recordingCount).toBe(1);
    // The broadcast's own transcriptions: only the winner's was made.
    expect(fed.transcriptions.map((t: { id: string }) => t.id)).toEqual([transcription.id]);

    // Once that recording ends, the next start makes another transcription.
    await server.postJson(`/v1/recordings/${grant.recording.id}/pause`, {});
    await server.postJson(`/v1/recordings/${grant.recording.id}/stop`, {});
    const next = await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}), 201);
    expect(next.recording.transcriptionId).not.toBe(transcription.id);

    await expectInvalidOption(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, { script: 'x' }), 'script');
    const noSource = await expectStatus(
      await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, { audioSource: 'src_1' }), 404, 'not_found',
    );
    expect(noSource.data.details.field).toBe('audioSource');
    await expectStatus(await server.postJson('/v1/broadcasts/brd_missing/recordings', {}), 404, 'not_found');
    const archived = await create({ name: 'Closed hall' });
    await server.postJson(`/v1/broadcasts/${archived.id}/archive`, {});
    await expectStatus(await server.postJson(`/v1/broadcasts/${archived.id}/recordings`, {}), 409, 'invalid_state');
    const accountId = await server.createAccount('Hall stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}, { auth: key }), 404, 'not_found');
    const viaGraphql = await (await server.graphql(
      'mutation($id: ID!) { startBroadcastRecording(broadcastId: $id) { sessionId } }', { id: broadcast.id },
    )).json();
    expect(viaGraphql.errors[0].extensions).toMatchObject({ code: 'conflict' });
  });

  it('list the recordings of the transcriptions feeding them, newest first, paged, by lifecycle; the newest is lastRecording', async () => {
    const broadcast = await create({ name: 'Archive hall' });
    const record = async () => {
      const grant = await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}), 201);
      await server.postJson(`/v1/recordings/${grant.recording.id}/pause`, {});
      await expectStatus(await server.postJson(`/v1/recordings/${grant.recording.id}/stop`, {}), 200);
      return grant.recording as { id: string; transcriptionId: string };
    };
    const first = await record();
    const second = await record();
    // A live transcription attached later feeds it too, with the recordings it made before.
    const attached = await json(await server.postJson('/v1/transcriptions/live', { name: 'Attached later' }));
    const third = (await expectStatus(await server.postJson(`/v1/transcriptions/${attached.id}/recordings`, {}), 201)).recording;
    await server.request(`/v1/transcriptions/${attached.id}/broadcasts/${broadcast.id}`, { method: 'PUT' });
    // Not fed by this broadcast: another transcription's recording.
    const elsewhere = await json(await server.postJson('/v1/transcriptions/live', { name: 'Elsewhere' }));
    await expectStatus(await server.postJson(`/v1/transcriptions/${elsewhere.id}/recordings`, {}), 201);

    const listed = await expectStatus(await server.request(`/v1/broadcasts/${broadcast.id}/recordings`), 200);
    expect(listed.recordings.map((r: { id: string }) => r.id)).toEqual([third.id, second.id, first.id]);
    expect(listed).not.toHaveProperty('nextCursor');
    expect(listed.recordings[1]).toMatchObject({
      id: second.id, transcriptionId: second.transcriptionId, kind: 'live', state: expect.stringMatching(/^(ended|finalized)$/),
    });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await expectStatus(
        await server.request(`/v1/broadcasts/${broadcast.id}/recordings?limit=1${cursor ? `&cursor=${cursor}` : ''}`), 200,
      );
      seen.push(...page.recordings.map((r: { id: string }) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([third.id, second.id, first.id]);

    const fed = await json(await server.request(`/v1/broadcasts/${broadcast.id}`));
    expect(fed.recordingCount).toBe(3);
    expect(fed.lastRecording).toEqual({
      recordingId: third.id, transcriptionId: attached.id, kind: 'live', name: 'Attached later', state: 'live', lifecycle: 'active',
      startedAt: third.createdAt, endedAt: null, durationS: null,
    });
    expect(fed.lastRecordedAt).toBe(third.createdAt);
    await server.postJson(`/v1/recordings/${third.id}/pause`, {});
    await server.postJson(`/v1/recordings/${third.id}/stop`, {});
    const ended = (await json(await server.request(`/v1/broadcasts/${broadcast.id}`))).lastRecording;
    expect(ended.state).toMatch(/^(ended|finalized)$/);
    expect(Date.parse(ended.endedAt)).toBeGreaterThanOrEqual(Date.parse(ended.startedAt));

    // Archived recordings are listed apart.
    await expectStatus(await server.postJson(`/v1/recordings/${first.id}/archive`, {}), 200);
    expect(
      (await json(await server.request(`/v1/broadcasts/${broadcast.id}/recordings`))).recordings.map((r: { id: string }) => r.id),
    ).toEqual([third.id, second.id]);
    const archived = await json(await server.request(`/v1/broadcasts/${broadcast.id}/recordings?lifecycle=archived`));
    expect(archived.recordings.map((r: { id: string; lifecycle: string }) => [r.id, r.lifecycle])).toEqual([[first.id, 'archived']]);
    expect((await json(await server.request(`/v1/broadcasts/${broadcast.id}/recordings?lifecycle=all`))).recordings).toHaveLength(3);
    // Detached, a transcription's recordings are no longer the broadcast's.
    await server.request(`/v1/transcriptions/${attached.id}/broadcasts/${broadcast.id}`, { method: 'DELETE' });
    expect(
      (await json(await server.request(`/v1/broadcasts/${broadcast.id}/recordings`))).recordings.map((r: { id: string }) => r.id),
    ).toEqual([second.id]);
    expect((await json(await server.request(`/v1/broadcasts/${broadcast.id}`))).lastRecording.recordingId).toBe(second.id);

    await expectInvalidOption(await server.request(`/v1/broadcasts/${broadcast.id}/recordings?lifecycle=gone`), 'lifecycle');
    await expectInvalidOption(await server.request(`/v1/broadcasts/${broadcast.id}/recordings?limit=501`), 'limit');
    await expectInvalidOption(await server.request(`/v1/broadcasts/${broadcast.id}/recordings?cursor=nope`), 'cursor');
    await expectStatus(await server.request('/v1/broadcasts/brd_missing/recordings'), 404, 'not_found');
    const accountId = await server.createAccount('Recordings stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    await expectStatus(await server.request(`/v1/broadcasts/${broadcast.id}/recordings`, { auth: key }), 404, 'not_found');
    const viaGraphql = await (await server.graphql('query($id: ID!) { broadcastRecordings(broadcastId: $id, lifecycle: "all") { items { '
      + 'id } nextCursor } broadcast(id: $id) { lastRecording { recordingId state } } }', { id: broadcast.id })).json();
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.broadcastRecordings).toEqual({ items: [{ id: second.id }, { id: first.id }], nextCursor: null });
    expect(viaGraphql.data.broadcast.lastRecording.recordingId).toBe(second.id);
  });

  it('have share links: listed, created, changed and revoked with the same permission model as transcriptions', async () => {
    const broadcast = await create({ name: 'Shared hall' });
    const link = await expectStatus(
      await server.postJson(`/v1/broadcasts/${broadcast.id}/share-links`, { label: 'Press', allowTranslate: false }), 201,
    );
    expect(link).toMatchObject({
      label: 'Press', broadcastId: broadcast.id, transcriptionId: null, allowDownload: true, allowExport: true, allowTranslate: false,
      isDefault: false,
    });
    expect(link.code).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const second = await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/share-links`, { label: 'Family' }), 201);
    expect(
      (await json(await server.request(`/v1/broadcasts/${broadcast.id}/share-links`))).shareLinks.map((l: { id: string }) => l.id),
    ).toEqual([link.id, second.id]);
    expect((await expectStatus(
      await server.request(`/v1/share-links/${link.id}`, {
        method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ allowExport: false }),
      }),
      200,
    )).allowExport).toBe(false);
    await expectStatus(await server.request(`/v1/share-links/${second.id}`, { method: 'DELETE' }), 200);
    expect(
      (await json(await server.request(`/v1/broadcasts/${broadcast.id}/share-links`))).shareLinks.map((l: { id: string }) => l.id),
    ).toEqual([link.id]);
    await expectInvalidOption(
      await server.postJson(`/v1/broadcasts/${broadcast.id}/share-links`, { label: 'x', allowDownload: 'yes' }), 'allowDownload',
    );
    await expectInvalidOption(await server.postJson(`/v1/broadcasts/${broadcast.id}/share-links`, {}), 'label');
    const viaGraphql = await (await server.graphql(
      'query($id: ID!) { broadcastShareLinks(broadcastId: $id) { id broadcastId } }', { id: broadcast.id },
    )).json();
    expect(viaGraphql.data.broadcastShareLinks).toEqual([{ id: link.id, broadcastId: broadcast.id }]);

    await server.postJson(`/v1/broadcasts/${broadcast.id}/archive`, {});
    await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/share-links`, { label: 'Late' }), 409, 'invalid_state');
    const accountId = await server.createAccount('Link stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    await expectStatus(await server.request(`/v1/broadcasts/${broadcast.id}/share-links`, { auth: key }), 404, 'not_found');
    await expectStatus(
      await server.postJson(`/v1/broadcasts/${broadcast.id}/share-links`, { label: 'Mine' }, { auth: key }), 404, 'not_found',
    );
    await expectStatus(await server.request(`/v1/share-links/${link.id}`, { method: 'DELETE', auth: key }), 404, 'not_found');
  });

  it('through GraphQL too', async () => {
    const code = `graphql-${unique()}`;
    const created = await (await server.graphql('mutation($input: CreateBroadcastInput!) { createBroadcast(input: $input) { id code '
      + 'access kind createdAt } }', { input: { name: 'From GraphQL', code, access: 'private', password: 'secret words' } })).json();
    expect(created.errors).toBeUndefined();
    expect(created.data.createBroadcast).toMatchObject({ code, access: 'private', kind: 'broadcast' });
    const listed = await (await server.graphql('{ broadcasts(limit: 500) { items { id code } } }')).json();
    expect(listed.data.broadcasts.items.map((b: { code: string }) => b.code)).toContain(code);
    const taken = await (await server.graphql(
      'mutation($input: CreateBroadcastInput!) { createBroadcast(input: $input) { id } }', { input: { name: 'Again', code } },
    )).json();
    expect(taken.errors[0].extensions).toMatchObject({ code: 'conflict' });
  });
});
