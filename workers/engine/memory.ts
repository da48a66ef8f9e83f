/**
 * The buffers of the windows already decoded, freed before the next window's are made.
 *
 * Every output onnxruntime hands back is copied into a new JavaScript ArrayBuffer (onnxruntime-node's binding), which
 * V8 frees only when a collection finds it unreachable; their data lives outside V8's heap, and V8 starts a full
 * collection for such memory only once ~64 MB more of it piled up. A window's decode leaves its cross-attention keys
 * and values behind (whisper-base: 37 MB) with its steps' logits (a beam's: ~1 MB a step), so the next window's were
 * made on top of them. Before an encoder pass, once COLLECT_AFTER_BYTES of ArrayBuffers were made since the last
 * collection, a full one runs: a few milliseconds with the engine's small heap, once per window at most, and once a
 * second at most (a thread serving many live sessions encodes many times a second, with a larger heap). On
 * whisper-base's beam-5 lecture (7 rounds): peak RSS 556 → 494 MB, ~2 % more CPU. (After every 32 MB of steps' logits
 * too: no lower, 8 % more CPU.)
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** ArrayBuffer bytes made since the last collection that start one (the last window's keys and values count). */
const COLLECT_AFTER_BYTES = 16 * 1024 * 1024;
const MIN_INTERVAL_MS = 1000;
const SWEPT_AFTER_MS = 20;

/** V8's full collection: `gc` when the process was started with --expose-gc, else one exposed to a context of ours. */
export function collector(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (() => void) | undefined;
    // Contexts made from now on (the application's) do not get it.
    setFlagsFromString('--no-expose-gc');
    return typeof gc === 'function' ? gc : null;
  } catch {
    return null;
  }
}

let collect: (() => void) | null | undefined;
/** ArrayBuffer bytes after the last collection, lowered as V8's own collections free more; when it ran. */
let level = 0;
let last = -Infinity;

/** Before an encoder pass: a full collection when enough ArrayBuffer memory was made since the last. Whether one ran. */
export function releaseBuffers(): boolean {
  const { arrayBuffers } = process.memoryUsage();
  level = Math.min(level, arrayBuffers);
  if (arrayBuffers - level < COLLECT_AFTER_BYTES || performance.now() - last < MIN_INTERVAL_MS) return false;
  collect ??= collector();
  collect?.();
  level = process.memoryUsage().arrayBuffers;
  last = performance.now();
  // V8 frees the collected buffers on another thread, after the collection returns: read the level again once it
  // did (the engine's runs let the event loop turn), or the next window's growth would be measured from too high.
  setTimeout(() => (level = Math.min(level, process.memoryUsage().arrayBuffers)), SWEPT_AFTER_MS).unref();
  return collect !== null;
}
