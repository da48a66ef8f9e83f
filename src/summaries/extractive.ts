/**
 * The built-in summariser: extractive, no language model. It ranks the transcript's sentences with TextRank over
 * TF-IDF cosine similarity (a sentence that shares weighted words with many well-ranked sentences ranks high),
 * blended with each sentence's similarity to the whole transcript (its TF-IDF centroid, which still separates
 * sentences when they share few words, as in a short talk), keeps the best few in their original order as the summary,
 * and makes a title from the transcript's key phrases
 * (runs of content words between stop words, scored by how often their words occur, RAKE-style). Stop words for
 * English, Spanish, Italian, French and German; other languages use the English list and the ranking still works.
 */
import type { Summariser, SummaryInput, SummaryText } from './summariser.js';

const STOP_WORDS: Record<string, string> = {
  en: `a about above after again against all also am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for
    from further get gets got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's like me more most
    mustn't my myself no nor not now of off on once only or other ought our ours ourselves out over own really right
    same say said says she she'd she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've thing things think this those through to
    too under until up us very was wasn't we we'd we'll we're we've well were weren't what what's when when's where
    where's which while who who's whom why why's will with won't would wouldn't yes yet you you'd you'll you're you've
    your yours yourself yourselves one two going go know kind lot okay oh um uh yeah actually maybe much many way`,
  es: `a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante e el ella ellas
    ellos en entre era eran es esa esas ese eso esos esta estaba estado estar este esto estos fue fueron ha hay la las
    le les lo los mas más me mi mis mucho muy no nos o otra otro para pero poco por que qué se ser si sí sin sobre
    son su sus también te tiene tienen todo todos tu un una uno unos y ya yo`,
  it: `a ad al alla alle anche che chi ci come con da dal dalla dei del della delle di dove e è ed era gli ha hanno
    i il in io la le lei lo loro lui ma mi molto ne nei nel nella noi non o per perché più quale quando quella quello
    questa questo se si sia sono su sua sue suo suoi tra tu tutto un una uno voi`,
  fr: `à au aux avec ce ces cette dans de des du elle en est et il ils je la le les leur lui mais me mes ne nous on
    ou par pas pour qu que qui sa se ses son sont sur ta te tes toi ton tu un une vous y été être avoir fait plus`,
  de: `aber als am an auch auf aus bei bin bis das dass dem den der des die doch du ein eine einem einen einer es
    für hat hatte ich ihr im in ist ja kann mit nach nicht noch nur oder sich sie sind so über um und uns von vor war
    was wenn wie wir wird zu zum zur`,
};

const stopWordSets = new Map<string, Set<string>>();

/** The stop words of `language` (its primary subtag), English when unknown. */
export function stopWords(language: string | null): Set<string> {
  const key = language && STOP_WORDS[language.toLowerCase().split(/[-_]/)[0]!] ? language.toLowerCase().split(/[-_]/)[0]! : 'en';
  let set = stopWordSets.get(key);
  if (!set) {
    set = new Set(STOP_WORDS[key]!.split(/\s+/).filter(Boolean));
    stopWordSets.set(key, set);
  }
  return set;
}

/** Lower-cased word tokens (letters, digits, inner apostrophes), typographic apostrophes folded. */
export function tokens(text: string): string[] {
  return text.toLowerCase().replace(/[’ʼ]/g, "'").match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? [];
}

function contentWords(text: string, stops: Set<string>): string[] {
  return tokens(text).filter((word) => word.length > 1 && !stops.has(word) && !/^\d+$/.test(word));
}

/** TF-IDF vectors of the sentences (content words only) and their norms. */
function tfIdf(sentences: string[], language: string | null): { vectors: Map<string, number>[]; norms: number[] } {
  const n = sentences.length;
  const stops = stopWords(language);
  const bags = sentences.map((sentence) => contentWords(sentence, stops));
  const documentFrequency = new Map<string, number>();
  for (const bag of bags) for (const word of new Set(bag)) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  const vectors = bags.map((bag) => {
    const vector = new Map<string, number>();
    for (const word of bag) vector.set(word, (vector.get(word) ?? 0) + 1);
    for (const [word, count] of vector) vector.set(word, count * Math.log(1 + n / documentFrequency.get(word)!));
    return vector;
  });
  return { vectors, norms: vectors.map(norm) };
}

const norm = (vector: Map<string, number>) => Math.sqrt([...vector.values()].reduce((sum, value) => sum + value * value, 0));

/** TextRank scores of `sentences` (same order, summing to 1), over TF-IDF cosine similarity; damping 0.85. */
export function rankSentences(sentences: string[], language: string | null): number[] {
  const n = sentences.length;
  if (n === 0) return [];
  const { vectors, norms } = tfIdf(sentences, language);
  const weights = vectors.map((a, i) => vectors.map((b, j) => {
    if (i === j || !norms[i] || !norms[j]) return 0;
    let dot = 0;
    for (const [word, value] of a) dot += value * (b.get(word) ?? 0);
    return dot / (norms[i]! * norms[j]!);
  }));
  const outWeight = weights.map((row) => row.reduce((sum, value) => sum + value, 0));
  const damping = 0.85;
  let scores = new Array<number>(n).fill(1 / n);
  for (let iteration = 0; iteration < 100; iteration++) {
    // A sentence sharing no word with any other spreads its rank evenly (the usual dangling-node rule).
    const dangling = scores.reduce((sum, score, j) => sum + (outWeight[j] ? 0 : score), 0);
    const next = scores.map((_, i) => {
      let incoming = 0;
      for (let j = 0; j < n; j++) if (outWeight[j]) incoming += (weights[j]![i]! / outWeight[j]!) * scores[j]!;
      return (1 - damping) / n + damping * (incoming + dangling / n);
    });
    const delta = next.reduce((sum, score, i) => sum + Math.abs(score - scores[i]!), 0);
    scores = next;
    if (delta < 1e-9) break;
  }
  return scores;
}

