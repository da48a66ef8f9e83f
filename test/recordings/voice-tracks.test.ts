/**
 * Spoken translation (src/recordings/voice-tracks.ts): a real English recording (goforward.wav) plus lines of known
 * text rendered into Spanish (Apertium translates, Kokoro speaks): the track sealed and served as Ogg (and CAF, MP3),
 * sentence clips as Ogg and CAF, a clip transcribed back by Whisper to the Spanish words, the voiced rule (a
 * correction that is not voiced keeps the recognizer's words), a voiced correction making the track stale and
 * re-rendering only that sentence, and the refusals (1 to 10 languages, a language without a voice, another
 * account, a share link without allowTranslate, an unclear line, bad sentence ids). Last, sentences spoken on the
 * subscribe socket (`voice`): a new line heard back in Spanish from the binary frames, the recording's voice keeping
 * its clip, another catalogue voice speaking the same sentence, and the socket's refusals.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeFileToPcm, probeAudio, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { kokoroTestDir } from '../helpers/kokoro.js';
import { Follower } from '../helpers/follower.js';
import { commitKnown } from '../helpers/segments.js';
import { upgradeRefusal } from '../helpers/sockets.js';
import { useTestServer } from '../helpers/server.js';

const kokoroDir = await kokoroTestDir();
const server = useTestServer({ env: { MODELS_DIR: path.dirname(kokoroDir) } });

interface Clip {
  sentenceId: string; voice: string; text: string; textFrom: string; spoken: string; translationSource: string; durationS: number;
}
interface Track {
  lang: string; voice: string; sealed: boolean; stale: boolean; staleSentences: string[]; durationS: number | null;
  job: { state: string; progress: number; attempts: number; synthesizedS: number | null; renderS: number | null } | null; clips: Clip[];
}

let recordingId = '';
let transcriptionId = '';
let durationS = 0;
let sentenceIds: string[] = [];
const known = { house: '', unclear: '', door: '' };

const voiceRows = async (query = '', auth?: string | null): Promise<{ language: string; tracks: Track[] }> => expectStatus(
  await server.request(`/v1/recordings/${recordingId}/voice${query}`, { auth }), 200,
);
const spanish = async (): Promise<Track> => (await voiceRows('?lang=es')).tracks[0]!;

async function waitSealed(timeoutMs = 240_000): Promise<Track> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const track = await spanish();
    if (track.sealed) return track;
    if (track.job?.state === 'failed' || Date.now() > deadline) throw new Error(`track not sealed: ${JSON.stringify(track)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The body of a 200 answer (the envelope's start in the failure message otherwise). */
async function bytesOf(response: Response): Promise<Buffer> {
  const body = Buffer.from(await response.arrayBuffer());
  expect(response.status, body.toString('utf8', 0, 300)).toBe(200);
  return body;
}

