/**
 * An operator-supplied speaker-embedding network (ONNX, onnxruntime-node), for diarize-embeddings.ts.
 *
 * Where: `MODELS_DIR/speaker-embedding/model.onnx` (`speakerEmbeddingFile`). Optional beside it, `config.json`:
 * `{ "window": "hamming" }` for networks trained on a Hamming-windowed filterbank (WeSpeaker's recipe; Kaldi's
 * Povey window is the default) and `{ "threshold": 0.5 }`, the average-linkage cosine distance below which
 * clusters merge, for this network.
 *
 * Contract (WeSpeaker ResNet34 as pyannote ships it, 3D-Speaker CAM++, ECAPA exported via WeSpeaker): the first
 * input takes float32 `[1, T, 80]`, T dynamic: Kaldi's log-mel filterbank (fbank.ts), mean-normalised over the
 * time of one utterance; the first output is float32 `[1, D]`, the embedding, any D. Both are checked at load,
 * and one run on 1.5 s of frames must give D finite numbers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { SpeakerEmbedder } from './diarize-embeddings.js';
import { FBANK_BINS, type FbankOptions } from './fbank.js';

/** The model's place under MODELS_DIR. */
export const SPEAKER_EMBEDDING_PATH = join('speaker-embedding', 'model.onnx');

/** The operator's model file (`<modelsDir>/speaker-embedding/model.onnx`; modelsDir defaults to MODELS_DIR), or null when there is none. */
export function speakerEmbeddingFile(modelsDir = process.env.MODELS_DIR): string | null {
  if (!modelsDir) return null;
  const file = join(modelsDir, SPEAKER_EMBEDDING_PATH);
  return existsSync(file) ? file : null;
}

/** `speaker-embedding/config.json`: settings of the network beside its file. */
export interface SpeakerEmbeddingConfig {
  window?: FbankOptions['window'];
  threshold?: number;
}

function readConfig(file: string): SpeakerEmbeddingConfig {
  const path = join(dirname(file), 'config.json');
  if (!existsSync(path)) return {};
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  if (raw.window !== undefined && raw.window !== 'povey' && raw.window !== 'hamming') {
    throw new Error(`${path}: "window" must be "povey" or "hamming"`);
  }
  if (raw.threshold !== undefined && !(typeof raw.threshold === 'number' && raw.threshold > 0 && raw.threshold < 2)) {
    throw new Error(`${path}: "threshold" must be a cosine distance between 0 and 2`);
  }
  return { window: raw.window as SpeakerEmbeddingConfig['window'], threshold: raw.threshold as number | undefined };
}

/** A dimension left open: a name, or no value. */
const isDynamic = (dim: number | string | undefined): boolean => typeof dim !== 'number' || dim <= 0;
const shapeText = (shape: ReadonlyArray<number | string>): string => `[${shape.map(
  (d) => (isDynamic(d) ? (typeof d === 'string' && d ? d : '?') : d),
).join(', ')}]`;

/** Why `meta` is not `[1, T, 80]` float32 with T open (or, for the output, `[1, D]` float32), or null when it is. */
function shapeProblem(meta: ort.InferenceSession.ValueMetadata, what: 'input' | 'output'): string | null {
  if (!meta.isTensor) return `its first ${what} '${meta.name}' is not a tensor`;
  if (meta.type !== 'float32') return `its first ${what} '${meta.name}' is ${meta.type}, not float32`;
  const shape = meta.shape;
  // No shape recorded: nothing to check here; the test run below decides.
  if (shape.length === 0) return null;
  const batchOk = isDynamic(shape[0]) || shape[0] === 1;
  if (what === 'input') {
    if (shape.length !== 3 || !batchOk || !isDynamic(shape[1]) || (!isDynamic(shape[2]) && shape[2] !== FBANK_BINS)) {
      return `its first input '${meta.name}' is ${shapeText(shape)}; expected [1, T, ${FBANK_BINS}] (T frames of ${FBANK_BINS} filterbank `
        + `bins, T dynamic)`;
    }
    return null;
  }
  if (shape.length !== 2 || !batchOk) return `its first output '${meta.name}' is ${shapeText(shape)}; expected [1, D] (one embedding)`;
  return null;
}

