/**
 * One like-for-like run of this engine as its own process, for the anchors race (bench/helpers/anchors.ts): load
 * the model, decode the file, transcribe it (language en, no voice activity filter, no word timings, no
 * previous-text prompt, the temperature fallback on), print `{text}` as the last line.
 */
import { decodeFileToPcm } from '../../workers/engine/audio.js';
import { SpeechEngine } from '../../workers/engine/speech-engine.js';

const { file, model, beamSize, threads } = JSON.parse(process.argv[2]!) as {
  file: string; model: string; beamSize: number; threads: number;
};
const engine = await SpeechEngine.load({ model, intraOpThreads: threads, provider: 'cpu' });
const result = await engine.transcribePcm(await decodeFileToPcm(file), {
  language: 'en', beamSize, vad: false, wordTimestamps: false, conditionOnPreviousText: false,
});
console.log(JSON.stringify({ text: result.segments.map((segment) => segment.text.trim()).join(' ') }));
process.exit(0);
