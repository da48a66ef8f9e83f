/** Meta operations: liveness, language lists, realtime capabilities. */
import type { Language, RealtimeCapabilities } from './service.js';
import { builder } from '../core/builder.js';
import { VERSION } from '../core/version.js';

const HealthType = builder.objectRef<{ status: 'ok'; version: string; time: Date }>('Health').implement({
  fields: (t) => ({
    status: t.exposeString('status'),
    version: t.exposeString('version'),
    time: t.expose('time', { type: 'DateTime' }),
  }),
});

const LanguageType = builder.objectRef<Language>('Language').implement({
  description: 'A language code with names for pickers.',
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name', { description: 'English name.' }),
    nativeName: t.exposeString('nativeName', { description: 'The language\'s name in itself.' }),
  }),
});

const LanguagesType = builder.objectRef<Record<'transcription' | 'translation' | 'voice', Language[]>>('Languages').implement({
  fields: (t) => ({
    transcription: t.field({
      type: [LanguageType], resolve: (l) => l.transcription, description: 'Spoken languages the model transcribes.',
    }),
    translation: t.field({ type: [LanguageType], resolve: (l) => l.translation, description: 'Target languages of translation.' }),
    voice: t.field({ type: [LanguageType], resolve: (l) => l.voice, description: 'Languages a voice can speak.' }),
  }),
});

export const LatencyMode = builder.enumType('LatencyMode', { values: ['auto', 'fast', 'accuracy'] as const });
export const SpeakerLabels = builder.enumType('SpeakerLabels', { values: ['auto', 'on', 'off'] as const });
const AudioEncoding = builder.enumType('AudioEncoding', { values: ['pcm_f32le'] as const });

const AudioCapabilitiesType = builder.objectRef<{ encodings: 'pcm_f32le'[]; sampleRates: number[]; channels: number[] }>(
  'AudioCapabilities',
).implement({
  fields: (t) => ({
    encodings: t.field({ type: [AudioEncoding], resolve: (a) => a.encodings }),
    sampleRates: t.intList({ resolve: (a) => a.sampleRates }),
    channels: t.intList({ resolve: (a) => a.channels }),
  }),
});

const CapabilityLimitsType = builder.objectRef<{ maxUploadBytes: number; maxDurationS: number }>('CapabilityLimits').implement({
  fields: (t) => ({
    maxUploadBytes: t.float({ resolve: (l) => l.maxUploadBytes, description: 'Largest accepted upload, bytes.' }),
    maxDurationS: t.float({ resolve: (l) => l.maxDurationS, description: 'Longest realtime session, seconds.' }),
  }),
});

const CapabilitiesType = builder.objectRef<RealtimeCapabilities>('Capabilities').implement({
  fields: (t) => ({
    languages: t.stringList({ resolve: (c) => c.languages }),
    speakerLabelModes: t.field({ type: [SpeakerLabels], resolve: (c) => c.speakerLabelModes, description: 'Empty: speaker labels are not '
      + 'offered.' }),
    latencyModes: t.field({ type: [LatencyMode], resolve: (c) => c.latencyModes }),
    audio: t.field({ type: AudioCapabilitiesType, resolve: (c) => c.audio }),
    limits: t.field({ type: CapabilityLimitsType, resolve: (c) => c.limits }),
  }),
});


builder.queryFields((t) => ({
  health: t.field({
    type: HealthType,
    authScopes: { public: true },
    resolve: () => ({ status: 'ok' as const, version: VERSION, time: new Date() }),
  }),
  languages: t.field({
    type: LanguagesType,
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => ctx.services.capabilities.languages(),
  }),
  realtimeCapabilities: t.field({
    type: CapabilitiesType,
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => ctx.services.capabilities.realtime(),
  }),
}));
