/** Spoken translation (src/recordings/voice-tracks.ts): the voice tracks of a recording, and asking for them. */
import { builder } from '../core/builder.js';
import { readerOf } from './service.js';
import type { VoiceClipView, VoiceTrackView, VoiceTracksView } from './voice-tracks.js';

type VoiceJobView = NonNullable<VoiceTrackView['job']>;

const VoiceClipType = builder.objectRef<VoiceClipView>('VoiceClip').implement({
  description: 'One sentence spoken in a track\'s language, standing now (its text and voice unchanged since it was made).',
  fields: (t) => ({
    sentenceId: t.exposeString('sentenceId', { description: 'The sentence id as the transcript snapshot gives it (`4.0`).' }),
    voice: t.exposeString('voice', { description: 'The voice that spoke it.' }),
    start: t.exposeFloat('start', { description: 'Where the sentence starts on the recording\'s time line (seconds); the clip starts '
      + 'there in the track.' }),
    end: t.exposeFloat('end'),
    durationS: t.exposeFloat('durationS', { description: 'Seconds of speech in the clip.' }),
    text: t.exposeString('text', { description: 'The sentence text it was made from, in the recording\'s language.' }),
    textFrom: t.exposeString('textFrom', { description: '`corrected`: the transcript\'s text; `recognized`: the recognizer\'s words, kept '
      + 'because a correction of the line is not voiced.' }),
    spoken: t.exposeString('spoken', { description: 'The words spoken: `text` translated into the language, or `text` itself in the '
      + 'spoken language.' }),
    translationSource: t.exposeString('translationSource', { description: 'Who translated it (`apertium`, `google`, `llm`, `cache`), or '
      + '`none` in the spoken language.' }),
  }),
});

const VoiceJobType = builder.objectRef<VoiceJobView>('VoiceTrackJob').implement({
  description: 'The render job of a track: `queued`, `rendering`, `done` (sealed) or `failed` (`error`).',
  fields: (t) => ({
    state: t.exposeString('state'),
    progress: t.exposeFloat('progress', { description: 'Percent: synthesis up to 90, assembly the rest.' }),
    error: t.exposeString('error', { nullable: true, description: '`failed`: why.' }),
    attempts: t.exposeInt('attempts', { description: 'Render runs so far (a re-render after a correction is one more).' }),
    renderS: t.exposeFloat('renderS', { nullable: true, description: 'Seconds the last finished run took.' }),
    synthesizedS: t.exposeFloat('synthesizedS', { nullable: true, description: 'Seconds of speech the last run synthesised (clips that '
      + 'still stood were reused).' }),
    startedAt: t.exposeString('startedAt', { nullable: true }),
  }),
});

const VoiceTrackType = builder.objectRef<VoiceTrackView>('VoiceTrack').implement({
  description: 'A recording spoken in one language: the sealed track and its job, and the sentence clips that stand.',
  fields: (t) => ({
    lang: t.exposeString('lang'),
    voice: t.exposeString('voice', { description: 'The voice it speaks with: `settings.voiceByLang[lang]` of the recording (else its '
      + 'transcription), else the language\'s default voice.' }),
    spokenLanguage: t.exposeBoolean('spokenLanguage', { description: 'The recording\'s own language, spoken as is (not translated).' }),
    sealed: t.exposeBoolean('sealed', {
      description: 'The whole track is written and every sentence of it still stands: `GET /v1/recordings/{id}/audio?kind=voice&lang=` '
        + 'serves it.',
    }),
    stale: t.exposeBoolean('stale', {
      description: 'Sentences changed since it was sealed (a correction, another pinned voice): reading the row queues a re-render that '
        + 'synthesises only those sentences again; until it is sealed again `/audio?kind=voice` answers 409.',
    }),
    staleSentences: t.exposeStringList('staleSentences'),
    sealedAt: t.exposeString('sealedAt', { nullable: true }),
    durationS: t.exposeFloat('durationS', { nullable: true, description: 'Seconds of the sealed track: at least the recording\'s '
      + 'duration.' }),
    job: t.field({
      type: VoiceJobType, nullable: true, description: 'The track\'s render job; null when only single clips were asked for.',
      resolve: (row) => row.job,
    }),
    clips: t.field({ type: [VoiceClipType], description: 'Sentence clips that stand now (text and voice unchanged since made), in '
      + 'sentence order.', resolve: (row) => row.clips }),
  }),
});

const VoiceTracksType = builder.objectRef<VoiceTracksView>('VoiceTracks').implement({
  description: 'A recording\'s spoken-translation tracks, one row per language.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    language: t.exposeString('language', { nullable: true, description: 'The recording\'s spoken language.' }),
    tracks: t.field({
      type: [VoiceTrackType], description: 'One row per language with a track or clips, by language code.', resolve: (view) => view.tracks,
    }),
  }),
});

builder.queryFields((t) => ({
  recordingVoiceTracks: t.field({
    type: VoiceTracksType,
    description: 'Voice tracks of a recording, one row per language with a track or clips (`lang` narrows). Owner, a broadcast listener, '
      + 'or a `shareCode` (without `allowTranslate` only the spoken language).',
    authScopes: { public: true },
    args: { recordingId: t.arg.id({ required: true }), lang: t.arg.string(), shareCode: t.arg.string(), listenerToken: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.voiceTracks.list(String(args.recordingId), readerOf(ctx, args), { lang: args.lang }),
  }),
}));

builder.mutationFields((t) => ({
  renderVoiceTracks: t.field({
    type: VoiceTracksType,
    description: 'Render spoken tracks of a finished recording, one job per language (1 to 10). A language whose track is sealed (and '
      + 'stands) or running is left as it is unless `force`. Owner only.',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }), languages: t.arg.stringList({ required: true }), force: t.arg.boolean() },
    resolve: (_root, args, ctx) => ctx.services.voiceTracks.requestRender(ctx.identity!.account.id, String(args.recordingId), {
      languages: args.languages, force: args.force,
    }),
  }),
}));
