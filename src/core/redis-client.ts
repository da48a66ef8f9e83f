/**
 * Redis clients that a request waits on (rate-limit counters, caches, listener presence). ioredis by default keeps a
 * command in its offline queue until Redis comes back, so a request would hang for a whole outage; these fail a
 * command within `timeoutMs` instead, and the caller decides (let the request through, answer without the cache).
 * Connection errors are reported once per outage, not as an unhandled 'error' event on every reconnect attempt.
 */
import { Redis } from 'ioredis';

export interface RequestRedisOptions {
  /** What the client is for, in the one log line an outage gives. */
  name: string;
  keyPrefix?: string;
  /** Longest a command may wait, connecting included. */
  timeoutMs: number;
  lazyConnect?: boolean;
  onOutage?: (error: Error, name: string) => void;
  /** The end of an outage `onOutage` reported: the client is connected again. */
  onRecovered?: (name: string, outageS: number) => void;
}

export function requestRedis(url: string, options: RequestRedisOptions): Redis {
  const client = new Redis(url, {
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
    lazyConnect: options.lazyConnect ?? false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.timeoutMs,
    connectTimeout: options.timeoutMs,
  });
  reportOutagesOnce(client, options.name, options.onOutage, options.onRecovered);
  return client;
}

/**
 * Listens for a client's errors (none goes unhandled) and reports the first of each outage, and its end: an outage
 * said without its end reads as one still going on.
 */
export function reportOutagesOnce(
  client: Redis,
  name: string,
  onOutage?: (error: Error, name: string) => void,
  onRecovered?: (name: string, outageS: number) => void,
): void {
  let downSince: number | null = null;
  client.on('error', (error: Error) => {
    if (downSince !== null) return;
    downSince = Date.now();
    onOutage?.(error, name);
  });
  client.on('ready', () => {
    if (downSince === null) return;
    const outageS = (Date.now() - downSince) / 1000;
    downSince = null;
    onRecovered?.(name, outageS);
  });
}
