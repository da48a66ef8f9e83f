import { builder } from '../core/builder.js';
import { uploadedStream } from '../core/uploads.js';
import { takeStagedSample, type AvailableVoice, type VoiceView } from './service.js';

/** Typed inputs of voices (CreateVoiceFromSpeaker, and the PATCH where every field is optional). */

export const CreateVoiceInput = builder.inputType('CreateVoiceInput', {
  description: 'CreateVoice: what the sample is to become. A voice is trained only with `consent: true` and not as a `draft`.',
  fields: (t) => ({
    name: t.string({ required: true }),
    color: t.string(),
    gender: t.string({ description: '`female` or `male`; default: what the pitch suggests.' }),
    sampleUrl: t.string({ description: 'Where the sample came from (http or https), kept for your records; not fetched.' }),
    consent: t.boolean({ description: 'Default false; must be true to train (the person speaking agreed to have their voice cloned).' }),
    draft: t.boolean({ description: 'Default false; true keeps the voice untrained until an update gives consent and `draft: false`.' }),
  }),
});

export const CreateVoiceFromSpeakerInput = builder.inputType('CreateVoiceFromSpeakerInput', {
  description: 'CreateVoiceFromSpeaker: a recording\'s speaker becomes a voice (at least 30 s of that speaker); naming labels the speaker '
    + 'in the transcript.',
  fields: (t) => ({
    recordingId: t.string({ required: true }),
    speaker: t.int({ required: true, description: 'The speaker index as segments label it (from 0).' }),
    name: t.string({ required: true }),
    color: t.string(),
    consent: t.boolean({ description: 'Default false; must be true (the speaker agreed to have their voice cloned): without it the clone '
      + 'is refused (403).' }),
  }),
});

export const UpdateVoiceInput = builder.inputType('UpdateVoiceInput', {
  description: 'Any of name, color (\'\' clears), enabled; a draft also takes consent: true and draft: false (which starts training). '
    + 'Fields left out stay.',
  fields: (t) => ({
    name: t.string(),
    color: t.string({ description: '`\'\'` or null clears it.' }),
    enabled: t.boolean({ description: 'false switches the voice off: kept, but no longer offered by `availableVoices` (`GET '
      + '/v1/voices/available`) nor spoken by new renders; true again switches it back on.' }),
    consent: t.boolean({ description: 'Only true (a draft\'s consent); consent is withdrawn by deleting the voice.' }),
    draft: t.boolean({ description: 'Only false: trains a draft (with consent).' }),
  }),
});

const VoiceSourceType = builder.objectRef<{ recordingId: string; speaker: number }>('VoiceSource').implement({
  description: 'The recording speaker a voice was made from.',
  fields: (t) => ({ recordingId: t.exposeID('recordingId'), speaker: t.exposeInt('speaker') }),
});

export const VoiceType = builder.objectRef<VoiceView>('Voice').implement({
  description: 'A cloned voice: `training` (progress 0..100) → `ready`, or `failed` with `error`.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    color: t.exposeString('color', { nullable: true, description: 'As given; null when cleared (`color: \'\'`).' }),
    gender: t.exposeString('gender', { nullable: true, description: '`female`, `male` or null (as given; training guesses it from the '
      + 'pitch when null).' }),
    sampleUrl: t.exposeString('sampleUrl', { nullable: true, description: 'Where the sample came from, as given at creation; '
      + 'informational, never fetched.' }),
    consent: t.exposeBoolean('consent', { description: 'The person speaking agreed to have their voice cloned; required to train.' }),
    draft: t.exposeBoolean('draft', { description: 'Kept untrained: state `training` at progress 0 until an update with `consent: true` '
      + 'and `draft: false`.' }),
    enabled: t.exposeBoolean('enabled', { description: 'false: switched off; kept, but not offered among the available voices.' }),
    state: t.exposeString('state', { description: '`training`, `ready` or `failed`.' }),
    progress: t.exposeFloat('progress', { description: 'Percent: 0 when created, moving as candidate styles are tried, 100 when ready.' }),
    error: t.exposeString('error', { nullable: true, description: 'When `failed`: why (e.g. the sample has too little speech: tones, '
      + 'music, noise or silence).' }),
    source: t.field({
      type: VoiceSourceType, nullable: true, description: 'A voice made from a recording\'s speaker.', resolve: (voice) => voice.source,
    }),
    speechS: t.exposeFloat('speechS', { nullable: true, description: 'Seconds of speech measured in the sample (once trained).' }),
    fit: t.field({
      type: VoiceFitType, nullable: true, description: 'What training measured and chose (once trained).', resolve: (voice) => voice.fit,
    }),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
  }),
});

interface VoiceCandidate {
  voice: string;
  distance: number;
}

const VoiceCandidateType = builder.objectRef<VoiceCandidate>('VoiceCandidate').implement({
  description: 'A style training tried.',
  fields: (t) => ({ voice: t.exposeString('voice'), distance: t.exposeFloat('distance') }),
});

