/**
 * `npm run stream -- <file> [--language en] [--latency-mode fast|accuracy|auto] [--fast] [--stream-url URL]`
 *
 * Creates a realtime session with an API key (SPEECHGATE_API_KEY, against SPEECHGATE_URL, default
 * http://localhost:8080), streams the file at real-time speed (`--fast`: as fast as possible) in 200 ms
 * chunks, and prints the live draft on one line and every commit as it lands. `--stream-url` publishes to a socket
 * given instead (a live recording's grant: no key needed, its token is in the URL).
 */
import { parseArgs } from 'node:util';
import { createSession, streamFile, type CommittedSegment, type DraftSegment } from './client.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    language: { type: 'string' },
    'latency-mode': { type: 'string' },
    fast: { type: 'boolean', default: false },
    url: { type: 'string', default: process.env.SPEECHGATE_URL ?? 'http://localhost:8080' },
    'stream-url': { type: 'string' },
  },
});

const file = positionals[0];
const apiKey = process.env.SPEECHGATE_API_KEY;
if (!file || (!apiKey && !values['stream-url'])) {
  console.error('usage: SPEECHGATE_API_KEY=... npm run stream -- <audio file> [--language en] [--latency-mode auto|fast|accuracy] '
    + '[--fast] [--url http://host:port] [--stream-url ws://…]');
  process.exit(2);
}

const options: Record<string, unknown> = {};
if (values.language) options.spokenLanguage = values.language;
if (values['latency-mode']) options.latencyMode = values['latency-mode'];

const session = values['stream-url'] ? { streamUrl: values['stream-url'], sessionId: 'given stream URL' } : await createSession(values.url!, apiKey!, options);
const tty = process.stdout.isTTY;
let draftShown = false;
const clearDraft = () => {
  if (tty && draftShown) process.stdout.write('\r\x1b[2K');
  draftShown = false;
};

const result = await streamFile(session.streamUrl, file, {
  realtime: !values.fast,
  clock: true,
  onFrame: (frame) => {
    if (frame.type === 'session.loading') console.log(`… loading (${String(frame.stage)})`);
    else if (frame.type === 'session.ready') console.log(`● ready (${session.sessionId})`);
    else if (frame.type === 'transcript.draft' && tty) {
      const text = (frame.segments as DraftSegment[]).map((segment) => segment.text).join(' ').trim();
      clearDraft();
      if (text) {
        process.stdout.write(`\x1b[2m… ${text.slice(-(process.stdout.columns ?? 100) + 4)}\x1b[0m`);
        draftShown = true;
      }
    } else if (frame.type === 'transcript.committed') {
      const segment = frame.segment as CommittedSegment;
      clearDraft();
      const gap = segment.gapBefore ? ` (after ${segment.gapBefore}s lost)` : '';
      console.log(`#${segment.seq} [${segment.start.toFixed(2)}–${segment.end.toFixed(2)}] ${segment.text.trim()}  (${segment.decoder}, latency ${segment.latencyS}s)${gap}`);
    } else if (frame.type === 'error') {
      clearDraft();
      console.error(`error ${String(frame.code)}: ${String(frame.message)}`);
    }
  },
}).catch((error: Error & { status?: number }) => {
  // A refused upgrade carries the error envelope's message; a network failure its own.
  console.error(`error: ${error.message}${error.status ? ` (HTTP ${error.status})` : ''}`);
  process.exit(1);
});
clearDraft();
if (result.done) {
  const { audioS, processingS, realtimeFactor } = result.done.stats;
  console.log(`■ done (${result.done.reason}): ${audioS}s of audio, ${processingS}s processing, real-time factor ${realtimeFactor}`);
}
