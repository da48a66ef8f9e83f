/**
 * src/recordings's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { ListenerLanguages } from './listener-languages.js';
export {
  applySpeakerLabels, MAX_SPEAKER_NAME, nameSpeaker, parseSpeakerIndex, parseSpeakerName, relabelSegments, storedSpeakers,
  type SpeakerTurnOnMaster,
} from './speakers.js';
export { type SegmentTranslations, storedTranslations, type Translate, translateSegments } from './translations.js';
export { MAX_VOICE_LANGUAGES, parseVoiceRender, type VoiceRenderQueue, type VoiceRenderWork, VoiceTracksService } from './voice-tracks.js';
