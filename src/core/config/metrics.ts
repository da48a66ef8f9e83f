/**
 * Who may read `GET /metrics` (src/core/metrics.ts), read by `loadConfig` into `config.metrics`. Metrics say how busy
 * the service is and which routes are called, not whose data: readable from this machine by default (a Prometheus or
 * an agent beside the process), from elsewhere with a token or when the operator opens them.
 */
import { envString as str, type Env } from './env.js';

/** `local`: without a token, loopback peers only; `open`: anyone without a token; `off`: no /metrics at all (404). */
export type MetricsAccess = 'local' | 'open' | 'off';

export interface MetricsSettings {
  access: MetricsAccess;
  /** When set, `Authorization: Bearer <token>` is required from every peer, loopback included. */
  token: string | null;
}

export function loadMetricsSettings(env: Env): MetricsSettings {
  const access = (str(env, 'METRICS') ?? 'local').toLowerCase() as MetricsAccess;
  if (!['local', 'open', 'off'].includes(access)) throw new Error(`METRICS must be local, open or off, got "${env.METRICS}"`);
  return { access, token: str(env, 'METRICS_TOKEN') };
}
