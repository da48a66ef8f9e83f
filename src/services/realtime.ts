/**
 * Realtime sessions (spec "Realtime"): creating a session signs its options into a stream token (nothing is
 * stored), and the socket runs on this process's engine threads. The runtime (engine threads, signer,
 * sockets) is built on first use, so a gateway that never serves a realtime session never loads a model.
 */
import type { Identity } from '../auth/identity.js';
import { requireScope } from '../auth/scopes.js';
import { errors } from '../errors.js';
import { createLogger } from '../logger.js';
import { RealtimeRuntime } from '../realtime/runtime.js';
import type { CapabilitiesService, CapabilityProvider } from './capabilities.js';
import type { Closable, ServiceDeps } from './index.js';

export interface CreateSessionResponse {
  sessionId: string;
  streamUrl: string;
  expiresAt: string;
}

export class RealtimeService implements Closable {
  private runtimeInstance: RealtimeRuntime | null = null;

  constructor(private readonly deps: ServiceDeps, capabilities: CapabilitiesService) {
    capabilities.register(this.capabilityProvider());
  }

  get runtime(): RealtimeRuntime {
    if (!this.runtimeInstance) {
      const logger = createLogger(this.deps.config.logLevel);
      this.runtimeInstance = new RealtimeRuntime(this.deps.config, (level, message, fields = {}) => logger[level](fields, message));
    }
    return this.runtimeInstance;
  }

  /**
   * `POST /v1/realtime/sessions`: API keys only (a browser streams through a session its server created),
   * scope `write`. `baseUrl` is the address the client reached us at; the stream URL uses its ws(s) twin.
   */
  createSession(identity: Identity | null, body: unknown, baseUrl: string): CreateSessionResponse {
    if (!identity) throw errors.invalidToken('Creating a realtime session needs an API key: send "Authorization: Bearer <API key>".');
    if (identity.principal.kind !== 'api_key') {
      throw errors.forbidden('Realtime sessions are created with an API key by a server; a signed-in person cannot create one.', { needs: 'api_key' });
    }
    requireScope({ identity, credentialError: null }, 'write');
    const created = this.runtime.createSession(identity.account.id, body);
    return {
      sessionId: created.sessionId,
      streamUrl: `${baseUrl.replace(/^http/, 'ws')}${created.socketPath}`,
      expiresAt: created.expiresAt,
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
