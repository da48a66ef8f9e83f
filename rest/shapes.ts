/**
 * REST response schemas derived from the GraphQL schema and the fragment a route's document selects, so a resource's
 * shape is written once (its Pothos type, with the field descriptions) and the REST answer, which is that
 * selection's data, is described by the same source; and request bodies derived from the GraphQL input type the
 * route's document takes (`inputSchema`), which the route passes on as its variables. OpenAPI 3.0 dialect: a nullable
 * GraphQL field is `nullable: true`, every selected field is `required` (GraphQL answers each one, null or not).
 *
 * Scalars: String and ID are strings, Int a 32-bit integer, Float number, Boolean boolean, JSON any value,
 * LanguageMap an object of strings, Frame an object with a string `type`; a String field named `…At` (or
 * `purgeAfter`) is a `date-time` (the API's convention for instants, which it serves as ISO 8601 strings). Enums list
 * their values. A union selected through an inline fragment on each member is a `oneOf`; interfaces are not derived
 * (write those by hand, or type them first).
 */
import { readFileSync } from 'node:fs';
import {
  buildSchema, getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType, isUnionType,
  Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLInputField, type GraphQLInputObjectType,
  type GraphQLInputType, type GraphQLObjectType, type GraphQLOutputType, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { MAX_KEY_NAME } from '../src/account/service.js';
import { CODE_PATTERN, MAX_PASSWORD, MIN_PASSWORD } from '../src/broadcasts/service.js';
import { MAX_SCRIPT_CHARS } from '../src/live/index.js';
import { MAX_LABEL } from '../src/share-links/service.js';
import { MAX_NAME } from '../src/transcriptions/service.js';
import { MAX_COLOR, MAX_NAME as MAX_VOICE_NAME } from '../src/voices/service.js';

/** JSON Schema (the OpenAPI 3.0 dialect). */
export type JsonSchema = Record<string, unknown>;

/** The checked-in SDL (test/core/schema.test.ts fails when it is not the Pothos schema's print). */
const schema = buildSchema(readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8'));

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
  LanguageMap: { type: 'object', additionalProperties: { type: 'string' } },
  Frame: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
};

const NULL_ONLY: JsonSchema = { type: 'object', nullable: true, enum: [null] };

/** String fields that hold an instant, served as ISO 8601: `…At`, and the purge deadline `purgeAfter`. */
const INSTANT = /At$|^purgeAfter$/;

/**
 * What the GraphQL types cannot say (an enum kept as a String there, a bound), by `Type.field`: merged into that
 * field's derived schema wherever a fragment selects it.
 */
const FIELD_RULES: Record<string, JsonSchema> = {
  'AudioCapabilities.sampleRates': { items: { type: 'integer', format: 'int32', minimum: 1 } },
  'AudioCapabilities.channels': { items: { type: 'integer', format: 'int32', minimum: 1, maximum: 255 } },
  'MicSource.kind': { enum: ['mic'] },
  'StreamSource.kind': { enum: ['stream'] },
  'Purged.purged': { enum: [true] },
  'JobProgress.pct': { minimum: 0, maximum: 100 },
  'JobProgress.phase': { enum: ['fetching', 'extracting', null] },
  'JobProgress.phasePct': { minimum: 0, maximum: 100 },
  'VoiceFit.gender': { enum: ['female', 'male', null] },
  'Settings.speakerLabels': { enum: ['auto', 'on', 'off', null] },
  'Settings.latencyMode': { enum: ['auto', 'fast', 'accuracy', null] },
  'ConfidencePolicy.hideBelow': { minimum: 0, maximum: 1 },
  'ConfidencePolicy.lowThreshold': { minimum: 0, maximum: 1 },
  'ProbeRecord.kind': { enum: ['file', 'live', 'unknown'] },
  'TranslatedSentence.source': { enum: ['cache', 'apertium', 'google', 'llm', 'whisper', 'none'] },
  'Health.status': { enum: ['ok'] },
  'Principal.kind': { enum: ['user', 'api_key'] },
  'Principal.scopes': { items: { type: 'string', enum: ['read', 'write', 'recordings:publish', '*'] } },
  'TranscriptionJob.state': { enum: ['cropping', 'queued', 'fetching', 'transcribing', 'done', 'failed'] },
  'JobQueue.position': { minimum: 1 },
  'Correction.kind': { enum: ['word', 'line'] },
  'Correction.notVoicedReason': { enum: ['rewrite'] },
  'AvailableVoice.kind': { enum: ['catalogue', 'cloned'] },
  'AvailableVoice.gender': { enum: ['female', 'male', null] },
  'Voice.gender': { enum: ['female', 'male', null] },
  'Voice.state': { enum: ['training', 'ready', 'failed'] },
  'Voice.progress': { minimum: 0, maximum: 100 },
  'Recording.kind': { enum: ['file', 'live'] },
  'Recording.state': { enum: ['processing', 'live', 'paused', 'ended', 'finalized'] },
  'Recording.lifecycle': { enum: ['active', 'archived'] },
  'RecordingIngest.state': { enum: ['connecting', 'streaming', 'reconnecting', 'failed'] },
  'RecordingIngest.bytes': { type: 'integer', format: 'int64' },
  'Transcription.kind': { enum: ['file', 'link', 'live'] },
  'Transcription.state': { enum: ['active', 'archived'] },
  'Broadcast.kind': { enum: ['broadcast'] },
  'Broadcast.lifecycle': { enum: ['active', 'archived'] },
  'Broadcast.recordingCount': { format: 'int64', minimum: 0 },
  'Broadcast.listenersNow': { format: 'int64', minimum: 1 },
  'CurrentRecording.state': { enum: ['processing', 'live', 'paused', 'ended', 'finalized'] },
  'LastRecording.kind': { enum: ['live', 'file'] },
  'LastRecording.state': { enum: ['processing', 'live', 'paused', 'ended', 'finalized'] },
  'LastRecording.lifecycle': { enum: ['active', 'archived'] },
  'AudioSourceCheck.httpStatus': { minimum: 100, maximum: 599 },
  'VoiceClip.textFrom': { enum: ['corrected', 'recognized'] },
  'VoiceTrackJob.state': { enum: ['queued', 'rendering', 'done', 'failed'] },
  'VoiceTrackJob.progress': { minimum: 0, maximum: 100 },
  'RecordingSummary.state': { enum: ['ready', 'pending', 'unavailable'] },
  'RecordingSummary.reason': { enum: ['off', 'failed', 'missing', 'no_transcript', null] },
  'RecordingEvent.at': { format: 'date-time' },
  'SubscriptionView.interval': { enum: ['month', 'year'] },
  'PendingChange.kind': { enum: ['cancel', 'interval'] },
  'PendingChange.at': { format: 'date-time' },
  'AutoTopUpAttempt.at': { format: 'date-time' },
  'AutoTopUpAttempt.outcome': { enum: ['paid', 'declined', 'pending'] },
  'DateRange.start': { format: 'date' },
  'DateRange.end': { format: 'date' },
  'CheckoutView.kind': { enum: ['topup', 'subscribe'] },
  'CheckoutView.status': { enum: ['open', 'succeeded', 'expired', 'failed'] },
  'Payment.status': { enum: ['paid', 'pending', 'failed', 'refunded', 'credit'] },
  'Payment.document': { enum: ['invoice', 'receipt'] },
  'PaymentDocument.document': { enum: ['invoice', 'receipt', null] },
  'LedgerEntry.kind': {
    enum: ['signup_credit', 'top_up', 'monthly_credit', 'monthly_credit_removed', 'charge', 'correction', 'refund', 'adjustment'],
  },
  'RecordingCharge.kind': { enum: ['file', 'live'] },
  'RecordingCharge.state': { enum: ['open', 'settled', 'void'] },
  'UsageReport.startDate': { format: 'date' },
  'UsageReport.endDate': { format: 'date' },
  'UsageDay.date': { format: 'date' },
  'UsageByKind.kind': { enum: ['file', 'live'] },
  'UsageChargePage.startDate': { format: 'date' },
  'UsageChargePage.endDate': { format: 'date' },
  'UsageCharge.type': { enum: ['charge', 'correction'] },
  'UsageCharge.kind': { enum: ['file', 'live'] },
  'UsageCharge.state': { enum: ['open', 'settled', 'void'] },
  'UsageCharge.at': { format: 'date-time' },
};

/**
 * The JSON Schema of the data a fragment selects: `fragmentSchema(ShareLinkFieldsFragmentDoc)`. `patch` adds to or
 * replaces properties (a constraint GraphQL cannot say, such as a `maxItems`).
 */
export function fragmentSchema(document: DocumentNode, patch: Record<string, JsonSchema> = {}): JsonSchema {
  const derivation = derivationOf(document);
  const [first] = derivation.fragments.values();
  if (!first) throw new Error('fragmentSchema: the document holds no fragment');
  const type = schema.getType(first.typeCondition.name.value);
  if (!isObjectType(type)) throw new Error(`fragmentSchema: ${first.typeCondition.name.value} is not an object type`);
  const derived = objectSchema(type, first.selectionSet, derivation);
  return { ...derived, properties: { ...(derived.properties as Record<string, JsonSchema>), ...patch } };
}

/**
 * The JSON Schema of what an operation answers under its one root field (`data.recordingMediaToken`): a route whose
 * answer is that field's data declares it so, fragments or not. `refs` names fragments that are OpenAPI components: a
 * field whose whole selection is one of them is that component's `$ref` (`{ LanguageFields: ref('Language') }`).
 */
export function resultSchema(document: DocumentNode, refs: Record<string, JsonSchema> = {}): JsonSchema {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error('resultSchema: the document holds no operation');
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const [selection, ...more] = operation.selectionSet.selections;
  if (!root || !selection || more.length || selection.kind !== Kind.FIELD) {
    throw new Error('resultSchema: the operation must select one root field');
  }
  const field = root.getFields()[selection.name.value];
  if (!field) throw new Error(`resultSchema: ${root.name} has no field ${selection.name.value}`);
  // The root field's description says what the operation does; the route says that itself.
  const derivation = { ...derivationOf(document), refs };
  const { description: _operation, ...answer } = fieldSchema(field, field.type, selection.selectionSet, derivation);
  return answer;
}

/** A document's fragments by name, and the ones that stand for a named component. */
interface Derivation { fragments: Map<string, FragmentDefinitionNode>; refs: Record<string, JsonSchema> }

function derivationOf(document: DocumentNode): Derivation {
  const definitions = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  return { fragments: new Map(definitions.map((d) => [d.name.value, d])), refs: {} };
}

/** The component a selection stands for: one spread of a fragment `refs` names, and nothing beside it. */
function componentOf(set: SelectionSetNode, refs: Record<string, JsonSchema>): JsonSchema | undefined {
  const [only, ...more] = set.selections;
  return !more.length && only?.kind === Kind.FRAGMENT_SPREAD ? refs[only.name.value] : undefined;
}

function objectSchema(type: GraphQLObjectType, selectionSet: SelectionSetNode, derivation: Derivation): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = derivation.fragments.get(selection.name.value);
        if (!fragment) throw new Error(`fragmentSchema: fragment ${selection.name.value} is not in the document`);
        visit(fragment.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition && selection.typeCondition.name.value !== type.name) {
          throw new Error(`fragmentSchema: ${type.name} selects on ${selection.typeCondition.name.value}`);
        }
        visit(selection.selectionSet);
      } else {
        const name = selection.alias?.value ?? selection.name.value;
        if (selection.name.value === '__typename') { properties[name] = { type: 'string', enum: [type.name] }; continue; }
        const field = type.getFields()[selection.name.value];
        if (!field) throw new Error(`fragmentSchema: ${type.name} has no field ${selection.name.value}`);
        const rule = FIELD_RULES[`${type.name}.${field.name}`];
        properties[name] = { ...fieldSchema(field, field.type, selection.selectionSet, derivation), ...rule };
      }
    }
  };
  visit(selectionSet);
  return { type: 'object', required: Object.keys(properties), properties };
}

