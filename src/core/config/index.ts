/**
 * Every setting of the service, read once from the environment. Other parts add their settings here (one
 * field, one env var, one row in docs/configuration.md) rather than reading `process.env` themselves, so that table stays
 * the whole truth and tests can start a server with an exact configuration.
 */
import path from 'node:path';
import { describeGivenKey } from '../identity/api-keys.js';
import { envBool as bool, envInt as int, envString as str, type Env } from './env.js';
import { loadRealtimeSettings, type RealtimeSettings } from './realtime.js';
import { loadTranscriptionSettings, type TranscriptionSettings } from './transcriptions.js';
import { loadGraphQLSettings, type GraphQLSettings } from './graphql.js';
import { loadSummarySettings, type SummarySettings } from './summaries.js';
import { loadTranslationSettings, type TranslationSettings } from './translation.js';
import { loadVoiceSettings, type VoiceSettings } from './voices.js';
import { loadBillingSettings, type BillingConfig } from './billing.js';
import { loadMetricsSettings, type MetricsSettings } from './metrics.js';

export interface Config {
  /** HTTP port (REST, GraphQL, WebSockets share it); 0 picks a free one (tests). */
  port: number;
  host: string;
  /** Base address clients reach this server at (OpenAPI `servers`, share URLs); derived from the request when unset. */
  publicUrl: string | null;
  /** Embedded database (DATA_DIR/db), stored media (DATA_DIR/media), the child Redis' files (DATA_DIR/redis). */
  dataDir: string;
  /** PostgreSQL server; null = the embedded PGlite database in DATA_DIR/db. */
  databaseUrl: string | null;
  redisUrl: string;
  /** Prefix of every Redis key and channel this process uses: two deployments (or test files) can share one Redis. */
  redisPrefix: string;
  /** Start `redis-server` as a child process when nothing answers at REDIS_URL (default on). */
  startRedis: boolean;
  modelsDir: string;
  /**
   * The two models (names under MODELS_DIR, else the npm packages `sts-<name>`): `fast` for live drafts and the
   * realtime `fast` mode (MODEL_FAST, default whisper-tiny), `accurate` for file jobs (MODEL_ACCURATE, default
   * whisper-base). `MODEL` alone sets both, as before the split.
   */
  models: { fast: string; accurate: string };
  /** When set, this exact API key exists with scope `*` for the bootstrap account. */
  bootstrapApiKey: string | null;
  auth: {
    /** Built-in development issuer (signs person tokens; JWKS at /auth/jwks.json). */
    localIssuer: boolean;
    /** Extra OIDC issuers whose JWTs are accepted: issuer URL → JWKS URL (discovered when not given). */
    oidcIssuers: { issuer: string; jwksUrl: string | null; audience: string | null }[];
    /** Connect (OAuth 2.0 code with PKCE): how long an approved code may be redeemed (CONNECT_CODE_TTL_S, default 120). */
    connectCodeTtlS: number;
  };
  rateLimit: {
    /** Requests per window per account (or per client address without a credential). */
    max: number;
    windowS: number;
    /** New (recording, language) pairs broadcast listeners of one network may ask for in an hour (src/recordings/listener-languages.ts). */
    listenerTranslationPairsPerHour: number;
  };
  limits: {
    maxUploadBytes: number;
    realtimeMaxDurationS: number;
    /**
     * Open connections one client address may hold (CONNECTIONS_PER_ADDRESS, default 256; 0 = no limit). This
     * machine's own address (127.0.0.1, ::1: a reverse proxy here speaks for many clients) is not counted.
     */
    connectionsPerAddress: number;
    /** Seconds a request body may go without a byte before the connection is answered 408 and closed (BODY_IDLE_TIMEOUT_S, 30). */
    bodyIdleTimeoutS: number;
  };
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** ACCESS_LOG: one log line per HTTP request answered (default off). */
  accessLog: boolean;
  /** A TrueType font for PDF exports (PDF_FONT_PATH); null = the first system Unicode font found, else Helvetica. */
  pdfFontPath: string | null;
  /** Run the background workers inside the gateway process (default on; off when `npm run worker` runs them). */
  runWorkers: boolean;
  /** Realtime sessions: token secret, engine threads, session cap, backpressure (REALTIME_*; src/core/config/realtime.ts). */
  realtime: RealtimeSettings;
  /** File and link transcriptions: link fetching, media signing, worker tuning (src/core/config/transcriptions.ts). */
  transcriptions: TranscriptionSettings;
  /** GraphQL endpoint: introspection policy and query limits (GRAPHQL_*; src/core/config/graphql.ts). */
  graphql: GraphQLSettings;
  /** Recording summaries: which summariser writes them (SUMMARY_*; src/core/config/summaries.ts). */
  summaries: SummarySettings;
  /** Text translation: providers in order of preference and their settings (TRANSLATION_*; src/core/config/translation.ts). */
  translation: TranslationSettings;
  /** Voices: the text-to-speech model, sample limits, training (KOKORO_*, VOICE_*; src/core/config/voices.ts). */
  voices: VoiceSettings;
  /**
   * RTMP ingest (src/live/transports/rtmp.ts): the RTMP server's port (RTMP_PORT, default 1935; 0 picks a free one; `off` runs none),
   * on HOST; RTMP_PUBLIC_URL is the `serverUrl` answered (default `rtmp://<API host>:<port>/live`).
   */
  rtmp: { port: number | null; publicUrl: string | null };
  /** Billing (src/billing): off unless BILLING_CONFIG names the operator's plans file (src/core/config/billing.ts). */
  billing: BillingConfig;
  /** Who may read GET /metrics: METRICS (`local` default, `open`, `off`) and METRICS_TOKEN (src/core/config/metrics.ts). */
  metrics: MetricsSettings;
}

