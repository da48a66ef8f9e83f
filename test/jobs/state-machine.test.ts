/**
 * The job rules on their own, without HTTP or a worker: the jobs module's moves called directly against a real
 * database, with a recording queue in place of Bull (the port the entry point injects). Admission within the
 * account's limit, no double start, a stale attempt changing nothing, a failure freeing the slot for the next
 * job, and a gapless durable log for every move.
 */
import { describe, expect, it } from 'vitest';
import type { JobQueue, JobWorkData, JobWorkName } from '../../src/jobs/queue.js';
import {
  beginTranscribing,
  failJob,
  finishTranscribing,
  jobView,
  recordSegment,
  StaleJob,
  type JobsContext,
} from '../../src/jobs/service.js';
import { json, upload } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

/** The work the rules hand on, in order. */
function recordingQueue(): JobQueue & { added: Array<{ name: JobWorkName; data: JobWorkData }> } {
  const added: Array<{ name: JobWorkName; data: JobWorkData }> = [];
  return { added, add: async (name, data) => void added.push({ name, data }), close: async () => undefined };
}

/** An account with `limit` slots and `count` uploaded jobs (nothing processes them: no workers). */
async function accountWithJobs(limit: number, count: number) {
  const accountId = await server.createAccount(`limit ${limit}`);
  await server.prisma.account.update({ where: { id: accountId }, data: { concurrencyLimit: limit } });
  const { key } = await server.createKey(['*'], { accountId });
  const jobs: Array<{ id: string; recordingId: string }> = [];
  for (let i = 0; i < count; i++) {
    const created = await json(await upload(server, { name: `job ${i}` }, undefined, { authorization: `Bearer ${key}` }));
    const job = await server.prisma.job.findFirstOrThrow({ where: { recordingId: created.recordingId } });
    jobs.push({ id: job.id, recordingId: job.recordingId });
  }
  const queue = recordingQueue();
  const ctx: JobsContext = { prisma: server.prisma, pubsub: server.app.pubsub, queue };
  return { accountId, jobs, queue, ctx };
}

const row = (id: string) => server.prisma.job.findUniqueOrThrow({ where: { id } });
const seqs = async (recordingId: string) =>
  (await server.prisma.recordingEvent.findMany({ where: { recordingId }, orderBy: { seq: 'asc' } })).map((event) => event.seq);

describe('the jobs module on its own', () => {
  it('admits within the limit, never starts a job twice, and a failure frees the slot for the next in line', async () => {
    const { jobs, queue, ctx } = await accountWithJobs(1, 3);
    const [first, second, third] = await Promise.all(jobs.map(({ id }) => row(id)));
    // Admission happened at creation: one slot, so only the first is admitted (startedAt marks it internally; it
    // stays first in line until an engine takes it).
    expect(first!.startedAt).not.toBeNull();
    expect(second!.startedAt).toBeNull();
    expect((await jobView(server.prisma, second!)).queue).toEqual({ position: 2 });
    expect((await jobView(server.prisma, third!)).queue).toEqual({ position: 3 });

    expect(await beginTranscribing(ctx, first!.id, first!.attempts)).toBe(true);
    expect(await beginTranscribing(ctx, first!.id, first!.attempts)).toBe(false);
    expect((await row(first!.id)).state).toBe('transcribing');
    // Not admitted: a worker holding stale work for it cannot start it.
    expect(await beginTranscribing(ctx, second!.id, second!.attempts)).toBe(false);

    expect(await failJob(ctx, first!.id, { message: 'the engine gave up', code: 'internal' }, first!.attempts)).toBe(true);
    expect(await row(first!.id)).toMatchObject({ state: 'failed', error: 'the engine gave up', errorCode: 'internal' });
    // The freed slot goes to the next in line, and only to it.
    expect(queue.added).toEqual([{ name: 'transcribe', data: { jobId: second!.id, attempt: second!.attempts + 1 } }]);
    expect((await row(second!.id)).startedAt).not.toBeNull();
    expect((await jobView(server.prisma, await row(second!.id))).queue).toEqual({ position: 1 });
    expect((await jobView(server.prisma, await row(third!.id))).queue).toEqual({ position: 2 });
  });

  it('a stale attempt neither stores segments nor finishes the job; the current one does, with a gapless log', async () => {
    const { accountId, jobs, ctx } = await accountWithJobs(2, 1);
    const { id, recordingId } = jobs[0]!;
    const admitted = await row(id);
    expect(await beginTranscribing(ctx, id, admitted.attempts)).toBe(true);
    const segment = {
      start: 0, end: 1.2, text: 'Go forward.', words: [{ start: 0, end: 1.2, text: 'Go forward.', prob: 0.9 }], confidence: 0.9,
      language: 'en', speaker: -1, decoder: 'accuracy' as const,
    };

    await expect(recordSegment(ctx, { id, recordingId, attempt: admitted.attempts - 1 }, segment, 2.8)).rejects.toBeInstanceOf(StaleJob);
    await finishTranscribing(ctx, { id, recordingId, attempt: admitted.attempts - 1, accountId }, {
      totalS: 2.8, segmentsDone: 0, spokenLanguage: 'en', language: 'en', model: 'whisper-tiny', beamSize: 5, uncoveredSpeechS: 0,
    });
    expect((await row(id)).state).toBe('transcribing');
    expect(await server.prisma.segment.count({ where: { recordingId } })).toBe(0);

    const current = { id, recordingId, attempt: admitted.attempts };
    expect(await recordSegment(ctx, current, segment, 2.8)).toBe(1);
    expect(await recordSegment(ctx, current, { ...segment, start: 1.2, end: 2.8, text: 'Ten meters.' }, 2.8)).toBe(2);
    await finishTranscribing(ctx, { ...current, accountId }, {
      totalS: 2.8, segmentsDone: 2, spokenLanguage: 'en', language: 'en', model: 'whisper-tiny', beamSize: 5, uncoveredSpeechS: 0,
    });
    expect(await row(id)).toMatchObject({ state: 'done', progress: { pct: 100, segmentsDone: 2, uncoveredSpeechS: 0 } });
    expect((await server.prisma.segment.findMany({ where: { recordingId }, orderBy: { seq: 'asc' } })).map((s) => [s.seq, s.text])).toEqual(
      [[0, 'Go forward.'], [1, 'Ten meters.']],
    );
    const log = await seqs(recordingId);
    expect(log).toEqual(log.map((_, index) => index));
    const events = await server.prisma.recordingEvent.findMany({ where: { recordingId }, orderBy: { seq: 'asc' } });
    expect(events.map((event) => event.type).slice(-7)).toEqual([
      'transcript.committed', 'transcript.sentence', 'job.progress', 'transcript.committed', 'transcript.sentence', 'job.progress',
      'job.state',
    ]);
  });
});
