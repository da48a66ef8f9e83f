/**
 * Realtime sessions (spec "Realtime"): creating a session signs its options into a stream token (nothing is
 * stored), and the socket runs on this process's engine threads. The runtime (engine threads, signer,
 * sockets) is built on first use, so a gateway that never serves a realtime session never loads a model.
 */
import { requireIdentity, requireScope, type Caller } from '../core/identity/scopes.js';
import { errors } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { RealtimeRuntime } from './runtime.js';
import { parseSessionOptions } from './options.js';
import type { Identity } from '../core/identity/identity.js';
import type { CapabilitiesService, CapabilityProvider } from '../meta/service.js';
import type { Closable, ServiceDeps } from '../core/services.js';
import type { TranslationService } from '../translation/service.js';
import type { SessionMeter } from './session.js';
import { actorOf } from '../core/identity/actor.js';
import type { Metering } from '../billing/index.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

declare module '../core/services.js' {
  interface Services {
    realtime: RealtimeService;
  }
}

export interface CreateSessionResponse {
  sessionId: string;
  streamUrl: string;
  expiresAt: string;
}

/** How old the translation targets the options are checked against may be. */
const TARGETS_FRESH_MS = 60_000;

/** How a realtime session's charge is named in the usage report. */
const SESSION_CHARGE_NAME = 'Realtime session';

const NEEDS_API_KEY = 'Creating a realtime session needs an API key: send "Authorization: Bearer <API key>".';

export class RealtimeService implements Closable {
  private runtimeInstance: RealtimeRuntime | null = null;

  /** The languages translation serves, once known (refreshed in the background; `translate` options are checked against them). */
  private translationTargets: string[] | undefined;
  private targetsAskedAt = 0;

  constructor(
    private readonly deps: ServiceDeps,
    capabilities: CapabilitiesService,
    private readonly translation?: Pick<TranslationService, 'translate' | 'targets'>,
    /** Admits sessions against the account's credit and meters their audio (src/billing); absent: free. */
    private readonly metering?: Metering,
  ) {
    capabilities.register(this.capabilityProvider());
  }

  get runtime(): RealtimeRuntime {
    // Sessions are checked against what translation serves: kept fresh while sessions are made (a minute at most old).
    if (Date.now() - this.targetsAskedAt > TARGETS_FRESH_MS) void this.refreshTranslationTargets();
    if (!this.runtimeInstance) {
      const logger = createLogger(this.deps.config.logLevel);
      this.runtimeInstance = new RealtimeRuntime(this.deps.config, (level, message, fields = {}) => logger[level](fields, message), {
        translate: this.translation ? this.translation.translate.bind(this.translation) : undefined,
        translationTargets: () => this.translationTargets,
      }, this.sessionMeter());
    }
    return this.runtimeInstance;
  }

  /** Asks translation which targets it serves now (a remote provider's list may change); kept for the option checks. */
  async refreshTranslationTargets(): Promise<void> {
    if (!this.translation) return;
    this.targetsAskedAt = Date.now();
    try {
      this.translationTargets = await this.translation.targets();
    } catch {
      // Not known: options are checked as language codes only, and a target that fails says so on the socket.
    }
  }

  /**
   * `POST /v1/realtime/sessions`: API keys only (a browser streams through a session its server created),
   * scope `write`. `baseUrl` is the address the client reached us at; the stream URL uses its ws(s) twin.
   * Checked in order: a refused credential, no credential (401), not an API key (403), the scope (403).
   */
  async createSession(caller: Caller, body: unknown, baseUrl: string): Promise<CreateSessionResponse> {
    // The first session after a start waits for what translation serves, so `translate` is checked against it.
    if (this.translation && this.translationTargets === undefined) await this.refreshTranslationTargets();
    const identity = this.checkSession(caller, body);
    const created = this.runtime.createSession(identity.account.id, body);
    // Admitted with its charge opened before the token is handed out: a refusal leaves nothing usable behind.
    const metering = this.metering;
    if (metering?.billing.enabled) {
      await this.deps.prisma.$transaction(async (tx) => {
        const creator = actorOf(identity);
        await metering.billing.admit(tx, creator, { kind: 'live', workId: created.sessionId }, baseUrl);
        await metering.openSession(tx, created.sessionId, creator, SESSION_CHARGE_NAME);
      }, TX_OPTIONS);
    }
    return {
      sessionId: created.sessionId,
      streamUrl: `${baseUrl.replace(/^http/, 'ws')}${created.socketPath}`,
      expiresAt: created.expiresAt,
    };
  }

  /**
   * The checks of `createSession` without making one: the caller, then the options (SessionOptions; every bad
   * field is `invalid_options` naming it). The REST route runs this on the raw body before GraphQL coerces it.
   */
  checkSession(caller: Caller, body: unknown): Identity {
    const identity = requireIdentity(caller, NEEDS_API_KEY);
    if (identity.principal.kind !== 'api_key') {
      throw errors.forbidden(
        'Realtime sessions are created with an API key by a server; a signed-in person cannot create one.', { needs: 'api_key' },
      );
    }
    requireScope(caller, 'write', NEEDS_API_KEY);
    parseSessionOptions(body, this.runtime.optionRules());
    return identity;
  }

  /** What this process's realtime sessions tell billing (nothing with billing off). */
  private sessionMeter(): SessionMeter | undefined {
    const metering = this.metering;
    if (!metering?.billing.enabled) return undefined;
    return {
      audio: (sessionId, receivedS) => metering.meterSession(sessionId, receivedS),
      ended: (sessionId, receivedS, ran) => metering.settleSession(sessionId, receivedS, ran),
    };
  }

  /** Fills the realtime part of `GET /v1/realtime/capabilities` from the engine. */
  capabilityProvider(): CapabilityProvider {
    return {
      realtime: (base) => {
        const own = this.runtime.capabilities();
        return {
          ...base,
          languages: own.languages,
          speakerLabelModes: own.speakerLabelModes,
          latencyModes: own.latencyModes,
          audio: own.audio,
          limits: { ...base.limits, maxDurationS: own.maxDurationS },
        };
      },
    };
  }

  /** Ends the sessions of this process and stops its engine threads. */
  async close(): Promise<void> {
    await this.runtimeInstance?.close();
    this.runtimeInstance = null;
  }
}