/** A union member's part of a selection: the inline fragments on it (each member must be selected on its own). */
function memberSelection(member: GraphQLObjectType, set: SelectionSetNode): SelectionSetNode {
  const selections = set.selections.flatMap((selection) => {
    if (selection.kind !== Kind.INLINE_FRAGMENT || !selection.typeCondition) {
      throw new Error(`fragmentSchema: a union is selected only through inline fragments on its members (${member.name})`);
    }
    return selection.typeCondition.name.value === member.name ? selection.selectionSet.selections : [];
  });
  if (!selections.length) throw new Error(`fragmentSchema: the selection leaves out the union member ${member.name}`);
  return { kind: Kind.SELECTION_SET, selections };
}

function fieldSchema(
  field: GraphQLField<unknown, unknown>, type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, derivation: Derivation,
): JsonSchema {
  // A field without its own description takes its type's (an enum says what each value means).
  const named = getNamedType(type);
  const description = field.description ?? (isEnumType(named) || isObjectType(named) ? named.description : undefined);
  // OpenAPI 3.0 ignores what stands beside a `$ref`: a component says its own description.
  const described = (out: JsonSchema): JsonSchema => (description && !out.$ref ? { ...out, description } : out);
  const shape = (of: GraphQLOutputType): JsonSchema => {
    const nullable = !isNonNullType(of);
    const inner = isNonNullType(of) ? of.ofType : of;
    let out: JsonSchema;
    if (isListType(inner)) out = { type: 'array', items: shape(inner.ofType) };
    else if (isEnumType(inner)) out = { type: 'string', enum: inner.getValues().map((v) => v.value) };
    else if (isScalarType(inner)) {
      const scalar = SCALARS[inner.name];
      if (!scalar) throw new Error(`fragmentSchema: no JSON Schema for the scalar ${inner.name}`);
      out = inner.name === 'String' && INSTANT.test(field.name) ? { type: 'string', format: 'date-time' } : scalar;
    } else if (isObjectType(inner)) {
      if (!selectionSet) throw new Error(`fragmentSchema: ${field.name} selects no fields of ${inner.name}`);
      const component = componentOf(selectionSet, derivation.refs);
      // Nor could a `$ref` say it is nullable.
      if (component && nullable) throw new Error(`fragmentSchema: ${field.name} is nullable, so it cannot be a $ref`);
      out = component ?? objectSchema(inner, selectionSet, derivation);
    } else if (isUnionType(inner)) {
      if (!selectionSet) throw new Error(`fragmentSchema: ${field.name} selects no fields of ${inner.name}`);
      out = { oneOf: inner.getTypes().map((member) => objectSchema(member, memberSelection(member, selectionSet), derivation)) };
    } else throw new Error(`fragmentSchema: ${field.name} is a ${inner.toString()}, not derived (interfaces are written by hand)`);
    if (!nullable || Object.keys(out).length === 0) return out;
    // OpenAPI 3.0's `nullable` needs a `type` beside it: a nullable union is a member that is only null.
    if (out.oneOf) return { oneOf: [...(out.oneOf as JsonSchema[]), NULL_ONLY] };
    // `nullable` does not widen an `enum` (a validator checks the enum on its own): a nullable enum lists null.
    return { ...out, nullable: true, ...(out.enum ? { enum: [...(out.enum as unknown[]), null] } : {}) };
  };
  return described(shape(type));
}