/**
 * Each sentence's cosine similarity to the whole transcript's TF-IDF vector (its centroid): how much of what the
 * transcript is about the sentence says. Unlike TextRank it still separates sentences that share few words.
 */
export function centroidScores(sentences: string[], language: string | null): number[] {
  const { vectors, norms } = tfIdf(sentences, language);
  const centroid = new Map<string, number>();
  for (const vector of vectors) for (const [word, value] of vector) centroid.set(word, (centroid.get(word) ?? 0) + value);
  const centroidNorm = norm(centroid);
  return vectors.map((vector, i) => {
    if (!norms[i] || !centroidNorm) return 0;
    let dot = 0;
    for (const [word, value] of vector) dot += value * centroid.get(word)!;
    return dot / (norms[i]! * centroidNorm);
  });
}

/** What picks the summary: TextRank and centroid similarity, each scaled to its best sentence, weighed equally. */
export function sentenceScores(sentences: string[], language: string | null): number[] {
  const scale = (scores: number[]) => {
    const best = Math.max(0, ...scores);
    return scores.map((score) => (best ? score / best : 0));
  };
  const rank = scale(rankSentences(sentences, language));
  const central = scale(centroidScores(sentences, language));
  return rank.map((score, i) => 0.5 * score + 0.5 * central[i]!);
}

/** How many sentences a summary of `n` keeps: one for a handful, then about one in five, at most five. */
export function summaryLength(n: number): number {
  if (n <= 3) return Math.min(n, 1);
  return Math.max(2, Math.min(5, Math.round(n / 5)));
}

/** The best-ranked sentences in their original order. Sentences of fewer than four words are picked only when nothing longer exists. */
export function pickSentences(sentences: string[], language: string | null, count = summaryLength(sentences.length)): string[] {
  const scores = sentenceScores(sentences, language);
  const substantial = sentences.map((sentence, i) => ({ i, score: scores[i]! })).filter(({ i }) => tokens(sentences[i]!).length >= 4);
  const candidates = substantial.length ? substantial : sentences.map((_, i) => ({ i, score: scores[i]! }));
  return candidates
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
    .map(({ i }) => sentences[i]!);
}

/** Key phrases, best first: runs of up to four content words, scored by their words' frequency and the run's repeats. */
export function keyPhrases(sentences: string[], language: string | null): string[] {
  const stops = stopWords(language);
  const runs: string[][] = [];
  for (const sentence of sentences) {
    // Punctuation ends a phrase as a stop word does.
    for (const clause of sentence.split(/[,;:.!?¿¡()"“”«»—–]+/)) {
      let run: string[] = [];
      for (const word of tokens(clause)) {
        if (word.length > 1 && !stops.has(word) && !/^\d+$/.test(word) && run.length < 4) run.push(word);
        else {
          if (run.length) runs.push(run);
          run = stops.has(word) || word.length <= 1 || /^\d+$/.test(word) ? [] : [word];
        }
      }
      if (run.length) runs.push(run);
    }
  }
  const frequency = new Map<string, number>();
  for (const run of runs) for (const word of run) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const phrases = new Map<string, { words: string[]; repeats: number }>();
  for (const run of runs) {
    const key = run.join(' ');
    const seen = phrases.get(key);
    if (seen) seen.repeats++;
    else phrases.set(key, { words: run, repeats: 1 });
  }
  const score = ({ words, repeats }: { words: string[]; repeats: number }) =>
    (words.reduce((sum, word) => sum + frequency.get(word)!, 0) / words.length) * Math.sqrt(words.length) * Math.sqrt(repeats);
  return [...phrases.entries()].sort((a, b) => score(b[1]) - score(a[1]) || a[0].localeCompare(b[0])).map(([key]) => key);
}

const titleCase = (phrase: string) => phrase.split(' ').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');

/** A title from the best key phrases: the best one, joined by a second that shares no word with it while the title stays short. */
export function titleOf(sentences: string[], language: string | null): string {
  const phrases = keyPhrases(sentences, language);
  const first = phrases[0];
  if (!first) return '';
  const firstWords = new Set(first.split(' '));
  const second = phrases.slice(1).find((phrase) => phrase.split(' ').every((word) => !firstWords.has(word)));
  const parts = second && first.split(' ').length + second.split(' ').length <= 6 ? [first, second] : [first];
  return parts.map(titleCase).join(' · ');
}

export const extractiveSummariser: Summariser = {
  name: 'builtin',
  async summarise({ sentences, language }: SummaryInput): Promise<SummaryText> {
    return { title: titleOf(sentences, language), summary: pickSentences(sentences, language).join(' ') };
  },
};
