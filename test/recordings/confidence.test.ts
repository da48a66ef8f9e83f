/**
 * The confidence policy's precedence: the recording's over the transcription's over the broadcasts' it feeds
 * (resolved when read, field by field), each observable in the owner's `unclear`, a broadcast listener's
 * `suppressed` (snapshot and subscribe socket), and `low` words under `lowThreshold`; bad policies refused naming
 * the field. Lines of known confidence (every word at 0.5) are committed into real recordings of goforward.wav.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Follower } from '../helpers/follower.js';
import { expectInvalidOption, expectStatus, goForward, json, upload, uploadForm, waitForJob } from '../helpers/http.js';
import { commitKnown } from '../helpers/segments.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

interface Snapshot {
  sentences: Array<{ text: string; unclear: boolean | null; suppressed: boolean | null }>;
  segments: Array<{ seq: number; text: string; suppressed: boolean | null; words: Array<{ prob: number; low: boolean | null }> }>;
}

let broadcastId = '';
let transcriptionId = '';

const owner = async (id: string): Promise<Snapshot> => expectStatus(await server.request(`/v1/recordings/${id}/transcript`), 200);
const listener = async (id: string): Promise<Snapshot> => expectStatus(
  await server.request(`/v1/recordings/${id}/transcript`, { auth: null }), 200,
);
/** The sentence and segment of the line `text` as the owner and a listener read them. */
async function line(recordingId: string, seq: number, text: string) {
  const [mine, theirs] = [await owner(recordingId), await listener(recordingId)];
  return {
    unclear: mine.sentences.find((s) => s.text === text)!.unclear,
    suppressed: theirs.segments.find((s) => s.seq === seq)!.suppressed,
    lowWords: mine.segments.find((s) => s.seq === seq)!.words.map((w) => w.low),
  };
}

/** A listener on the subscribe socket sees a line committed now as text, or as `noop` (unclear). */
async function listenerSees(recordingId: string, text: string): Promise<'text' | 'noop'> {
  const follower = new Follower({ baseUrl: server.url, recordingId });
  await follower.start();
  try {
    const seq = await commitKnown(server, recordingId, { text, start: 300 + Math.random() * 100, prob: 0.5 });
    await follower.until('the new line', () => follower.lines.has(seq), 20_000);
    return follower.lines.get(seq)!.unclear ? 'noop' : 'text';
  } finally {
    follower.close();
  }
}

async function uploadRecording(settings?: Record<string, unknown>): Promise<string> {
  const response = await server.request(`/v1/transcriptions/${transcriptionId}/recordings/upload`, {
    method: 'POST', body: uploadForm(goForward, settings ? { settings } : undefined),
  });
  const recordingId: string = (await expectStatus(response, 201)).recordingId;
  await waitForJob(server, recordingId, ['done']);
  return recordingId;
}

beforeAll(async () => {
  const broadcast = await expectStatus(
    await server.postJson('/v1/broadcasts', {
      name: `Confidence ${Date.now()}`, settings: { spokenLanguage: 'en', confidencePolicy: { hideBelow: 0.7 } },
    }),
    201,
  );
  broadcastId = broadcast.id;
  // A live transcription attached to the broadcast after it was made: the broadcast's policy still applies.
  const live = await expectStatus(
    await server.postJson('/v1/transcriptions/live', { name: 'Fed later', settings: { spokenLanguage: 'en' } }), 201,
  );
  transcriptionId = live.id;
  await expectStatus(await server.postJson(`/v1/transcriptions/${transcriptionId}/broadcasts/${broadcastId}`, {}, { method: 'PUT' }), 200);
}, 60_000);

