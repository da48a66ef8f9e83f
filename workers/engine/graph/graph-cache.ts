/**
 * Rewritten graphs kept on disk, so that a process start loads the graph it ran last time instead of rewriting the
 * export again (faster-whisper likewise runs a model converted ahead of time).
 *
 * Rewriting whisper-base's two graphs in JavaScript took 1.7 CPU s of a 3 s load, and the copies each rewrite
 * writes (the decoder alone is 54 MB) raised the process's peak memory by ~200 MB, above what transcription needs.
 * From the cache, onnxruntime reads the file itself: no graph bytes pass through JavaScript at all. An entry's
 * weights lie in a file of their own beside its graph (`weightsApart`), which onnxruntime reads them from.
 *
 * An entry is found by a SHA-256 of the export's bytes, of what was asked (provider family, float products …) and of
 * the rewriting code itself (every file of workers/engine/graph and whisper/model.ts, as they are on disk), so a
 * changed rewrite or export never meets an old graph (the export's hash is remembered by its file's identity). It is
 * written under temporary names and renamed (weights, graph, then its flags, which make it an entry), so that
 * processes loading at once never read half a file.
 * `ENGINE_GRAPH_CACHE` names the folder (default
 * `$XDG_CACHE_HOME/speechgate/graphs`, else `~/.cache/speechgate/graphs`); `off` rewrites at every load. The folder
 * keeps the `KEPT` entries used last.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { externalData } from './onnx-wire.js';

/** Entries kept in the folder (two models × two graphs × a few settings). */
export const KEPT = 12;

/** The cache folder, or null when `ENGINE_GRAPH_CACHE=off`. */
export function graphCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const asked = env.ENGINE_GRAPH_CACHE;
  if (asked === 'off') return null;
  if (asked) return asked;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'speechgate', 'graphs');
}

async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A file changed this recently is hashed at every load: its times may not tell a write in the same tick apart. */
const SETTLED_MS = 2000;

/**
 * The export's SHA-256, remembered in `dir/sources` by the file's identity (device, inode, size, modification and
 * change times; the change time is the kernel's, which no copy or extraction keeps): hashing whisper-base's exports
 * took ~0.3 CPU s of every load. Anything unreadable there is hashed again.
 */
async function sourceHash(path: string, dir: string): Promise<string> {
  const info = await stat(path, { bigint: true });
  const identity = [info.dev, info.ino, info.size, info.mtimeNs, info.ctimeNs].join(':');
  const memo = join(dir, 'sources', `${createHash('sha256').update(resolve(path)).digest('hex')}.json`);
  try {
    const known = JSON.parse(await readFile(memo, 'utf8')) as { identity?: unknown; hash?: unknown };
    if (known.identity === identity && typeof known.hash === 'string' && /^[0-9a-f]{64}$/.test(known.hash)) return known.hash;
  } catch {
    // Not remembered yet.
  }
  const hash = await fileHash(path);
  if (Number(info.ctimeNs / 1_000_000n) < Date.now() - SETTLED_MS) {
    const temporary = `${memo}.${randomUUID()}`;
    await mkdir(dirname(memo), { recursive: true })
      .then(() => writeFile(temporary, JSON.stringify({ identity, hash })))
      .then(() => rename(temporary, memo))
      .catch(() => rm(temporary, { force: true }));
  }
  return hash;
}

let codeHash: Promise<string> | undefined;

/** The rewriting code as it is on disk (TypeScript under tsx, JavaScript once built): any change makes new keys. */
function rewritingCode(): Promise<string> {
  codeHash ??= (async () => {
    const graphDir = dirname(fileURLToPath(import.meta.url));
    const files = (await readdir(graphDir)).filter((name) => /\.(ts|js)$/.test(name)).sort().map((name) => join(graphDir, name));
    const model = join(graphDir, '..', 'whisper');
    files.push(...(await readdir(model)).filter((name) => /^model\.(ts|js)$/.test(name)).map((name) => join(model, name)));
    const hash = createHash('sha256');
    // Names relative to the engine folder: the same code checked out elsewhere keeps its entries.
    for (const file of files) hash.update(relative(dirname(graphDir), file)).update(await readFile(file));
    return hash.digest('hex');
  })();
  return codeHash;
}

/** What a rewrite left: the graph (a cached file's path, or the bytes when nothing is cached) and its flags. */
export interface CachedGraph<Flags> {
  graph: string | Uint8Array;
  flags: Flags;
  /** Whether `graph` is onnxruntime's own optimised form of the rewrite (`optimize`): load it without optimising again. */
  optimized: boolean;
  /** Removes the entry (a cached file onnxruntime could not load); nothing for bytes. */
  forget: () => Promise<void>;
}

/**
 * The graph `build` makes of `source` with `settings`, from the cache when it holds it, else built and stored
 * (a cache that cannot be written is said once and skipped: the build's bytes are used as they are). With
 * `optimize`, what is stored is what it writes of the built graph to the path it is given (onnxruntime's optimised
 * form: its graph optimisations took 0.9 of the 1.1 CPU s whisper-base's decoder session took to load); when it
 * fails, the built graph is stored.
 */
