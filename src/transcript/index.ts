/**
 * The transcript kernel's face: what the resource modules above it (recordings, live, corrections, listeners,
 * billing, …) use of the durable log, the segment and sentence model, the confidence policy, script alignment, live
 * audio capture and the media paths. Other modules import this file, never the files behind it; the kernel imports
 * only src/core and the engine.
 */
export * from './broadcast-ids.js';
export * from './confidence.js';
export * from './events.js';
export * from './live-audio.js';
export * from './media.js';
export * from './script.js';
export * from './segments.js';
export * from './sentences.js';
export * from './word-tokens.js';
