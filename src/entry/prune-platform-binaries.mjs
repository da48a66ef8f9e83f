#!/usr/bin/env node
/**
 * `postinstall`: removes the native binaries that onnxruntime-node ships for every other platform (macOS, Windows,
 * the other Linux architecture: about 240 MB of the 280 MB it installs), keeping only this machine's. The npm
 * package bundles all of them; the runtime loads `bin/napi-v6/<platform>/<arch>` only. Plain JavaScript so it runs
 * before anything is built; it never fails the install (a folder it cannot remove is left as it is).
 *
 * Set SPEECHGATE_KEEP_ALL_PLATFORMS=true to keep them (a node_modules copied to another platform afterwards).
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

if (process.env.SPEECHGATE_KEEP_ALL_PLATFORMS !== 'true') {
  try {
    const require = createRequire(import.meta.url);
    const binaries = join(dirname(require.resolve('onnxruntime-node/package.json')), 'bin', 'napi-v6');
    let freed = 0;
    for (const platform of existsSync(binaries) ? readdirSync(binaries) : []) {
      for (const arch of readdirSync(join(binaries, platform))) {
        if (platform === process.platform && arch === process.arch) continue;
        const folder = join(binaries, platform, arch);
        freed += sizeOf(folder);
        rmSync(folder, { recursive: true, force: true });
      }
      if (readdirSync(join(binaries, platform)).length === 0) rmSync(join(binaries, platform), { recursive: true, force: true });
    }
    if (freed > 0) console.log(`speechgate: removed onnxruntime-node's binaries for other platforms (${Math.round(freed / 1e6)} MB)`);
  } catch (error) {
    console.log(`speechgate: kept onnxruntime-node's binaries for other platforms (${error instanceof Error ? error.message : error})`);
  }
}

function sizeOf(path) {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const inner = join(path, entry.name);
    total += entry.isDirectory() ? sizeOf(inner) : statSync(inner).size;
  }
  return total;
}
