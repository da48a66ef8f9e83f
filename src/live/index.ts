/**
 * src/live's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { LATENCY_MODES } from './options.js';
export {
  type CatchUp, finalizeRecording, LiveRecordingsService, MAX_SCRIPT_CHARS, parseRecordingSettings, parseStartRecording,
  PAUSE_FLUSH_WAIT_MS, RECORDING_SETTING_FIELDS, type RecordingGrant, type RecordingPage, takeoverDetails, type TimedWord,
} from './recordings.js';
export { RtmpService } from './rtmp-ingests.js';
export { acceptPublisher, authorizePublisher } from './transports/publisher.js';
export { REALTIME_MAX_PAYLOAD } from './transports/realtime-socket.js';
export { startRtmpServer } from './transports/rtmp.js';
export { sourceBytes, streamPullWorker } from './transports/stream-pull.js';
