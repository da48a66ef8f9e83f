/**
 * Live audio for listeners who asked for it (`subscribe.update` with `audio: true`). The process holding a live
 * recording's publisher relays what it keeps, as signed 16-bit little-endian 16 kHz mono PCM, on
 * `recording:<id>:audio` — but only while some subscriber wants it: a subscribe socket's process asks with an
 * `audio` control frame on `recording:<id>` at least every AUDIO_REQUEST_MS, and the relay stops AUDIO_WANTED_MS
 * after the last ask. Nobody listening costs nothing but a timestamp check.
 */
import type { Frame, PubSub, Topic } from '../core/pubsub.js';

export const liveAudioTopic = (recordingId: string): Topic => `recording:${recordingId}:audio`;
/** How often a process with audio listeners repeats its ask. */
export const AUDIO_REQUEST_MS = 5_000;
/** How long one ask keeps the relay going (three asks may be lost before the audio stops). */
export const AUDIO_WANTED_MS = 15_000;
/** Samples per relayed chunk: 100 ms at 16 kHz, so a listener hears with little delay and Redis sees 10 messages a second. */
const CHUNK_SAMPLES = 1_600;

/** Asks the publisher's process, wherever it runs, to relay a recording's audio for a while. */
export function requestLiveAudio(pubsub: Pick<PubSub, 'publish'>, recordingId: string): void {
  pubsub.publish(`recording:${recordingId}`, { type: 'recording.control', action: 'audio' });
}

/** The publisher's side: `wanted()` on each ask, `push()` with every block of audio kept. */
export function liveAudioRelay(pubsub: Pick<PubSub, 'publish'>, recordingId: string) {
  let wantedUntil = 0;
  let pending: Int16Array[] = [];
  let pendingSamples = 0;
  return {
    wanted() {
      wantedUntil = Date.now() + AUDIO_WANTED_MS;
    },
    push(pcm: Float32Array) {
      if (Date.now() > wantedUntil) {
        pending = [];
        pendingSamples = 0;
        return;
      }
      const samples = new Int16Array(pcm.length);
      for (let i = 0; i < pcm.length; i++) samples[i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! * 32767)));
      pending.push(samples);
      pendingSamples += samples.length;
      if (pendingSamples < CHUNK_SAMPLES) return;
      const chunk = Buffer.concat(pending.map((block) => Buffer.from(block.buffer, block.byteOffset, block.byteLength)));
      pending = [];
      pendingSamples = 0;
      pubsub.publish(liveAudioTopic(recordingId), { type: 'audio', pcm: chunk.toString('base64') });
    },
  };
}

/** The PCM of a relayed frame, or null for anything else. */
export function audioOf(frame: Frame): Buffer | null {
  return frame.type === 'audio' && typeof frame.pcm === 'string' ? Buffer.from(frame.pcm, 'base64') : null;
}
