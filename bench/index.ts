/**
 * `npm run bench [-- name …]`: runs every benchmark file in bench/ in turn (or only those named) and prints
 * each one's table. A benchmark file exports an async function named `bench…` or `run…Bench` that takes no
 * required arguments and returns `{ table: string }` (or a string); add a file and it is picked up.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type BenchFunction = () => Promise<{ table: string } | string>;

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((name) => name.endsWith('.ts') && name !== 'index.ts' && !name.endsWith('.d.ts'))
  .filter((name) => only.length === 0 || only.includes(basename(name, '.ts')))
  .sort();

let failed = 0;
for (const file of files) {
  const module = (await import(pathToFileURL(`${benchDir}/${file}`).href)) as Record<string, unknown>;
  const entries = Object.entries(module).filter(
    (entry): entry is [string, BenchFunction] => typeof entry[1] === 'function' && /^(bench[A-Z]\w*|run\w*Bench)$/.test(entry[0]),
  );
  for (const [name, bench] of entries) {
    console.log(`\n## ${basename(file, '.ts')} (${name})\n`);
    const started = performance.now();
    try {
      const result = await bench();
      console.log(typeof result === 'string' ? result : result.table);
      console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed++;
      console.log(`failed: ${(error as Error).stack ?? error}`);
    }
  }
}
if (failed) process.exitCode = 1;
