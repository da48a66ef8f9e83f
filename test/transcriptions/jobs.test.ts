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