describe('precedence', () => {
  it('recording over transcription over broadcast, in snapshots, subscribers and low words', async () => {
    const plain = await uploadRecording();
    const quiet = 'Mumbled words at half confidence.';
    const seq = await commitKnown(server, plain, { text: quiet, start: 200, prob: 0.5 });

    // Only the broadcast sets a policy (hideBelow 0.7): the 0.5 line is unclear, a listener's is suppressed.
    expect(await line(plain, seq, quiet)).toMatchObject({ unclear: true, suppressed: true });
    expect(await listenerSees(plain, 'Another half heard line.')).toBe('noop');

    // The transcription's policy (hideBelow 0.3) wins over the broadcast's.
    await expectStatus(
      await server.postJson(
        `/v1/transcriptions/${transcriptionId}`, { settings: { confidencePolicy: { hideBelow: 0.3 } } }, { method: 'PATCH' },
      ),
      200,
    );
    expect(await line(plain, seq, quiet)).toMatchObject({ unclear: null, suppressed: null, lowWords: [null, null, null, null, null] });
    expect(await listenerSees(plain, 'A line the listener now reads.')).toBe('text');

    // The recording's own (hideBelow 0.9, lowThreshold 0.6) wins over both.
    const strict = await uploadRecording({ confidencePolicy: { hideBelow: 0.9, lowThreshold: 0.6 } });
    const strictSeq = await commitKnown(server, strict, { text: quiet, start: 200, prob: 0.5 });
    expect(await line(strict, strictSeq, quiet)).toMatchObject({
      unclear: true, suppressed: true, lowWords: [true, true, true, true, true],
    });
    expect(await listenerSees(strict, 'Held back from listeners.')).toBe('noop');
    // The recognizer's confident words are not low.
    expect((await owner(strict)).segments[0]!.words.some((w) => w.low === null)).toBe(true);

    // GraphQL reads the same: a listener's suppressed segment, the owner's low words.
    const query = 'query ($id: ID!) { recordingTranscript(recordingId: $id) { sentences { text unclear suppressed } segments { seq '
      + 'suppressed words { prob low } } } }';
    const seen = (await json(await server.graphql(query, { id: strict }, { auth: null }))).data.recordingTranscript;
    expect(seen.segments.find((s: { seq: number }) => s.seq === strictSeq).suppressed).toBe(true);
    const mine = (await json(await server.graphql(query, { id: strict }))).data.recordingTranscript;
    expect(mine.segments.find((s: { seq: number }) => s.seq === strictSeq).words.every((w: { low: boolean }) => w.low === true)).toBe(true);

    // The transcription's policy cleared: the broadcast's applies again, and a change to it applies at the next read.
    await expectStatus(
      await server.postJson(`/v1/transcriptions/${transcriptionId}`, { settings: { confidencePolicy: null } }, { method: 'PATCH' }), 200,
    );
    expect((await line(plain, seq, quiet)).unclear).toBe(true);
    await expectStatus(
      await server.postJson(`/v1/broadcasts/${broadcastId}`, { settings: { confidencePolicy: { hideBelow: 0.4 } } }, { method: 'PATCH' }),
      200,
    );
    expect((await line(plain, seq, quiet)).unclear).toBe(null);
    // Detached from the broadcast: the default (0.60).
    await expectStatus(await server.request(`/v1/transcriptions/${transcriptionId}/broadcasts/${broadcastId}`, { method: 'DELETE' }), 200);
    expect((await owner(plain)).sentences.find((s) => s.text === quiet)!.unclear).toBe(true);
  }, 240_000);
});

describe('validation', () => {
  it('refuses bad policy values naming the field, wherever settings are parsed', async () => {
    const patch = (settings: unknown) => server.postJson(`/v1/transcriptions/${transcriptionId}`, { settings }, { method: 'PATCH' });
    await expectInvalidOption(await patch({ confidencePolicy: { hideBelow: 1.5 } }), 'settings.confidencePolicy.hideBelow');
    await expectInvalidOption(await patch({ confidencePolicy: { hideBelow: '0.5' } }), 'settings.confidencePolicy.hideBelow');
    await expectInvalidOption(await patch({ confidencePolicy: { lowThreshold: -0.1 } }), 'settings.confidencePolicy.lowThreshold');
    await expectInvalidOption(await patch({ confidencePolicy: { suppressCount: 1.5 } }), 'settings.confidencePolicy.suppressCount');
    await expectInvalidOption(await patch({ confidencePolicy: { hidebelow: 0.5 } }), 'settings.confidencePolicy.hidebelow');
    await expectInvalidOption(await patch({ confidencePolicy: 0.5 }), 'settings.confidencePolicy');
    await expectInvalidOption(
      await server.postJson('/v1/broadcasts', { name: 'Bad policy', settings: { confidencePolicy: { hideBelow: -1 } } }),
      'settings.confidencePolicy.hideBelow',
    );
    await expectInvalidOption(
      await upload(server, { settings: { confidencePolicy: { lowThreshold: 2 } } }), 'settings.confidencePolicy.lowThreshold',
    );
    // suppressCount is accepted and kept (not read).
    const kept = await expectStatus(await patch({ confidencePolicy: { hideBelow: 0.5, suppressCount: 3 } }), 200);
    expect(kept.settings.confidencePolicy).toEqual({ hideBelow: 0.5, lowThreshold: null, suppressCount: 3 });
    const refused = await json(await server.graphql(
      'mutation ($id: ID!) { updateTranscription(id: $id, input: { settings: { confidencePolicy: { hideBelow: 7 } } }) { id } }', {
        id: transcriptionId,
      },
    ));
    expect(refused.errors[0].extensions).toMatchObject({
      code: 'invalid_options', details: { field: 'settings.confidencePolicy.hideBelow' },
    });
  });
});

