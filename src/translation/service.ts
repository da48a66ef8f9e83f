/**
 * Text translation for every part that shows a transcript in another language (realtime sessions, transcripts,
 * exports, share links, listeners):
 *
 *   services.translation.translate(texts, from, to) → [{ text, source }] one per text, in order
 *   services.translation.targets()                  → the target languages the configured providers serve
 *
 * Providers are chosen by configuration (TRANSLATION_PROVIDERS, in order of preference): a pair goes to the first
 * that serves it; when that one fails, to the next that serves it, and only when every one fails does the first
 * failure reach the caller (a `503 unavailable`, retryable or not: provider.ts). A pair none serves is the caller's
 * `400 invalid_options`.
 *
 * A cache sits in front (the TranslationCache table, keyed by the text's sha256, source and target): a text
 * translated once in a pair is never asked of a provider again, whichever provider made it, and answers
 * `source: 'cache'`. Only translations are stored, never a failure, so a provider that comes back is asked again.
 */
import { createHash } from 'node:crypto';
import { canonicalLanguage, type TranslationProviderName, type TranslationSettings } from '../core/config/translation.js';
import { ApiError, errors } from '../core/errors.js';
import type { ServiceDeps } from '../core/services.js';
import { apertiumProvider } from './apertium.js';
import { googleProvider } from './google.js';
import { llmProvider } from './llm.js';
import type { TranslationProvider, TranslationSource } from './provider.js';

export type { TranslationProvider, TranslationSource } from './provider.js';

declare module '../core/services.js' {
  interface Services {
    translation: TranslationService;
  }
}

export interface Translated {
  text: string;
  source: TranslationSource;
}

/** What callers hold of translation: `services.translation.translate`, bound. */
export type Translate = (texts: string[], from: string | null, to: string) => Promise<Translated[]>;

/** The cache's source language of a call that let the provider detect it. */
const DETECTED = 'auto';

/** The providers TRANSLATION_PROVIDERS names, in its order. */
export function providersOf(settings: TranslationSettings): TranslationProvider[] {
  const make: Record<TranslationProviderName, () => TranslationProvider> = {
    apertium: () => apertiumProvider(settings),
    google: () => googleProvider(settings),
    llm: () => llmProvider(settings),
  };
  return settings.providers.map((name) => make[name]());
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function language(code: string | null | undefined, field: 'from' | 'to'): string | null {
  if (code === null || code === undefined || code === '' || (field === 'from' && code === 'auto')) {
    if (field === 'to') throw errors.invalidOptions('The target language ("to") is required.', { field });
    return null;
  }
  const canonical = canonicalLanguage(code);
  if (!canonical) throw errors.invalidOptions(`"${code}" is not a language code ("${field}").`, { field });
  return canonical;
}

export class TranslationService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly providers: TranslationProvider[] = providersOf(deps.config.translation),
  ) {}

  /** The names of the configured providers, in order of preference. */
  get providerNames(): TranslationProviderName[] {
    return this.providers.map((provider) => provider.name);
  }

  /**
   * The target languages (canonical codes, sorted) some configured provider really serves, for
   * `GET /v1/languages`. A provider that cannot say now (Google unreachable) offers nothing until it can.
   */
  async targets(): Promise<string[]> {
    const lists = await Promise.allSettled(this.providers.map((provider) => provider.targets()));
    const codes = lists.flatMap((list) => (list.status === 'fulfilled' ? list.value : []));
    return [...new Set(codes.map((code) => canonicalLanguage(code) ?? code))].sort();
  }

  /** Whether some configured provider translates `from` (null: detect) into `to`. */
  async serves(from: string | null, to: string): Promise<boolean> {
    const [source, target] = [language(from, 'from'), language(to, 'to')!];
    for (const provider of this.providers) {
      if (await provider.serves(source, target).catch(() => false)) return true;
    }
    return false;
  }

  /**
   * Translates each text from `from` (a language code; null or `auto`: let the provider detect it) into `to`.
   * Answers one `{text, source}` per text, in order. Empty texts, and every text when `from` is `to`, come back as
   * they are with `source: 'none'`. Throws `400 invalid_options` for a bad code or a pair no provider serves, and
   * the provider's `503 unavailable` when every provider serving the pair failed (nothing is cached then).
   */
  async translate(texts: string[], from: string | null, to: string): Promise<Translated[]> {
    const [source, target] = [language(from, 'from'), language(to, 'to')!];
    const results: Array<Translated | null> = texts.map((text) => (!text.trim() || source === target ? { text, source: 'none' } : null));
    const wanted = [...new Set(texts.filter((_text, i) => !results[i]))];
    if (!wanted.length) return results as Translated[];

    const sourceKey = source ?? DETECTED;
    const hashes = new Map(wanted.map((text) => [text, sha256(text)]));
    const cached = await this.deps.prisma.translationCache.findMany({
      where: { sourceLang: sourceKey, targetLang: target, textHash: { in: [...hashes.values()] } },
      select: { textHash: true, translation: true },
    });
    const byHash = new Map<string, Translated>(cached.map((row) => [row.textHash, { text: row.translation, source: 'cache' }]));

    const missing = wanted.filter((text) => !byHash.has(hashes.get(text)!));
    if (missing.length) {
      const { provider, translations } = await this.ask(missing, source, target);
      missing.forEach((text, i) => byHash.set(hashes.get(text)!, { text: translations[i]!, source: provider }));
      // Two calls translating the same new text at once both ask; the second's row is skipped, both answer.
      await this.deps.prisma.translationCache.createMany({
        data: missing.map((text, i) => ({
          textHash: hashes.get(text)!, sourceLang: sourceKey, targetLang: target, translation: translations[i]!, provider,
        })),
        skipDuplicates: true,
      });
    }
    return texts.map((text, i) => results[i] ?? byHash.get(hashes.get(text)!)!);
  }

  /** The first provider serving the pair that answers; the first failure when none does. */
  private async ask(texts: string[], from: string | null, to: string): Promise<{
    provider: TranslationProviderName; translations: string[];
  }> {
    let failure: unknown = null;
    for (const provider of this.providers) {
      try {
        if (!(await provider.serves(from, to))) continue;
        return { provider: provider.name, translations: await provider.translate(texts, from, to) };
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure instanceof ApiError ? failure : errors.internal(failure);
    const names = this.providerNames.join(', ') || 'none';
    throw errors.invalidOptions(`No translation provider of this server translates ${from ?? 'auto'}→${to} (TRANSLATION_PROVIDERS: `
      + `${names}).`, {
      field: 'to', from: from ?? DETECTED, to,
    });
  }
}
