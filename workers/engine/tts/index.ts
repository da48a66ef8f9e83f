/**
 * Text to speech: Kokoro-82M (8-bit ONNX) voices with espeak-ng phonemes. `synthesize` / `synthesizeStream`
 * (or `Kokoro.load` once and its methods), the voice catalogue, encoding to Ogg/CAF Opus, the model download.
 */
export {
  concat, Kokoro, KOKORO_SAMPLE_RATE, kokoroModelDir, resolveVoice, STYLE_DIM, STYLE_ROWS, synthesize, synthesizeStream,
} from './kokoro.js';
export type { KokoroLoadOptions, SynthesisOptions, SynthesizedChunk } from './kokoro.js';
export { defaultVoice, findVoice, findVoiceLanguage, VOICE_LANGUAGES, VOICES, voicesFor } from './voices.js';
export type { Voice, VoiceLanguage } from './voices.js';
export { encodeSpeech, encodeSpeechStream, resample, SPEECH_CONTENT_TYPES } from './encode.js';
export type { SpeechFormat } from './encode.js';
export { downloadKokoro, isCompleteKokoroDir, KOKORO_MODEL_SHA256, KOKORO_TARBALL_SHA256 } from './kokoro-download.js';
export { EspeakError } from './espeak.js';
export { phonemize, MAX_PHONEME_IDS } from './phonemes.js';