describe('the recording\'s own policy (PATCH /v1/recordings/{id}/settings)', () => {
  it('is set on a finished file-job recording, wins over the transcription\'s, reaches snapshot and export, and null clears '
    + 'it', async () => {
    // A transcription of its own (hideBelow 0.3) feeding a broadcast of its own (no policy), with a share link.
    const broadcast = await expectStatus(
      await server.postJson('/v1/broadcasts', { name: `Own policy ${Date.now()}`, settings: { spokenLanguage: 'en' } }), 201,
    );
    const live = await expectStatus(
      await server.postJson('/v1/transcriptions/live', {
        name: 'Own policy', settings: { spokenLanguage: 'en', confidencePolicy: { hideBelow: 0.3 } },
      }),
      201,
    );
    await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/broadcasts/${broadcast.id}`, {}, { method: 'PUT' }), 200);
    const link = await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/share-links`, { label: 'reader' }), 201);
    const uploaded = await expectStatus(
      await server.request(`/v1/transcriptions/${live.id}/recordings/upload`, { method: 'POST', body: uploadForm(goForward) }), 201,
    );
    const recordingId: string = uploaded.recordingId;
    await waitForJob(server, recordingId, ['done']);
    const quiet = 'Half heard words, finished recording.';
    const seq = await commitKnown(server, recordingId, { text: quiet, start: 200, prob: 0.5 });
    const shared = async (): Promise<Snapshot> => expectStatus(
      await server.request(`/v1/recordings/${recordingId}/transcript?shareCode=${link.code}`, { auth: null }), 200,
    );
    const exported = async () => (await json(await server.request(`/v1/recordings/${recordingId}/export?format=json`))).sentences.find(
      (s: { text: string }) => s.text === quiet,
    );
    const patch = (body: unknown, auth?: string | null) => server.postJson(
      `/v1/recordings/${recordingId}/settings`, body, { method: 'PATCH', auth },
    );

    // The transcription's 0.3: the 0.5 line reads plainly for everyone.
    expect(await line(recordingId, seq, quiet)).toMatchObject({ unclear: null, suppressed: null });
    expect((await exported()).unclear).toBeFalsy();

    // The recording's own (finished, a file job's): it wins over the transcription's, and the settings show it.
    const policy = { hideBelow: 0.9, lowThreshold: 0.6, suppressCount: 2 };
    const changed = await expectStatus(await patch({ confidencePolicy: policy }), 200);
    expect(changed).toMatchObject({ id: recordingId, settings: { confidencePolicy: policy } });
    expect((await expectStatus(await server.request(`/v1/recordings/${recordingId}`), 200)).settings.confidencePolicy).toEqual(policy);
    expect(await line(recordingId, seq, quiet)).toMatchObject(
      { unclear: true, suppressed: true, lowWords: [true, true, true, true, true] },
    );
    // A share-link reader reads it as the owner does (unclear, words kept); a listener's is blank.
    const throughLink = await shared();
    expect(throughLink.sentences.find((s) => s.text === quiet)!.unclear).toBe(true);
    expect(throughLink.segments.find((s) => s.seq === seq)).toMatchObject({ text: quiet, suppressed: null });
    expect((await listener(recordingId)).segments.find((s) => s.seq === seq)).toMatchObject({ text: '', suppressed: true });
    expect((await exported()).unclear).toBe(true);

    // Capture settings keep their rule (a finished or file recording has no running capture): refused whole.
    await expectStatus(await patch({ spokenLanguage: 'en' }), 409, 'invalid_state');
    await expectStatus(await patch({ spokenLanguage: 'en', confidencePolicy: null }), 409, 'invalid_state');
    expect((await line(recordingId, seq, quiet)).unclear).toBe(true);

    // GraphQL's twin: null clears the recording's, and the transcription's 0.3 applies again.
    const cleared = await json(await server.graphql(
      'mutation ($id: ID!) { updateRecordingSettings(id: $id, input: { confidencePolicy: null }) { id settings { confidencePolicy { '
        + 'hideBelow } } } }', { id: recordingId },
    ));
    expect(cleared.errors).toBeUndefined();
    expect(cleared.data.updateRecordingSettings.settings.confidencePolicy).toBeNull();
    expect(await line(recordingId, seq, quiet)).toMatchObject({ unclear: null, suppressed: null });
    const set = await json(await server.graphql(
      'mutation ($id: ID!) { updateRecordingSettings(id: $id, input: { confidencePolicy: { hideBelow: 0.8 } }) { settings { '
        + 'confidencePolicy { hideBelow lowThreshold suppressCount } } } }', { id: recordingId },
    ));
    expect(set.data.updateRecordingSettings.settings.confidencePolicy).toEqual({ hideBelow: 0.8, lowThreshold: null, suppressCount: null });
    expect((await line(recordingId, seq, quiet)).unclear).toBe(true);

    // Bad values refused naming the field, through REST and GraphQL; nothing changes.
    await expectInvalidOption(await patch({ confidencePolicy: { hideBelow: 2 } }), 'confidencePolicy.hideBelow');
    await expectInvalidOption(await patch({ confidencePolicy: { hideBelow: '0.5' } }), 'confidencePolicy.hideBelow');
    await expectInvalidOption(await patch({ confidencePolicy: { hideBelow: 0.5, hideAbove: 0.9 } }), 'confidencePolicy.hideAbove');
    await expectInvalidOption(await patch({ confidencePolicy: { suppressCount: -1 } }), 'confidencePolicy.suppressCount');
    await expectInvalidOption(await patch({ confidencePolicy: 0.5 }), 'confidencePolicy');
    await expectInvalidOption(await patch({ confidence: { hideBelow: 0.5 } }), 'confidence');
    const refused = await json(await server.graphql(
      'mutation ($id: ID!) { updateRecordingSettings(id: $id, input: { confidencePolicy: { lowThreshold: 7 } }) { id } }', {
        id: recordingId,
      },
    ));
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_options', details: { field: 'confidencePolicy.lowThreshold' } });
    expect((await expectStatus(await server.request(`/v1/recordings/${recordingId}`), 200)).settings.confidencePolicy).toEqual({
      hideBelow: 0.8, lowThreshold: null, suppressCount: null,
    });

    // Owner only: another account's recording is not found, a read-only key may not write, no credential is 401.
    const stranger = await server.createKey(['*'], { accountId: await server.createAccount() });
    await expectStatus(await patch({ confidencePolicy: { hideBelow: 0.1 } }, stranger.key), 404, 'not_found');
    const readOnly = await server.createKey(['read']);
    await expectStatus(await patch({ confidencePolicy: { hideBelow: 0.1 } }, readOnly.key), 403, 'forbidden');
    await expectStatus(await patch({ confidencePolicy: { hideBelow: 0.1 } }, null), 401);
    const theirs = await json(await server.graphql(
      'mutation ($id: ID!) { updateRecordingSettings(id: $id, input: { confidencePolicy: { hideBelow: 0.1 } }) { id } }', {
        id: recordingId,
      }, { auth: stranger.key },
    ));
    expect(theirs.errors[0].extensions.code).toBe('not_found');
    expect((await line(recordingId, seq, quiet)).unclear).toBe(true);
  }, 240_000);
});
