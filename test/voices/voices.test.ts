/**
 * Voices through REST: the catalogue (available, previews), cloned voices from an upload (training → ready with a
 * real speech sample, → failed for a tone), consent and drafts, the refusals of a bad upload, PATCH, DELETE, the
 * sample's ranges, another account's voice, and voices from a recording's speaker.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ffmpegPath } from '../../workers/engine/audio.js';
import { fixture } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json, upload, uploadForm, waitForJob } from '../helpers/http.js';
import { kokoroTestDir } from '../helpers/kokoro.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { TWO_SPEAKERS } from '../helpers/speakers.js';
import { connectPublisher, startLiveRecording } from '../helpers/live.js';
import { fileChunks, LECTURE } from '../helpers/realtime.js';

const SAMPLE_LIMIT = 2_500_000;
const server = useTestServer({ env: { KOKORO_DIR: await kokoroTestDir(), VOICE_SAMPLE_MAX_BYTES: String(SAMPLE_LIMIT) } });

const lecture = await readFile(fixture('political-philosophy-60s.wav'));

/** 12 s of a 220 Hz tone: audio, but no speech. */
function tone(): Buffer {
  const made = spawnSync(
    ffmpegPath(),
    [
      '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=12', '-ar', '16000', '-ac', '1', '-f', 'wav',
      'pipe:1',
    ],
    { maxBuffer: 10 * 1024 * 1024 },
  );
  if (made.status !== 0) throw new Error(`ffmpeg: ${made.stderr.toString()}`);
  return made.stdout;
}

function voiceForm(meta: unknown, sample: Buffer | null, name = 'sample.wav'): FormData {
  const form = new FormData();
  if (meta !== undefined) form.append('meta', typeof meta === 'string' ? meta : JSON.stringify(meta));
  if (sample) form.append('sample', new Blob([new Uint8Array(sample)], { type: 'audio/wav' }), name);
  return form;
}

function createVoice(meta: unknown, sample: Buffer | null, auth?: string) {
  return server.request('/v1/voices', { method: 'POST', body: voiceForm(meta, sample), auth });
}

