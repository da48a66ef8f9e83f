/**
 * What a realtime session needs to know: the REALTIME_* settings (read by `loadConfig`, src/core/config/realtime.ts)
 * joined with the shared ones (models, `REALTIME_MAX_DURATION_S`) from the gateway's `Config`.
 */
import type { Config } from '../core/config/index.js';
import type { RealtimeSettings } from '../core/config/realtime.js';

export interface RealtimeConfig extends RealtimeSettings {
  dataDir: string;
  modelsDir: string;
  /**
   * The model every realtime mode decodes with: the fast one. `accuracy` is beam search (5) on it; the accurate
   * model does not keep real time on a 2-core CPU (docs/benchmarks.md, "Accuracy").
   */
  model: string;
  /** The server's two models; both must be installed for the server to take sessions (503 `unavailable` otherwise). */
  models: Config['models'];
  maxDurationS: number;
}

export type GatewayConfigPart = Pick<Config, 'dataDir' | 'modelsDir' | 'models' | 'limits' | 'realtime'>;

export function realtimeConfig(config: GatewayConfigPart): RealtimeConfig {
  return {
    ...config.realtime,
    dataDir: config.dataDir,
    modelsDir: config.modelsDir,
    model: config.models.fast,
    models: config.models,
    maxDurationS: config.limits.realtimeMaxDurationS,
  };
}