const NEXT_CURSOR: JsonSchema = { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page.' };

/** REST's wrapper for a list GraphQL answers bare: the items under the resource's plural name (`{paymentMethods: […]}`). */
export function listSchema(name: string, item: JsonSchema): JsonSchema {
  return { type: 'object', required: [name], properties: { [name]: { type: 'array', items: item } } };
}

/**
 * A page as REST answers a list (`withoutLastCursor`): the items under the resource's plural name, and
 * `nextCursor` only when there is a next page.
 */
export function pageSchema(name: string, item: JsonSchema): JsonSchema {
  const list = listSchema(name, item);
  return { ...list, properties: { ...(list.properties as Record<string, JsonSchema>), nextCursor: NEXT_CURSOR } };
}

/**
 * What a route answers with `withoutLastCursor(data.<root field>)`: the operation's page as GraphQL answers it, but
 * `nextCursor` only when there is a next page (REST leaves out the null GraphQL answers on the last one).
 */
export function cursorPageSchema(document: DocumentNode): JsonSchema {
  const page = resultSchema(document);
  const properties = page.properties as Record<string, JsonSchema> | undefined;
  if (!properties?.nextCursor) throw new Error('cursorPageSchema: the operation answers no nextCursor');
  const required = (page.required as string[]).filter((name) => name !== 'nextCursor');
  return { ...page, required, properties: { ...properties, nextCursor: NEXT_CURSOR } };
}

/** A name as the services take it (parseName in src/transcriptions/service.ts): not blank, at most MAX_NAME characters. */
const NAME: JsonSchema = { minLength: 1, maxLength: MAX_NAME, pattern: '\\S' };

/** A share link's label (parseShareLinkInput in src/share-links/service.ts): not blank, at most MAX_LABEL characters. */
const SHARE_LINK_LABEL: JsonSchema = { minLength: 1, maxLength: MAX_LABEL, pattern: '\\S' };

/** A line's segments (corrections): at least one committed seq. */
const SEQS: JsonSchema = { minItems: 1, items: { type: 'integer', format: 'int32', minimum: 0 } };

/** A voice's name and colour (src/voices/service.ts: MAX_NAME, MAX_COLOR). */
const VOICE_NAME: JsonSchema = { minLength: 1, maxLength: MAX_VOICE_NAME };
const VOICE_COLOR: JsonSchema = { maxLength: MAX_COLOR };

/** A broadcast's code and password (src/broadcasts/service.ts: CODE_PATTERN, MIN_PASSWORD, MAX_PASSWORD). */
const BROADCAST_CODE: JsonSchema = { minLength: 3, maxLength: 64, pattern: CODE_PATTERN.source };
const BROADCAST_PASSWORD: JsonSchema = { minLength: MIN_PASSWORD, maxLength: MAX_PASSWORD };

/** `voiceByLang` (src/core/voice-pins.ts): a JSON scalar in GraphQL, an object from a voice language to a voice id. */
const VOICE_PINS: JsonSchema = { type: 'object', nullable: true, additionalProperties: { type: 'string' } };

/**
 * What GraphQL input types cannot say, by `InputType.field`: bounds, a pattern, a default, and `nullable: false` where
 * the service refuses a null GraphQL lets through (an optional GraphQL field is always nullable). Merged into the
 * field's derived schema wherever the input type is taken, nested or not.
 */
const INPUT_RULES: Record<string, JsonSchema> = {
  'CreateTranscriptionInput.name': NAME,
  'CreateTranscriptionInput.crop': { default: false },
  'CreateTranscriptionInput.startS': { minimum: 0 },
  'CreateTranscriptionInput.endS': { minimum: 0 },
  'CreateTranscriptionInput.durationS': { minimum: 0 },
  'CreateLiveTranscriptionInput.name': NAME,
  'CreateLiveTranscriptionInput.broadcasts': { items: { type: 'string', minLength: 1, maxLength: 100 } },
  'UpdateTranscriptionInput.name': { ...NAME, nullable: false },
  'CreateBroadcastInput.name': NAME,
  'CreateBroadcastInput.access': { default: 'public' },
  'CreateBroadcastInput.code': BROADCAST_CODE,
  'CreateBroadcastInput.password': BROADCAST_PASSWORD,
  'UpdateBroadcastInput.name': { ...NAME, nullable: false },
  'UpdateBroadcastInput.access': { nullable: false },
  'UpdateBroadcastInput.code': { ...BROADCAST_CODE, nullable: false },
  'UpdateBroadcastInput.password': BROADCAST_PASSWORD,
  'StartBroadcastRecordingInput.scriptText': { maxLength: MAX_SCRIPT_CHARS },
  'CreateAudioSourceInput.url': { minLength: 1 },
  'CreateAudioSourceInput.name': NAME,
  'StartRecordingInput.scriptText': { maxLength: MAX_SCRIPT_CHARS },
  'RecordingSettingsInput.translate': { maxItems: 10 },
  'RecordingSettingsInput.voiceByLang': VOICE_PINS,
  'CreateShareLinkInput.label': SHARE_LINK_LABEL,
  'UpdateShareLinkInput.label': { ...SHARE_LINK_LABEL, nullable: false },
  'WordEditInput.seq': { minimum: 0 },
  'WordEditInput.wordIdx': { minimum: 0 },
  // Item strings' lengths are said in the descriptions: the service checks them, naming the item.
  'WordEditInput.to': { minLength: 1 },
  'LineEditInput.seqs': SEQS,
  'LineEditInput.text': { minLength: 1 },
  'RetranscribeInput.seqs': SEQS,
  'CreateVoiceInput.name': VOICE_NAME,
  'CreateVoiceInput.color': VOICE_COLOR,
  'CreateVoiceInput.gender': { enum: ['female', 'male', null] },
  'CreateVoiceInput.consent': { default: false },
  'CreateVoiceInput.draft': { default: false },
  'CreateVoiceFromSpeakerInput.speaker': { minimum: 0 },
  'CreateVoiceFromSpeakerInput.name': VOICE_NAME,
  'CreateVoiceFromSpeakerInput.color': VOICE_COLOR,
  'CreateVoiceFromSpeakerInput.consent': { default: false },
  'UpdateVoiceInput.name': { ...VOICE_NAME, nullable: false },
  'UpdateVoiceInput.color': VOICE_COLOR,
  'UpdateVoiceInput.enabled': { nullable: false },
  'UpdateVoiceInput.consent': { nullable: false, enum: [true] },
  'UpdateVoiceInput.draft': { nullable: false, enum: [false] },
  'CropWindowInput.startS': { minimum: 0, default: 0 },
  'CropWindowInput.endS': { minimum: 0 },
  'CreateApiKeyInput.name': { minLength: 1, maxLength: MAX_KEY_NAME, pattern: '\\S' },
  'CreateApiKeyInput.scopes': { minItems: 1, items: { type: 'string', enum: ['read', 'write', 'recordings:publish', '*'] } },
  'RealtimeSessionOptionsInput.translate': {
    maxItems: 10, items: { type: 'string', description: 'A language code from `GET /v1/realtime/capabilities` `languages`.' },
  },
  'RealtimeSessionOptionsInput.voiceByLang': VOICE_PINS,
  'SettingsPatchInput.spokenLanguage': { pattern: '^(auto|[a-z]{2,3}(-[A-Za-z]{2,4})?)?$' },
  'SettingsPatchInput.voiceByLang': VOICE_PINS,
  'ConfidencePolicyInput.hideBelow': { nullable: false, minimum: 0, maximum: 1 },
  'ConfidencePolicyInput.lowThreshold': { nullable: false, minimum: 0, maximum: 1 },
  // The service's range, a uint32 (src/transcript/confidence.ts), as REST has always documented it; GraphQL's Int
  // coercion refuses more than 2^31 - 1 on the routes that run the mutation.
  'ConfidencePolicyInput.suppressCount': { nullable: false, format: undefined, minimum: 0, maximum: 4294967295 },
};

/** What one REST body says beyond its GraphQL input type (REST-specific: the rest belongs in INPUT_RULES). */
export interface InputOverrides {
  /** Fields REST requires though GraphQL does not (the JSON create requires `url`): required, not nullable. */
  required?: string[];
  /** Fields REST does not take (an upload's options have no `shareLink`). */
  omit?: string[];
  /** Merged into a field's derived schema, after its INPUT_RULES entry. */
  properties?: Record<string, JsonSchema>;
  /** Merged into the body's own schema (a `nullable`, a `description`). */
  schema?: JsonSchema;
}

/**
 * The JSON Schema of a GraphQL input object type as a REST body takes it: `inputSchema('CreateShareLinkInput')`.
 * Unknown keys are refused (`additionalProperties: false`), non-null fields are required, the others nullable;
 * enums list their values (and null when nullable), lists are arrays, nested input types recurse.
 */
export function inputSchema(typeName: string, overrides: InputOverrides = {}): JsonSchema {
  const type = schema.getType(typeName);
  if (!isInputObjectType(type)) throw new Error(`inputSchema: ${typeName} is not an input type`);
  const derived = inputObjectSchema(type, overrides.omit ?? []);
  const properties = derived.properties as Record<string, JsonSchema>;
  for (const [name, patch] of Object.entries(overrides.properties ?? {})) {
    if (!properties[name]) throw new Error(`inputSchema: ${typeName} has no field ${name}`);
    properties[name] = withRule(properties[name], patch);
  }
  const required = [...(derived.required as string[] | undefined ?? [])];
  for (const name of overrides.required ?? []) {
    if (!properties[name]) throw new Error(`inputSchema: ${typeName} has no field ${name}`);
    properties[name] = withRule(properties[name], { nullable: false });
    if (!required.includes(name)) required.push(name);
  }
  const { required: _derived, ...rest } = derived;
  const described = type.description ? { description: type.description } : {};
  return { ...rest, ...(required.length ? { required } : {}), ...described, ...overrides.schema };
}

function inputObjectSchema(type: GraphQLInputObjectType, omit: string[] = []): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (omit.includes(field.name)) continue;
    if (isNonNullType(field.type)) required.push(field.name);
    properties[field.name] = withRule(inputFieldSchema(field), INPUT_RULES[`${type.name}.${field.name}`] ?? {});
  }
  return { type: 'object', additionalProperties: false, ...(required.length ? { required } : {}), properties };
}

