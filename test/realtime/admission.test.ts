/**
 * Session slots and the wait line on their own: first come, first served; a full line refuses; a socket that
 * leaves the line frees its place; a released slot goes to the next in line once.
 */
import { describe, expect, it } from 'vitest';
import { Admission, type SlotLease } from '../../src/live/admission.js';

const settled = async <T>(promise: Promise<T>) => {
  let state: 'pending' | 'granted' | 'refused' = 'pending';
  promise.then(() => (state = 'granted'), () => (state = 'refused'));
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('admission', () => {
  it('grants slots at once while there is room, then queues in arrival order', async () => {
    const admission = new Admission(2, 2);
    const a = await admission.acquire(new AbortController().signal);
    await admission.acquire(new AbortController().signal);
    const third = admission.acquire(new AbortController().signal);
    const fourth = admission.acquire(new AbortController().signal);
    expect(await settled(third)).toBe('pending');
    expect(admission.load()).toEqual({ active: 2, waiting: 2, maxSessions: 2 });
    expect(admission.full).toBe(true);

    a.release();
    expect(await settled(third)).toBe('granted');
    expect(await settled(fourth)).toBe('pending');
    a.release(); // a second release of the same lease gives nothing away
    expect(await settled(fourth)).toBe('pending');
    expect(admission.load()).toEqual({ active: 2, waiting: 1, maxSessions: 2 });
  });

  it('a socket that leaves the line frees its place and is not granted later', async () => {
    const admission = new Admission(1, 1);
    const holder = await admission.acquire(new AbortController().signal);
    const leaving = new AbortController();
    const waiting = admission.acquire(leaving.signal);
    expect(admission.full).toBe(true);
    leaving.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(admission.full).toBe(false);
    const next = admission.acquire(new AbortController().signal);
    holder.release();
    const lease: SlotLease = await next;
    expect(admission.load()).toEqual({ active: 1, waiting: 0, maxSessions: 1 });
    lease.release();
    expect(admission.load().active).toBe(0);
  });

  it('refuses an already aborted wait, and drain empties the line', async () => {
    const admission = new Admission(1, 4);
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(admission.acquire(aborted.signal)).rejects.toThrow('gone');
    await admission.acquire(new AbortController().signal);
    const waiting = [admission.acquire(new AbortController().signal), admission.acquire(new AbortController().signal)];
    const outcomes = waiting.map(settled);
    admission.drain();
    expect(await Promise.all(outcomes)).toEqual(['refused', 'refused']);
    await expect(waiting[0]).rejects.toThrow(/shutting down/);
    expect(admission.load().waiting).toBe(0);
  });

  it('needs at least one slot', () => {
    expect(() => new Admission(0, 1)).toThrow(/at least 1/);
  });
});
