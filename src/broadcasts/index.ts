/**
 * src/broadcasts's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { MAX_SOURCE_URL, parseAudioSourceInput } from './audio-sources.js';
export { CHECK_MS, FIX_KINDS, SOURCE_PROBLEMS } from './source-check.js';