/** Whisper (whisper-base) reading an audio file back, in `language`. */
async function heard(bytes: Buffer, language: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'voice-clip-'));
  try {
    const file = path.join(dir, 'clip.ogg');
    await writeFile(file, bytes);
    const engine = await SpeechEngine.load({ model: 'whisper-base' });
    const result = await engine.transcribePcm(await decodeFileToPcm(file), { language, beamSize: 5 });
    return result.segments.map((s) => s.text).join(' ');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const plain = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

beforeAll(async () => {
  const created = await json(await upload(server, { name: 'Voice', settings: { spokenLanguage: 'en' } }));
  [recordingId, transcriptionId] = [created.recordingId, created.id];
  await waitForJob(server, recordingId, ['done'], 180_000);
  // Lines of known text after the recognizer's (speaker 0, so each is a sentence of its own).
  const seqHouse = await commitKnown(server, recordingId, { text: 'The house is very big.', start: 20, speaker: 0 });
  const seqUnclear = await commitKnown(server, recordingId, { text: 'Mumble grumble something here.', start: 25, speaker: 0, prob: 0.3 });
  const seqDoor = await commitKnown(server, recordingId, { text: 'Open the red door.', start: 30, speaker: 0 });
  Object.assign(known, { house: `${seqHouse}.0`, unclear: `${seqUnclear}.0`, door: `${seqDoor}.0` });
  const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
  sentenceIds = transcript.sentences.map((s: { id: string }) => s.id);
  expect(sentenceIds).toEqual(expect.arrayContaining(Object.values(known)));
  durationS = transcript.durationS;
}, 200_000);

describe('refusals of a render', () => {
  const render = (body: unknown, auth?: string | null) => server.postJson(`/v1/recordings/${recordingId}/voice`, body, { auth });

  it('needs 1 to 10 language codes, each with a voice, and nothing else in the body', async () => {
    await expectInvalidOption(await render({ languages: [] }), 'languages');
    await expectInvalidOption(
      await render({ languages: ['es', 'fr', 'it', 'pt-BR', 'ja', 'zh', 'hi', 'en', 'en-GB', 'es', 'fr'] }), 'languages',
    );
    await expectInvalidOption(await render({}), 'languages');
    await expectInvalidOption(await render({ languages: 'es' }), 'languages');
    await expectInvalidOption(await render({ languages: ['es', 'not a language'] }), 'languages[1]');
    // German has no Kokoro voice.
    const envelope = await expectInvalidOption(await render({ languages: ['de'] }), 'languages[0]');
    expect(envelope.message).toMatch(/no voice speaks de/);
    await expectInvalidOption(await render({ languages: ['es'], force: 'yes' }), 'force');
    await expectInvalidOption(await render({ languages: ['es'], speed: 2 }), 'speed');
  });

  it('is the owner\'s: another account\'s key gets 404, no credential 401', async () => {
    const other = await server.createKey(['*'], { accountId: await server.createAccount() });
    await expectStatus(await render({ languages: ['es'] }, other.key), 404, 'not_found');
    expect((await render({ languages: ['es'] }, null)).status).toBe(401);
  });

  it('refuses a recording that is not finished (409 invalid_state)', async () => {
    const fetching = await json(await server.postJson('/v1/transcriptions', { url: 'https://example.invalid/voice.mp3' }));
    const refused = await expectStatus(
      await server.postJson(`/v1/recordings/${fetching.recordingId}/voice`, { languages: ['es'] }), 409, 'invalid_state',
    );
    expect(refused.message).toMatch(/finished recording/);
  });
});

describe('a Spanish track', () => {
  let sealed: Track;

  it('renders: 202 with the job queued, a repeat queues nothing, then sealed with a clip per clear sentence', async () => {
    const started = Date.now();
    const first = await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/voice`, { languages: ['es', 'ES'] }), 202);
    expect(first.tracks).toHaveLength(1);
    expect(first.tracks[0]).toMatchObject({ lang: 'es', voice: 'ef_dora', spokenLanguage: false, sealed: false, job: { attempts: 1 } });
    const again = await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/voice`, { languages: ['es'] }), 202);
    expect(again.tracks[0].job.attempts).toBe(1);
    sealed = await waitSealed();
    const wallS = (Date.now() - started) / 1000;
    expect(sealed).toMatchObject({ lang: 'es', sealed: true, stale: false, job: { state: 'done', progress: 100, attempts: 1 } });
    const clear = sentenceIds.filter((id) => id !== known.unclear);
    expect(sealed.clips.map((c) => c.sentenceId)).toEqual(clear);
    expect(sealed.clips.every((c) => c.voice === 'ef_dora' && c.durationS > 0.3)).toBe(true);
    const house = sealed.clips.find((c) => c.sentenceId === known.house)!;
    expect(house).toMatchObject({
      text: 'The house is very big.', textFrom: 'corrected', translationSource: expect.stringMatching(/apertium|cache/),
    });
    expect(plain(house.spoken)).toMatch(/casa/);
    // A repeat once sealed queues nothing either.
    expect(
      (await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/voice`, { languages: ['es'] }), 202)).tracks[0].job.attempts,
    ).toBe(1);
    const speechS = sealed.job!.synthesizedS!;
    console.log(`voice render: ${speechS.toFixed(1)} s of Spanish speech over ${sealed.clips.length} clips, job `
      + `${sealed.job!.renderS!.toFixed(1)} s (wall ${wallS.toFixed(1)} s): ${(sealed.job!.renderS! / (speechS / 60)).toFixed(1)} s of `
        + `work per minute of speech`);
  }, 300_000);

  it('serves the sealed track through /audio?kind=voice as Ogg (and CAF, MP3), as long as the recording', async () => {
    const redirect = await server.request(`/v1/recordings/${recordingId}/audio?kind=voice&lang=es`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const ogg = await bytesOf(await fetch(redirect.headers.get('location')!));
    expect(ogg.subarray(0, 4).toString('latin1')).toBe('OggS');
    const dir = await mkdtemp(path.join(tmpdir(), 'voice-track-'));
    try {
      await writeFile(path.join(dir, 'track.ogg'), ogg);
      const probed = await probeAudio(path.join(dir, 'track.ogg'));
      expect(probed.durationS).toBeGreaterThan(30);
      expect(probed.durationS).toBeGreaterThanOrEqual(Math.min(durationS, sealed.durationS!) - 0.5);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const caf = await fetch((await server.request(
      `/v1/recordings/${recordingId}/audio?kind=voice&lang=es&format=caf`, { redirect: 'manual' },
    )).headers.get('location')!);
    expect((await bytesOf(caf)).subarray(0, 4).toString('latin1')).toBe('caff');
    const mp3 = await bytesOf(await fetch((await server.request(
      `/v1/recordings/${recordingId}/audio?kind=voice&lang=es&format=mp3`, { redirect: 'manual' },
    )).headers.get('location')!));
    expect(mp3.length).toBeGreaterThan(1000);
    // Without lang; a language with no track; a signature for another language.
    await expectInvalidOption(await server.request(`/v1/recordings/${recordingId}/audio?kind=voice`, { redirect: 'manual' }), 'lang');
    await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/audio?kind=voice&lang=fr`, { redirect: 'manual' }), 404, 'not_found',
    );
    const forged = redirect.headers.get('location')!.replace('voice-es.ogg', 'voice-fr.ogg');
    expect((await fetch(forged)).status).toBe(403);
  });

  it('serves a sentence clip as Ogg and CAF, and Whisper hears the Spanish words in it', async () => {
    const ogg = await bytesOf(await server.request(`/v1/recordings/${recordingId}/voice/${known.house}?lang=es`));
    expect(ogg.subarray(0, 4).toString('latin1')).toBe('OggS');
    const caf = await bytesOf(await server.request(`/v1/recordings/${recordingId}/voice/${known.house}?lang=es&format=caf`));
    expect(caf.subarray(0, 4).toString('latin1')).toBe('caff');
    const words = plain(await heard(ogg, 'es'));
    expect(words, words).toMatch(/casa/);
    expect(words, words).toMatch(/grande/);
  }, 120_000);

  it('answers 404 for a line hidden as unclear and for an unknown sentence, 400 for a malformed id', async () => {
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/voice/${known.unclear}?lang=es`), 404, 'not_found');
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/voice/9999.0?lang=es`), 404, 'not_found');
    await expectInvalidOption(await server.request(`/v1/recordings/${recordingId}/voice/first?lang=es`), 'sentence');
    await expectInvalidOption(await server.request(`/v1/recordings/${recordingId}/voice/${known.house}?lang=de`), 'lang');
    await expectInvalidOption(await server.request(`/v1/recordings/${recordingId}/voice/${known.house}?format=mp3`), 'format');
  });

  it('through a share link: only the spoken language without allowTranslate (403 for Spanish), Spanish with it', async () => {
    const closed = await json(await server.postJson(`/v1/transcriptions/${transcriptionId}/share-links`, {
      label: 'No translation', allowTranslate: false, allowDownload: true,
    }));
    const open = await json(await server.postJson(`/v1/transcriptions/${transcriptionId}/share-links`, {
      label: 'Translation', allowTranslate: true, allowDownload: true,
    }));
    expect((await voiceRows(`?shareCode=${closed.code}`, null)).tracks.map((t) => t.lang)).toEqual([]);
    await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/voice?lang=es&shareCode=${closed.code}`, { auth: null }), 403, 'forbidden',
    );
    await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/voice/${known.house}?lang=es&shareCode=${closed.code}`, { auth: null }), 403,
      'forbidden',
    );
    await expectStatus(
      await server.request(
        `/v1/recordings/${recordingId}/audio?kind=voice&lang=es&shareCode=${closed.code}`, { auth: null, redirect: 'manual' },
      ),
      403, 'forbidden',
    );
    // The spoken language is open to it: an English clip, made on demand with the English default voice.
    const english = await bytesOf(await server.request(
      `/v1/recordings/${recordingId}/voice/${known.house}?shareCode=${closed.code}`, { auth: null },
    ));
    expect(english.subarray(0, 4).toString('latin1')).toBe('OggS');
    const rows = (await voiceRows(`?shareCode=${closed.code}`, null)).tracks;
    expect(rows.map((t) => [t.lang, t.job, t.clips.map((c) => [c.sentenceId, c.voice, c.spoken])])).toEqual([[
      'en', null, [[known.house, 'af_heart', 'The house is very big.']],
    ]]);
    expect((await voiceRows(`?shareCode=${open.code}`, null)).tracks.map((t) => t.lang)).toEqual(['en', 'es']);
    expect(
      (await server.request(`/v1/recordings/${recordingId}/voice/${known.house}?lang=es&shareCode=${open.code}`, { auth: null })).status,
    ).toBe(200);
  }, 120_000);
});

