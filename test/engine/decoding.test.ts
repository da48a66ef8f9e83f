/**
 * The decoder's log-sum-exp (every step's log-probabilities and word probabilities) with its table-and-polynomial
 * exp: as exact as Math.exp's, to far below what a float32 logit can tell.
 */
import { describe, expect, it } from 'vitest';
import { expNegative, logSumExp } from '../../workers/engine/whisper/decoding.js';

describe('exp of the log-sum-exp', () => {
  it('is within 1.3e-12 of Math.exp (relative) over the range a log-sum-exp keeps, table steps and their edges included', () => {
    const points = [0, 1e-12, 30, 29.999999];
    for (let d = 0; d <= 30; d += 0.000731) points.push(d);
    for (let m = 0; m <= 30 * 64 * Math.LOG2E; m++) points.push((m * Math.LN2) / 64, (m * Math.LN2) / 64 - 1e-13);
    let worst = 0;
    for (const d of points.filter((point) => point >= 0)) worst = Math.max(worst, Math.abs(expNegative(d) / Math.exp(-d) - 1));
    expect(worst).toBeLessThan(1.3e-12);
  });

  // Terms over NEGLIGIBLE_LOG below the largest are left out by design (5e-9 at most): the bound allows that, no more.
  it('gives the log-sum-exp of a vocabulary of logits, suppressed ones and a range included, as summing Math.exp does', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const row = Float32Array.from({ length: 51_865 }, () => 40 * random() - 15);
    for (let i = 0; i < row.length; i += 97) row[i] = -Infinity;
    const exact = (from: number, to: number) => {
      let max = -Infinity;
      for (let i = from; i < to; i++) max = Math.max(max, row[i]!);
      let sum = 0;
      for (let i = from; i < to; i++) sum += Math.exp(row[i]! - max);
      return max + Math.log(sum);
    };
    expect(Math.abs(logSumExp(row) - exact(0, row.length))).toBeLessThan(1e-8);
    expect(Math.abs(logSumExp(row, 50_257, 51_865) - exact(50_257, 51_865))).toBeLessThan(1e-8);
    expect(logSumExp(new Float32Array([-Infinity, -Infinity]))).toBe(-Infinity);
  });
});
