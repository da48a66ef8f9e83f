/**
 * The collection before an encoder pass (memory.ts): once 16 MB of ArrayBuffers were made since the last, it frees the
 * ones nothing reads (24 MB here, which V8 alone keeps for now) and keeps those still read; below that, or within a
 * second of the last, it runs none.
 */
import { describe, expect, it } from 'vitest';
import { releaseBuffers } from '../../workers/engine/memory.js';

const MB = 1024 * 1024;
const arrayBuffers = () => process.memoryUsage().arrayBuffers;
/** Makes `mb` MB of ArrayBuffers that nothing reads once it returns; their sum, so that they are made. */
const garbage = (mb: number) => Array.from({ length: mb }, () => new Float32Array(MB / 4)).reduce((sum, a) => sum + a.length, 0);
/** ArrayBuffer bytes once V8's concurrent sweeping caught up (it frees a collection's buffers after it returns). */
async function settled(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return arrayBuffers();
}

describe('releaseBuffers', () => {
  it('frees the buffers nothing reads once 16 MB were made since the last collection, and keeps the rest', async () => {
    const start = await settled();
    expect(garbage(24)).toBe(6 * MB);
    const live = new Float32Array(MB); // 4 MB, still read below
    expect(arrayBuffers() - start).toBeGreaterThanOrEqual(28 * MB);
    expect(releaseBuffers()).toBe(true);
    expect((await settled()) - start).toBeLessThan(12 * MB);
    expect(live.length).toBe(MB);
  });

  it('collects once a second at most', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(garbage(24)).toBe(6 * MB);
    expect(releaseBuffers()).toBe(true);
    expect(garbage(24)).toBe(6 * MB);
    expect(releaseBuffers()).toBe(false);
  });

  it('leaves them to V8 below 16 MB', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(garbage(12)).toBe(3 * MB);
    expect(releaseBuffers()).toBe(false);
  });
});
