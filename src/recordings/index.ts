/**
 * src/recordings's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { ListenerLanguages } from './listener-languages.js';
export {
  type CatchUp, finalizeRecording, LiveRecordingsService, parseRecordingSettings, parseStartRecording,
  RECORDING_SETTING_FIELDS, type RecordingGrant, type RecordingPage, takeoverDetails, type TimedWord,
} from './live.js';
export { acceptPublisher, authorizePublisher } from './publisher.js';
export { MAX_SPEAKER_NAME, nameSpeaker, parseSpeakerIndex, parseSpeakerName, type SpeakerTurnOnMaster } from './speakers.js';
export { sourceBytes, StreamPull, streamPullWorker } from './stream-pull.js';
export { storedTranslations, type Translate, translateSegments } from './translations.js';
export { MAX_VOICE_LANGUAGES, parseVoiceRender, type VoiceRenderQueue, type VoiceRenderWork, VoiceTracksService } from './voice-tracks.js';