describe('corrections after sealing', () => {
  it('a correction that is not voiced keeps the recognizer\'s words in the clip, and the track stands', async () => {
    const seq = Number(known.door.split('.')[0]);
    const [correction] = (await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { lines: [{ seqs: [seq], text: 'Close the green window.' }] }),
      201,
    )).corrections;
    expect(correction).toMatchObject({ voiced: false, notVoicedReason: 'rewrite' });
    const track = await spanish();
    expect(track).toMatchObject({ sealed: true, stale: false });
    expect(track.clips.find((c) => c.sentenceId === known.door)).toMatchObject({ text: 'Open the red door.', textFrom: 'recognized' });
    expect((await server.request(`/v1/recordings/${recordingId}/voice/${known.door}?lang=es`)).status).toBe(200);
    // The English clip of it too speaks the recognizer's words, made now.
    expect((await server.request(`/v1/recordings/${recordingId}/voice/${known.door}?lang=en`)).status).toBe(200);
    const english = (await voiceRows('?lang=en')).tracks[0]!;
    expect(english.clips.find((c) => c.sentenceId === known.door)).toMatchObject({ spoken: 'Open the red door.', textFrom: 'recognized' });
  }, 120_000);

  it('a voiced correction makes the track stale: 409 until re-rendered, only that sentence synthesised again', async () => {
    const seq = Number(known.house.split('.')[0]);
    const before = await spanish();
    const [correction] = (await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { edits: [{ seq, wordIdx: 3, to: 'really' }] }), 201,
    )).corrections;
    // "really" is not a word the recognizer's text has: not voiced, so nothing changes for voices.
    expect(correction.voiced).toBe(false);
    expect((await spanish()).stale).toBe(false);
    // Its revert and a voiced edit (a word of the line, recased) do change what the sentence speaks.
    await expectStatus(await server.postJson(`/v1/corrections/${correction.id}/revert`, {}), 200);
    const [voiced] = (await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { edits: [{ seq, wordIdx: 1, to: 'HOUSE' }] }), 201,
    )).corrections;
    expect(voiced.voiced).toBe(true);
    const stale = await spanish();
    expect(stale).toMatchObject({ sealed: false, stale: true, staleSentences: [known.house] });
    expect(stale.clips.some((c) => c.sentenceId === known.house)).toBe(false);
    await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/audio?kind=voice&lang=es`, { redirect: 'manual' }), 409, 'invalid_state',
    );
    const resealed = await waitSealed();
    expect(resealed.job!.attempts).toBe(before.job!.attempts + 1);
    const house = resealed.clips.find((c) => c.sentenceId === known.house)!;
    expect(house.text).toBe('The HOUSE is very big.');
    expect(resealed.job!.synthesizedS).toBeCloseTo(house.durationS, 3);
    console.log(`voice re-render: ${resealed.job!.synthesizedS!.toFixed(1)} s of speech re-synthesised, job `
      + `${resealed.job!.renderS!.toFixed(1)} s (model warm)`);
    expect(resealed.clips.find((c) => c.sentenceId === known.door)).toMatchObject({ textFrom: 'recognized' });
    expect((await server.request(`/v1/recordings/${recordingId}/audio?kind=voice&lang=es`, { redirect: 'manual' })).status).toBe(302);
  }, 300_000);
});

describe('sentences spoken on the subscribe socket (voice)', () => {
  it('refuses a voice that cannot speak what is read, and two audio streams on one socket', async () => {
    const refusal = async (query: string) => (await upgradeRefusal(
      `${server.wsUrl}/v1/recordings/${recordingId}/subscribe?${query}`, { Authorization: `Bearer ${server.apiKey}` },
    )) as { status: number; body: string };
    for (const query of [
      'lang=es&voice=bogus', 'lang=es&voice=af_heart', 'lang=ca&voice=auto', 'lang=es&voice=auto&audio=true',
      'lang=es&voice=voi_0123456789abcdef',
    ]) {
      const refused = await refusal(query);
      expect(refused.status, query).toBe(400);
      expect(JSON.parse(refused.body), query).toMatchObject({ code: 'invalid_options', data: { details: { field: 'voice' } } });
    }
  });

  it('speaks each finished sentence as PCM frames: Whisper hears the Spanish, the recording\'s voice keeps its clip', async () => {
    const options = (voice: string) => ({
      baseUrl: server.url, recordingId, authorization: `Bearer ${server.apiKey}`, query: { lang: 'es', voice },
    });
    const auto = new Follower(options('auto'));
    const alex = new Follower(options('em_alex'));
    await auto.start();
    await alex.start();
    try {
      // Half a sentence commits nothing to speak; the rest closes it.
      const first = await commitKnown(server, recordingId, { text: 'The white cat', start: 40, speaker: 0 });
      await auto.until(
        'the open sentence',
        () => auto.frames.some((f) => f.type === 'transcript.sentence' && (f.sentence as { id: string }).id === `${first}.0`),
      );
      expect(auto.frames.find((f) => f.type === 'transcript.sentence')).toMatchObject({ sentence: {
        complete: false, text: 'The white cat',
      } });
      await commitKnown(server, recordingId, { text: 'sleeps in the house.', start: 42, speaker: 0 });
      await auto.until('the spoken sentence', () => auto.binary.length > 0, 120_000);
      await alex.until('the other voice', () => alex.binary.length > 0, 120_000);
      // One frame for the one sentence: 16-bit PCM at 16 kHz.
      expect(auto.binary).toHaveLength(1);
      const pcm = auto.binary[0]!;
      expect(pcm.length % 2).toBe(0);
      expect(pcm.length / 2 / 16_000).toBeGreaterThan(0.5);
      const samples = Float32Array.from({ length: pcm.length / 2 }, (_v, i) => pcm.readInt16LE(i * 2) / 32768);
      const engine = await SpeechEngine.load({ model: 'whisper-base' });
      const words = plain((await engine.transcribePcm(samples, { language: 'es', beamSize: 5 })).segments.map((s) => s.text).join(' '));
      expect(words, words).toMatch(/gato/);
      expect(words, words).toMatch(/casa/);
      // The recording's voice (auto: ef_dora) kept the clip /voice/{sentence} serves; em_alex spoke its own.
      expect(
        await server.prisma.voiceClip.findUnique({ where: { recordingId_lang_sentenceId: {
          recordingId, lang: 'es', sentenceId: `${first}.0`,
        } } }),
      ).toMatchObject({ voice: 'ef_dora' });
      expect(alex.binary[0]!.equals(pcm)).toBe(false);
      // A rewrite of a spoken sentence is not spoken again; live audio cannot be added to a voice socket.
      auto.send({ type: 'subscribe.update', audio: true });
      await auto.until('the refusal', () => auto.frames.some((f) => f.type === 'error'));
      expect(auto.frames.find((f) => f.type === 'error')).toMatchObject({ code: 'invalid_options', details: { field: 'audio' } });
      expect(auto.binary).toHaveLength(1);
      // A new language the socket's voice does not speak is refused, naming lang (Catalan: translated, no voice).
      alex.send({ type: 'subscribe.update', lang: 'ca' });
      await alex.until('the lang refusal', () => alex.frames.some((f) => f.type === 'error'));
      expect(alex.frames.find((f) => f.type === 'error')).toMatchObject({ code: 'invalid_options', details: { field: 'lang' } });
    } finally {
      auto.close();
      alex.close();
    }
  }, 300_000);
});
