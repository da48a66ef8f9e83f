/**
 * Broadcast listeners reading in a language the recording was not told to translate into: the (recording,
 * language) pair is added, the publisher's commits are then translated into it live, and new pairs are limited per
 * network per hour (`429 rate_limited` with `Retry-After`); a pair already asked for, the spoken language and the
 * owner's reads cost nothing.
 */
import { describe, expect, it } from 'vitest';
import { RealtimeConnection } from '../helpers/realtime-client.js';
import { networkOf } from '../../src/recordings/listener-languages.js';
import { Follower } from '../helpers/follower.js';
import { expectStatus, json } from '../helpers/http.js';
import { fileChunks, GO_FORWARD } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';
import { upgradeRefusal } from '../helpers/sockets.js';

const server = useTestServer({
  env: { REALTIME_SECRET: 'listener-languages-secret-0123456789ab', LISTENER_TRANSLATION_PAIRS_PER_HOUR: '2' },
});

/** A public broadcast fed by a live transcription (English) with a recording started: listeners need no credential. */
async function liveBroadcast(name: string) {
  const broadcast = await json(await server.postJson('/v1/broadcasts', { name }));
  const live = await json(await server.postJson('/v1/transcriptions/live', {
    name, settings: { spokenLanguage: 'en' }, broadcasts: [broadcast.id],
  }));
  const grant = await json(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}));
  return { recordingId: grant.recording.id as string, streamUrl: grant.streamUrl as string };
}

const asListener = (path: string) => server.request(path, { auth: null });

describe('networks', () => {
  it.each([
    ['203.0.113.7', '203.0.113.0/24'],
    ['::ffff:10.1.2.3', '10.1.2.0/24'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd::/48'],
    ['2001:DB8::1', '2001:db8:0::/48'],
    ['::1', '0:0:0::/48'],
    [undefined, 'unknown'],
    ['not an address', 'unknown'],
  ])('%s is in %s', (address, network) => {
    expect(networkOf(address)).toBe(network);
  });
});

describe('a listener\'s language', () => {
  it('is translated live once a listener asks for it, though the recording was told no targets', async () => {
    const { recordingId, streamUrl } = await liveBroadcast('Catalan listeners');
    const listener = new Follower({ baseUrl: server.url, recordingId, query: { lang: 'ca' } });
    await listener.start();
    const publisher = new RealtimeConnection(streamUrl);
    await publisher.ready();
    for (const chunk of await fileChunks(GO_FORWARD)) publisher.sendPcm(chunk);
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
    await listener.until('a Catalan translation', () => listener.frames.some((f) => f.type === 'transcript.translated'), 60_000);
    const translated = listener.frames.filter((f) => f.type === 'transcript.translated') as unknown as Array<{
      translations: Record<string, string>;
    }>;
    for (const frame of translated) expect(Object.keys(frame.translations)).toEqual(['ca']);
    expect(translated.map((f) => f.translations.ca).join(' ').toLowerCase()).toMatch(/metres|metros/);
    // The owner's snapshot has it stored with the segment.
    const snapshot = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    expect(snapshot.segments.some((s: { translations: Record<string, string> }) => s.translations.ca)).toBe(true);
    listener.close();
    publisher.close();
  }, 120_000);

  it('new pairs are limited per network per hour; known pairs, the spoken language and the owner are not', async () => {
    // The first test asked for one pair from this network (loopback's /24); the limit is two.
    const { recordingId } = await liveBroadcast('Many languages');
    await expectStatus(await asListener(`/v1/recordings/${recordingId}/transcript?lang=es`), 200);
    const refused = await asListener(`/v1/recordings/${recordingId}/transcript?lang=gl`);
    const body = await expectStatus(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(body.data.details).toMatchObject({ metric: 'translation_pairs', limit: 2, field: 'lang' });
    // The subscribe socket is refused the same way at its upgrade.
    expect(await upgradeRefusal(`${server.wsUrl}/v1/recordings/${recordingId}/subscribe?lang=gl`)).toMatchObject({ status: 429 });
    // Asked before: free. The spoken language: free. The owner: not counted.
    await expectStatus(await asListener(`/v1/recordings/${recordingId}/transcript?lang=es`), 200);
    await expectStatus(await asListener(`/v1/recordings/${recordingId}/transcript?lang=en`), 200);
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript?lang=gl`), 200);
    // The pairs are per recording: the same language of another recording is a new pair, refused now.
    const other = await liveBroadcast('Another recording');
    await expectStatus(await asListener(`/v1/recordings/${other.recordingId}/transcript?lang=es`), 429, 'rate_limited');
  });
});
