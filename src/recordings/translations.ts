/**
 * A recording's translations: committed segments translated into a session's `translate` targets as they are
 * committed (stored on the segment, `transcript.translated` in the durable log), and sentences translated for a
 * reader who asks for a `lang` (snapshot, `GET .../translation`, exports). Text translation itself, its providers
 * and its cache are src/translation's; everything here goes through one `Translate` function, so a sentence read
 * twice is translated once (the cache answers the second time).
 */
import type { Prisma } from '../generated/prisma/client.js';
import type { Translate, Translated } from '../translation/service.js';
import { inTransaction, type EventLogContext, type PendingFrame } from '../transcript/index.js';

export type { Translate } from '../translation/service.js';

/** A segment's translations as stored and sent: text and source per language. */
export interface SegmentTranslations {
  translations: Record<string, string>;
  translationSources: Record<string, string>;
}

const asRecord = (value: unknown): Record<string, string> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};

/**
 * The translations stored on a segment row: every language (`only` left out: the owner's), `only` alone (a
 * listener's `lang`), or none (`only` null: a listener reading the spoken language).
 */
export function storedTranslations(
  segment: { translations: unknown; translationSources: unknown }, only?: string | null,
): SegmentTranslations {
  const translations = asRecord(segment.translations);
  const translationSources = asRecord(segment.translationSources);
  if (only === undefined) return { translations, translationSources };
  const lang = only ?? '';
  return {
    translations: lang in translations ? { [lang]: translations[lang]! } : {},
    translationSources: lang in translationSources ? { [lang]: translationSources[lang]! } : {},
  };
}

/**
 * Translates committed segments into `targets` (their own language left out) and stores each on its segment with
 * a durable `transcript.translated` frame (`seq`, `translations`, `translationSources`: the languages just made).
 * A segment whose text changed while it was being translated (a correction) keeps what the correction left:
 * the correction translates it again. Answers what was stored, by seq.
 */
export async function translateSegments(
  ctx: EventLogContext & { translate: Translate }, recordingId: string, seqs: number[], targets: string[],
): Promise<Map<number, SegmentTranslations>> {
  const segments = await ctx.prisma.segment.findMany({
    where: { recordingId, seq: { in: seqs } }, orderBy: { seq: 'asc' }, select: { seq: true, text: true, language: true },
  });
  const spoken = (await ctx.prisma.recording.findUnique(
    { where: { id: recordingId }, select: { spokenLanguage: true } },
  ))?.spokenLanguage ?? null;
  const made = new Map<number, SegmentTranslations>();
  for (const target of targets) {
    const todo = segments.filter((s) => (s.language ?? spoken) !== target && s.text.trim() !== '');
    if (todo.length === 0) continue;
    // One call per source language (a recording may switch language mid-way).
    const bySource = new Map<string | null, typeof todo>();
    for (const s of todo) bySource.set(s.language ?? spoken, [...(bySource.get(s.language ?? spoken) ?? []), s]);
    for (const [from, group] of bySource) {
      const results = await ctx.translate(group.map((s) => s.text), from, target);
      group.forEach((s, i) => {
        const entry = made.get(s.seq) ?? { translations: {}, translationSources: {} };
        entry.translations[target] = results[i]!.text;
        entry.translationSources[target] = results[i]!.source;
        made.set(s.seq, entry);
      });
    }
  }
  if (made.size === 0) return made;
  const texts = new Map(segments.map((s) => [s.seq, s.text]));
  return inTransaction(ctx, recordingId, async (tx) => {
    const stored = new Map<number, SegmentTranslations>();
    const frames: PendingFrame[] = [];
    const current = await tx.segment.findMany({
      where: { recordingId, seq: { in: [...made.keys()] } },
      select: { id: true, seq: true, text: true, translations: true, translationSources: true },
    });
    for (const row of current) {
      if (row.text !== texts.get(row.seq)) continue;
      const fresh = made.get(row.seq)!;
      await tx.segment.update({
        where: { id: row.id },
        data: {
          translations: { ...asRecord(row.translations), ...fresh.translations } as Prisma.InputJsonValue,
          translationSources: { ...asRecord(row.translationSources), ...fresh.translationSources } as Prisma.InputJsonValue,
        },
      });
      stored.set(row.seq, fresh);
      frames.push({ type: 'transcript.translated', audience: 'log', body: { seq: row.seq, ...fresh } });
    }
    return { result: stored, frames };
  });
}

/** Sentences translated from their audio (the English pivot, src/translation/speech.ts), one result per sentence. */
export type SpeechTranslate<S> = (sentences: S[]) => Promise<Translated[]>;

/**
 * Sentences in another language: each sentence's text translated (the cache answers sentences read before), or,
 * with `speech` (the pair no text provider serves), each sentence's audio read in English and on from there.
 */
export async function translateSentences<S extends { text: string }>(
  translate: Translate, sentences: S[], from: string | null, to: string, speech?: SpeechTranslate<S> | null,
): Promise<Array<S & { translation: string; source: string }>> {
  const todo = sentences.filter((s) => s.text.trim() !== '');
  const results = !todo.length ? [] : speech ? await speech(todo) : await translate(todo.map((s) => s.text), from, to);
  const byText = new Map(todo.map((s, i) => [s, results[i]!]));
  return sentences.map((s) => {
    const result = byText.get(s);
    return { ...s, translation: result?.text ?? '', source: result?.source ?? 'none' };
  });
}
