/**
 * Who may read `GET /metrics` (src/core/metrics.ts), read by `loadConfig` into `config.metrics`. Metrics say how busy
 * the service is and which routes are called, not whose data: readable from this machine by default (a Prometheus or
 * an agent beside the process), from elsewhere with a token or when the operator opens them.
 *
 * Gateways serve `/metrics` on their own PORT. `npm run worker` processes serve no API, so they listen for scrapes
 * only when METRICS_PORT names a port (unset: no listener; several workers on one machine would fight over any
 * default port), under the same METRICS and METRICS_TOKEN rules.
 */
import { envString as str, type Env } from './env.js';

/** `local`: without a token, loopback peers only; `open`: anyone without a token; `off`: no /metrics at all (404). */
export type MetricsAccess = 'local' | 'open' | 'off';

export interface MetricsSettings {
  access: MetricsAccess;
  /** When set, `Authorization: Bearer <token>` is required from every peer, loopback included. */
  token: string | null;
  /**
   * METRICS_PORT: where an `npm run worker` process serves `GET /metrics` and `GET /v1/health` (on HOST; 0 picks a
   * free one, logged); null (unset, `off`): it serves nothing. Gateways ignore it.
   */
  workerPort: number | null;
}

function workerPort(raw: string | null): number | null {
  if (raw === null || ['off', 'false', 'none'].includes(raw.toLowerCase())) return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`METRICS_PORT must be a port number (0 picks a free one) or off, got "${raw}"`);
  }
  return port;
}

export function loadMetricsSettings(env: Env): MetricsSettings {
  const access = (str(env, 'METRICS') ?? 'local').toLowerCase() as MetricsAccess;
  if (!['local', 'open', 'off'].includes(access)) throw new Error(`METRICS must be local, open or off, got "${env.METRICS}"`);
  return { access, token: str(env, 'METRICS_TOKEN'), workerPort: workerPort(str(env, 'METRICS_PORT')) };
}
