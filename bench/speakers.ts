/**
 * Speaker labels: diarization error rate of the classical diarizer (workers/engine/diarize.ts: VAD and ΔBIC
 * change points, per-turn Gaussians of MFCCs, BIC agglomerative clustering) with NIST's 0.25 s collar, on
 *
 * - `two-speakers`: 42 s of two real speakers taking seven turns (test/fixtures/speakers, RTTM ground truth);
 * - `lecture`: the one-speaker 60 s lecture (no RTTM: the row says how many speakers were found; 1 is right).
 *
 * `npm run bench -- speakers` prints the table.
 */
import { fixture } from '../test/helpers/fixtures.js';
import { measureDiarization, TWO_SPEAKERS } from '../test/helpers/speakers.js';

export async function benchSpeakers(): Promise<{ table: string }> {
  const rows = [
    '| recording | true speakers | found | DER | missed s | false alarm s | confusion s | scored s | time s |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, audio, rttm, truth] of [
    ['two-speakers', TWO_SPEAKERS.audio, TWO_SPEAKERS.rttm, 2],
    ['lecture (60 s)', fixture('political-philosophy-60s.wav'), undefined, 1],
  ] as const) {
    const { speakers, error, seconds } = await measureDiarization(audio, rttm);
    const cells = error
      ? [`${(error.der * 100).toFixed(1)}%`, error.missedS, error.falseAlarmS, error.confusionS, error.scoredS]
      : ['—', '—', '—', '—', '—'];
    rows.push(`| ${name} | ${truth} | ${speakers} | ${cells.join(' | ')} | ${seconds.toFixed(2)} |`);
  }
  return { table: rows.join('\n') };
}
