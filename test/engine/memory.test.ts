/**
 * The collection before an encoder pass (memory.ts): once 16 MB of ArrayBuffers were made since the last, it runs a
 * full collection that frees the ones nothing reads (here ones V8 alone keeps: they outlived two collections, so no
 * scavenge frees them); below that, or within a second of the last, it runs none. Buffers still read are held by the
 * test wherever the answer must not depend on when V8 collects by itself (a loaded machine collects more often).
 */
import { describe, expect, it } from 'vitest';
import { collector, releaseBuffers } from '../../workers/engine/memory.js';

const MB = 1024 * 1024;
const arrayBuffers = () => process.memoryUsage().arrayBuffers;
const buffers = (mb: number) => Array.from({ length: mb }, () => new Float32Array(MB / 4));
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** ArrayBuffer bytes once V8's concurrent sweeping caught up (it frees a collection's buffers after it returns). */
async function settled(): Promise<number> {
  await wait(50);
  return arrayBuffers();
}
describe('releaseBuffers', () => {
  it('frees the buffers nothing reads once 16 MB were made since the last collection, and keeps the rest', async () => {
    // The module's own way to V8's collector, here to move the buffers into the old generation first.
    const gc = collector()!;
    const start = await settled();
    let old: Float32Array[] | null = buffers(24);
    const live = new Float32Array(MB); // 4 MB, still read below
    gc();
    gc();
    expect(arrayBuffers() - start).toBeGreaterThan(20 * MB); // the 28 MB held, less what the runner had and gc() freed
    expect(old.length).toBe(24);
    old = null;
    expect(releaseBuffers()).toBe(true);
    expect((await settled()) - start).toBeLessThan(12 * MB);
    expect(live.length).toBe(MB);
  });

  it('collects once a second at most', async () => {
    await wait(1100);
    const first = buffers(24);
    expect(releaseBuffers()).toBe(true);
    const second = buffers(24);
    expect(releaseBuffers()).toBe(false);
    expect(first.length + second.length).toBe(48);
  });

  it('leaves them to V8 below 16 MB', async () => {
    await wait(1100);
    releaseBuffers();
    await wait(1100);
    const some = buffers(12);
    expect(releaseBuffers()).toBe(false);
    expect(some.length).toBe(12);
  });
});
