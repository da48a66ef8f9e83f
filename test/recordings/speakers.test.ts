/**
 * Naming speakers (`PUT /v1/recordings/{id}/speakers/{idx}`, `nameRecordingSpeaker`): the name shows in the snapshot,
 * the SRT and JSON exports and reaches a subscriber as `transcript.speaker`; null clears it; bad idx and names are
 * refused naming the field; another account's recording is 404.
 */
import { beforeAll, expect, it } from 'vitest';
import { Follower } from '../helpers/follower.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { commitKnown } from '../helpers/segments.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
let recordingId = '';

const put = (idx: string | number, body: unknown, auth?: string | null) => server.postJson(
  `/v1/recordings/${recordingId}/speakers/${idx}`, body, { method: 'PUT', auth },
);
const snapshotSpeakers = async () => (await json(await server.request(`/v1/recordings/${recordingId}/transcript`))).speakers;
const srt = async () => (await server.request(`/v1/recordings/${recordingId}/export?format=srt`)).text();

beforeAll(async () => {
  const created = await json(await upload(server, { name: 'Speakers' }));
  recordingId = created.recordingId;
  await waitForJob(server, recordingId, ['done']);
  // Two labelled speakers after the recognizer's lines.
  await commitKnown(server, recordingId, { text: 'Good morning to you all.', start: 100, speaker: 0 });
  await commitKnown(server, recordingId, { text: 'And good morning to you.', start: 104, speaker: 1 });
}, 120_000);

it('names a speaker: snapshot, SRT and JSON exports, and a transcript.speaker frame to a subscriber; null clears it', async () => {
  expect(await snapshotSpeakers()).toEqual([{ index: 0, name: null }, { index: 1, name: null }]);
  const follower = new Follower({ baseUrl: server.url, recordingId, authorization: `Bearer ${server.apiKey}` });
  await follower.start();
  try {
    expect(await expectStatus(await put(1, { name: '  Ada   Lovelace ' }), 200)).toEqual({ index: 1, name: 'Ada Lovelace' });
    expect(await snapshotSpeakers()).toEqual([{ index: 0, name: null }, { index: 1, name: 'Ada Lovelace' }]);
    const captions = await srt();
    expect(captions).toContain('Ada Lovelace: And good morning to you.');
    expect(captions).toContain('Speaker 1: Good morning to you all.');
    const exported = await json(await server.request(`/v1/recordings/${recordingId}/export?format=json`));
    expect(exported.speakers).toEqual([{ index: 0, name: 'Speaker 1' }, { index: 1, name: 'Ada Lovelace' }]);
    await follower.until('transcript.speaker', () => follower.frames.some((f) => f.type === 'transcript.speaker'), 20_000);
    expect(follower.frames.find((f) => f.type === 'transcript.speaker')).toMatchObject({ recordingId, speaker: 1, name: 'Ada Lovelace' });

    // GraphQL: a second name, then null clears it.
    const mutation = 'mutation ($id: ID!, $idx: Int!, $name: String) { nameRecordingSpeaker(recordingId: $id, idx: $idx, name: $name) { '
      + 'index name } }';
    expect((await json(await server.graphql(mutation, { id: recordingId, idx: 0, name: 'Grace' }))).data.nameRecordingSpeaker).toEqual(
      { index: 0, name: 'Grace' },
    );
    expect((await json(await server.graphql(mutation, { id: recordingId, idx: 1, name: null }))).data.nameRecordingSpeaker).toEqual(
      { index: 1, name: null },
    );
    expect(await snapshotSpeakers()).toEqual([{ index: 0, name: 'Grace' }, { index: 1, name: null }]);
    expect(await srt()).toContain('Speaker 2: And good morning to you.');
    await follower.until(
      'the cleared name', () => follower.frames.some((f) => f.type === 'transcript.speaker' && f.speaker === 1 && f.name === null), 20_000,
    );
    // An empty name clears too.
    expect(await expectStatus(await put(0, { name: '' }), 200)).toEqual({ index: 0, name: null });
    expect(await snapshotSpeakers()).toEqual([{ index: 0, name: null }, { index: 1, name: null }]);
  } finally {
    follower.close();
  }
});

it('refuses a bad idx or name naming the field, and another account\'s recording', async () => {
  await expectInvalidOption(await put('x', { name: 'A' }), 'idx');
  await expectInvalidOption(await put(-1, { name: 'A' }), 'idx');
  await expectInvalidOption(await put('1.5', { name: 'A' }), 'idx');
  await expectInvalidOption(await put(0, { name: 'x'.repeat(101) }), 'name');
  await expectInvalidOption(await put(0, { name: 5 }), 'name');
  await expectInvalidOption(await put(0, {}), 'name');
  await expectInvalidOption(await put(0, { name: 'A', color: 'red' }), 'color');
  expect(await expectStatus(await put(0, { name: 'x'.repeat(100) }), 200)).toMatchObject({ index: 0 });
  const refused = await json(await server.graphql('mutation ($id: ID!) { nameRecordingSpeaker(recordingId: $id, idx: -1, name: "A") { '
    + 'index } }', { id: recordingId }));
  expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_options' });
  const stranger = await server.createKey(['*'], { accountId: await server.createAccount('Stranger') });
  await expectStatus(await put(0, { name: 'Mallory' }, stranger.key), 404, 'not_found');
  await expectStatus(await put(0, { name: 'Mallory' }, (await server.createKey(['read'])).key), 403, 'forbidden');
  expect((await snapshotSpeakers())[0].name).toBe('x'.repeat(100));
});
