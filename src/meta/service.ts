/**
 * What this server offers: language lists (`GET /v1/languages`) and the realtime capabilities record
 * (`GET /v1/realtime/capabilities`). The engine, translation, voice and realtime parts own the real answers
 * and register a provider here (`services.capabilities.register({...})`); until they do, transcription languages
 * come from the configured Whisper models (found where the engine finds them: MODELS_DIR/<MODEL_FAST, MODEL_ACCURATE>,
 * or the npm-installed models), from its `generation_config.json` `lang_to_id` table or else its tokenizer's language tokens, and nothing
 * else is offered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../core/errors.js';
import type { ServiceDeps } from '../core/services.js';

declare module '../core/services.js' {
  interface Services {
    capabilities: CapabilitiesService;
  }
}

/** Seconds a client waits before asking again when the model is missing or cannot be read. */
const MODEL_RETRY_AFTER_S = 60;

export interface Language {
  code: string;
  /** English name, for pickers. */
  name: string;
  /** The language's name in itself. */
  nativeName: string;
}

/**
 * Speaker label modes offered (`GET /v1/realtime/capabilities` `speakerLabelModes`), the same for files and live
 * capture: `on` and `auto` both label (the engine's classical diarization: workers/engine/speakers/diarize.ts over a whole
 * file, live-speakers.ts online for live audio, re-clustered when a live recording is finalized; measured in
 * `npm run bench -- speakers`), `off` leaves every segment at -1.
 */
export const SPEAKER_LABEL_MODES = ['auto', 'on', 'off'] as const;

export interface RealtimeCapabilities {
  languages: string[];
  speakerLabelModes: ('auto' | 'on' | 'off')[];
  latencyModes: ('auto' | 'fast' | 'accuracy')[];
  audio: { encodings: 'pcm_f32le'[]; sampleRates: number[]; channels: number[] };
  limits: { maxUploadBytes: number; maxDurationS: number } & Record<string, number>;
}

/** Each part fills what it owns; later registrations replace earlier ones field by field. */
export interface CapabilityProvider {
  transcriptionLanguages?: () => string[];
  /** Asynchronous: a provider may have to ask a remote API which languages it serves. */
  translationLanguages?: () => string[] | Promise<string[]>;
  voiceLanguages?: () => string[];
  realtime?: (base: RealtimeCapabilities) => RealtimeCapabilities;
}

const englishNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

export function describeLanguage(code: string): Language {
  let nativeName = code;
  try {
    nativeName = new Intl.DisplayNames([code], { type: 'language', fallback: 'code' }).of(code) ?? code;
  } catch {
    // not a locale ICU knows (e.g. "haw" on a small-icu build): the code stands in
  }
  return { code, name: englishNames.of(code) ?? code, nativeName };
}

/** Language codes of a Whisper model directory: generation_config.json's lang_to_id, else the tokenizer's language tokens. */
export async function modelLanguages(modelDir: string): Promise<string[]> {
  const configPath = path.join(modelDir, 'generation_config.json');
  if (fs.existsSync(configPath)) {
    const config = JSON.parse(fs.readFileSync(configPath, 'utf8')) as { lang_to_id?: Record<string, number> };
    return Object.keys(config.lang_to_id ?? {}).map((token) => token.replace(/^<\|(.*)\|>$/, '$1')).sort();
  }
  const { WhisperTokenizer } = await import('../../workers/engine/index.js');
  return [...new WhisperTokenizer(modelDir).languageTokens.keys()].sort();
}

export class CapabilitiesService {
  private provider: CapabilityProvider = {};
  private modelLanguageCache: Promise<string[]> | null = null;

  constructor(private readonly deps: ServiceDeps) {}

  register(provider: CapabilityProvider) {
    this.provider = { ...this.provider, ...provider };
  }

  async transcriptionLanguages(): Promise<string[]> {
    if (this.provider.transcriptionLanguages) return this.provider.transcriptionLanguages();
    this.modelLanguageCache ??= (async () => {
      try {
        const { resolveModelDir } = await import('../../workers/engine/index.js');
        // Both models must be installed; a language is offered when both know it (tiny and base know the same 99).
        const { modelsDir, models } = this.deps.config;
        const [fast, accurate] = await Promise.all([models.fast, models.accurate].map(
          (model) => modelLanguages(resolveModelDir({ modelsDir, model })),
        ));
        return accurate!.filter((code) => fast!.includes(code));
      } catch (error) {
        // No model (or one that cannot be read) means the service is not ready, not a fault of ours: 503 unavailable,
        // as session creation answers; retrying helps once the model is installed.
        throw new ApiError('unavailable', 503, 'The speech model is not installed or cannot be read on this server yet; retry later.', {
          cause: error, headers: { 'Retry-After': String(MODEL_RETRY_AFTER_S) },
        });
      }
    })();
    this.modelLanguageCache.catch(() => { this.modelLanguageCache = null; }); // a model installed later is picked up
    return this.modelLanguageCache;
  }

  async languages() {
    return {
      transcription: (await this.transcriptionLanguages()).map(describeLanguage),
      translation: ((await this.provider.translationLanguages?.()) ?? []).map(describeLanguage),
      voice: (this.provider.voiceLanguages?.() ?? []).map(describeLanguage),
    };
  }

  async realtime(): Promise<RealtimeCapabilities> {
    const base: RealtimeCapabilities = {
      languages: await this.transcriptionLanguages(),
      speakerLabelModes: [...SPEAKER_LABEL_MODES],
      latencyModes: ['auto'],
      audio: { encodings: ['pcm_f32le'], sampleRates: [16000], channels: [1] },
      limits: { maxUploadBytes: this.deps.config.limits.maxUploadBytes, maxDurationS: this.deps.config.limits.realtimeMaxDurationS },
    };
    return this.provider.realtime ? this.provider.realtime(base) : base;
  }
}