const VoiceFitType = builder.objectRef<Record<string, unknown>>('VoiceFit').implement({
  description: 'What training measured in the sample and the catalogue styles it chose. A field the cloner that '
    + 'trained the voice did not report is null.',
  fields: (t) => {
    const float = (name: string, description: string) =>
      t.float({ nullable: true, description, resolve: (fit) => (typeof fit[name] === 'number' ? (fit[name] as number) : null) });
    return {
      cloner: t.string({ description: 'Which cloner trained it (`style-fit`).', resolve: (fit) => String(fit.cloner ?? 'unknown') }),
      speechS: float('speechS', 'Seconds of speech measured in the sample.'),
      pitchHz: float('pitchHz', 'The speaker\'s median pitch.'),
      gender: t.string({
        nullable: true, description: '`female` or `male`, as the pitch suggests.',
        resolve: (fit) => (typeof fit.gender === 'string' ? fit.gender : null),
      }),
      basedOn: t.stringList({
        nullable: true, description: 'The catalogue voices whose styles were blended (one or two).',
        resolve: (fit) => (Array.isArray(fit.basedOn) ? fit.basedOn.map(String) : null),
      }),
      blend: float('blend', 'The weight of the second style in the blend (0 to 1); null for one style.'),
      voicePitchHz: float('voicePitchHz', 'The chosen voice\'s pitch.'),
      distance: float('distance', 'How far the chosen style sounds from the sample (lower is closer).'),
      candidates: t.field({
        type: [VoiceCandidateType], nullable: true, description: 'Every style tried, with its distance.',
        resolve: (fit) => (Array.isArray(fit.candidates) ? (fit.candidates as VoiceCandidate[]) : null),
      }),
    };
  },
});

const VoicePageType = builder.objectRef<{ items: VoiceView[]; nextCursor: string | null }>('VoicePage').implement({
  fields: (t) => ({
    items: t.field({ type: [VoiceType], resolve: (page) => page.items }),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

const AvailableVoiceType = builder.objectRef<AvailableVoice>('AvailableVoice').implement({
  description: 'A voice that can speak the asked language: a catalogue voice, or one of the caller\'s ready cloned voices.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'What `settings.voiceByLang` takes: a catalogue id (`af_heart`) or a cloned voice\'s id.' }),
    kind: t.exposeString('kind', { description: '`catalogue` or `cloned`.' }),
    name: t.exposeString('name'),
    language: t.exposeString('language', { nullable: true, description: 'A catalogue voice\'s language; null for a cloned voice (it '
      + 'speaks every voice language).' }),
    gender: t.exposeString('gender', { nullable: true }),
    default: t.exposeBoolean('default', { description: 'The voice a recording with no pin gets (one per language).' }),
    color: t.exposeString('color', { nullable: true, description: 'A cloned voice\'s colour as its owner gave it; null for a catalogue '
      + 'voice.' }),
  }),
});

const AvailableVoicesType = builder.objectRef<{ lang: string; voices: AvailableVoice[] }>('AvailableVoices').implement({
  fields: (t) => ({
    lang: t.exposeString('lang', { description: 'The voice language asked for, as the catalogue writes it (`en` → `en-US`).' }),
    voices: t.field({ type: [AvailableVoiceType], resolve: (answer) => answer.voices }),
  }),
});

const DeletedVoiceType = builder.objectRef<{ id: string; deleted: boolean }>('DeletedVoice').implement({
  fields: (t) => ({ id: t.exposeID('id'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryFields((t) => ({
  voices: t.field({
    type: VoicePageType,
    description: 'The account\'s cloned voices, newest first, paged with `cursor`.',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.voices.list(ctx.identity!.account.id, args),
  }),
  voice: t.field({
    type: VoiceType,
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.voices.get(ctx.identity!.account.id, String(args.id)),
  }),
  availableVoices: t.field({
    type: AvailableVoicesType,
    description: 'Voices that can speak `lang`, best first (`default` marks the one a recording with no pin gets). Open to anyone; a '
      + 'credential adds that account\'s ready cloned voices.',
    authScopes: { public: true },
    args: { lang: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => {
      // A credential that was presented and refused is answered, not silently ignored.
      if (ctx.credentialError) throw ctx.credentialError;
      return ctx.services.voices.available(ctx.identity, args.lang);
    },
  }),
}));

builder.mutationFields((t) => ({
  createVoice: t.field({
    type: VoiceType,
    description: 'A voice cloned from a sample of someone speaking (`sample`, a GraphQL multipart file; `POST /v1/voices` runs this '
      + 'with the sample it streamed to storage); answers it `training` (or a draft).',
    authScopes: { write: true },
    args: { input: t.arg({ type: CreateVoiceInput, required: true }), sample: t.arg({ type: 'Upload', required: true }) },
    resolve: async (_root, args, ctx) => {
      const voices = ctx.services.voices;
      // The REST route's sample is in storage already; a GraphQL multipart file is stored here first.
      const taken = takeStagedSample(args.sample);
      const upload = taken ? null : uploadedStream(args.sample, 'sample');
      const staged = taken ?? (upload && (await voices.stageSample(upload)));
      return voices.create(ctx.identity!.account.id, args.input, staged);
    },
  }),
  createVoiceFromSpeaker: t.field({
    type: VoiceType,
    description: 'A voice from a recording\'s own audio of one speaker (at least 30 s); answers it `training`. Names the speaker in the '
      + 'transcript.',
    authScopes: { write: true },
    args: { input: t.arg({ type: CreateVoiceFromSpeakerInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.voices.createFromSpeaker(ctx.identity!.account.id, args.input),
  }),
  updateVoice: t.field({
    type: VoiceType,
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateVoiceInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.voices.update(ctx.identity!.account.id, String(args.id), args.input),
  }),
  deleteVoice: t.field({
    type: DeletedVoiceType,
    description: 'Deletes the voice, its sample and everything trained from it.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.voices.delete(ctx.identity!.account.id, String(args.id)),
  }),
}));
