import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeAudio } from '../../workers/engine/audio.js';
import {
  ensureRendition,
  makeMaster,
  mediaToken,
  signMedia,
  verifyMediaSignature,
  verifyMediaToken,
  waveformPeaks,
  wavClip,
} from '../../src/transcript/media.js';
import { fixture } from '../helpers/fixtures.js';

const source = fixture('goforward.wav');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sg-media-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('renditions', () => {
  it('encodes delivery as Ogg Opus, CAF Opus and MP3 that decode back to the same length, once', async () => {
    const ogg = await ensureRendition(source, dir, 'delivery', 'ogg');
    const caf = await ensureRendition(source, dir, 'delivery', 'caf');
    const mp3 = await ensureRendition(source, dir, 'delivery', 'mp3');
    const oggBytes = await readFile(ogg);
    expect(oggBytes.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(oggBytes.includes(Buffer.from('OpusHead'))).toBe(true);
    const cafBytes = await readFile(caf);
    expect(cafBytes.subarray(0, 4).toString('latin1')).toBe('caff');
    expect(cafBytes.includes(Buffer.from('opus'))).toBe(true);
    for (const file of [ogg, caf, mp3]) {
      const { durationS, hasAudio } = await probeAudio(file);
      expect(hasAudio).toBe(true);
      expect(durationS).toBeGreaterThan(2.6);
      expect(durationS).toBeLessThan(3.1);
    }
    // Kept: asking again returns the same file without re-encoding.
    const before = (await stat(ogg)).mtimeMs;
    expect(await ensureRendition(source, dir, 'delivery', 'ogg')).toBe(ogg);
    expect((await stat(ogg)).mtimeMs).toBe(before);
  });

  it('makes a windowed 16 kHz mono master', async () => {
    const master = path.join(dir, 'master.wav');
    await makeMaster(source, master, { startS: 1, endS: 2.5 });
    const wav = await readFile(master);
    expect(wav.readUInt16LE(22)).toBe(1); // channels
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect((await probeAudio(master)).durationS).toBeCloseTo(1.5, 1);
  });
});

describe('clips and peaks', () => {
  it('cuts a WAV clip, 16-bit 16 kHz mono, with correct RIFF sizes', async () => {
    const wav = await wavClip(source, 0.5, 1.5);
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt16LE(34)).toBe(16);
    const dataAt = wav.indexOf('data', 12, 'latin1');
    const dataBytes = wav.readUInt32LE(dataAt + 4);
    expect(dataBytes / 2 / 16000).toBeCloseTo(1.0, 2);
  });

  it('refuses clips longer than 120 s naming the field', async () => {
    await expect(wavClip(source, 0, 121)).rejects.toMatchObject({ code: 'invalid_options', message: expect.stringContaining('endS') });
    await expect(wavClip(source, 2, 1)).rejects.toMatchObject({ code: 'invalid_options' });
  });

  it('computes waveform peaks over the whole file', async () => {
    const waveform = await waveformPeaks(source, { durationS: 2.8, targetBuckets: 100 });
    expect(waveform.durationS).toBeGreaterThan(2.7);
    expect(waveform.peaks.length).toBeGreaterThanOrEqual(95);
    expect(waveform.peaks.length).toBeLessThanOrEqual(101);
    expect(Math.max(...waveform.peaks)).toBeGreaterThan(0.1);
    // The recording starts with near-silence before the speaker: quiet buckets exist too.
    expect(Math.min(...waveform.peaks)).toBeLessThan(Math.max(...waveform.peaks) / 4);
  });
});

describe('media credentials', () => {
  const secret = 'test-secret';
  const now = Date.parse('2026-03-10T22:00:00Z');

  it('signs URLs per kind with their lifetimes and refuses tampering or expiry', () => {
    const delivery = signMedia(secret, { recordingId: 'r1', kind: 'delivery', format: 'ogg' }, now);
    expect(delivery.exp - now / 1000).toBe(3600);
    const master = signMedia(secret, { recordingId: 'r1', kind: 'master', format: 'ogg' }, now);
    expect(master.exp - now / 1000).toBe(300);
    const ok = (
      m: { recordingId: string; kind: 'delivery' | 'master'; format: 'ogg' | 'mp3' }, s: { exp: number; sig: string }, at: number,
    ) =>
      verifyMediaSignature(secret, { ...m, expiresAt: s.exp }, s.sig, at);
    expect(ok({ recordingId: 'r1', kind: 'delivery', format: 'ogg' }, delivery, now + 3599_000)).toBe(true);
    expect(ok({ recordingId: 'r1', kind: 'delivery', format: 'ogg' }, delivery, now + 3601_000)).toBe(false);
    expect(ok({ recordingId: 'r2', kind: 'delivery', format: 'ogg' }, delivery, now)).toBe(false);
    expect(ok({ recordingId: 'r1', kind: 'master', format: 'ogg' }, delivery, now)).toBe(false);
    expect(ok({ recordingId: 'r1', kind: 'delivery', format: 'mp3' }, delivery, now)).toBe(false);
    expect(ok({ recordingId: 'r1', kind: 'master', format: 'ogg' }, master, now + 301_000)).toBe(false);
  });

  it('media token: one string per UTC day, valid to the end of the next, for one recording', () => {
    const first = mediaToken(secret, 'r1', now);
    expect(mediaToken(secret, 'r1', Date.parse('2026-03-10T00:00:01Z')).token).toBe(first.token);
    expect(mediaToken(secret, 'r1', Date.parse('2026-03-11T00:00:01Z')).token).not.toBe(first.token);
    expect(first.expiresAt.toISOString()).toBe('2026-03-12T00:00:00.000Z');
    expect(verifyMediaToken(secret, 'r1', first.token, Date.parse('2026-03-11T23:59:59Z'))).toBe(true);
    expect(verifyMediaToken(secret, 'r1', first.token, Date.parse('2026-03-12T00:00:01Z'))).toBe(false);
    expect(verifyMediaToken(secret, 'r2', first.token, now)).toBe(false);
    expect(verifyMediaToken('other', 'r1', first.token, now)).toBe(false);
  });
});