/** RTMP_PORT: a port number, or `off` (also `false`, `none`) for no RTMP server. */
function rtmpPort(raw: string | null): number | null {
  if (raw === null) return 1935;
  if (['off', 'false', 'none'].includes(raw.toLowerCase())) return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('RTMP_PORT must be a port number (0 picks a free one) or off');
  return port;
}

/** `OIDC_ISSUERS=https://a.example|https://a.example/jwks.json|aud,https://b.example` (JWKS and audience optional). */
function parseIssuers(raw: string | null): Config['auth']['oidcIssuers'] {
  if (!raw) return [];
  return raw.split(',').map((entry) => entry.trim()).filter(Boolean).map((entry) => {
    const [issuer, jwksUrl, audience] = entry.split('|').map((part) => part.trim());
    return { issuer: issuer!, jwksUrl: jwksUrl || null, audience: audience || null };
  });
}

/** BOOTSTRAP_API_KEY is checked when the configuration is read: a malformed key stops the start with one line. */
function bootstrapKey(value: string | null): string | null {
  if (value !== null) describeGivenKey(value);
  return value;
}

/**
 * `loadConfig` for a process's entry point: a setting it cannot start with (a malformed BOOTSTRAP_API_KEY, a bad
 * LOG_LEVEL, a BILLING_CONFIG with mistakes…) is printed as what the loader says, without a stack trace, and the
 * process exits 1.
 */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    console.error(`speechgate cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? 'data');
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new Error(`LOG_LEVEL must be debug, info, warn, error or silent`);
  }
  return {
    port: int(env, 'PORT', 8080),
    host: str(env, 'HOST') ?? '0.0.0.0',
    publicUrl: str(env, 'PUBLIC_URL')?.replace(/\/+$/, '') ?? null,
    dataDir,
    databaseUrl: str(env, 'DATABASE_URL'),
    redisUrl: str(env, 'REDIS_URL') ?? 'redis://127.0.0.1:6379',
    redisPrefix: str(env, 'REDIS_PREFIX') ?? 'sg:',
    startRedis: bool(env, 'START_REDIS', true),
    modelsDir: path.resolve(str(env, 'MODELS_DIR') ?? 'models'),
    models: {
      fast: str(env, 'MODEL_FAST') ?? str(env, 'MODEL') ?? 'whisper-tiny',
      accurate: str(env, 'MODEL_ACCURATE') ?? str(env, 'MODEL') ?? 'whisper-base',
    },
    bootstrapApiKey: bootstrapKey(str(env, 'BOOTSTRAP_API_KEY')),
    auth: {
      localIssuer: bool(env, 'LOCAL_ISSUER', true),
      oidcIssuers: parseIssuers(str(env, 'OIDC_ISSUERS')),
      connectCodeTtlS: int(env, 'CONNECT_CODE_TTL_S', 120),
    },
    rateLimit: {
      max: int(env, 'RATE_LIMIT_MAX', 600),
      windowS: int(env, 'RATE_LIMIT_WINDOW_S', 60),
      listenerTranslationPairsPerHour: int(env, 'LISTENER_TRANSLATION_PAIRS_PER_HOUR', 20),
    },
    limits: {
      maxUploadBytes: int(env, 'MAX_UPLOAD_BYTES', 2 * 1024 * 1024 * 1024),
      realtimeMaxDurationS: int(env, 'REALTIME_MAX_DURATION_S', 4 * 3600),
      connectionsPerAddress: int(env, 'CONNECTIONS_PER_ADDRESS', 256),
      bodyIdleTimeoutS: int(env, 'BODY_IDLE_TIMEOUT_S', 30),
    },
    logLevel,
    accessLog: bool(env, 'ACCESS_LOG', false),
    pdfFontPath: str(env, 'PDF_FONT_PATH'),
    runWorkers: bool(env, 'RUN_WORKERS', true),
    realtime: loadRealtimeSettings(env),
    transcriptions: loadTranscriptionSettings(env),
    graphql: loadGraphQLSettings(env),
    summaries: loadSummarySettings(env),
    translation: loadTranslationSettings(env),
    voices: loadVoiceSettings(env, path.resolve(str(env, 'MODELS_DIR') ?? 'models')),
    billing: loadBillingSettings(env),
    metrics: loadMetricsSettings(env),
    rtmp: { port: rtmpPort(str(env, 'RTMP_PORT')), publicUrl: str(env, 'RTMP_PUBLIC_URL')?.replace(/\/+$/, '') ?? null },
  };
}
