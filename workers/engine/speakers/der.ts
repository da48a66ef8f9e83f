/**
 * Diarization error rate, as NIST's md-eval scores it (on a 10 ms grid): missed speech + false alarm + speaker
 * confusion over the reference's speech time, leaving out a collar (default 0.25 s) either side of every
 * reference turn boundary. Reference and hypothesis speakers are paired one to one, greedily by overlap (the
 * optimal pairing for the few speakers of a test recording).
 */
export interface LabelledTurn {
  start: number;
  end: number;
  speaker: number | string;
}

export interface DiarizationError {
  der: number;
  missedS: number;
  falseAlarmS: number;
  confusionS: number;
  /** Reference speech scored (collars left out). */
  scoredS: number;
}

const STEP_S = 0.01;

/** Speakers active at each 10 ms step. */
function grid(turns: LabelledTurn[], steps: number): Array<Set<string>> {
  const out = Array.from({ length: steps }, () => new Set<string>());
  for (const turn of turns) {
    for (let i = Math.max(0, Math.round(turn.start / STEP_S)); i < Math.min(steps, Math.round(turn.end / STEP_S)); i++) out[i].add(
      String(turn.speaker),
    );
  }
  return out;
}

export function diarizationErrorRate(reference: LabelledTurn[], hypothesis: LabelledTurn[], collarS = 0.25): DiarizationError {
  const endS = Math.max(0, ...reference.map((t) => t.end), ...hypothesis.map((t) => t.end));
  const steps = Math.ceil(endS / STEP_S) + 1;
  const ref = grid(reference, steps);
  const hyp = grid(hypothesis, steps);
  const scored = new Array<boolean>(steps).fill(true);
  for (const turn of reference) {
    for (const edge of [turn.start, turn.end]) {
      for (let i = Math.max(
        0, Math.round((edge - collarS) / STEP_S),
      ); i < Math.min(steps, Math.round((edge + collarS) / STEP_S)); i++) scored[i] = false;
    }
  }
  // Pair speakers greedily by the time they share.
  const shared = new Map<string, number>();
  for (let i = 0; i < steps; i++) {
    if (!scored[i]) continue;
    for (const r of ref[i]) for (const h of hyp[i]) shared.set(`${r}\u0000${h}`, (shared.get(`${r}\u0000${h}`) ?? 0) + 1);
  }
  const pairs = new Map<string, string>();
  const taken = new Set<string>();
  for (const [key] of [...shared].sort((a, b) => b[1] - a[1])) {
    const [r, h] = key.split('\u0000');
    if (pairs.has(r) || taken.has(h)) continue;
    pairs.set(r, h);
    taken.add(h);
  }
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  let total = 0;
  for (let i = 0; i < steps; i++) {
    if (!scored[i]) continue;
    const nr = ref[i].size;
    const nh = hyp[i].size;
    let correct = 0;
    for (const r of ref[i]) if (pairs.has(r) && hyp[i].has(pairs.get(r)!)) correct++;
    total += nr;
    missed += Math.max(0, nr - nh);
    falseAlarm += Math.max(0, nh - nr);
    confusion += Math.min(nr, nh) - correct;
  }
  const s = (frames: number) => Math.round(frames * STEP_S * 100) / 100;
  return {
    der: total ? (missed + falseAlarm + confusion) / total : 0, missedS: s(missed), falseAlarmS: s(falseAlarm), confusionS: s(confusion),
    scoredS: s(total),
  };
}

/** Turns of an RTTM file (`SPEAKER file 1 start duration <NA> <NA> speaker …` per line). */
export function parseRttm(text: string): LabelledTurn[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[0] === 'SPEAKER')
    .map((f) => ({ start: Number(f[3]), end: Number(f[3]) + Number(f[4]), speaker: f[7] }));
}
