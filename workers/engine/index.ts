/**
 * The speech engine's one face: what the gateway (src/, rest/ and the processors in workers/) uses of it. The
 * engine is a leaf in sub-folders by family (whisper/, graph/ for the ONNX rewrites, speakers/, tts/, threads/,
 * tools/; the transcription loop, audio and voice activity at the top); nothing outside it imports any other file of
 * it (.dependency-cruiser.cjs: engine-face). Tests and benchmarks may reach inside.
 */
export { concatSamples, decodeFile, decodeFileToPcm, decodeStream, ffmpegPath, probeAudio, wavOf } from './audio.js';
export { EngineError } from './errors.js';
export { type LiveSegment, type LiveUpdate } from './live.js';
export { longestWordS, wordKey } from './pipeline.js';
export { N_CEPS, speakerFrames, speakerOf, type SpeakerTurn } from './speakers/diarize.js';
export { type EngineOptions, resolveModelDir, type Segment, type Word } from './speech-engine.js';
export { EngineThreads, type LiveHandle, type LiveListener, type LoadingStage } from './threads/threads.js';
export { type TarballProgress } from './tools/registry-tarball.js';
export { encodeSpeechStream, ffmpegTransform } from './tts/encode.js';
export {
  defaultVoice, downloadKokoro, encodeSpeech, findVoice, findVoiceLanguage, isCompleteKokoroDir, Kokoro,
  KOKORO_SAMPLE_RATE, resample, resolveVoice, SPEECH_CONTENT_TYPES, type SpeechFormat, STYLE_DIM, STYLE_ROWS,
  type Voice, VOICE_LANGUAGES, VOICES, voicesFor,
} from './tts/index.js';
export { DEFAULT_VAD_OPTIONS, SileroVad, SpeechDetector } from './vad.js';
export { SAMPLE_RATE } from './whisper/mel.js';
export { WhisperTokenizer } from './whisper/tokenizer.js';
