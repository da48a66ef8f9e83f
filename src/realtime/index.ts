/**
 * src/realtime's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { retimedWords } from './llm-fix.js';
export { LATENCY_MODES, type OptionRules, parseSessionOptions, type RealtimeSessionOptions } from './options.js';
export { type SessionClaims } from './session-token.js';
export { type CommittedBody, type LiveEvent, type LiveOutput, type LiveSession, type SpeakerSettled } from './session.js';
export { REALTIME_MAX_PAYLOAD, type SocketAttachment } from './socket.js';
