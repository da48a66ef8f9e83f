/**
 * Every fenced block of README.md and docs/ says what it is, so none ships unchecked:
 * - ```sh example: run as written against a server (test/core/readme-examples.test.ts);
 * - ```ts example: type-checked here against the project's sources (the SDK as `speechgate/sdk`), as a reader's
 *   script would be, with the names a reader supplies declared (`baseUrl`, `apiKey`, …);
 * - ```sh synopsis: a command's forms with placeholders (`<file>`, `…`, outside addresses), not meant to run as is;
 * - ```json, ```yaml, ```text: data and diagrams.
 * A block with no such word (```sh, ```ts, ``` alone) fails: its author decides which it is.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

const KINDS = ['sh example', 'ts example', 'sh synopsis', 'json', 'yaml', 'text'];

const files = [
  'README.md',
  ...(await fs.readdir(path.join(REPO_ROOT, 'docs'))).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`),
];
const blocks = (
  await Promise.all(
    files.map(async (file) => {
      const text = await fs.readFile(path.join(REPO_ROOT, file), 'utf8');
      return [...text.matchAll(/^```(.*)\n([\s\S]*?)^```$/gm)].map((match) => ({
        file, info: match[1]!.trim(), body: match[2]!, line: text.slice(0, match.index).split('\n').length,
      }));
    }),
  )
).flat();

/** What a reader's script has of its own before the example's lines (the address, the key, their audio…). */
const READER_SUPPLIES = `
declare const baseUrl: string;
declare const apiKey: string;
declare const chunks: Float32Array[];
declare const recordingId: string;
declare const text: string;
declare function render(segment: unknown): void;
declare function play(audio: Float32Array): void;
export {};
`;

let work: string | null = null;

afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe('the code blocks of README.md and docs/', () => {
  it('each says what it is: an example that runs or type-checks, a synopsis, or data', () => {
    const unmarked = blocks.filter((block) => !KINDS.includes(block.info)).map(
      (block) => `${block.file}:${block.line} \`\`\`${block.info}`,
    );
    expect(unmarked).toEqual([]);
    expect(blocks.filter((block) => block.info === 'ts example').length).toBeGreaterThanOrEqual(3);
  });

  it('the TypeScript examples type-check against the SDK and the engine as they are', async () => {
    // Under node_modules so that the examples' own packages (ws…) resolve as from a project that has them.
    work = await fs.mkdtemp(path.join(REPO_ROOT, 'node_modules', '.docs-code-'));
    const examples = blocks.filter((block) => block.info === 'ts example');
    const names: string[] = [];
    for (const [index, block] of examples.entries()) {
      const name = `example-${index}-${path.basename(block.file, '.md')}.ts`;
      names.push(name);
      const source = block.body
        .replaceAll(`'speechgate/sdk'`, `'${path.join(REPO_ROOT, 'src/sdk/index.js')}'`)
        .replaceAll(`'./`, `'${REPO_ROOT}/`);
      await fs.writeFile(path.join(work, name), `${READER_SUPPLIES}\n${source}`);
    }
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], strict: true, noEmit: true,
        skipLibCheck: true, types: ['node'], customConditions: ['development'],
      },
      files: names,
    };
    await fs.writeFile(path.join(work, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', work], { cwd: work }).then(
      () => 'ok',
      (error: { stdout: string }) => error.stdout,
    );
    expect(result).toBe('ok');
  }, 120_000);
});
