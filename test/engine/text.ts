/** Text comparison helpers for the engine tests: what counts as "the same words". */
const NUMBER_WORDS: Record<string, string> = {
  '0': 'zero', '1': 'one', '2': 'two', '3': 'three', '4': 'four', '5': 'five', '6': 'six', '7': 'seven', '8': 'eight', '9': 'nine', '10': 'ten',
  '11': 'eleven', '12': 'twelve', '20': 'twenty',
};

/** Lower case, no punctuation, digits spelled out (Whisper writes "10 meters" as often as "ten meters"). */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => NUMBER_WORDS[word] ?? word);
}

/** Word-level edit distance (substitutions + insertions + deletions). */
export function wordErrors(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[hypothesis.length];
}

export const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;