export interface SpeakerEmbeddingLoadOptions {
  /** Threads inside one operator (0 = onnxruntime's default: one per core). */
  threads?: number;
}

export class SpeakerEmbeddingModel implements SpeakerEmbedder {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly file: string,
    readonly inputName: string,
    readonly outputName: string,
    /** D, the embedding's length. */
    readonly dimension: number,
    readonly fbank: Partial<FbankOptions>,
    readonly distanceThreshold: number | undefined,
  ) {}

  /** Loads and checks a model: input `[1, T, 80]`, output `[1, D]`, both float32; throws saying what does not fit. */
  static async load(file: string, options: SpeakerEmbeddingLoadOptions = {}): Promise<SpeakerEmbeddingModel> {
    const config = readConfig(file);
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(file, {
        graphOptimizationLevel: 'all',
        intraOpNumThreads: options.threads ?? 0,
        interOpNumThreads: 1,
        executionProviders: ['cpu'],
      });
    } catch (error) {
      throw new Error(`Speaker-embedding model ${file}: onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`);
    }
    const refuse = async (problem: string): Promise<never> => {
      await session.release();
      throw new Error(`Speaker-embedding model ${file}: ${problem}`);
    };
    const input = session.inputMetadata[0];
    const output = session.outputMetadata[0];
    if (!input || !output) return refuse('it has no input or no output');
    const problem = shapeProblem(input, 'input') ?? shapeProblem(output, 'output');
    if (problem) return refuse(problem);
    const model = new SpeakerEmbeddingModel(
      session, file, input.name, output.name, 0, config.window ? { window: config.window } : {}, config.threshold,
    );
    // One run on 1.5 s of frames: a model that needs other inputs, or answers with another shape, fails here.
    let probe: Float32Array;
    try {
      probe = await model.embed(new Float32Array(150 * FBANK_BINS), 150);
    } catch (error) {
      return refuse(`a run on [1, 150, ${FBANK_BINS}] failed: ${(error as Error).message.split('\n')[0]}`);
    }
    if (probe.length === 0 || !probe.every(Number.isFinite)) {
      return refuse(`a run on [1, 150, ${FBANK_BINS}] gave ${probe.length} values, not D finite numbers`);
    }
    return new SpeakerEmbeddingModel(session, file, input.name, output.name, probe.length, model.fbank, config.threshold);
  }

  /** The embedding (length D) of mean-normalised filterbank frames, [frames × 80] row-major. */
  async embed(features: Float32Array, frames: number): Promise<Float32Array> {
    const out = await this.session.run(
      { [this.inputName]: new ort.Tensor('float32', features, [1, frames, FBANK_BINS]) }, [this.outputName],
    );
    const tensor = out[this.outputName];
    const dims = tensor.dims;
    if (tensor.type !== 'float32' || dims.length !== 2 || dims[0] !== 1) {
      throw new Error(`output '${this.outputName}' is ${tensor.type} [${dims.join(', ')}]; expected float32 [1, D]`);
    }
    if (this.dimension && dims[1] !== this.dimension) {
      throw new Error(`output '${this.outputName}' has ${dims[1]} values; expected ${this.dimension}`);
    }
    return tensor.data as Float32Array;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** Loaded models of this thread, by file (a failed load stays: the operator fixes the file and restarts). */
const loaded = new Map<string, Promise<SpeakerEmbeddingModel>>();

/**
 * The operator's speaker-embedding model under `modelsDir` (default MODELS_DIR), loaded once per thread, or null when
 * there is none. Rejects when the file is there but does not fit the contract.
 */
export async function findSpeakerEmbedding(
  modelsDir = process.env.MODELS_DIR, options: SpeakerEmbeddingLoadOptions = {},
): Promise<SpeakerEmbeddingModel | null> {
  const file = speakerEmbeddingFile(modelsDir);
  if (!file) return null;
  let model = loaded.get(file);
  if (!model) {
    model = SpeakerEmbeddingModel.load(file, options);
    loaded.set(file, model);
  }
  return model;
}
