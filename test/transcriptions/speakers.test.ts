/**
 * Speaker labels on file jobs: a file transcription with `speakerLabels: "on"` (or `auto`) labels each segment
 * with `speaker` (from 0, in order of appearance) and `speakerConfidence`, by the engine's classical diarization;
 * `off` keeps -1. The recording is the two-speaker fixture (test/fixtures/speakers), through REST.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRttm } from '../../workers/engine/speakers/der.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { json, uploadForm, waitForJob } from '../helpers/http.js';
import { TWO_SPEAKERS } from '../helpers/speakers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

interface SegmentView { start: number; end: number; speaker: number; speakerConfidence: number | null }

async function transcribe(speakerLabels: 'on' | 'off'): Promise<{ segments: SegmentView[]; speakers: Array<{ index: number }> }> {
  const created = await json(await server.request('/v1/transcriptions', {
    method: 'POST',
    body: uploadForm(
      await readFile(TWO_SPEAKERS.audio), { name: 'Two speakers', settings: { spokenLanguage: 'en', speakerLabels } }, 'two-speakers.flac',
    ),
  }));
  expect(await waitForJob(server, created.recordingId, ['done', 'failed'], 180_000)).toMatchObject({ state: 'done', error: null });
  return json(await server.request(`/v1/recordings/${created.recordingId}/transcript`));
}

describe('speaker labels on a file transcription', () => {
  it('label the two speakers of the fixture: each segment the speaker of the turn it lies in', async () => {
    const { segments, speakers } = await transcribe('on');
    expect(segments.length).toBeGreaterThanOrEqual(4);
    expect(new Set(segments.map((s) => s.speaker))).toEqual(new Set([0, 1]));
    expect(speakers.map((s) => s.index)).toEqual([0, 1]);
    for (const segment of segments) {
      expect(segment.speakerConfidence).toBeGreaterThanOrEqual(0);
      expect(segment.speakerConfidence).toBeLessThanOrEqual(1);
    }
    // The reference speaker at each segment's middle always maps to the same label (a → 0: a speaks first).
    const reference = parseRttm(await readFile(TWO_SPEAKERS.rttm, 'utf8'));
    const pairs = new Set<string>();
    for (const segment of segments) {
      const middle = (segment.start + segment.end) / 2;
      const turn = reference.find((t) => t.start - 0.5 <= middle && middle <= t.end + 0.5);
      if (turn) pairs.add(`${turn.speaker}→${segment.speaker}`);
    }
    expect([...pairs].sort()).toEqual(['a→0', 'b→1']);
  }, 240_000);

  it('keep -1 with speakerLabels off; realtime capabilities offer every mode', async () => {
    const { segments, speakers } = await transcribe('off');
    expect(segments.length).toBeGreaterThan(0);
    for (const segment of segments) expect(segment).toMatchObject({ speaker: -1, speakerConfidence: null });
    expect(speakers).toEqual([]);
    expect((await json(await server.request('/v1/realtime/capabilities'))).speakerLabelModes).toEqual(['auto', 'on', 'off']);
  }, 240_000);
});