/**
 * A rule merged over a derived schema: a key the rule sets to undefined is dropped, and `nullable: false` takes the
 * derived `nullable` (and a null enum value) away.
 */
function withRule(derived: JsonSchema, rule: JsonSchema): JsonSchema {
  const merged = Object.fromEntries(Object.entries({ ...derived, ...rule }).filter(([, value]) => value !== undefined));
  if (rule.nullable !== false) return merged;
  const { nullable: _nullable, ...out } = merged;
  return Array.isArray(out.enum) && !Array.isArray(rule.enum) ? { ...out, enum: out.enum.filter((v) => v !== null) } : out;
}

function inputFieldSchema(field: GraphQLInputField): JsonSchema {
  const named = getNamedType(field.type);
  const description = field.description ?? (isEnumType(named) || isInputObjectType(named) ? named.description : undefined);
  const out = inputTypeSchema(field.type);
  return description ? { ...out, description } : out;
}

/** A nullable type: its value's schema with `nullable` (OpenAPI 3.0 needs a `type` beside it; JSON takes null already). */
function inputTypeSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return inputValueSchema(type.ofType);
  const out = inputValueSchema(type);
  if (!Object.keys(out).length) return out;
  return Array.isArray(out.enum) ? { ...out, nullable: true, enum: [...out.enum, null] } : { ...out, nullable: true };
}

function inputValueSchema(type: GraphQLInputType): JsonSchema {
  if (isListType(type)) return { type: 'array', items: inputTypeSchema(type.ofType) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value) };
  if (isInputObjectType(type)) return inputObjectSchema(type);
  if (isNonNullType(type) || !SCALARS[type.name]) throw new Error(`inputSchema: no JSON Schema for ${type.toString()}`);
  return SCALARS[type.name]!;
}
