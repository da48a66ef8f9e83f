/**
 * Typed inputs of file and link transcriptions, with the spec's field names (CreateTranscription, SettingsPatch,
 * ConfidencePolicy, CropWindow). The service validates the values (ranges, codes, combinations) and names the
 * field it refuses; the REST routes run the same validation on the raw body first, so an unknown field or a
 * wrong type answers `400 invalid_options` naming it rather than GraphQL's coercion message.
 */
import { builder } from '../builder.js';
import { SpeakerLabels } from '../meta/index.js';

export const ConfidencePolicyInput = builder.inputType('ConfidencePolicyInput', {
  description: 'ConfidencePolicy: when a line is hidden as unclear and which words are low confidence.',
  fields: (t) => ({
    hideBelow: t.float({ description: '0..1, default 0.60: a line whose confidence is below it is flagged unclear.' }),
    lowThreshold: t.float({ description: '0..1: words with `prob` below it are low confidence.' }),
    suppressCount: t.int({ description: 'No longer read; accepted so stored settings round-trip.' }),
  }),
});

export const SettingsPatchInput = builder.inputType('SettingsPatchInput', {
  description: 'SettingsPatch: capture settings of a file job; in an update, keys left out stay and null clears one.',
  fields: (t) => ({
    spokenLanguage: t.string({ description: 'A language code; absent, empty, `auto` or null: detect.' }),
    speakerLabels: t.field({ type: SpeakerLabels }),
    confidencePolicy: t.field({ type: ConfidencePolicyInput, description: 'null clears a stored policy (back to the default).' }),
  }),
});

export const CreateTranscriptionInput = builder.inputType('CreateTranscriptionInput', {
  description: 'CreateTranscription: a link (`url`) or, with an uploaded file, its options.',
  fields: (t) => ({
    url: t.string({ description: 'Fetched server-side; absent for a file upload.' }),
    name: t.string({ description: 'Default: the file name or the URL.' }),
    settings: t.field({ type: SettingsPatchInput }),
    crop: t.boolean({ description: 'Default false: open the cropping step (waveform, preview) before transcribing.' }),
    startS: t.float({ description: 'Window to transcribe (seconds); not together with `crop`.' }),
    endS: t.float(),
    durationS: t.float({ description: 'Source length as measured by the client.' }),
    shareLink: t.boolean({ description: 'Default true: make the default share link (download, export, translate on).' }),
  }),
});

export const UpdateTranscriptionInput = builder.inputType('UpdateTranscriptionInput', {
  description: 'Rename (`name`) or change the default settings (`settings`, merged key by key; null clears a key).',
  fields: (t) => ({
    name: t.string(),
    settings: t.field({ type: SettingsPatchInput }),
  }),
});

export const CropWindowInput = builder.inputType('CropWindowInput', {
  description: 'CropWindow: the part of the source to transcribe (seconds); transcript times count from `startS`.',
  fields: (t) => ({
    startS: t.float({ description: 'Default 0.' }),
    endS: t.float({ description: 'Absent or null: to the end.' }),
  }),
});
