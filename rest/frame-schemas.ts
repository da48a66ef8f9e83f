/**
 * The server frames of the two sockets a client follows, as OpenAPI components (3.0 dialect: `nullable`, a nullable
 * enum lists `null`): the realtime socket's (`RealtimeServerFrame`, spec: "Realtime socket, server to client") and
 * the subscribe socket's (`SubscribeFrame`, spec: "Subscribe socket"), each a `oneOf` with a discriminator on
 * `type`. openapi-typescript turns them into the SDK's frame types (src/sdk/frames.ts), so a frame's shape is
 * written once, here; the SDK's tests validate every frame the real server sends against these schemas.
 *
 * Frames stay open (no `additionalProperties: false`): the server may add fields, and clients ignore frame types
 * they do not know (spec: Events), so neither union is closed at run time either.
 */
import type { JsonSchema } from './types.js';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = { type: 'string' };
const num = { type: 'number' };
const int = { type: 'integer' };
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, nullable: true });
const languageMap = (description: string): JsonSchema => ({ type: 'object', additionalProperties: { type: 'string' }, description });

/** A frame schema: `type` as a one-value enum (so each member of a union is told apart by it), then its fields. */
function frame(type: string, description: string, required: string[], properties: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object', description, required: ['type', ...required], properties: { type: { type: 'string', enum: [type] }, ...properties },
  };
}

/** The fields every durable frame of a recording's log carries (src/transcript/events.ts stamps them). */
const durableFields: Record<string, JsonSchema> = {
  cursor: { type: 'integer', minimum: 0, description: 'Place in the recording\'s durable log: gapless per recording.' },
  recordingId: str,
  at: { type: 'string', format: 'date-time', description: 'When the frame was written to the log.' },
};

/** A durable frame of the subscribe socket: `cursor`, `seq` (the segment's, else the cursor), `recordingId`, `at` and its own fields. */
function durable(type: string, description: string, required: string[], properties: Record<string, JsonSchema>): JsonSchema {
  return frame(type, description, ['cursor', 'seq', ...required], {
    ...durableFields, seq: { ...int, description: 'The segment it is about; a frame about no segment repeats its cursor.' }, ...properties,
  });
}

/** A union of frames told apart by `type`: the discriminator's mapping names each member's schema. */
function frameUnion(description: string, members: Record<string, string>): JsonSchema {
  return {
    description,
    oneOf: Object.values(members).map(ref),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(Object.entries(members).map(([type, name]) => [type, `#/components/schemas/${name}`])),
    },
  };
}

const segmentFields = {
  seq: { type: 'integer', minimum: 0, description: 'Gapless from 0 in a realtime session and in a recording.' },
  speaker: { type: 'integer', description: 'From 0; -1: speaker labels were off.' },
};

