/**
 * Speaker labels: diarization error rate of the classical diarizer (workers/engine/speakers/diarize.ts: VAD and ΔBIC
 * change points, per-turn Gaussians of MFCCs, BIC agglomerative clustering) with NIST's 0.25 s collar, on
 *
 * - `two-speakers`: 42 s of two real speakers taking seven turns (test/fixtures/speakers, RTTM ground truth);
 * - `lecture`: the one-speaker 60 s lecture (no RTTM: the row says how many speakers were found; 1 is right).
 *
 * Live capture's online labels are measured on `two-speakers` too: segments cut at the true turns (2.5 s at most),
 * and cut blind (every 2.5 s, every 4 s), as a recognizer's segments may straddle a change of voice.
 *
 * `npm run bench -- speakers` prints the table. With a speaker-embedding model in MODELS_DIR
 * (workers/engine/speakers/speaker-embedding.ts), both recordings are measured again with it (rows marked "embedding").
 */
import { findSpeakerEmbedding } from '../workers/engine/speakers/speaker-embedding.js';
import { fixture } from '../test/helpers/fixtures.js';
import { readFileSync } from 'node:fs';
import { parseRttm } from '../workers/engine/speakers/der.js';
import { labelOnline, measureDiarization, segmentsDer, segmentsOfTurns, TWO_SPEAKERS } from '../test/helpers/speakers.js';

export async function benchSpeakers(): Promise<{ table: string }> {
  const rows = [
    '| recording | true speakers | found | DER | missed s | false alarm s | confusion s | scored s | time s |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const model = await findSpeakerEmbedding();
  for (const embedding of model ? [null, model] : [null]) {
    for (const [name, audio, rttm, truth] of [
      ['two-speakers', TWO_SPEAKERS.audio, TWO_SPEAKERS.rttm, 2],
      ['lecture (60 s)', fixture('political-philosophy-60s.wav'), undefined, 1],
    ] as const) {
      const { speakers, error, seconds } = await measureDiarization(audio, rttm, { embedding });
      const cells = error
        ? [`${(error.der * 100).toFixed(1)}%`, error.missedS, error.falseAlarmS, error.confusionS, error.scoredS]
        : ['—', '—', '—', '—', '—'];
      rows.push(`| ${name}${embedding ? ', embedding' : ''} | ${truth} | ${speakers} | ${cells.join(' | ')} | ${seconds.toFixed(2)} |`);
    }
  }
  // Live capture: online labels (workers/engine/speakers/live-speakers.ts) of segments as committed, provisional and settled:
  // cut from the true turns (2.5 s at most), and cut blind every 2.5, 4 and 8 s (some hold both voices; 8 s is a
  // busy machine's live pass, whose segments run the turns together).
  const reference = parseRttm(readFileSync(TWO_SPEAKERS.rttm, 'utf8'));
  const blind = (pieceS: number) => Array.from(
    { length: Math.ceil(42 / pieceS) }, (_, i) => ({ start: i * pieceS, end: Math.min(42.3, (i + 1) * pieceS - 0.05) }),
  );
  for (const [cut, segments] of [
    ['true turns, 2.5 s', segmentsOfTurns(reference, 2.5)], ['blind, 2.5 s', blind(2.5)], ['blind, 4 s', blind(4)],
    ['blind, 8 s', blind(8)],
  ] as const) {
    const online = await labelOnline(TWO_SPEAKERS.audio, segments);
    const settled = online.segments.map((_, i) => online.settled.get(i)!.speaker);
    for (const [name, labels] of [['provisional', online.provisional], ['settled', settled]] as const) {
      const error = segmentsDer(TWO_SPEAKERS.rttm, online.segments, labels);
      rows.push(`| two-speakers, live ${name} (segments: ${cut}) | 2 | ${new Set(labels).size} | ${(error.der * 100).toFixed(1)}% | `
        + `${error.missedS} | ${error.falseAlarmS} | ${error.confusionS} | ${error.scoredS} | ${online.seconds.toFixed(2)} |`);
    }
  }
  return { table: rows.join('\n') };
}
