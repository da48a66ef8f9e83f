import { createReadStream } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, fixture, startStack, waitFor, type Stack } from './support.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ concurrencyLimit: 1 });
  stack.startWorker();
});
afterAll(() => stack?.close());

const upload = (name: string) => ({ stream: createReadStream(fixture(name)), fileName: name, mimeType: 'audio/wav' });
const actor = () => ({ accountId: stack.accountId, principalId: stack.principalId });

describe('file jobs (service level)', () => {
  it('transcribes an upload: queued → transcribing → done, with gapless durable events', async () => {
    const created = await stack.transcriptions.create(actor(), { name: 'Go forward' }, upload('goforward.wav'));
    expect(created.job?.recordingId).toBe(created.recordingId);
    const recordingId = created.recordingId!;
    const frames = collect(stack.pubsub, `job:${recordingId}`);
    const job = await waitFor('job done', async () => {
      const job = await stack.transcriptions.job(stack.accountId, recordingId);
      if (job.state === 'failed') throw new Error(job.error ?? 'failed');
      return job.state === 'done' ? job : null;
    });
    frames.stop();
    expect(job.progress.pct).toBe(100);
    const transcript = await stack.recordings.transcript(recordingId, { accountId: stack.accountId }, {});
    const text = transcript.sentences.map((s) => s.text).join(' ').toLowerCase();
    expect(text).toMatch(/forward/);
    expect(text).toMatch(/ten|10/);
    expect(transcript.partial).toBe(false);
    expect(transcript.lastSeq).toBe(transcript.segments.length - 1);
    const log = await stack.transcriptions.events(stack.accountId, recordingId, {});
    expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
    const states = log.events.filter((e) => e.type === 'job.state').map((e) => (e.frame as { state: string }).state);
    expect(states).toEqual(['queued', 'transcribing', 'done']);
    expect(log.events.some((e) => e.type === 'job.progress')).toBe(true);
  });
});

describe('queue order under a concurrency of 1', () => {
  it('waits queued with positions and starts jobs one at a time in creation order', async () => {
    const created: Array<{ recordingId: string | null }> = [];
    for (let i = 0; i < 3; i++) created.push(await stack.transcriptions.create(actor(), { name: `q${i}` }, upload('goforward.wav')));
    const views = await Promise.all(created.map((t) => stack.transcriptions.job(stack.accountId, t.recordingId!)));
    // Never refused: the later ones wait with their place in line (1 is next).
    const queued = views.filter((v) => v.state === 'queued');
    expect(queued.length).toBeGreaterThanOrEqual(2);
    expect(queued.map((v) => v.queue?.position)).toEqual(queued.map((_, i) => i + 1));
    await waitFor('all done', async () => {
      const jobs = await stack.db.prisma.job.findMany({ where: { recordingId: { in: created.map((t) => t.recordingId!) } } });
      return jobs.every((j) => j.state === 'done') ? jobs : null;
    }, 90_000);
    const jobs = await Promise.all(created.map((t) => stack.db.prisma.job.findUniqueOrThrow({ where: { recordingId: t.recordingId! } })));
    for (let i = 1; i < jobs.length; i++) {
      expect(jobs[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(jobs[i - 1]!.finishedAt!.getTime());
    }
  });
});

describe('cropping', () => {
  it('opens with peaks and a preview, starts with a window, and counts timestamps from the window start', async () => {
    const created = await stack.transcriptions.create(actor(), { crop: true }, upload('goforward.wav'));
    expect(created.job?.state).toBe('cropping');
    const recordingId = created.recordingId!;
    const cropping = await waitFor('peaks', async () => {
      const job = await stack.transcriptions.job(stack.accountId, recordingId);
      return job.preview?.peaks ? job : null;
    });
    expect(cropping.preview!.peaks!.length).toBeGreaterThan(100);
    expect(cropping.preview!.durationS).toBeCloseTo(2.8, 0);
    const preview = await stack.recordings.previewFile(recordingId, { accountId: stack.accountId });
    expect(preview.contentType).toBe('audio/ogg');
    await expect(stack.transcriptions.startJob(stack.accountId, recordingId, { startS: 1, endS: 99, extra: 1 })).rejects.toMatchObject({ code: 'invalid_options', message: expect.stringContaining('extra') });
    const started = await stack.transcriptions.startJob(stack.accountId, recordingId, { startS: 1.0 });
    expect(['queued', 'transcribing']).toContain(started.state);
    expect(started.window).toEqual({ startS: 1, endS: null });
    await waitFor('cropped job done', async () => (await stack.transcriptions.job(stack.accountId, recordingId)).state === 'done');
    const transcript = await stack.recordings.transcript(recordingId, { accountId: stack.accountId }, {});
    expect(transcript.durationS).toBeCloseTo(1.8, 1);
    expect(transcript.segments.length).toBeGreaterThan(0);
    for (const segment of transcript.segments) expect(segment.end).toBeLessThanOrEqual(1.9);
    // The window cut off "go forward": what is left is the end of the sentence.
    expect(transcript.sentences.map((s) => s.text).join(' ').toLowerCase()).toMatch(/meters|metres/);
    await expect(stack.recordings.previewFile(recordingId, { accountId: stack.accountId })).rejects.toMatchObject({ code: 'not_found' });
  });
});