export const frameSchemas: Record<string, JsonSchema> = {
  Word: {
    type: 'object', required: ['start', 'end', 'text', 'prob'],
    properties: {
      start: num, end: num, text: str, prob: { ...num, description: 'Probability 0..1.' },
      low: nullable({ type: 'boolean', description: 'Below the confidence policy\'s `lowThreshold` (snapshots).' }),
    },
  },
  CommittedSegment: {
    type: 'object', required: ['seq', 'speaker', 'start', 'end', 'text', 'words'],
    description: 'A final segment (spec: Transcript records).',
    properties: {
      ...segmentFields,
      start: { ...num, description: 'Seconds on the audio timeline.' },
      end: num,
      text: str,
      words: { type: 'array', items: ref('Word') },
      catchup: nullable({ type: 'boolean', description: 'True when the fast model decoded it.' }),
      decoder: nullable({ type: 'string', enum: ['fast', 'accuracy', null] }),
      confidence: nullable({ ...num, description: '0..1, the mean of word probabilities.' }),
      gapBefore: nullable({ ...num, description: 'Seconds of capture audio the client reported lost just before it.' }),
      language: nullable(str),
      latencyS: nullable({ ...num, description: 'Seconds from the segment end arriving to its commit (live only).' }),
      recognizedText: nullable({ ...str, description: 'What the recognizer heard when `text` is a script\'s words or a correction.' }),
      scriptFrom: nullable(int),
      scriptPos: nullable(int),
      speakerConfidence: nullable({ ...num, description: '0..1 diarization confidence.' }),
      speakerProvisional: nullable({ type: 'boolean', description: 'True while the label is tentative; a `transcript.speaker` frame '
        + 'settles it.' }),
      translations: nullable(languageMap('Language → text.')),
      translationSources: nullable(languageMap('Language → who translated it (`cache`, `google`, `llm`, …).')),
    },
  },
  DraftSegment: {
    type: 'object', required: ['start', 'text', 'speaker', 'tentative'],
    properties: { start: num, text: str, speaker: int, tentative: { type: 'boolean' } },
  },
  SocketErrorFrame: frame('error', 'A failure on the socket. Realtime: before `session.ready` it fails the connect; `slow_consumer` then '
    + 'closes. Subscribe: `slow_consumer` (then closed), or a refused `subscribe.update` (the socket stays open).', [
      'code', 'message', 'retryable',
    ], {
    code: { ...str, description: 'Branch on this (spec: Errors).' }, message: str, retryable: { type: 'boolean' }, details: {
      type: 'object', additionalProperties: true,
    },
  }),

  // ---- realtime socket ----------------------------------------------------------------------------------------
  RealtimeLoadingFrame: frame('session.loading', 'Heartbeat while a machine warms up.', ['stage'], { stage: {
    type: 'string', enum: ['download', 'model'],
  } }),
  RealtimeReadyFrame: frame('session.ready', 'Audio may now be sent.', ['sessionId'], {
    sessionId: str,
    audio: {
      type: 'object', required: ['encoding', 'sampleRate', 'channels'],
      properties: { encoding: { type: 'string', enum: ['pcm_f32le'] }, sampleRate: int, channels: int },
    },
  }),
  RealtimeDraftFrame: frame('transcript.draft', 'The live tail: each draft replaces the last whole, never appended.', ['segments'], {
    segments: { type: 'array', items: ref('DraftSegment') }, audioS: { ...num, description: 'Seconds of audio it reflects.' },
  }),
  RealtimeCommittedFrame: frame(
    'transcript.committed', 'Final: append it and drop the draft it covers.', ['segment'], { segment: ref('CommittedSegment') },
  ),
  RealtimeWordsFrame: frame('transcript.words', 'Word timings of a committed segment.', ['seq', 'words'], {
    seq: int, words: { type: 'array', items: ref('Word') },
  }),
  RealtimeSpeakerFrame: frame('transcript.speaker', 'Settles a provisional speaker label.', ['seq', 'speaker'], {
    seq: int, speaker: int, speakerConfidence: num, speakerProvisional: { type: 'boolean', enum: [false] },
  }),
  RealtimeTranslatedFrame: frame('transcript.translated', 'Translations of a committed segment.', ['seq', 'translations'], {
    seq: int, translations: languageMap('Language → text.'), translationSources: languageMap('Language → who translated it.'),
  }),
  RealtimeAmendedFrame: frame('transcript.amended', 'Corrects a committed segment\'s text in place (same `seq`): with `llmFix`, a fix '
    + 'that came after the line went out.', ['seq', 'segment'], {
    seq: int, segment: ref('CommittedSegment'), reason: { type: 'string', enum: ['llm_fix'] }, previousText: str,
  }),
  RealtimeLatencyFrame: frame('transcript.latency', 'A held correction pass (`llmFix`) released a line: the time to its final text.', [
    'seq', 'latencyS', 'heldS', 'fix',
  ], {
    seq: int,
    latencyS: { ...num, description: 'Seconds from the audio of the line\'s end arriving to its final text.' },
    heldS: { ...num, description: 'Seconds the commit waited for the fix.' },
    fix: { type: 'string', enum: ['changed', 'unchanged', 'rejected', 'failed'] },
    problem: { ...str, description: 'Why the pass failed (`failed` only).' },
  }),
  RealtimeUpdatedFrame: frame('session.updated', 'Answer to `session.update`: the options now in force, what changed and what was '
    + 'ignored.', ['options', 'changed', 'ignored'], {
    options: { type: 'object', additionalProperties: true },
    changed: { type: 'array', items: str },
    ignored: { type: 'array', items: { type: 'object', required: ['field', 'reason'], properties: { field: str, reason: str } } },
  }),
  RealtimeRecordingStateFrame: frame('recording.state', 'A live recording\'s publisher: the recording was paused or resumed from '
    + 'elsewhere.', ['state'], { recordingId: str, state: str }),
  RealtimeDoneFrame: frame('session.done', 'The session ended; the socket closes next.', ['reason', 'stats'], {
    reason: { type: 'string', enum: ['eof', 'max_duration', 'cancelled'] },
    stats: {
      type: 'object', required: ['audioS', 'processingS', 'realtimeFactor'],
      properties: { audioS: num, processingS: num, realtimeFactor: num },
    },
  }),
  RealtimeServerFrame: frameUnion('A text frame of `WS /v1/realtime/sessions/{token}/socket` (and a live recording\'s publisher socket).', {
    'session.loading': 'RealtimeLoadingFrame',
    'session.ready': 'RealtimeReadyFrame',
    'transcript.draft': 'RealtimeDraftFrame',
    'transcript.committed': 'RealtimeCommittedFrame',
    'transcript.words': 'RealtimeWordsFrame',
    'transcript.speaker': 'RealtimeSpeakerFrame',
    'transcript.translated': 'RealtimeTranslatedFrame',
    'transcript.amended': 'RealtimeAmendedFrame',
    'transcript.latency': 'RealtimeLatencyFrame',
    'session.updated': 'RealtimeUpdatedFrame',
    'recording.state': 'RealtimeRecordingStateFrame',
    'session.done': 'RealtimeDoneFrame',
    error: 'SocketErrorFrame',
  }),

  // ---- subscribe socket ---------------------------------------------------------------------------------------
  SubscribeReadyFrame: frame('subscribe.ready', 'First frame.', ['recordingId', 'lastSeq', 'state', 'instance'], {
    recordingId: str, lastSeq: { ...int, description: 'The cursor delivered so far (-1: none).' }, state: str, instance: {
      ...str, description: 'The gateway process.',
    },
  }),
  SubscribeCommittedFrame: durable('transcript.committed', 'Appends a segment.', ['segment'], { segment: ref('CommittedSegment') }),
  SubscribeAmendedFrame: durable('transcript.amended', 'An engine rewrite of a committed segment in place.', ['segment'], {
    segment: ref('CommittedSegment'), reason: str,
  }),
  SubscribeCorrectedFrame: durable('transcript.corrected', 'A person\'s correction in place.', ['segment'], {
    segment: ref('CommittedSegment'), correctionId: str, batchId: str, reverted: {
      type: 'boolean', description: 'The correction was taken back.',
    },
  }),
  SubscribeSentenceFrame: durable('transcript.sentence', 'Replaces a whole sentence (the snapshot\'s `sentences` entry of that `id`, or a '
    + 'new one): sent in the same log step as the segment change that touched it, and when the recording ends with its last sentence '
    + 'open. A reader keeping sentences first drops those whose id falls after `id` and at or before `lastWordId` (merged into this '
    + 'one), then stores it.', ['sentenceId', 'sentence'], {
    sentenceId: str,
    sentence: {
      type: 'object', required: ['id', 'speaker', 'start', 'end', 'text', 'confidence', 'seqs', 'lastWordId', 'complete'],
      properties: {
        id: { ...str, description: '`<seq of its first segment>.<index of its first word>`, as the snapshot gives it.' },
        speaker: int, start: num, end: num, text: str,
        confidence: nullable({ ...num, description: 'Mean word probability.' }),
        seqs: { type: 'array', items: int, description: 'The segments it draws words from.' },
        lastWordId: { ...str, description: 'Its last word, `<seq>.<index>` as ids are written: the sentence covers `id` through it.' },
        complete: { type: 'boolean', description: 'Closed (end punctuation, another speaker, the recording ended); false while it may '
          + 'still grow.' },
        unclear: { type: 'boolean', description: 'Under the confidence policy (owner, share link: every word kept).' },
        suppressed: { type: 'boolean', description: 'Under the confidence policy, for a broadcast listener: `text` blank.' },
      },
    },
  }),
  SubscribeTranslatedFrame: durable('transcript.translated', 'Fills a segment\'s translations (a listener gets only its `lang`).', [
    'translations',
  ], {
    translations: languageMap('Language → text.'), translationSources: languageMap('Language → who translated it.'),
  }),
  SubscribeSpeakerFrame: durable('transcript.speaker', 'Settles a segment\'s speaker label (`speakerProvisional: false`), or names a '
    + 'speaker (`name`, no segment).', ['speaker'], {
    speaker: int, speakerConfidence: num, speakerProvisional: { type: 'boolean' }, name: nullable(str),
  }),
  SubscribeStateFrame: durable('recording.state', 'The recording moved.', ['state'], {
    state: { type: 'string', description: '`live`, `paused`, `ended`, `finalized`.' }, transcriptionId: str, reason: str, error: nullable(
      str,
    ),
  }),
  SubscribeNoopFrame: frame('noop', 'Stands in for a frame withheld from this subscriber, so the cursor never skips.', [
    'cursor', 'seq', 'reason',
  ], {
    ...durableFields,
    seq: nullable({ ...int, description: 'The segment withheld (`unclear`, `other_language`); null for a frame subscribers never get.' }),
    reason: { type: 'string', description: '`unclear` (a line under the confidence policy, shown as "Audio unclear"), `other_language`, '
      + '`not_for_subscribers`.' },
  }),
  SubscribeGapFrame: frame(
    'subscribe.gap', 'The frames after `after` were not replayed: re-read the transcript with `after=`.', ['cursor', 'after'],
    { cursor: int, after: int },
  ),
  SubscribeUpdatedFrame: frame(
    'subscribe.updated', 'A `subscribe.update` took effect (re-read the snapshot after a language change).', ['audio'],
    { lang: nullable(str), audio: { type: 'boolean' } },
  ),
  SubscribeFrame: frameUnion('A text frame of `WS /v1/recordings/{id}/subscribe`.', {
    'subscribe.ready': 'SubscribeReadyFrame',
    'transcript.committed': 'SubscribeCommittedFrame',
    'transcript.amended': 'SubscribeAmendedFrame',
    'transcript.corrected': 'SubscribeCorrectedFrame',
    'transcript.sentence': 'SubscribeSentenceFrame',
    'transcript.translated': 'SubscribeTranslatedFrame',
    'transcript.speaker': 'SubscribeSpeakerFrame',
    'recording.state': 'SubscribeStateFrame',
    noop: 'SubscribeNoopFrame',
    'subscribe.gap': 'SubscribeGapFrame',
    'subscribe.updated': 'SubscribeUpdatedFrame',
    error: 'SocketErrorFrame',
  }),
};