export async function cachedGraph<Flags extends object>(
  source: string,
  settings: unknown,
  build: () => { graph: Uint8Array } & Flags,
  dir: string | null = graphCacheDir(),
  optimize?: (built: { graph: Uint8Array; flags: Flags }, path: string) => Promise<void>,
): Promise<CachedGraph<Flags>> {
  const none = async () => undefined;
  const made = () => {
    const { graph, ...flags } = build();
    return { graph, flags: flags as unknown as Flags, optimized: false, forget: none };
  };
  if (!dir) return made();
  const key = createHash('sha256').update(await sourceHash(source, dir)).update(JSON.stringify(settings))
    .update(await rewritingCode())
    .digest('hex');
  const file = join(dir, `${key}.onnx`);
  const flagsFile = join(dir, `${key}.json`);
  const forget = () => removeEntries(dir, [key]);
  try {
    const { flags, optimized } = JSON.parse(await readFile(flagsFile, 'utf8')) as { flags: Flags; optimized: boolean };
    await stat(file);
    const now = new Date();
    await utimes(file, now, now).catch(() => undefined);
    return { graph: file, flags, optimized, forget };
  } catch {
    // Not cached yet (or half of an entry another process is writing): build it.
  }
  const { graph, flags } = made();
  try {
    await mkdir(dir, { recursive: true });
    const temporary = join(dir, `.${key}.${randomUUID()}`);
    const optimized = optimize !== undefined && await optimize({ graph, flags }, `${temporary}.onnx`).then(() => true, () => false);
    const external = weightsApart(optimized ? await readFile(`${temporary}.onnx`) : graph);
    if (external) {
      // Named by their hash: an entry's graph always names the weights it was written with, whichever of two
      // processes writing the same entry renames last.
      const dataName = `${key}.${createHash('sha256').update(external.data).digest('hex').slice(0, 16)}.data`;
      await writeFile(`${temporary}.data`, external.data);
      await rename(`${temporary}.data`, join(dir, dataName));
      await writeFile(`${temporary}.onnx`, external.model(dataName));
    } else if (!optimized) await writeFile(`${temporary}.onnx`, graph);
    await rename(`${temporary}.onnx`, file);
    await writeFile(`${temporary}.json`, JSON.stringify({ flags, optimized }));
    await rename(`${temporary}.json`, flagsFile);
    await pruned(dir);
    return { graph: file, flags, optimized, forget };
  } catch (error) {
    warnOnce(dir, error as Error);
    return { graph, flags, optimized: false, forget: none };
  }
}

/**
 * The graph's weights for a file of their own (onnx-wire.ts `externalData`), or null when it has none that large
 * (or is not a model). onnxruntime then reads them from that file rather than out of the parsed model, whose copies
 * left holes in the heap that later buffers did not fill: whisper-base's decoder session holds 150 MB instead of
 * 205 after loading, and a beam-5 file's peak is ~20 MB lower.
 */
function weightsApart(graph: Uint8Array): ReturnType<typeof externalData> | null {
  try {
    const external = externalData(graph);
    return external.data.length > 0 ? external : null;
  } catch {
    return null;
  }
}

const warned = new Set<string>();
function warnOnce(dir: string, error: Error): void {
  if (warned.has(dir)) return;
  warned.add(dir);
  console.warn(`[engine] graph cache ${dir} not written (${error.message}); graphs are rewritten at every load`);
}

/** The folder without its entries beyond the KEPT used last (and without temporary files a crash left). */
async function pruned(dir: string): Promise<void> {
  const names = await readdir(dir);
  const entries = await Promise.all(names.filter((name) => /^[0-9a-f]{64}\.onnx$/.test(name)).map(async (name) => ({
    key: name.slice(0, 64), used: (await stat(join(dir, name)).catch(() => null))?.mtimeMs ?? 0,
  })));
  entries.sort((a, b) => b.used - a.used);
  await removeEntries(dir, entries.slice(KEPT).map(({ key }) => key), names);
  const hourAgo = Date.now() - 3_600_000;
  const abandoned: string[] = [];
  for (const name of names.filter((n) => n.startsWith('.'))) {
    if (((await stat(join(dir, name)).catch(() => null))?.mtimeMs ?? Infinity) < hourAgo) abandoned.push(name);
  }
  await Promise.all(abandoned.map((name) => rm(join(dir, name), { force: true })));
}

/** The entries' files: graph, flags and weights (`<key>.<hash>.data`, one per write of the entry). */
async function removeEntries(dir: string, keys: string[], names?: string[]): Promise<void> {
  if (keys.length === 0) return;
  const listed = names ?? await readdir(dir).catch(() => []);
  const weights = (key: string) => listed.filter((name) => name.startsWith(`${key}.`) && name.endsWith('.data'));
  const files = keys.flatMap((key) => [`${key}.onnx`, `${key}.json`, ...weights(key)]);
  await Promise.all(files.map((name) => rm(join(dir, name), { force: true })));
}
