/**
 * Everything a gateway process needs for realtime sessions, built once from the configuration: the engine
 * threads, the admission (slots and wait line), the token signer, the socket protocol, and the two questions REST asks
 * (capabilities, create a session). The REST routes and the realtime service use it; the benchmark builds
 * one without the rest of the gateway.
 */
import { ApiError } from '../core/errors.js';
import { recordEngineProvider } from '../core/metrics.js';
import { SPEAKER_LABEL_MODES, type RealtimeCapabilities } from '../meta/service.js';
import { realtimeConfig, type GatewayConfigPart, type RealtimeConfig } from './config.js';
import { resolveModelDir, SAMPLE_RATE, EngineThreads, WhisperTokenizer } from '../../workers/engine/index.js';
import { Admission } from './admission.js';
import { chatLineFixer } from './llm-fix.js';
import { LATENCY_MODES, parseSessionOptions, type OptionRules } from './options.js';
import { realtimeSigningKey, SessionTokenSigner } from './session-token.js';
import { RealtimeSockets, type RealtimeSocketDeps } from './transports/realtime-socket.js';
import type { LiveSessionDeps } from './session.js';

export interface CreatedSession {
  sessionId: string;
  /** Path and token only; the caller puts its public base address in front (`ws://` or `wss://`). */
  socketPath: string;
  expiresAt: string;
}

/** What the realtime runtime knows of the capabilities: all but the upload limit, with its duration limit. */
export type RealtimeCapabilitiesPart = Omit<RealtimeCapabilities, 'limits'> & { maxDurationS: number };

export class RealtimeRuntime {
  readonly config: RealtimeConfig;
  readonly engine: EngineThreads;
  readonly admission: Admission;
  readonly signer: SessionTokenSigner;
  readonly sockets: RealtimeSockets;

  constructor(
    gatewayConfig: GatewayConfigPart,
    log?: RealtimeSocketDeps['log'],
    private readonly translation: {
      translate?: LiveSessionDeps['translate']; translationTargets?: () => readonly string[] | undefined;
    } = {},
    meter?: LiveSessionDeps['meter'],
  ) {
    this.config = realtimeConfig(gatewayConfig);
    this.engine = new EngineThreads({
      engine: {
        modelsDir: this.config.modelsDir, model: this.config.model,
        ...(this.config.intraOpThreads > 0 ? { intraOpThreads: this.config.intraOpThreads } : {}),
      },
      threads: this.config.engineThreads,
      retryAfterS: 30,
      onReady: recordEngineProvider('realtime'),
    });
    this.admission = new Admission(this.config.maxSessions, this.config.maxWaiting);
    const { key, source } = realtimeSigningKey({
      realtimeSecret: this.config.secret, serverSecret: this.config.serverSecret, dataDir: this.config.dataDir,
    });
    this.signer = new SessionTokenSigner(key);
    const fixLine = this.config.llmFix ? chatLineFixer(this.config.llmFix) : undefined;
    this.sockets = new RealtimeSockets({
      engine: this.engine, admission: this.admission, signer: this.signer, config: this.config, optionRules: async () => this.optionRules(),
      translate: translation.translate, fixLine, log, meter,
    });
    if (source === 'DATA_DIR') {
      log?.('warn', 'REALTIME_SECRET is unset: stream tokens are signed with a key kept in DATA_DIR; gateways on other machines will '
        + 'refuse them.');
    }
  }

  private tokenizerLanguages: string[] | null = null;

  /**
   * The languages of the configured model: the loaded engine's list, or before it loads, the same list read
   * from the model's tokenizer (the engine derives it from there), so validating a session never waits for
   * the model to load.
   */
  languages(): string[] {
    const loaded = this.engine.loadedEngine();
    if (loaded) return loaded.languages;
    if (!this.tokenizerLanguages) {
      try {
        const modelDir = resolveModelDir({ modelsDir: this.config.modelsDir, model: this.config.model });
        // The accurate model must be there too (file jobs, and the catch-up of live recordings, need it): a server
        // missing either is not ready, whichever one realtime decodes with.
        resolveModelDir({ modelsDir: this.config.modelsDir, model: this.config.models.accurate });
        this.tokenizerLanguages = [...new WhisperTokenizer(modelDir).languageTokens.keys()];
      } catch (error) {
        // A deployment without its model (or with one it cannot read) cannot take sessions; retrying later helps
        // once it is installed.
        throw new ApiError('unavailable', 503, `The speech model is not installed on this server: ${(error as Error).message}`, {
          cause: error, headers: { 'Retry-After': '60' },
        });
      }
    }
    return this.tokenizerLanguages;
  }

  optionRules(): OptionRules {
    const translationTargets = this.translation.translationTargets?.();
    return {
      languages: this.languages(), speakerLabelModes: SPEAKER_LABEL_MODES, llmFix: this.config.llmFix !== null,
      ...(translationTargets ? { translationTargets } : {}),
    };
  }

  /** `POST /v1/realtime/sessions`: validates the options and signs them into a token. Nothing is stored. */
  createSession(accountId: string, body: unknown): CreatedSession {
    const options = parseSessionOptions(body, this.optionRules());
    const issued = this.signer.issue(accountId, options, this.config.tokenTtlS);
    return {
      sessionId: issued.sessionId,
      socketPath: `/v1/realtime/sessions/${issued.token}/socket`,
      expiresAt: issued.expiresAt.toISOString(),
    };
  }

  /** The realtime part of `GET /v1/realtime/capabilities`, from the engine's model. */
  capabilities(): RealtimeCapabilitiesPart {
    return {
      languages: this.languages(),
      speakerLabelModes: [...SPEAKER_LABEL_MODES],
      latencyModes: [...LATENCY_MODES],
      audio: { encodings: ['pcm_f32le'], sampleRates: [SAMPLE_RATE], channels: [1] },
      maxDurationS: this.config.maxDurationS,
    };
  }

  async close(): Promise<void> {
    this.admission.drain();
    await this.sockets.close();
    await this.engine.close();
  }
}