async function waitForVoice(id: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  const seen: number[] = [];
  for (;;) {
    const voice = await json(await server.request(`/v1/voices/${id}`));
    seen.push(voice.progress);
    if (voice.state !== 'training') return { voice, seen };
    if (Date.now() > deadline) throw new Error(`voice stayed training (${JSON.stringify(voice)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function audioOf(response: Response): Promise<Buffer> {
  expect(response.status, await response.clone().text().catch(() => '')).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('the catalogue', () => {
  it('lists the voices of a language best first, the default first, to anyone; refuses a language with no voice', async () => {
    const english = await json(await server.request('/v1/voices/available?lang=en', { auth: null }));
    expect(english.lang).toBe('en-US');
    expect(english.voices[0]).toMatchObject({ id: 'af_heart', kind: 'catalogue', default: true, language: 'en-US', gender: 'female' });
    expect(english.voices.filter((v: { default: boolean }) => v.default)).toHaveLength(1);
    expect(english.voices.every((v: { kind: string }) => v.kind === 'catalogue')).toBe(true);
    expect(english.voices[1].id).toBe('af_bella');
    const spanish = await json(await server.request('/v1/voices/available?lang=es', { auth: null }));
    expect(spanish.voices.map((v: { id: string }) => v.id).sort()).toEqual(['ef_dora', 'em_alex', 'em_santa']);
    await expectInvalidOption(await server.request('/v1/voices/available?lang=tlh', { auth: null }), 'lang');
    await expectInvalidOption(await server.request('/v1/voices/available', { auth: null }), 'lang');
    expect((await server.request('/v1/voices/available?lang=en', { auth: 'not-a-token' })).status).toBe(401);
  });

  it('GET /v1/languages lists the languages with a voice', async () => {
    const languages = await json(await server.request('/v1/languages'));
    expect(languages.voice.map((l: { code: string }) => l.code)).toEqual(['en-US', 'en-GB', 'es', 'fr', 'hi', 'it', 'ja', 'pt-BR', 'zh']);
  });

  it('previews a catalogue voice as Ogg/Opus or CAF, kept on disk so a second ask is instant; refuses others', async () => {
    const started = Date.now();
    // Two at once: one rendering, both answered the same bytes.
    const [first, again] = await Promise.all([1, 2].map(async () => audioOf(await server.request(
      '/v1/voices/preview?voice=ef_dora&lang=es', { auth: null },
    ))));
    const firstMs = Date.now() - started;
    expect(first!.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(again!.equals(first!)).toBe(true);
    const cachedAt = Date.now();
    const cached = await audioOf(await server.request('/v1/voices/preview?voice=ef_dora&lang=es', { auth: null }));
    expect(cached.equals(first!)).toBe(true);
    expect(Date.now() - cachedAt).toBeLessThan(firstMs);
    expect(existsSync(path.join(server.env.DATA_DIR!, 'voices', 'previews', 'ef_dora.es.ogg'))).toBe(true);
    const caf = await audioOf(await server.request('/v1/voices/preview?lang=fr&format=caf', { auth: null }));
    expect(caf.subarray(0, 4).toString('latin1')).toBe('caff');
    await expectInvalidOption(await server.request('/v1/voices/preview?voice=af_heart&lang=es', { auth: null }), 'voice');
    await expectInvalidOption(await server.request('/v1/voices/preview?voice=voi_0000', { auth: null }), 'voice');
    await expectInvalidOption(await server.request('/v1/voices/preview?format=mp3', { auth: null }), 'format');
  }, 120_000);
});

describe('a cloned voice from an upload', () => {
  let voiceId = '';

  it('trains a real speech sample: training at progress 0, then ready; its preview speaks Ogg and CAF', async () => {
    const started = Date.now();
    const created = await expectStatus(await createVoice({ name: 'Lecturer', color: '#aa3300', consent: true }, lecture, undefined), 201);
    expect(created).toMatchObject({
      state: 'training', progress: 0, consent: true, draft: false, enabled: true, color: '#aa3300', error: null,
    });
    voiceId = created.id;
    const { voice, seen } = await waitForVoice(voiceId);
    const trainingS = (Date.now() - started) / 1000;
    console.log(`voice training took ${trainingS.toFixed(1)} s (progress seen: ${[...new Set(seen)].join(', ')})`);
    expect(voice).toMatchObject({ state: 'ready', progress: 100, error: null });
    expect(voice.speechS).toBeGreaterThan(30);
    expect(voice.fit).toMatchObject({ cloner: 'style-fit' });
    expect(voice.fit.basedOn.length).toBeGreaterThan(0);
    expect(existsSync(path.join(server.env.DATA_DIR!, 'voices', voiceId, 'model.f32'))).toBe(true);

    const ogg = await audioOf(await server.request(`/v1/voices/${voiceId}/preview`));
    expect(ogg.subarray(0, 4).toString('latin1')).toBe('OggS');
    const caf = await audioOf(await server.request(`/v1/voices/${voiceId}/preview?format=caf&lang=es`));
    expect(caf.subarray(0, 4).toString('latin1')).toBe('caff');
    // A player's URL: a person's token in access_token; nothing at all is refused.
    const person = await server.createUser();
    const viaUrl = await audioOf(await server.request(`/v1/voices/${voiceId}/preview?access_token=${person.token}`, { auth: null }));
    expect(viaUrl.equals(ogg)).toBe(true);
    await expectStatus(await server.request(`/v1/voices/${voiceId}/preview`, { auth: null }), 401, 'invalid_token');

    // Offered for every voice language to its owner, after the catalogue; never to anyone else.
    const mine = await json(await server.request('/v1/voices/available?lang=it'));
    expect(mine.voices.at(-1)).toMatchObject({ id: voiceId, kind: 'cloned', name: 'Lecturer', language: null, default: false });
    const open = await json(await server.request('/v1/voices/available?lang=it', { auth: null }));
    expect(open.voices.some((v: { id: string }) => v.id === voiceId)).toBe(false);
  }, 180_000);

  it('serves the sample to its owner with ranges; another account sees nothing', async () => {
    const whole = await audioOf(await server.request(`/v1/voices/${voiceId}/sample`));
    expect(whole.equals(lecture)).toBe(true);
    const part = await server.request(`/v1/voices/${voiceId}/sample`, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${lecture.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(lecture.subarray(100, 200))).toBe(true);

    const other = await server.createKey(['*'], { accountId: await server.createAccount() });
    for (const pathname of [`/v1/voices/${voiceId}`, `/v1/voices/${voiceId}/sample`, `/v1/voices/${voiceId}/preview`]) {
      await expectStatus(await server.request(pathname, { auth: other.key }), 404, 'not_found');
    }
    await expectStatus(await server.request(`/v1/voices/${voiceId}`, { method: 'DELETE', auth: other.key }), 404, 'not_found');
    expect((await json(await server.request('/v1/voices', { auth: other.key }))).voices).toEqual([]);
  });

  it('speaks a recording\'s spoken translation when pinned in settings.voiceByLang; pins are checked', async () => {
    const created = await json(await upload(server, { name: 'Pinned', settings: { spokenLanguage: 'en', voiceByLang: { es: voiceId } } }));
    await waitForJob(server, created.recordingId, ['done'], 180_000);
    expect((await server.postJson(`/v1/recordings/${created.recordingId}/voice`, { languages: ['es'] })).status).toBe(202);
    const deadline = Date.now() + 180_000;
    let track: { voice: string; sealed: boolean; clips: Array<{ voice: string }>; job: { state: string } | null };
    for (;;) {
      const response = await server.request(`/v1/recordings/${created.recordingId}/voice?lang=es`);
      const body = await json(response);
      // A long render on a loaded machine means many polls: a 429 is waited out, any other answer shown.
      if (response.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)));
        continue;
      }
      if (response.status !== 200 || !body.tracks?.[0]) {
        throw new Error(`GET …/voice?lang=es answered ${response.status}: ${JSON.stringify(body)}`);
      }
      track = body.tracks[0];
      if (track.sealed) break;
      if (track.job?.state === 'failed' || Date.now() > deadline) throw new Error(`not sealed: ${JSON.stringify(track)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(track.voice).toBe(voiceId);
    expect(track.clips.length).toBeGreaterThan(0);
    for (const clip of track.clips) expect(clip.voice).toBe(voiceId);
    // The recording's own pin wins over its transcription's, in any state; a pin the catalogue refuses is 400.
    const pinned = await json(await server.postJson(
      `/v1/recordings/${created.recordingId}/settings`, { voiceByLang: { es: 'em_alex' } }, { method: 'PATCH' },
    ));
    expect(pinned.settings.voiceByLang).toEqual({ es: 'em_alex' });
    for (const [pins, field] of [
      [{ fr: 'ef_dora' }, 'voiceByLang.fr'], [{ es: 'nobody' }, 'voiceByLang.es'], [{ xx: 'ef_dora' }, 'voiceByLang.xx'],
      ['ef_dora', 'voiceByLang'],
    ] as const) {
      await expectInvalidOption(
        await server.postJson(`/v1/recordings/${created.recordingId}/settings`, { voiceByLang: pins }, { method: 'PATCH' }), field,
      );
      await expectInvalidOption(await upload(server, { name: 'Bad pin', settings: { voiceByLang: pins } }), `settings.${field}`);
    }
  }, 400_000);

  it('PATCH renames, clears the colour with \'\', switches off; absent fields stay', async () => {
    const renamed = await json(await server.postJson(`/v1/voices/${voiceId}`, { name: 'The lecturer' }, { method: 'PATCH' }));
    expect(renamed).toMatchObject({ name: 'The lecturer', color: '#aa3300', enabled: true, state: 'ready' });
    const cleared = await json(await server.postJson(`/v1/voices/${voiceId}`, { color: '' }, { method: 'PATCH' }));
    expect(cleared).toMatchObject({ name: 'The lecturer', color: null });
    const off = await json(await server.postJson(`/v1/voices/${voiceId}`, { enabled: false }, { method: 'PATCH' }));
    expect(off).toMatchObject({ enabled: false, name: 'The lecturer', color: null });
    const offered = await json(await server.request('/v1/voices/available?lang=en'));
    expect(offered.voices.some((v: { id: string }) => v.id === voiceId)).toBe(false);
    await expectInvalidOption(await server.postJson(`/v1/voices/${voiceId}`, { enabled: 'no' }, { method: 'PATCH' }), 'enabled');
    await expectInvalidOption(await server.postJson(`/v1/voices/${voiceId}`, { name: '  ' }, { method: 'PATCH' }), 'name');
    await expectInvalidOption(await server.postJson(`/v1/voices/${voiceId}`, { consent: false }, { method: 'PATCH' }), 'consent');
    await expectInvalidOption(await server.postJson(`/v1/voices/${voiceId}`, { state: 'ready' }, { method: 'PATCH' }), 'state');
  });

  it('a tone is not speech: training ends failed with an error', async () => {
    const created = await expectStatus(await createVoice({ name: 'Tone', consent: true }, tone()), 201);
    const { voice } = await waitForVoice(created.id);
    expect(voice.state).toBe('failed');
    expect(voice.error).toMatch(/0\.0 s of speech/);
    await expectStatus(await server.request(`/v1/voices/${created.id}/preview`), 409, 'invalid_state');
  }, 60_000);

  it('needs consent; a draft keeps the sample untrained until consent is given', async () => {
    // consent is false by default: the request is well formed, the clone is what is refused.
    for (const meta of [{ name: 'No consent' }, { name: 'No consent', consent: false }]) {
      const refused = await expectStatus(await createVoice(meta, lecture), 403, 'forbidden');
      expect(refused.data.details).toMatchObject({ reason: 'consent_required' });
    }
    const draft = await expectStatus(await createVoice({ name: 'Draft', draft: true }, tone()), 201);
    expect(draft).toMatchObject({ state: 'training', progress: 0, draft: true, consent: false });
    await expectStatus(await server.request(`/v1/voices/${draft.id}/preview`), 409, 'invalid_state');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await json(await server.request(`/v1/voices/${draft.id}`))).toMatchObject({ state: 'training', progress: 0 });
    await expectStatus(await server.postJson(`/v1/voices/${draft.id}`, { draft: false }, { method: 'PATCH' }), 403, 'forbidden');
    const consented = await json(await server.postJson(`/v1/voices/${draft.id}`, { consent: true, draft: false }, { method: 'PATCH' }));
    expect(consented).toMatchObject({ consent: true, draft: false, state: 'training' });
    expect((await waitForVoice(draft.id)).voice).toMatchObject({ state: 'failed' });
  }, 60_000);

  it('refuses a bad upload naming the part: meta JSON, missing parts, unknown fields, not audio, too large', async () => {
    await expectInvalidOption(await createVoice('{"name": ', lecture), 'meta');
    await expectInvalidOption(await createVoice('[1]', lecture), 'meta');
    await expectInvalidOption(await createVoice({ name: 'x', consent: true, pitch: 3 }, lecture), 'pitch');
    await expectInvalidOption(await createVoice({ consent: true }, lecture), 'name');
    await expectInvalidOption(await createVoice({ name: 'x', consent: true, gender: 'other' }, lecture), 'gender');
    await expectInvalidOption(await createVoice({ name: 'x', consent: true }, null), 'sample');
    await expectInvalidOption(await createVoice(undefined, lecture), 'meta');
    const notAudio = await expectStatus(
      await createVoice({ name: 'x', consent: true }, Buffer.from('this is not audio at all, just text'.repeat(50))), 400, 'invalid_audio',
    );
    expect(notAudio.data.details.field).toBe('sample');
    const huge = await createVoice({ name: 'x', consent: true }, Buffer.alloc(SAMPLE_LIMIT + 200_000));
    expect(await expectStatus(huge, 413, 'invalid_options')).toMatchObject({ data: { details: { field: 'sample' } } });
    expect((await expectStatus(await server.postJson('/v1/voices', { name: 'x' }), 415, 'invalid_options')).data.details.field).toBe(
      'Content-Type',
    );
    // Nothing refused was kept.
    const listed = (await json(await server.request('/v1/voices'))).voices.map((v: { name: string }) => v.name);
    expect(listed).not.toContain('x');
  });

  it('creates through GraphQL with the multipart request spec; a sample sent as JSON is refused by name', async () => {
    const form = new FormData();
    form.append('operations', JSON.stringify({
      query: 'mutation($input: CreateVoiceInput!, $sample: Upload!) { createVoice(input: $input, sample: $sample) { id name state draft } '
        + '}',
      variables: { input: { name: 'From GraphQL', draft: true }, sample: null },
    }));
    form.append('map', JSON.stringify({ 0: ['variables.sample'] }));
    form.append('0', new Blob([new Uint8Array(tone())], { type: 'audio/wav' }), 'tone.wav');
    const made = await (await fetch(`${server.url}/graphql`, {
      method: 'POST', headers: { authorization: `Bearer ${server.apiKey}` }, body: form,
    })).json();
    expect(made.errors).toBeUndefined();
    expect(made.data.createVoice).toMatchObject({ name: 'From GraphQL', state: 'training', draft: true });
    expect(await json(await server.request(`/v1/voices/${made.data.createVoice.id}`))).toMatchObject({ name: 'From GraphQL', draft: true });

    // What a staged sample looks like inside the server, forged as JSON: not a file, so refused.
    const forged = await (await server.graphql('mutation($input: CreateVoiceInput!, $sample: Upload!) { createVoice(input: $input, '
      + 'sample: $sample) { id } }', {
      input: { name: 'Forged', draft: true }, sample: { voiceId: made.data.createVoice.id, bytes: 10, mimeType: 'audio/wav' },
    })).json();
    expect(forged.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'sample' } });
  });

  it('lists newest first with a cursor; DELETE removes the voice and its files, once', async () => {
    const first = await json(await server.request('/v1/voices?limit=1'));
    expect(first.voices).toHaveLength(1);
    expect(first.nextCursor).toBeTruthy();
    const second = await json(await server.request(`/v1/voices?limit=1&cursor=${first.nextCursor}`));
    expect(second.voices[0].id).not.toBe(first.voices[0].id);
    expect(Date.parse(second.voices[0].createdAt)).toBeLessThanOrEqual(Date.parse(first.voices[0].createdAt));
    await expectInvalidOption(await server.request('/v1/voices?cursor=bogus'), 'cursor');

    const dir = path.join(server.env.DATA_DIR!, 'voices', voiceId);
    expect(existsSync(path.join(dir, 'sample'))).toBe(true);
    const answers = await Promise.all([1, 2].map(() => server.request(`/v1/voices/${voiceId}`, { method: 'DELETE' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(existsSync(path.join(dir, 'sample'))).toBe(false);
    expect(existsSync(path.join(dir, 'model.f32'))).toBe(false);
    await expectStatus(await server.request(`/v1/voices/${voiceId}`), 404, 'not_found');
    await expectStatus(await server.request(`/v1/voices/${voiceId}/sample`), 404, 'not_found');
  });
});

describe('a voice from a recording\'s speaker', () => {
  async function transcribe(audio: Buffer, name: string, server: TestServer): Promise<string> {
    const created = await json(await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(audio, { name, settings: { spokenLanguage: 'en', speakerLabels: 'on' } }, name),
    }));
    expect(await waitForJob(server, created.recordingId, ['done', 'failed'], 180_000)).toMatchObject({ state: 'done' });
    return created.recordingId;
  }

  it('refuses a speaker with under 30 s, saying how much exists; refusals name the field', async () => {
    const recordingId = await transcribe(await readFile(TWO_SPEAKERS.audio), 'two-speakers.flac', server);
    const refusal = await expectInvalidOption(
      await server.postJson('/v1/voices/from-speaker', { recordingId, speaker: 0, name: 'Reader', consent: true }), 'speaker',
    );
    expect(refusal.data.details.speechS).toBeGreaterThan(5);
    expect(refusal.data.details.speechS).toBeLessThan(30);
    expect(refusal.data.details.requiredS).toBe(30);
    expect(refusal.message).toContain(`${refusal.data.details.speechS.toFixed(1)} s`);
    await expectStatus(await server.postJson('/v1/voices/from-speaker', { recordingId, speaker: 0, name: 'Reader' }), 403, 'forbidden');
    await expectInvalidOption(
      await server.postJson('/v1/voices/from-speaker', { recordingId, speaker: 'a', name: 'Reader', consent: true }), 'speaker',
    );
    await expectInvalidOption(await server.postJson('/v1/voices/from-speaker', { recordingId, speaker: 0, consent: true }), 'name');
    await expectStatus(
      await server.postJson('/v1/voices/from-speaker', { recordingId: 'rec_nope', speaker: 0, name: 'x', consent: true }), 404, 'not_found',
    );
  }, 240_000);

  it('makes a voice from a speaker with enough speech, names the speaker, and trains it', async () => {
    const recordingId = await transcribe(lecture, 'lecture.wav', server);
    const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    const spoken = new Map<number, number>();
    for (const segment of transcript.segments as Array<{ speaker: number; start: number; end: number }>) spoken.set(
      segment.speaker, (spoken.get(segment.speaker) ?? 0) + segment.end - segment.start,
    );
    const [speaker, seconds] = [...spoken.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(seconds).toBeGreaterThanOrEqual(30);
    const created = await expectStatus(
      await server.postJson('/v1/voices/from-speaker', { recordingId, speaker, name: 'Professor', color: '#123456', consent: true }), 201,
    );
    expect(created).toMatchObject({ state: 'training', progress: 0, source: { recordingId, speaker }, name: 'Professor' });
    const named = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    expect(named.speakers).toContainEqual(expect.objectContaining({ index: speaker, name: 'Professor' }));
    const sample = await audioOf(await server.request(`/v1/voices/${created.id}/sample`));
    expect(sample.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect((sample.length - 44) / 32_000).toBeCloseTo(Math.min(120, seconds), 0);
    expect((await waitForVoice(created.id)).voice).toMatchObject({ state: 'ready', progress: 100 });
  }, 300_000);

  it('makes a voice from a speaker of a live recording while it runs: the capture so far is the sample', async () => {
    const { recordingId, streamUrl } = await startLiveRecording(server, {
      name: 'Live lecture', settings: { spokenLanguage: 'en', speakerLabels: 'on' },
    });
    const publisher = await connectPublisher(streamUrl);
    // Four times faster than spoken: 60 s of one speaker in about 15 s.
    for (const chunk of await fileChunks(LECTURE)) {
      publisher.sendPcm(chunk);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const deadline = Date.now() + 120_000;
    let labelled = 0;
    while (labelled < 30) {
      const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
      labelled = (transcript.segments as Array<{ speaker: number; start: number; end: number }>).filter((s) => s.speaker === 0).reduce(
        (sum, s) => sum + s.end - s.start, 0,
      );
      if (Date.now() > deadline) throw new Error(`only ${labelled} s labelled as speaker 0`);
      if (labelled < 30) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect((await json(await server.request(`/v1/recordings/${recordingId}`))).state).toBe('live');
    const created = await expectStatus(
      await server.postJson('/v1/voices/from-speaker', { recordingId, speaker: 0, name: 'Live lecturer', consent: true }), 201,
    );
    expect(created).toMatchObject({ state: 'training', source: { recordingId, speaker: 0 } });
    const sample = await audioOf(await server.request(`/v1/voices/${created.id}/sample`));
    expect((sample.length - 44) / 32_000).toBeGreaterThanOrEqual(30);
    expect((await waitForVoice(created.id)).voice).toMatchObject({ state: 'ready' });
    publisher.close();
  }, 300_000);
});
