/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Access =
  | 'private'
  | 'public';

export type AudioEncoding =
  | 'pcm_f32le';

/** `ready`: the address as given was opened and audio came back, so a recording from it pulls it. `error`: it could not be opened or gave nothing playable. */
export type AudioSourceState =
  | 'error'
  | 'ready';

/** AutoTopUpSettings; turning it off keeps the saved threshold and amount. */
export type AutoTopUpSettingsInput = {
  /** Dollars inside autoTopUp.amountRange; required to turn it on. */
  amount?: number | null | undefined;
  enabled: boolean;
  /** Dollars inside autoTopUp.thresholdRange; required to turn it on. */
  threshold?: number | null | undefined;
};

/** BillingDetails: replaces the saved record (a field left out takes its default: empty, or null for country and taxId). */
export type BillingDetailsInput = {
  city?: string | null | undefined;
  /** ISO 3166-1 alpha-2 (any case); required with a taxId. */
  country?: string | null | undefined;
  /** Empty: use the sign-in email. */
  email?: string | null | undefined;
  line1?: string | null | undefined;
  name?: string | null | undefined;
  postalCode?: string | null | undefined;
  /** In an EU country: its VAT ID, the country prefix (Greece: EL) and 8 to 12 letters or digits; elsewhere 4 to 20 letters or digits. Spaces, dots and dashes are dropped. */
  taxId?: string | null | undefined;
};

/** CaptureSource: a publisher's microphone (`mic`, the default) or a live stream the server pulls (`stream` with `url`). */
export type CaptureSourceInput = {
  kind: CaptureSourceKind;
  /** For `stream`: the http(s) address of the live audio; private, loopback and metadata addresses are refused (400, `details.problem` `link_refused`). */
  url?: string | null | undefined;
};

export type CaptureSourceKind =
  | 'mic'
  | 'stream';

export type CheckPromoCodeInput = {
  code: string;
  /** `topup` or `subscribe`. */
  for: string;
};

/** ConfidencePolicy: when a line is hidden as unclear and which words are low confidence. */
export type ConfidencePolicyInput = {
  /** 0..1, default 0.60: a line whose confidence is below it is flagged unclear. */
  hideBelow?: number | null | undefined;
  /** 0..1: words with `prob` below it are low confidence. */
  lowThreshold?: number | null | undefined;
  /** No longer read; accepted so stored settings round-trip. */
  suppressCount?: number | null | undefined;
};

/** CorrectionBatch: `edits` then `lines`, applied atomically; at least one edit or line, at most 500 together. */
export type CorrectionBatchInput = {
  /** Word edits (WordEdit: replace word `wordIdx`, from 0, of segment `seq` with `to`), applied first, in order. */
  edits?: Array<WordEditInput> | null | undefined;
  /** Whole-line rewrites (LineEdit: rewrite segments `seqs`, consecutive and in order, as `text`; its words are spread over the segments by their duration), applied after `edits`. */
  lines?: Array<LineEditInput> | null | undefined;
};

export type CreateApiKeyInput = {
  /** RFC 3339, in the future; absent or null: never expires. */
  expiresAt?: string | null | undefined;
  /** Label shown in listings (defaults to the key prefix). Not blank; at most 200 characters. */
  name?: string | null | undefined;
  /** read, write, recordings:publish or * (default: the caller's own; never more: 403). */
  scopes?: Array<string> | null | undefined;
};

/** CreateAudioSource: `url` (http or https address of the stream), `name` (the address's host when left out). */
export type CreateAudioSourceInput = {
  /** Default: the address's host. Not blank; at most 300 characters; trimmed. */
  name?: string | null | undefined;
  /** The http or https address of the stream (an internet radio, an HLS playlist, a platform's live stream), at most 2048 characters. Private, loopback and cloud-metadata addresses are refused (400, `details.problem` `link_refused`). */
  url: string;
};

/** CreateBroadcast: `name`; `code` (derived from the name when left out), `access` (public), `password` (required when private), `settings`, `source` (mic). */
export type CreateBroadcastInput = {
  /** Default: public. */
  access?: Access | null | undefined;
  /** The link listeners open: 3 to 64 lower-case letters, digits and inner hyphens; globally unique. Default: derived from `name` (a short suffix when that is taken). */
  code?: string | null | undefined;
  /** Not blank; at most 300 characters; trimmed. */
  name: string;
  /** Required when `access` is private (4 to 200 characters); listeners of a private broadcast prove it; only its hash is kept. */
  password?: string | null | undefined;
  settings?: SettingsPatchInput | null | undefined;
  /** Default: mic (`{kind: "mic"}`); set at creation, never changed. */
  source?: CaptureSourceInput | null | undefined;
};

export type CreateCheckoutInput = {
  /** Default false; must be true. */
  acceptTerms?: boolean | null | undefined;
  /** Top-up: whole-cent amount inside the plan list's `topUpRange`. */
  amount?: number | null | undefined;
  /** Subscription: `month` or `year`. */
  interval?: string | null | undefined;
  /** `topup` or `subscribe`. */
  kind: string;
  /** Subscription: the plan. */
  planId?: string | null | undefined;
  promoCode?: string | null | undefined;
  /** Deprecated and ignored. */
  waiveWithdrawal?: boolean | null | undefined;
};

/** CreateLiveTranscription: created idle, with no recording until one is started. */
export type CreateLiveTranscriptionInput = {
  /** Broadcast ids to feed from the start (default none): active broadcasts of this account, otherwise 404 naming `broadcasts`. */
  broadcasts?: Array<string> | null | undefined;
  /** Not blank; at most 300 characters; trimmed. */
  name: string;
  settings?: SettingsPatchInput | null | undefined;
  /** Default: mic (`{kind: "mic"}`). */
  source?: CaptureSourceInput | null | undefined;
};

/** CreateShareLink: who the link is for; permissions default to on. */
export type CreateShareLinkInput = {
  /** Default true. */
  allowDownload?: boolean | null | undefined;
  /** Default true. */
  allowExport?: boolean | null | undefined;
  /** Default true. */
  allowTranslate?: boolean | null | undefined;
  /** Who the link is for. Not blank; at most 200 characters; trimmed. */
  label: string;
};

/** CreateTranscription: a link (`url`) or, with an uploaded file, its options. */
export type CreateTranscriptionInput = {
  /** Default false: open the cropping step (waveform peaks and `/job/preview`) before transcribing; not with `startS`/`endS`. */
  crop?: boolean | null | undefined;
  /** Source length as measured by the client. */
  durationS?: number | null | undefined;
  /** End of the window, in seconds; must be greater than `startS` (not with `crop`). */
  endS?: number | null | undefined;
  /** Default: the file name or the URL. Not blank; at most 300 characters; trimmed. */
  name?: string | null | undefined;
  settings?: SettingsPatchInput | null | undefined;
  /** Default true: make the default share link (download, export, translate on). */
  shareLink?: boolean | null | undefined;
  /** Start of the window to transcribe, in seconds; not together with `crop`. */
  startS?: number | null | undefined;
  /** An http or https link, fetched server-side; absent for a file upload. Private, loopback and cloud-metadata addresses are refused (400, `details.problem` `link_refused`). */
  url?: string | null | undefined;
};

/** CreateVoiceFromSpeaker: a recording's speaker becomes a voice (at least 30 s of that speaker); naming labels the speaker in the transcript. */
export type CreateVoiceFromSpeakerInput = {
  color?: string | null | undefined;
  /** Default false; must be true (the speaker agreed to have their voice cloned): without it the clone is refused (403). */
  consent?: boolean | null | undefined;
  name: string;
  recordingId: string;
  /** The speaker index as segments label it (from 0). */
  speaker: number;
};

/** CreateVoice: what the sample is to become. A voice is trained only with `consent: true` and not as a `draft`. */
export type CreateVoiceInput = {
  color?: string | null | undefined;
  /** Default false; must be true to train (the person speaking agreed to have their voice cloned). */
  consent?: boolean | null | undefined;
  /** Default false; true keeps the voice untrained until an update gives consent and `draft: false`. */
  draft?: boolean | null | undefined;
  /** `female` or `male`; default: what the pitch suggests. */
  gender?: string | null | undefined;
  name: string;
  /** Where the sample came from (http or https), kept for your records; not fetched. */
  sampleUrl?: string | null | undefined;
};

/** CropWindow: the part of the source to transcribe (seconds); transcript times count from `startS`. */
export type CropWindowInput = {
  /** Seconds, greater than `startS`; absent or null: to the end. */
  endS?: number | null | undefined;
  /** Seconds; default 0 (absent or null: the start). */
  startS?: number | null | undefined;
};

/** What a fix changed: `https` (the http address over https, after `unreachable`, `http_error` or `not_audio`), `playlist` (the first stream the playlist lists that plays), `page` (the first audio or video the page names, by `<audio>`/`<video>`/`<source>`, `og:audio`/`og:video` or a link to a media file, that plays). */
export type FixKind =
  | 'https'
  | 'page'
  | 'playlist';

export type LatencyMode =
  | 'accuracy'
  | 'auto'
  | 'fast';

/** LineEdit: rewrite a whole line, one segment or several neighbouring ones. */
export type LineEditInput = {
  /** The line's segments: consecutive seqs in order (4, 5, 6). */
  seqs: Array<number>;
  /** The line as it should read; its words are spread over the segments by duration. Not blank; at most 5000 characters. */
  text: string;
};

export type LowBalanceAlertInput = {
  enabled: boolean;
  /** Dollars, whole cents inside the plan list's lowBalanceAlert.range; required to turn it on. */
  threshold?: number | null | undefined;
};

/** Realtime session options; absent fields take their defaults. */
export type RealtimeSessionOptionsInput = {
  latencyMode?: LatencyMode | null | undefined;
  /** AI-assisted auto-fix: each committed line is fixed by the chat model the server names in `LLM_FIX_API_URL` (`transcript.latency` says how each ended; a late fix comes as `transcript.amended`). A server without one answers `true` with 400 `invalid_options` naming `llmFix` (false is accepted). */
  llmFix?: boolean | null | undefined;
  /** `on` or `auto`: each commit gets a provisional `speaker` (from 0, `speakerProvisional: true`, `speakerConfidence`), assigned online from what was heard so far; a `transcript.speaker` frame (`seq`, `speaker`, `speakerConfidence`, `speakerProvisional: false`) settles it once about 20 s more speech was labelled, and at the end every label is settled. Drafts carry the speaker they would get now. `off` (the default at creation): -1. Turned on by `session.update`, labels start from that point; earlier segments are not labelled. */
  speakerLabels?: SpeakerLabels | null | undefined;
  /** A language code of `realtimeCapabilities.languages`; absent, empty or `auto`: detect. */
  spokenLanguage?: string | null | undefined;
  /** Target language codes (at most 10); `[]` is off. */
  translate?: Array<string> | null | undefined;
  /** Languages to speak, or `lang:voice` pairs. */
  voice?: Array<string> | null | undefined;
  /** An open map: language code → voice name; `{}` clears every pin. */
  voiceByLang?: unknown;
};

/** A recording's settings: capture settings of a running live recording, and its own confidence policy (any recording, any state); fields left out stay, null sets a field back to its default. */
export type RecordingSettingsInput = {
  /** The recording's own ConfidencePolicy, over its transcription's and broadcasts'; taken in any state when sent without capture settings; null clears it. */
  confidencePolicy?: ConfidencePolicyInput | null | undefined;
  latencyMode?: LatencyMode | null | undefined;
  /** From the next line on, each committed line is fixed by the chat model the server names (`LLM_FIX_API_URL`; a late fix is stored with a `transcript.amended` event). A server without one refuses `true` (400 `invalid_options` naming `llmFix`). Null: off. */
  llmFix?: boolean | null | undefined;
  /** From the next segment on: `on` and `auto` label speakers (provisionally, settled by `transcript.speaker` frames), `off` stops; earlier segments keep their labels. */
  speakerLabels?: SpeakerLabels | null | undefined;
  /** A language code (`GET /v1/languages`); empty, `auto` or null: detect. */
  spokenLanguage?: string | null | undefined;
  /** Languages each commit is translated into from the next one on (`GET /v1/languages` lists the targets): a `transcript.translated` frame to the publisher and subscribers, the translations kept with the segment. `[]` or null: none. */
  translate?: Array<string> | null | undefined;
  /** Which voice speaks each language of its spoken translation (`POST /v1/recordings/{id}/voice`), over its transcription's pins: a voice language (GET /v1/languages `voice`) to a catalogue voice that speaks it (GET /v1/voices/available) or one of the account's cloned voices (`voi_…`; while it is not ready, switched off or deleted, the language's default speaks). Taken in any state; null or {} clears. */
  voiceByLang?: unknown;
};

/** Retranscribe: one line of settled segments and the language to read it in. */
export type RetranscribeInput = {
  /** The language the line is read in (forced; a code GET /v1/languages lists). Absent or null: the recording's spoken language, else the one the line was recognized in. */
  language?: string | null | undefined;
  /** The line's segments, as a LineEdit's: consecutive seqs in order (4, 5, 6), each committed. */
  seqs: Array<number>;
};

/** SettingsPatch: capture settings of a file job; in an update, keys left out stay and null clears one. Unknown keys are refused (400 naming `settings.<key>`). */
export type SettingsPatchInput = {
  /** null clears a stored policy (back to the default). */
  confidencePolicy?: ConfidencePolicyInput | null | undefined;
  /** `on` or `auto`: each segment gets `speaker` (from 0) and `speakerConfidence` from classical diarization (MFCC statistics and BIC clustering, no neural embedding: a file's whole audio at once; live capture online, each segment `speakerProvisional` until a `transcript.speaker` frame settles it, and clustered again from the whole audio at finalize); `off` or absent: `speaker` -1. */
  speakerLabels?: SpeakerLabels | null | undefined;
  /** A language code such as `en`; absent, empty, `auto` or null: detect. */
  spokenLanguage?: string | null | undefined;
  /** Which voice speaks each language of a spoken translation (`POST /v1/recordings/{id}/voice`): a voice language (GET /v1/languages `voice`) to a catalogue voice that speaks it (GET /v1/voices/available) or one of the account's cloned voices (`voi_…`; while it is not ready, switched off or deleted, the language's default speaks): {"es": "ef_dora", "fr": "voi_…"}. A recording's pin wins over its transcription's; null clears. */
  voiceByLang?: unknown;
};

/** Why a source check failed: `address_refused` (the address, a redirect or what its name resolves to is private, loopback or cloud metadata), `unreachable` (DNS, connection, TLS, too many redirects), `http_error` (it answered an HTTP error: `httpStatus`), `not_audio` (nothing ffmpeg decodes as audio), `playlist` (a playlist file such as .m3u or .pls, not the stream; an HLS playlist is the stream and is `ready` when its segments play), `page` (a web page), `timeout` (no second of audio within the check's time). */
export type SourceProblem =
  | 'address_refused'
  | 'http_error'
  | 'not_audio'
  | 'page'
  | 'playlist'
  | 'timeout'
  | 'unreachable';

export type SpeakerLabels =
  | 'auto'
  | 'off'
  | 'on';

export type StartBlock =
  | 'concurrency'
  | 'hourly_limit'
  | 'no_credit';

export type StartBroadcastRecordingInput = {
  /** The id of one of the broadcast's audio sources, recorded instead of the microphone: the new transcription's source is `{kind: "stream", url}` with its address, which the server pulls (the grant has no `streamUrl`). */
  audioSource?: string | null | undefined;
  /** Words to follow like a teleprompter (stored with the recording). */
  scriptText?: string | null | undefined;
};

export type StartRecordingInput = {
  /** Words to follow like a teleprompter (stored with the recording). */
  scriptText?: string | null | undefined;
};

/** Fields left out stay: `name`, `access`, `password` (null clears it on a public broadcast), `code` (the old one keeps opening it), `settings` (merged; null clears a key). */
export type UpdateBroadcastInput = {
  access?: Access | null | undefined;
  /** The link listeners open: 3 to 64 lower-case letters, digits and inner hyphens; globally unique (the old code keeps opening the broadcast). */
  code?: string | null | undefined;
  /** Not blank; at most 300 characters; trimmed. */
  name?: string | null | undefined;
  /** A new password (4 to 200 characters; only its hash is kept); null clears it (only while public). */
  password?: string | null | undefined;
  /** Merged key by key into the stored settings; a key set to null is cleared. */
  settings?: SettingsPatchInput | null | undefined;
};

/** Any of label, allowDownload, allowExport, allowTranslate; fields left out stay. */
export type UpdateShareLinkInput = {
  allowDownload?: boolean | null | undefined;
  allowExport?: boolean | null | undefined;
  allowTranslate?: boolean | null | undefined;
  /** Who the link is for. Not blank; at most 200 characters; trimmed. */
  label?: string | null | undefined;
};

/** Rename (`name`) or change the default settings (`settings`, merged key by key; null clears a key). */
export type UpdateTranscriptionInput = {
  /** Not blank; at most 300 characters; trimmed. */
  name?: string | null | undefined;
  /** Merged key by key into the stored settings; a key set to null is cleared. */
  settings?: SettingsPatchInput | null | undefined;
};

/** Any of name, color ('' clears), enabled; a draft also takes consent: true and draft: false (which starts training). Fields left out stay. */
export type UpdateVoiceInput = {
  /** `''` or null clears it. */
  color?: string | null | undefined;
  /** Only true (a draft's consent); consent is withdrawn by deleting the voice. */
  consent?: boolean | null | undefined;
  /** Only false: trains a draft (with consent). */
  draft?: boolean | null | undefined;
  /** false switches the voice off: kept, but no longer offered by `availableVoices` (`GET /v1/voices/available`) nor spoken by new renders; true again switches it back on. */
  enabled?: boolean | null | undefined;
  name?: string | null | undefined;
};

/** WordEdit: replace one word of a settled segment. */
export type WordEditInput = {
  /** The committed segment's seq. */
  seq: number;
  /** The word as it should read. Not blank; at most 200 characters. */
  to: string;
  /** The word's index in the segment's `words`, from 0. */
  wordIdx: number;
};

export type PrincipalFieldsFragment = { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string };

export type ApiKeyFieldsFragment = { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string, createdBy: { id: string, displayName: string, kind: string } | null };

export type MeFieldsFragment = { userId: string | null, apiKeyId: string | null, scopes: Array<string>, account: { id: string, name: string, suspended: boolean, createdAt: string }, principal: { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string }, principals: Array<{ id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string }> };

export type NewApiKeyFieldsFragment = { key: string, apiKey: { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string, createdBy: { id: string, displayName: string, kind: string } | null } };

export type MeQueryVariables = Exact<{ [key: string]: never; }>;


export type MeQuery = { me: { userId: string | null, apiKeyId: string | null, scopes: Array<string>, account: { id: string, name: string, suspended: boolean, createdAt: string }, principal: { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string }, principals: Array<{ id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string }> } };

export type ApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string, createdBy: { id: string, displayName: string, kind: string } | null }> };

export type CreateApiKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type CreateApiKeyMutation = { createApiKey: { key: string, apiKey: { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string, createdBy: { id: string, displayName: string, kind: string } | null } } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string, kind: string, displayName: string, email: string | null, keyPrefix: string | null, scopes: Array<string>, expiresAt: string | null, revokedAt: string | null, lastUsedAt: string | null, createdAt: string, createdBy: { id: string, displayName: string, kind: string } | null } };

export type AccountEventsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type AccountEventsSubscription = { accountEvents: { type: string, apiKeyId: string | null, keyPrefix: string | null } };

export type LocalIssuerJwksQueryVariables = Exact<{ [key: string]: never; }>;


export type LocalIssuerJwksQuery = { localIssuerJwks: unknown };

export type ProtectedResourceQueryVariables = Exact<{ [key: string]: never; }>;


export type ProtectedResourceQuery = { protectedResource: { resource: string, authorizationServers: Array<string>, bearerMethodsSupported: Array<string>, scopesSupported: Array<string>, resourceDocumentation: string, localIssuer: { issuer: string, jwksUri: string } | null } };

export type CheckoutFieldsFragment = { checkoutId: string, kind: string, status: string, createdAt: string, amount: number | null, completedAt: string | null, expiresAt: string | null, interval: string | null, planId: string | null, url: string | null, providerId: string | null };

export type PaymentMethodFieldsFragment = { id: string, brand: string, last4: string, expMonth: number | null, expYear: number | null, wallet: string | null, isDefault: boolean, declined: boolean };

export type AutoTopUpFieldsFragment = { enabled: boolean, available: boolean, amount: number | null, threshold: number | null, last: { at: string, amount: number, outcome: string } | null };

export type SubscriptionStateFieldsFragment = { plan: { id: string, name: string } | null, subscription: { id: string, planId: string, interval: string, status: string, currentPeriodStart: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pendingInterval: string | null } | null, pendingChange: { kind: string, at: string, planId: string | null, interval: string | null } | null };

export type CreateCheckoutMutationVariables = Exact<{
  input: CreateCheckoutInput;
}>;


export type CreateCheckoutMutation = { createCheckout: { checkoutId: string, kind: string, status: string, createdAt: string, amount: number | null, completedAt: string | null, expiresAt: string | null, interval: string | null, planId: string | null, url: string | null, providerId: string | null } };

export type CheckoutQueryVariables = Exact<{
  id: string;
}>;


export type CheckoutQuery = { checkout: { checkoutId: string, kind: string, status: string, createdAt: string, amount: number | null, completedAt: string | null, expiresAt: string | null, interval: string | null, planId: string | null, url: string | null, providerId: string | null } };

export type CheckPromoCodeMutationVariables = Exact<{
  input: CheckPromoCodeInput;
}>;


export type CheckPromoCodeMutation = { checkPromoCode: { code: string, for: string, percentOff: number | null, amountOff: number | null, bonusCredit: number | null } };

export type PaymentMethodsQueryVariables = Exact<{ [key: string]: never; }>;


export type PaymentMethodsQuery = { paymentMethods: Array<{ id: string, brand: string, last4: string, expMonth: number | null, expYear: number | null, wallet: string | null, isDefault: boolean, declined: boolean }> };

export type ManagePaymentMethodsMutationVariables = Exact<{ [key: string]: never; }>;


export type ManagePaymentMethodsMutation = { managePaymentMethods: { url: string } };

export type DeletePaymentMethodMutationVariables = Exact<{
  id: string;
}>;


export type DeletePaymentMethodMutation = { deletePaymentMethod: Array<{ id: string, brand: string, last4: string, expMonth: number | null, expYear: number | null, wallet: string | null, isDefault: boolean, declined: boolean }> };

export type PaymentsQueryVariables = Exact<{
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type PaymentsQuery = { payments: { nextCursor: string | null, payments: Array<{ id: string, kind: string, status: string, amount: number, currency: string, createdAt: string, document: string, businessPurchase: boolean, taxId: string | null }> } };

export type PaymentDocumentQueryVariables = Exact<{
  id: string;
}>;


export type PaymentDocumentQuery = { paymentDocument: { pending: boolean, url: string | null, document: string | null } };

export type BillingPortalQueryVariables = Exact<{ [key: string]: never; }>;


export type BillingPortalQuery = { billingPortal: { url: string } };

export type CancelSubscriptionMutationVariables = Exact<{ [key: string]: never; }>;


export type CancelSubscriptionMutation = { cancelSubscription: { plan: { id: string, name: string } | null, subscription: { id: string, planId: string, interval: string, status: string, currentPeriodStart: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pendingInterval: string | null } | null, pendingChange: { kind: string, at: string, planId: string | null, interval: string | null } | null } };

export type UncancelSubscriptionMutationVariables = Exact<{ [key: string]: never; }>;


export type UncancelSubscriptionMutation = { uncancelSubscription: { plan: { id: string, name: string } | null, subscription: { id: string, planId: string, interval: string, status: string, currentPeriodStart: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pendingInterval: string | null } | null, pendingChange: { kind: string, at: string, planId: string | null, interval: string | null } | null } };

export type ScheduleSubscriptionIntervalMutationVariables = Exact<{
  interval: string;
}>;


export type ScheduleSubscriptionIntervalMutation = { scheduleSubscriptionInterval: { plan: { id: string, name: string } | null, subscription: { id: string, planId: string, interval: string, status: string, currentPeriodStart: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pendingInterval: string | null } | null, pendingChange: { kind: string, at: string, planId: string | null, interval: string | null } | null } };

export type CancelSubscriptionIntervalMutationVariables = Exact<{ [key: string]: never; }>;


export type CancelSubscriptionIntervalMutation = { cancelSubscriptionInterval: { plan: { id: string, name: string } | null, subscription: { id: string, planId: string, interval: string, status: string, currentPeriodStart: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pendingInterval: string | null } | null, pendingChange: { kind: string, at: string, planId: string | null, interval: string | null } | null } };

export type RetryAutoTopUpMutationVariables = Exact<{ [key: string]: never; }>;


export type RetryAutoTopUpMutation = { retryAutoTopUp: { enabled: boolean, available: boolean, amount: number | null, threshold: number | null, last: { at: string, amount: number, outcome: string } | null } };

export type BillingDetailsFieldsFragment = { name: string, email: string, line1: string, city: string, postalCode: string, country: string | null, taxId: string | null };

export type BillingDetailsQueryVariables = Exact<{ [key: string]: never; }>;


export type BillingDetailsQuery = { billingDetails: { name: string, email: string, line1: string, city: string, postalCode: string, country: string | null, taxId: string | null } };

export type UpdateBillingDetailsMutationVariables = Exact<{
  input: BillingDetailsInput;
}>;


export type UpdateBillingDetailsMutation = { updateBillingDetails: { name: string, email: string, line1: string, city: string, postalCode: string, country: string | null, taxId: string | null } };

export type SetLowBalanceAlertMutationVariables = Exact<{
  input: LowBalanceAlertInput;
}>;


export type SetLowBalanceAlertMutation = { setLowBalanceAlert: { enabled: boolean, threshold: number | null } };

export type SetAutoTopUpMutationVariables = Exact<{
  input: AutoTopUpSettingsInput;
}>;


export type SetAutoTopUpMutation = { setAutoTopUp: { enabled: boolean, available: boolean, amount: number | null, threshold: number | null, last: { at: string, amount: number, outcome: string } | null } };

export type BillingLedgerQueryVariables = Exact<{
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type BillingLedgerQuery = { billingLedger: { nextCursor: string | null, entries: Array<{ id: string, kind: string, amount: number, balanceAfter: number, description: string, chargeId: string | null, paymentId: string | null, createdAt: string }> } };

export type BillingChargesQueryVariables = Exact<{
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type BillingChargesQuery = { billingCharges: { nextCursor: string | null, charges: Array<{ id: string, recordingId: string | null, sessionId: string | null, name: string, kind: string, source: string, state: string, secondsBilled: number, minimumSeconds: number, rate: number, cost: number, openedAt: string, settledAt: string | null }> } };

export type BillingUsageQueryVariables = Exact<{
  startDate: string;
  endDate: string;
  tz?: string | null | undefined;
}>;


export type BillingUsageQuery = { billingUsage: { startDate: string, endDate: string, tz: string, currency: string | null, totals: { seconds: number, amount: number }, bySource: Array<{ source: string, seconds: number, amount: number }>, byKind: Array<{ kind: string, seconds: number, amount: number }>, days: Array<{ date: string, seconds: number, amount: number, bySource: Array<{ source: string, seconds: number, amount: number }>, byKind: Array<{ kind: string, seconds: number, amount: number }> }> } };

export type BillingUsageChargesQueryVariables = Exact<{
  startDate: string;
  endDate: string;
  tz?: string | null | undefined;
  kind?: string | null | undefined;
  source?: string | null | undefined;
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type BillingUsageChargesQuery = { billingUsageCharges: { startDate: string, endDate: string, tz: string, currency: string | null, count: number, total: number, seconds: number, nextCursor: string | null, charges: Array<{ id: string, type: string, chargeId: string, recordingId: string | null, sessionId: string | null, name: string, kind: string, source: string, state: string, secondsBilled: number, rate: number, cost: number, description: string | null, at: string }> } };

export type MoneyRangeFieldsFragment = { min: number, max: number };

export type BillingQueryVariables = Exact<{ [key: string]: never; }>;


export type BillingQuery = { billing: { enabled: boolean, balance: number, inGrace: boolean, canStart: boolean, startBlock: StartBlock | null, canStartLive: boolean, startBlockLive: StartBlock | null, currency: string | null, accountCreated: string | null, retentionDeadline: string | null, hasPaid: boolean, topUpUrl: string, plan: { id: string, name: string } | null, rates: { file: number, live: number, minimumSeconds: number, currency: string | null } | null, limits: { concurrentTranscriptions: number, createsPerHour: number, createsPerHourUnpaid: number, retentionDays: number | null } | null, limitsUsage: { concurrentTranscriptions: number, createsThisHour: number, createsResetAt: string | null } | null, subscription: { id: string, planId: string, interval: string, status: string, currentPeriodStart: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean, pendingInterval: string | null } | null, pendingChange: { kind: string, at: string, planId: string | null, interval: string | null } | null, pendingPayment: { checkoutId: string, kind: string, amount: number | null, url: string | null, createdAt: string } | null, monthlyCredit: { amount: number, left: number, periodStart: string | null } | null, card: { brand: string, last4: string, declined: boolean, expMonth: number | null, expYear: number | null } | null, period: { start: string, end: string } | null, previousPeriod: { start: string, end: string } | null, autoTopUp: { enabled: boolean, available: boolean, amount: number | null, threshold: number | null, last: { at: string, amount: number, outcome: string } | null }, lowBalanceAlert: { enabled: boolean, threshold: number | null } } };

export type BillingPlansQueryVariables = Exact<{ [key: string]: never; }>;


export type BillingPlansQuery = { billingPlans: { enabled: boolean, currency: string | null, defaultPlanId: string | null, topUpPresets: Array<number>, signupCredit: number, downgradeGraceDays: number | null, topUpRange: { min: number, max: number } | null, plans: Array<{ id: string, name: string, includedMonthlyCredit: number, graceOnZero: boolean, features: Array<string>, billedByHand: boolean, rates: { file: number, live: number, minimumSeconds: number }, prices: { month: number, year: number } | null, limits: { concurrentTranscriptions: number, createsPerHour: number, createsPerHourUnpaid: number, retentionDays: number | null } }>, autoTopUp: { offered: boolean, thresholds: Array<number>, amounts: Array<number>, perDay: number, thresholdRange: { min: number, max: number }, amountRange: { min: number, max: number } } | null, lowBalanceAlert: { thresholds: Array<number>, range: { min: number, max: number } } | null } };

export type BroadcastFieldsFragment = { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
    | { kind: CaptureSourceKind }
    | { kind: CaptureSourceKind, url: string }
  , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null };

export type BroadcastsQueryVariables = Exact<{
  cursor?: string | null | undefined;
  lifecycle?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type BroadcastsQuery = { broadcasts: { nextCursor: string | null, items: Array<{ id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
        | { kind: CaptureSourceKind }
        | { kind: CaptureSourceKind, url: string }
      , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null }> } };

export type BroadcastQueryVariables = Exact<{
  id: string;
}>;


export type BroadcastQuery = { broadcast: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type CreateBroadcastMutationVariables = Exact<{
  input: CreateBroadcastInput;
}>;


export type CreateBroadcastMutation = { createBroadcast: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type UpdateBroadcastMutationVariables = Exact<{
  id: string;
  input: UpdateBroadcastInput;
}>;


export type UpdateBroadcastMutation = { updateBroadcast: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type ArchiveBroadcastMutationVariables = Exact<{
  id: string;
}>;


export type ArchiveBroadcastMutation = { archiveBroadcast: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type RestoreBroadcastMutationVariables = Exact<{
  id: string;
}>;


export type RestoreBroadcastMutation = { restoreBroadcast: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type PurgeBroadcastMutationVariables = Exact<{
  id: string;
}>;


export type PurgeBroadcastMutation = { purgeBroadcast: { id: string, purged: boolean } };

export type AttachTranscriptionBroadcastMutationVariables = Exact<{
  transcriptionId: string;
  broadcastId: string;
}>;


export type AttachTranscriptionBroadcastMutation = { attachTranscriptionBroadcast: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type DetachTranscriptionBroadcastMutationVariables = Exact<{
  transcriptionId: string;
  broadcastId: string;
}>;


export type DetachTranscriptionBroadcastMutation = { detachTranscriptionBroadcast: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type StartBroadcastRecordingMutationVariables = Exact<{
  broadcastId: string;
  input?: StartBroadcastRecordingInput | null | undefined;
}>;


export type StartBroadcastRecordingMutation = { startBroadcastRecording: { sessionId: string, streamUrl: string | null, expiresAt: string, recording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } } };

export type CreateBroadcastAudioSourceMutationVariables = Exact<{
  broadcastId: string;
  input: CreateAudioSourceInput;
}>;


export type CreateBroadcastAudioSourceMutation = { createBroadcastAudioSource: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type DeleteBroadcastAudioSourceMutationVariables = Exact<{
  broadcastId: string;
  sourceId: string;
}>;


export type DeleteBroadcastAudioSourceMutation = { deleteBroadcastAudioSource: { id: string, code: string, name: string, kind: string, access: Access, lifecycle: string, ownerPrincipalId: string, shareUrl: string, recordingCount: number, lastRecordedAt: string | null, listenersNow: number | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
    , settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, audioSources: Array<{ id: string, name: string, url: string }>, transcriptions: Array<{ id: string, name: string }>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, startedAt: string, endedAt: string | null, durationS: number | null } | null } };

export type AudioSourceCheckFieldsFragment = { state: AudioSourceState, checkedAt: string, problem: SourceProblem | null, message: string | null, httpStatus: number | null, fix: { url: string, kind: FixKind, label: string } | null };

export type BroadcastAudioSourceCheckQueryVariables = Exact<{
  broadcastId: string;
  sourceId: string;
  fresh?: boolean | null | undefined;
}>;


export type BroadcastAudioSourceCheckQuery = { broadcastAudioSourceCheck: { state: AudioSourceState, checkedAt: string, problem: SourceProblem | null, message: string | null, httpStatus: number | null, fix: { url: string, kind: FixKind, label: string } | null } };

export type BroadcastRecordingsQueryVariables = Exact<{
  broadcastId: string;
  cursor?: string | null | undefined;
  lifecycle?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type BroadcastRecordingsQuery = { broadcastRecordings: { nextCursor: string | null, items: Array<{ id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> }> } };

export type CorrectionFieldsFragment = { id: string, batchId: string, kind: string, from: string, to: string, appliedAt: string, seq: number | null, speaker: number | null, wordIdx: number | null, revertedAt: string | null, voiced: boolean | null, notVoicedReason: string | null, actor: { apiKeyId: string | null, displayName: string | null, userId: string | null } };

export type RecordingCorrectionsQueryVariables = Exact<{
  recordingId: string;
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type RecordingCorrectionsQuery = { recordingCorrections: { nextCursor: string | null, corrections: Array<{ id: string, batchId: string, kind: string, from: string, to: string, appliedAt: string, seq: number | null, speaker: number | null, wordIdx: number | null, revertedAt: string | null, voiced: boolean | null, notVoicedReason: string | null, actor: { apiKeyId: string | null, displayName: string | null, userId: string | null } }> } };

export type CorrectRecordingMutationVariables = Exact<{
  recordingId: string;
  input: CorrectionBatchInput;
}>;


export type CorrectRecordingMutation = { correctRecording: { batchId: string, corrections: Array<{ id: string, batchId: string, kind: string, from: string, to: string, appliedAt: string, seq: number | null, speaker: number | null, wordIdx: number | null, revertedAt: string | null, voiced: boolean | null, notVoicedReason: string | null, actor: { apiKeyId: string | null, displayName: string | null, userId: string | null } }> } };

export type RetranscribeLineMutationVariables = Exact<{
  recordingId: string;
  input: RetranscribeInput;
}>;


export type RetranscribeLineMutation = { retranscribeLine: { batchId: string, text: string, language: string, corrections: Array<{ id: string, batchId: string, kind: string, from: string, to: string, appliedAt: string, seq: number | null, speaker: number | null, wordIdx: number | null, revertedAt: string | null, voiced: boolean | null, notVoicedReason: string | null, actor: { apiKeyId: string | null, displayName: string | null, userId: string | null } }> } };

export type RevertCorrectionMutationVariables = Exact<{
  id: string;
}>;


export type RevertCorrectionMutation = { revertCorrection: { id: string, batchId: string, kind: string, from: string, to: string, appliedAt: string, seq: number | null, speaker: number | null, wordIdx: number | null, revertedAt: string | null, voiced: boolean | null, notVoicedReason: string | null, actor: { apiKeyId: string | null, displayName: string | null, userId: string | null } } };

export type JobFieldsFragment = { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null };

export type RecordingJobQueryVariables = Exact<{
  recordingId: string;
}>;


export type RecordingJobQuery = { recordingJob: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } };

export type StartRecordingJobMutationVariables = Exact<{
  recordingId: string;
  window?: CropWindowInput | null | undefined;
}>;


export type StartRecordingJobMutation = { startRecordingJob: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } };

export type RetryRecordingJobMutationVariables = Exact<{
  recordingId: string;
}>;


export type RetryRecordingJobMutation = { retryRecordingJob: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } };

export type ListenerBroadcastFieldsFragment = { broadcastId: string, code: string, name: string, access: Access, authorized: boolean, spokenLanguage: string | null, languages: Array<string>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null };

export type ListenerTokenFieldsFragment = { listenerToken: string, broadcastId: string, expiresAt: string };

export type ListenerBroadcastQueryVariables = Exact<{
  code: string;
  listenerToken?: string | null | undefined;
  shareCode?: string | null | undefined;
}>;


export type ListenerBroadcastQuery = { listenerBroadcast: { broadcastId: string, code: string, name: string, access: Access, authorized: boolean, spokenLanguage: string | null, languages: Array<string>, currentRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null, lastRecording: { recordingId: string, state: string, startedAt: string | null, transcriptionId: string | null } | null } };

export type CreateListenerTokenMutationVariables = Exact<{
  code: string;
  password?: string | null | undefined;
}>;


export type CreateListenerTokenMutation = { createListenerToken: { listenerToken: string, broadcastId: string, expiresAt: string } };

export type HealthFieldsFragment = { status: string, version: string, time: string };

export type LanguageFieldsFragment = { code: string, name: string, nativeName: string };

export type CapabilitiesFieldsFragment = { languages: Array<string>, speakerLabelModes: Array<SpeakerLabels>, latencyModes: Array<LatencyMode>, audio: { encodings: Array<AudioEncoding>, sampleRates: Array<number>, channels: Array<number> }, limits: { maxUploadBytes: number, maxDurationS: number } };

export type HealthQueryVariables = Exact<{ [key: string]: never; }>;


export type HealthQuery = { health: { status: string, version: string, time: string } };

export type LanguagesQueryVariables = Exact<{ [key: string]: never; }>;


export type LanguagesQuery = { languages: { transcription: Array<{ code: string, name: string, nativeName: string }>, translation: Array<{ code: string, name: string, nativeName: string }>, voice: Array<{ code: string, name: string, nativeName: string }> } };

export type RealtimeCapabilitiesQueryVariables = Exact<{ [key: string]: never; }>;


export type RealtimeCapabilitiesQuery = { realtimeCapabilities: { languages: Array<string>, speakerLabelModes: Array<SpeakerLabels>, latencyModes: Array<LatencyMode>, audio: { encodings: Array<AudioEncoding>, sampleRates: Array<number>, channels: Array<number> }, limits: { maxUploadBytes: number, maxDurationS: number } } };

export type CreateRealtimeSessionMutationVariables = Exact<{
  options?: RealtimeSessionOptionsInput | null | undefined;
}>;


export type CreateRealtimeSessionMutation = { createRealtimeSession: { sessionId: string, streamUrl: string, expiresAt: string } };

export type RecordingFieldsFragment = { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> };

export type RecordingQueryVariables = Exact<{
  id: string;
  shareCode?: string | null | undefined;
  listenerToken?: string | null | undefined;
}>;


export type RecordingQuery = { recording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type ArchiveRecordingMutationVariables = Exact<{
  id: string;
}>;


export type ArchiveRecordingMutation = { archiveRecording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type RestoreRecordingMutationVariables = Exact<{
  id: string;
}>;


export type RestoreRecordingMutation = { restoreRecording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type PurgeRecordingMutationVariables = Exact<{
  id: string;
}>;


export type PurgeRecordingMutation = { purgeRecording: { id: string, purged: boolean } };

export type RecordingTranscriptQueryVariables = Exact<{
  recordingId: string;
  after?: number | null | undefined;
  lang?: string | null | undefined;
  shareCode?: string | null | undefined;
  listenerToken?: string | null | undefined;
}>;


export type RecordingTranscriptQuery = { recordingTranscript: { recordingId: string, transcriptionId: string, state: string, language: string | null, durationS: number | null, lastSeq: number, partial: boolean, job: { state: string, pct: number } | null, sentences: Array<{ id: string, speaker: number, start: number, end: number, text: string, translations: Record<string, string>, confidence: number | null, unclear: boolean | null, suppressed: boolean | null }>, segments: Array<{ seq: number, speaker: number, speakerConfidence: number | null, speakerProvisional: boolean | null, translations: Record<string, string>, translationSources: Record<string, string>, start: number, end: number, text: string, confidence: number | null, language: string | null, decoder: string | null, recognizedText: string | null, scriptFrom: number | null, scriptPos: number | null, suppressed: boolean | null, words: Array<{ start: number, end: number, text: string, prob: number, low: boolean | null }> }>, speakers: Array<{ index: number, name: string | null }> } };

export type RecordingTranslationQueryVariables = Exact<{
  recordingId: string;
  lang: string;
  sentences?: Array<string> | string | null | undefined;
  shareCode?: string | null | undefined;
  listenerToken?: string | null | undefined;
}>;


export type RecordingTranslationQuery = { recordingTranslation: { recordingId: string, lang: string, language: string | null, sentences: Array<{ id: string, start: number, end: number, text: string, translation: string, source: string, suppressed: boolean | null }> } };

export type NameRecordingSpeakerMutationVariables = Exact<{
  recordingId: string;
  idx: number;
  name?: string | null | undefined;
}>;


export type NameRecordingSpeakerMutation = { nameRecordingSpeaker: { index: number, name: string | null } };

export type RecordingEventsQueryVariables = Exact<{
  recordingId: string;
  cursor?: string | null | undefined;
  after?: number | null | undefined;
  limit?: number | null | undefined;
}>;


export type RecordingEventsQuery = { recordingEvents: { lastSeq: number, nextCursor: string | null, events: Array<{ seq: number, type: string, at: string, frame: { type: string; [field: string]: unknown } }> } };

export type RecordingMediaTokenQueryVariables = Exact<{
  recordingId: string;
}>;


export type RecordingMediaTokenQuery = { recordingMediaToken: { token: string, expiresAt: string } };

export type RecordingGrantFieldsFragment = { sessionId: string, streamUrl: string | null, expiresAt: string, recording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type StartRecordingMutationVariables = Exact<{
  transcriptionId: string;
  input?: StartRecordingInput | null | undefined;
}>;


export type StartRecordingMutation = { startRecording: { sessionId: string, streamUrl: string | null, expiresAt: string, recording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } } };

export type RecordingPublishTokenMutationVariables = Exact<{
  id: string;
  takeover?: boolean | null | undefined;
}>;


export type RecordingPublishTokenMutation = { recordingPublishToken: { sessionId: string, streamUrl: string | null, expiresAt: string, recording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } } };

export type TranscriptionRecordingsQueryVariables = Exact<{
  transcriptionId: string;
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type TranscriptionRecordingsQuery = { transcriptionRecordings: { nextCursor: string | null, items: Array<{ id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> }> } };

export type PauseRecordingMutationVariables = Exact<{
  id: string;
}>;


export type PauseRecordingMutation = { pauseRecording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type ResumeRecordingMutationVariables = Exact<{
  id: string;
}>;


export type ResumeRecordingMutation = { resumeRecording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type StopRecordingMutationVariables = Exact<{
  id: string;
}>;


export type StopRecordingMutation = { stopRecording: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type UpdateRecordingSettingsMutationVariables = Exact<{
  id: string;
  input: RecordingSettingsInput;
}>;


export type UpdateRecordingSettingsMutation = { updateRecordingSettings: { id: string, transcriptionId: string, kind: string, name: string | null, state: string, lifecycle: string, durationS: number | null, spokenLanguage: string | null, lastSeq: number, scriptText: string | null, endedAt: string | null, finalizedAt: string | null, title: string | null, summary: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, ingest: { state: string, bytes: number, seconds: number, reconnects: number, error: string | null } | null, captureSpans: Array<{ idx: number, wallStart: number, mediaStart: number, reason: string, mediaEnd: number | null, wallEnd: number | null }> } };

export type RtmpStatusFieldsFragment = { serverUrl: string, streamKey: string | null, maskedStreamKey: string, transcriptionId: string | null, monitorUrl: string, monitorExpiresAt: string, audio: { codec: string, sampleRate: number | null, channels: number | null, since: string } | null };

export type RtmpQueryVariables = Exact<{ [key: string]: never; }>;


export type RtmpQuery = { rtmp: { serverUrl: string, streamKey: string | null, maskedStreamKey: string, transcriptionId: string | null, monitorUrl: string, monitorExpiresAt: string, audio: { codec: string, sampleRate: number | null, channels: number | null, since: string } | null } };

export type RotateRtmpKeyMutationVariables = Exact<{ [key: string]: never; }>;


export type RotateRtmpKeyMutation = { rotateRtmpKey: { serverUrl: string, streamKey: string | null, maskedStreamKey: string, transcriptionId: string | null, monitorUrl: string, monitorExpiresAt: string, audio: { codec: string, sampleRate: number | null, channels: number | null, since: string } | null } };

export type SearchQueryVariables = Exact<{
  q: string;
  lang?: string | null | undefined;
  transcriptionId?: string | null | undefined;
  broadcast?: Array<string> | string | null | undefined;
  listenerToken?: string | null | undefined;
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type SearchQuery = { search: { nextCursor: string | null, results: Array<{ recordingId: string, transcriptionId: string, sentenceId: string, start: number, end: number, speaker: number, text: string, snippet: string, score: number, language: string | null, lang: string | null, original: string | null, unclear: boolean }> } };

export type ShareLinkFieldsFragment = { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string };

export type ShareLinksQueryVariables = Exact<{
  transcriptionId: string;
}>;


export type ShareLinksQuery = { shareLinks: Array<{ id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string }> };

export type CreateShareLinkMutationVariables = Exact<{
  transcriptionId: string;
  input: CreateShareLinkInput;
}>;


export type CreateShareLinkMutation = { createShareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } };

export type UpdateShareLinkMutationVariables = Exact<{
  id: string;
  input: UpdateShareLinkInput;
}>;


export type UpdateShareLinkMutation = { updateShareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } };

export type RevokeShareLinkMutationVariables = Exact<{
  id: string;
}>;


export type RevokeShareLinkMutation = { revokeShareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } };

export type BroadcastShareLinksQueryVariables = Exact<{
  broadcastId: string;
}>;


export type BroadcastShareLinksQuery = { broadcastShareLinks: Array<{ id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string }> };

export type CreateBroadcastShareLinkMutationVariables = Exact<{
  broadcastId: string;
  input: CreateShareLinkInput;
}>;


export type CreateBroadcastShareLinkMutation = { createBroadcastShareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } };

export type RecordingSummaryFieldsFragment = { recordingId: string, state: string, title: string | null, summary: string | null, language: string | null, lang: string | null, provider: string | null, writtenAt: string | null, reason: string | null, retryable: boolean, error: string | null };

export type RecordingSummaryQueryVariables = Exact<{
  recordingId: string;
  lang?: string | null | undefined;
  shareCode?: string | null | undefined;
}>;


export type RecordingSummaryQuery = { recordingSummary: { recordingId: string, state: string, title: string | null, summary: string | null, language: string | null, lang: string | null, provider: string | null, writtenAt: string | null, reason: string | null, retryable: boolean, error: string | null } };

export type SummarizeRecordingMutationVariables = Exact<{
  recordingId: string;
}>;


export type SummarizeRecordingMutation = { summarizeRecording: { recordingId: string, state: string, title: string | null, summary: string | null, language: string | null, lang: string | null, provider: string | null, writtenAt: string | null, reason: string | null, retryable: boolean, error: string | null } };

export type TranscriptionFieldsFragment = { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
    | { kind: CaptureSourceKind }
    | { kind: CaptureSourceKind, url: string }
   | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null };

export type TranscriptionsQueryVariables = Exact<{
  cursor?: string | null | undefined;
  lifecycle?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type TranscriptionsQuery = { transcriptions: { nextCursor: string | null, items: Array<{ id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
        | { kind: CaptureSourceKind }
        | { kind: CaptureSourceKind, url: string }
       | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null }> } };

export type TranscriptionQueryVariables = Exact<{
  id: string;
}>;


export type TranscriptionQuery = { transcription: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type CreateTranscriptionMutationVariables = Exact<{
  options?: CreateTranscriptionInput | null | undefined;
  file?: unknown;
}>;


export type CreateTranscriptionMutation = { createTranscription: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type UploadRecordingMutationVariables = Exact<{
  transcriptionId: string;
  options?: CreateTranscriptionInput | null | undefined;
  file?: unknown;
}>;


export type UploadRecordingMutation = { uploadRecording: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type UpdateTranscriptionMutationVariables = Exact<{
  id: string;
  input: UpdateTranscriptionInput;
}>;


export type UpdateTranscriptionMutation = { updateTranscription: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type ArchiveTranscriptionMutationVariables = Exact<{
  id: string;
}>;


export type ArchiveTranscriptionMutation = { archiveTranscription: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type RestoreTranscriptionMutationVariables = Exact<{
  id: string;
}>;


export type RestoreTranscriptionMutation = { restoreTranscription: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type PurgedFieldsFragment = { id: string, purged: boolean };

export type SettingsFieldsFragment = { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null };

export type PurgeTranscriptionMutationVariables = Exact<{
  id: string;
}>;


export type PurgeTranscriptionMutation = { purgeTranscription: { id: string, purged: boolean } };

export type TranscriptionProbeQueryVariables = Exact<{
  url: string;
}>;


export type TranscriptionProbeQuery = { transcriptionProbe: { kind: string, ok: boolean, problem: string | null, source: string | null, contentType: string | null, bytes: number | null, url: string, media: Array<{ url: string, title: string | null }> } };

export type CreateLiveTranscriptionMutationVariables = Exact<{
  input: CreateLiveTranscriptionInput;
}>;


export type CreateLiveTranscriptionMutation = { createLiveTranscription: { id: string, kind: string, name: string, state: string, sourceUrl: string | null, recordingId: string | null, durationS: number | null, spokenLanguage: string | null, createdAt: string, updatedAt: string, archivedAt: string | null, purgeAfter: string | null, settings: { spokenLanguage: string | null, speakerLabels: string | null, voiceByLang: Record<string, string> | null, latencyMode: string | null, translate: Array<string> | null, llmFix: boolean | null, confidencePolicy: { hideBelow: number | null, lowThreshold: number | null, suppressCount: number | null } | null }, source:
      | { kind: CaptureSourceKind }
      | { kind: CaptureSourceKind, url: string }
     | null, broadcasts: Array<{ id: string, name: string, code: string, access: Access, shareUrl: string }>, job: { recordingId: string, state: string, error: string | null, errorCode: string | null, source: string | null, attempts: number, createdAt: string, startedAt: string | null, finishedAt: string | null, progress: { pct: number, processedS: number | null, totalS: number | null, segmentsDone: number | null, segmentsTotal: number | null, phase: string | null, phasePct: number | null, fetchedBytes: number | null, fetchTotalBytes: number | null, uncoveredSpeechS: number | null }, queue: { position: number } | null, preview: { peaks: Array<number> | null, bucketS: number | null, durationS: number | null, expiresAt: string | null, available: boolean } | null, window: { startS: number, endS: number | null } | null } | null, shareLink: { id: string, code: string, label: string, transcriptionId: string | null, broadcastId: string | null, allowDownload: boolean, allowExport: boolean, allowTranslate: boolean, isDefault: boolean, createdAt: string, updatedAt: string } | null } };

export type VoiceTracksFieldsFragment = { recordingId: string, language: string | null, tracks: Array<{ lang: string, voice: string, spokenLanguage: boolean, sealed: boolean, stale: boolean, staleSentences: Array<string>, sealedAt: string | null, durationS: number | null, job: { state: string, progress: number, error: string | null, attempts: number, renderS: number | null, synthesizedS: number | null, startedAt: string | null } | null, clips: Array<{ sentenceId: string, voice: string, start: number, end: number, durationS: number, text: string, textFrom: string, spoken: string, translationSource: string }> }> };

export type RecordingVoiceTracksQueryVariables = Exact<{
  recordingId: string;
  lang?: string | null | undefined;
  shareCode?: string | null | undefined;
  listenerToken?: string | null | undefined;
}>;


export type RecordingVoiceTracksQuery = { recordingVoiceTracks: { recordingId: string, language: string | null, tracks: Array<{ lang: string, voice: string, spokenLanguage: boolean, sealed: boolean, stale: boolean, staleSentences: Array<string>, sealedAt: string | null, durationS: number | null, job: { state: string, progress: number, error: string | null, attempts: number, renderS: number | null, synthesizedS: number | null, startedAt: string | null } | null, clips: Array<{ sentenceId: string, voice: string, start: number, end: number, durationS: number, text: string, textFrom: string, spoken: string, translationSource: string }> }> } };

export type RenderVoiceTracksMutationVariables = Exact<{
  recordingId: string;
  languages: Array<string> | string;
  force?: boolean | null | undefined;
}>;


export type RenderVoiceTracksMutation = { renderVoiceTracks: { recordingId: string, language: string | null, tracks: Array<{ lang: string, voice: string, spokenLanguage: boolean, sealed: boolean, stale: boolean, staleSentences: Array<string>, sealedAt: string | null, durationS: number | null, job: { state: string, progress: number, error: string | null, attempts: number, renderS: number | null, synthesizedS: number | null, startedAt: string | null } | null, clips: Array<{ sentenceId: string, voice: string, start: number, end: number, durationS: number, text: string, textFrom: string, spoken: string, translationSource: string }> }> } };

export type VoiceFieldsFragment = { id: string, name: string, color: string | null, gender: string | null, sampleUrl: string | null, consent: boolean, draft: boolean, enabled: boolean, state: string, progress: number, error: string | null, speechS: number | null, createdAt: string, updatedAt: string, source: { recordingId: string, speaker: number } | null, fit: { cloner: string, speechS: number | null, pitchHz: number | null, gender: string | null, basedOn: Array<string> | null, blend: number | null, voicePitchHz: number | null, distance: number | null, candidates: Array<{ voice: string, distance: number }> | null } | null };

export type VoicesQueryVariables = Exact<{
  cursor?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type VoicesQuery = { voices: { nextCursor: string | null, items: Array<{ id: string, name: string, color: string | null, gender: string | null, sampleUrl: string | null, consent: boolean, draft: boolean, enabled: boolean, state: string, progress: number, error: string | null, speechS: number | null, createdAt: string, updatedAt: string, source: { recordingId: string, speaker: number } | null, fit: { cloner: string, speechS: number | null, pitchHz: number | null, gender: string | null, basedOn: Array<string> | null, blend: number | null, voicePitchHz: number | null, distance: number | null, candidates: Array<{ voice: string, distance: number }> | null } | null }> } };

export type VoiceQueryVariables = Exact<{
  id: string;
}>;


export type VoiceQuery = { voice: { id: string, name: string, color: string | null, gender: string | null, sampleUrl: string | null, consent: boolean, draft: boolean, enabled: boolean, state: string, progress: number, error: string | null, speechS: number | null, createdAt: string, updatedAt: string, source: { recordingId: string, speaker: number } | null, fit: { cloner: string, speechS: number | null, pitchHz: number | null, gender: string | null, basedOn: Array<string> | null, blend: number | null, voicePitchHz: number | null, distance: number | null, candidates: Array<{ voice: string, distance: number }> | null } | null } };

export type AvailableVoicesFieldsFragment = { lang: string, voices: Array<{ id: string, kind: string, name: string, language: string | null, gender: string | null, default: boolean, color: string | null }> };

export type AvailableVoicesQueryVariables = Exact<{
  lang: string;
}>;


export type AvailableVoicesQuery = { availableVoices: { lang: string, voices: Array<{ id: string, kind: string, name: string, language: string | null, gender: string | null, default: boolean, color: string | null }> } };

export type CreateVoiceMutationVariables = Exact<{
  input: CreateVoiceInput;
  sample: unknown;
}>;


export type CreateVoiceMutation = { createVoice: { id: string, name: string, color: string | null, gender: string | null, sampleUrl: string | null, consent: boolean, draft: boolean, enabled: boolean, state: string, progress: number, error: string | null, speechS: number | null, createdAt: string, updatedAt: string, source: { recordingId: string, speaker: number } | null, fit: { cloner: string, speechS: number | null, pitchHz: number | null, gender: string | null, basedOn: Array<string> | null, blend: number | null, voicePitchHz: number | null, distance: number | null, candidates: Array<{ voice: string, distance: number }> | null } | null } };

export type CreateVoiceFromSpeakerMutationVariables = Exact<{
  input: CreateVoiceFromSpeakerInput;
}>;


export type CreateVoiceFromSpeakerMutation = { createVoiceFromSpeaker: { id: string, name: string, color: string | null, gender: string | null, sampleUrl: string | null, consent: boolean, draft: boolean, enabled: boolean, state: string, progress: number, error: string | null, speechS: number | null, createdAt: string, updatedAt: string, source: { recordingId: string, speaker: number } | null, fit: { cloner: string, speechS: number | null, pitchHz: number | null, gender: string | null, basedOn: Array<string> | null, blend: number | null, voicePitchHz: number | null, distance: number | null, candidates: Array<{ voice: string, distance: number }> | null } | null } };

export type UpdateVoiceMutationVariables = Exact<{
  id: string;
  input: UpdateVoiceInput;
}>;


export type UpdateVoiceMutation = { updateVoice: { id: string, name: string, color: string | null, gender: string | null, sampleUrl: string | null, consent: boolean, draft: boolean, enabled: boolean, state: string, progress: number, error: string | null, speechS: number | null, createdAt: string, updatedAt: string, source: { recordingId: string, speaker: number } | null, fit: { cloner: string, speechS: number | null, pitchHz: number | null, gender: string | null, basedOn: Array<string> | null, blend: number | null, voicePitchHz: number | null, distance: number | null, candidates: Array<{ voice: string, distance: number }> | null } | null } };

export type DeleteVoiceMutationVariables = Exact<{
  id: string;
}>;


export type DeleteVoiceMutation = { deleteVoice: { id: string, deleted: boolean } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const PrincipalFieldsFragmentDoc = new TypedDocumentString(`
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}
    `, {"fragmentName":"PrincipalFields"}) as unknown as TypedDocumentString<PrincipalFieldsFragment, unknown>;
export const MeFieldsFragmentDoc = new TypedDocumentString(`
    fragment MeFields on Me {
  account {
    id
    name
    suspended
    createdAt
  }
  principal {
    ...PrincipalFields
  }
  userId
  apiKeyId
  scopes
  principals {
    ...PrincipalFields
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}`, {"fragmentName":"MeFields"}) as unknown as TypedDocumentString<MeFieldsFragment, unknown>;
export const ApiKeyFieldsFragmentDoc = new TypedDocumentString(`
    fragment ApiKeyFields on Principal {
  ...PrincipalFields
  createdBy {
    id
    displayName
    kind
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}`, {"fragmentName":"ApiKeyFields"}) as unknown as TypedDocumentString<ApiKeyFieldsFragment, unknown>;
export const NewApiKeyFieldsFragmentDoc = new TypedDocumentString(`
    fragment NewApiKeyFields on NewApiKey {
  key
  apiKey {
    ...ApiKeyFields
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}
fragment ApiKeyFields on Principal {
  ...PrincipalFields
  createdBy {
    id
    displayName
    kind
  }
}`, {"fragmentName":"NewApiKeyFields"}) as unknown as TypedDocumentString<NewApiKeyFieldsFragment, unknown>;
export const CheckoutFieldsFragmentDoc = new TypedDocumentString(`
    fragment CheckoutFields on CheckoutView {
  checkoutId
  kind
  status
  createdAt
  amount
  completedAt
  expiresAt
  interval
  planId
  url
  providerId
}
    `, {"fragmentName":"CheckoutFields"}) as unknown as TypedDocumentString<CheckoutFieldsFragment, unknown>;
export const PaymentMethodFieldsFragmentDoc = new TypedDocumentString(`
    fragment PaymentMethodFields on PaymentMethod {
  id
  brand
  last4
  expMonth
  expYear
  wallet
  isDefault
  declined
}
    `, {"fragmentName":"PaymentMethodFields"}) as unknown as TypedDocumentString<PaymentMethodFieldsFragment, unknown>;
export const AutoTopUpFieldsFragmentDoc = new TypedDocumentString(`
    fragment AutoTopUpFields on AutoTopUpView {
  enabled
  available
  amount
  threshold
  last {
    at
    amount
    outcome
  }
}
    `, {"fragmentName":"AutoTopUpFields"}) as unknown as TypedDocumentString<AutoTopUpFieldsFragment, unknown>;
export const SubscriptionStateFieldsFragmentDoc = new TypedDocumentString(`
    fragment SubscriptionStateFields on BillingView {
  plan {
    id
    name
  }
  subscription {
    id
    planId
    interval
    status
    currentPeriodStart
    currentPeriodEnd
    cancelAtPeriodEnd
    pendingInterval
  }
  pendingChange {
    kind
    at
    planId
    interval
  }
}
    `, {"fragmentName":"SubscriptionStateFields"}) as unknown as TypedDocumentString<SubscriptionStateFieldsFragment, unknown>;
export const BillingDetailsFieldsFragmentDoc = new TypedDocumentString(`
    fragment BillingDetailsFields on BillingDetails {
  name
  email
  line1
  city
  postalCode
  country
  taxId
}
    `, {"fragmentName":"BillingDetailsFields"}) as unknown as TypedDocumentString<BillingDetailsFieldsFragment, unknown>;
export const MoneyRangeFieldsFragmentDoc = new TypedDocumentString(`
    fragment MoneyRangeFields on MoneyRange {
  min
  max
}
    `, {"fragmentName":"MoneyRangeFields"}) as unknown as TypedDocumentString<MoneyRangeFieldsFragment, unknown>;
export const SettingsFieldsFragmentDoc = new TypedDocumentString(`
    fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}
    `, {"fragmentName":"SettingsFields"}) as unknown as TypedDocumentString<SettingsFieldsFragment, unknown>;
export const BroadcastFieldsFragmentDoc = new TypedDocumentString(`
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
    fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`, {"fragmentName":"BroadcastFields"}) as unknown as TypedDocumentString<BroadcastFieldsFragment, unknown>;
export const AudioSourceCheckFieldsFragmentDoc = new TypedDocumentString(`
    fragment AudioSourceCheckFields on AudioSourceCheck {
  state
  checkedAt
  problem
  message
  httpStatus
  fix {
    url
    kind
    label
  }
}
    `, {"fragmentName":"AudioSourceCheckFields"}) as unknown as TypedDocumentString<AudioSourceCheckFieldsFragment, unknown>;
export const CorrectionFieldsFragmentDoc = new TypedDocumentString(`
    fragment CorrectionFields on Correction {
  id
  batchId
  kind
  from
  to
  actor {
    apiKeyId
    displayName
    userId
  }
  appliedAt
  seq
  speaker
  wordIdx
  revertedAt
  voiced
  notVoicedReason
}
    `, {"fragmentName":"CorrectionFields"}) as unknown as TypedDocumentString<CorrectionFieldsFragment, unknown>;
export const ListenerBroadcastFieldsFragmentDoc = new TypedDocumentString(`
    fragment ListenerBroadcastFields on ListenerBroadcast {
  broadcastId
  code
  name
  access
  authorized
  spokenLanguage
  languages
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
}
    `, {"fragmentName":"ListenerBroadcastFields"}) as unknown as TypedDocumentString<ListenerBroadcastFieldsFragment, unknown>;
export const ListenerTokenFieldsFragmentDoc = new TypedDocumentString(`
    fragment ListenerTokenFields on ListenerToken {
  listenerToken
  broadcastId
  expiresAt
}
    `, {"fragmentName":"ListenerTokenFields"}) as unknown as TypedDocumentString<ListenerTokenFieldsFragment, unknown>;
export const HealthFieldsFragmentDoc = new TypedDocumentString(`
    fragment HealthFields on Health {
  status
  version
  time
}
    `, {"fragmentName":"HealthFields"}) as unknown as TypedDocumentString<HealthFieldsFragment, unknown>;
export const LanguageFieldsFragmentDoc = new TypedDocumentString(`
    fragment LanguageFields on Language {
  code
  name
  nativeName
}
    `, {"fragmentName":"LanguageFields"}) as unknown as TypedDocumentString<LanguageFieldsFragment, unknown>;
export const CapabilitiesFieldsFragmentDoc = new TypedDocumentString(`
    fragment CapabilitiesFields on Capabilities {
  languages
  speakerLabelModes
  latencyModes
  audio {
    encodings
    sampleRates
    channels
  }
  limits {
    maxUploadBytes
    maxDurationS
  }
}
    `, {"fragmentName":"CapabilitiesFields"}) as unknown as TypedDocumentString<CapabilitiesFieldsFragment, unknown>;
export const RecordingFieldsFragmentDoc = new TypedDocumentString(`
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
    fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`, {"fragmentName":"RecordingFields"}) as unknown as TypedDocumentString<RecordingFieldsFragment, unknown>;
export const RecordingGrantFieldsFragmentDoc = new TypedDocumentString(`
    fragment RecordingGrantFields on RecordingGrant {
  sessionId
  streamUrl
  expiresAt
  recording {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`, {"fragmentName":"RecordingGrantFields"}) as unknown as TypedDocumentString<RecordingGrantFieldsFragment, unknown>;
export const RtmpStatusFieldsFragmentDoc = new TypedDocumentString(`
    fragment RtmpStatusFields on RtmpStatus {
  serverUrl
  streamKey
  maskedStreamKey
  transcriptionId
  audio {
    codec
    sampleRate
    channels
    since
  }
  monitorUrl
  monitorExpiresAt
}
    `, {"fragmentName":"RtmpStatusFields"}) as unknown as TypedDocumentString<RtmpStatusFieldsFragment, unknown>;
export const RecordingSummaryFieldsFragmentDoc = new TypedDocumentString(`
    fragment RecordingSummaryFields on RecordingSummary {
  recordingId
  state
  title
  summary
  language
  lang
  provider
  writtenAt
  reason
  retryable
  error
}
    `, {"fragmentName":"RecordingSummaryFields"}) as unknown as TypedDocumentString<RecordingSummaryFieldsFragment, unknown>;
export const JobFieldsFragmentDoc = new TypedDocumentString(`
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
    `, {"fragmentName":"JobFields"}) as unknown as TypedDocumentString<JobFieldsFragment, unknown>;
export const ShareLinkFieldsFragmentDoc = new TypedDocumentString(`
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
    `, {"fragmentName":"ShareLinkFields"}) as unknown as TypedDocumentString<ShareLinkFieldsFragment, unknown>;
export const TranscriptionFieldsFragmentDoc = new TypedDocumentString(`
    fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`, {"fragmentName":"TranscriptionFields"}) as unknown as TypedDocumentString<TranscriptionFieldsFragment, unknown>;
export const PurgedFieldsFragmentDoc = new TypedDocumentString(`
    fragment PurgedFields on Purged {
  id
  purged
}
    `, {"fragmentName":"PurgedFields"}) as unknown as TypedDocumentString<PurgedFieldsFragment, unknown>;
export const VoiceTracksFieldsFragmentDoc = new TypedDocumentString(`
    fragment VoiceTracksFields on VoiceTracks {
  recordingId
  language
  tracks {
    lang
    voice
    spokenLanguage
    sealed
    stale
    staleSentences
    sealedAt
    durationS
    job {
      state
      progress
      error
      attempts
      renderS
      synthesizedS
      startedAt
    }
    clips {
      sentenceId
      voice
      start
      end
      durationS
      text
      textFrom
      spoken
      translationSource
    }
  }
}
    `, {"fragmentName":"VoiceTracksFields"}) as unknown as TypedDocumentString<VoiceTracksFieldsFragment, unknown>;
export const VoiceFieldsFragmentDoc = new TypedDocumentString(`
    fragment VoiceFields on Voice {
  id
  name
  color
  gender
  sampleUrl
  consent
  draft
  enabled
  state
  progress
  error
  source {
    recordingId
    speaker
  }
  speechS
  fit {
    cloner
    speechS
    pitchHz
    gender
    basedOn
    blend
    voicePitchHz
    distance
    candidates {
      voice
      distance
    }
  }
  createdAt
  updatedAt
}
    `, {"fragmentName":"VoiceFields"}) as unknown as TypedDocumentString<VoiceFieldsFragment, unknown>;
export const AvailableVoicesFieldsFragmentDoc = new TypedDocumentString(`
    fragment AvailableVoicesFields on AvailableVoices {
  lang
  voices {
    id
    kind
    name
    language
    gender
    default
    color
  }
}
    `, {"fragmentName":"AvailableVoicesFields"}) as unknown as TypedDocumentString<AvailableVoicesFieldsFragment, unknown>;
export const MeDocument = new TypedDocumentString(`
    query Me {
  me {
    ...MeFields
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}
fragment MeFields on Me {
  account {
    id
    name
    suspended
    createdAt
  }
  principal {
    ...PrincipalFields
  }
  userId
  apiKeyId
  scopes
  principals {
    ...PrincipalFields
  }
}`) as unknown as TypedDocumentString<MeQuery, MeQueryVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys {
  apiKeys {
    ...ApiKeyFields
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}
fragment ApiKeyFields on Principal {
  ...PrincipalFields
  createdBy {
    id
    displayName
    kind
  }
}`) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    ...NewApiKeyFields
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}
fragment ApiKeyFields on Principal {
  ...PrincipalFields
  createdBy {
    id
    displayName
    kind
  }
}
fragment NewApiKeyFields on NewApiKey {
  key
  apiKey {
    ...ApiKeyFields
  }
}`) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) {
    ...ApiKeyFields
  }
}
    fragment PrincipalFields on Principal {
  id
  kind
  displayName
  email
  keyPrefix
  scopes
  expiresAt
  revokedAt
  lastUsedAt
  createdAt
}
fragment ApiKeyFields on Principal {
  ...PrincipalFields
  createdBy {
    id
    displayName
    kind
  }
}`) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const AccountEventsDocument = new TypedDocumentString(`
    subscription AccountEvents {
  accountEvents {
    type
    apiKeyId
    keyPrefix
  }
}
    `) as unknown as TypedDocumentString<AccountEventsSubscription, AccountEventsSubscriptionVariables>;
export const LocalIssuerJwksDocument = new TypedDocumentString(`
    query LocalIssuerJwks {
  localIssuerJwks
}
    `) as unknown as TypedDocumentString<LocalIssuerJwksQuery, LocalIssuerJwksQueryVariables>;
export const ProtectedResourceDocument = new TypedDocumentString(`
    query ProtectedResource {
  protectedResource {
    resource
    authorizationServers
    bearerMethodsSupported
    scopesSupported
    resourceDocumentation
    localIssuer {
      issuer
      jwksUri
    }
  }
}
    `) as unknown as TypedDocumentString<ProtectedResourceQuery, ProtectedResourceQueryVariables>;
export const CreateCheckoutDocument = new TypedDocumentString(`
    mutation CreateCheckout($input: CreateCheckoutInput!) {
  createCheckout(input: $input) {
    ...CheckoutFields
  }
}
    fragment CheckoutFields on CheckoutView {
  checkoutId
  kind
  status
  createdAt
  amount
  completedAt
  expiresAt
  interval
  planId
  url
  providerId
}`) as unknown as TypedDocumentString<CreateCheckoutMutation, CreateCheckoutMutationVariables>;
export const CheckoutDocument = new TypedDocumentString(`
    query Checkout($id: ID!) {
  checkout(id: $id) {
    ...CheckoutFields
  }
}
    fragment CheckoutFields on CheckoutView {
  checkoutId
  kind
  status
  createdAt
  amount
  completedAt
  expiresAt
  interval
  planId
  url
  providerId
}`) as unknown as TypedDocumentString<CheckoutQuery, CheckoutQueryVariables>;
export const CheckPromoCodeDocument = new TypedDocumentString(`
    mutation CheckPromoCode($input: CheckPromoCodeInput!) {
  checkPromoCode(input: $input) {
    code
    for
    percentOff
    amountOff
    bonusCredit
  }
}
    `) as unknown as TypedDocumentString<CheckPromoCodeMutation, CheckPromoCodeMutationVariables>;
export const PaymentMethodsDocument = new TypedDocumentString(`
    query PaymentMethods {
  paymentMethods {
    ...PaymentMethodFields
  }
}
    fragment PaymentMethodFields on PaymentMethod {
  id
  brand
  last4
  expMonth
  expYear
  wallet
  isDefault
  declined
}`) as unknown as TypedDocumentString<PaymentMethodsQuery, PaymentMethodsQueryVariables>;
export const ManagePaymentMethodsDocument = new TypedDocumentString(`
    mutation ManagePaymentMethods {
  managePaymentMethods {
    url
  }
}
    `) as unknown as TypedDocumentString<ManagePaymentMethodsMutation, ManagePaymentMethodsMutationVariables>;
export const DeletePaymentMethodDocument = new TypedDocumentString(`
    mutation DeletePaymentMethod($id: ID!) {
  deletePaymentMethod(id: $id) {
    ...PaymentMethodFields
  }
}
    fragment PaymentMethodFields on PaymentMethod {
  id
  brand
  last4
  expMonth
  expYear
  wallet
  isDefault
  declined
}`) as unknown as TypedDocumentString<DeletePaymentMethodMutation, DeletePaymentMethodMutationVariables>;
export const PaymentsDocument = new TypedDocumentString(`
    query Payments($cursor: String, $limit: Int) {
  payments(cursor: $cursor, limit: $limit) {
    payments {
      id
      kind
      status
      amount
      currency
      createdAt
      document
      businessPurchase
      taxId
    }
    nextCursor
  }
}
    `) as unknown as TypedDocumentString<PaymentsQuery, PaymentsQueryVariables>;
export const PaymentDocumentDocument = new TypedDocumentString(`
    query PaymentDocument($id: ID!) {
  paymentDocument(id: $id) {
    pending
    url
    document
  }
}
    `) as unknown as TypedDocumentString<PaymentDocumentQuery, PaymentDocumentQueryVariables>;
export const BillingPortalDocument = new TypedDocumentString(`
    query BillingPortal {
  billingPortal {
    url
  }
}
    `) as unknown as TypedDocumentString<BillingPortalQuery, BillingPortalQueryVariables>;
export const CancelSubscriptionDocument = new TypedDocumentString(`
    mutation CancelSubscription {
  cancelSubscription {
    ...SubscriptionStateFields
  }
}
    fragment SubscriptionStateFields on BillingView {
  plan {
    id
    name
  }
  subscription {
    id
    planId
    interval
    status
    currentPeriodStart
    currentPeriodEnd
    cancelAtPeriodEnd
    pendingInterval
  }
  pendingChange {
    kind
    at
    planId
    interval
  }
}`) as unknown as TypedDocumentString<CancelSubscriptionMutation, CancelSubscriptionMutationVariables>;
export const UncancelSubscriptionDocument = new TypedDocumentString(`
    mutation UncancelSubscription {
  uncancelSubscription {
    ...SubscriptionStateFields
  }
}
    fragment SubscriptionStateFields on BillingView {
  plan {
    id
    name
  }
  subscription {
    id
    planId
    interval
    status
    currentPeriodStart
    currentPeriodEnd
    cancelAtPeriodEnd
    pendingInterval
  }
  pendingChange {
    kind
    at
    planId
    interval
  }
}`) as unknown as TypedDocumentString<UncancelSubscriptionMutation, UncancelSubscriptionMutationVariables>;
export const ScheduleSubscriptionIntervalDocument = new TypedDocumentString(`
    mutation ScheduleSubscriptionInterval($interval: String!) {
  scheduleSubscriptionInterval(interval: $interval) {
    ...SubscriptionStateFields
  }
}
    fragment SubscriptionStateFields on BillingView {
  plan {
    id
    name
  }
  subscription {
    id
    planId
    interval
    status
    currentPeriodStart
    currentPeriodEnd
    cancelAtPeriodEnd
    pendingInterval
  }
  pendingChange {
    kind
    at
    planId
    interval
  }
}`) as unknown as TypedDocumentString<ScheduleSubscriptionIntervalMutation, ScheduleSubscriptionIntervalMutationVariables>;
export const CancelSubscriptionIntervalDocument = new TypedDocumentString(`
    mutation CancelSubscriptionInterval {
  cancelSubscriptionInterval {
    ...SubscriptionStateFields
  }
}
    fragment SubscriptionStateFields on BillingView {
  plan {
    id
    name
  }
  subscription {
    id
    planId
    interval
    status
    currentPeriodStart
    currentPeriodEnd
    cancelAtPeriodEnd
    pendingInterval
  }
  pendingChange {
    kind
    at
    planId
    interval
  }
}`) as unknown as TypedDocumentString<CancelSubscriptionIntervalMutation, CancelSubscriptionIntervalMutationVariables>;
export const RetryAutoTopUpDocument = new TypedDocumentString(`
    mutation RetryAutoTopUp {
  retryAutoTopUp {
    ...AutoTopUpFields
  }
}
    fragment AutoTopUpFields on AutoTopUpView {
  enabled
  available
  amount
  threshold
  last {
    at
    amount
    outcome
  }
}`) as unknown as TypedDocumentString<RetryAutoTopUpMutation, RetryAutoTopUpMutationVariables>;
export const BillingDetailsDocument = new TypedDocumentString(`
    query BillingDetails {
  billingDetails {
    ...BillingDetailsFields
  }
}
    fragment BillingDetailsFields on BillingDetails {
  name
  email
  line1
  city
  postalCode
  country
  taxId
}`) as unknown as TypedDocumentString<BillingDetailsQuery, BillingDetailsQueryVariables>;
export const UpdateBillingDetailsDocument = new TypedDocumentString(`
    mutation UpdateBillingDetails($input: BillingDetailsInput!) {
  updateBillingDetails(input: $input) {
    ...BillingDetailsFields
  }
}
    fragment BillingDetailsFields on BillingDetails {
  name
  email
  line1
  city
  postalCode
  country
  taxId
}`) as unknown as TypedDocumentString<UpdateBillingDetailsMutation, UpdateBillingDetailsMutationVariables>;
export const SetLowBalanceAlertDocument = new TypedDocumentString(`
    mutation SetLowBalanceAlert($input: LowBalanceAlertInput!) {
  setLowBalanceAlert(input: $input) {
    enabled
    threshold
  }
}
    `) as unknown as TypedDocumentString<SetLowBalanceAlertMutation, SetLowBalanceAlertMutationVariables>;
export const SetAutoTopUpDocument = new TypedDocumentString(`
    mutation SetAutoTopUp($input: AutoTopUpSettingsInput!) {
  setAutoTopUp(input: $input) {
    enabled
    available
    amount
    threshold
    last {
      at
      amount
      outcome
    }
  }
}
    `) as unknown as TypedDocumentString<SetAutoTopUpMutation, SetAutoTopUpMutationVariables>;
export const BillingLedgerDocument = new TypedDocumentString(`
    query BillingLedger($cursor: String, $limit: Int) {
  billingLedger(cursor: $cursor, limit: $limit) {
    entries {
      id
      kind
      amount
      balanceAfter
      description
      chargeId
      paymentId
      createdAt
    }
    nextCursor
  }
}
    `) as unknown as TypedDocumentString<BillingLedgerQuery, BillingLedgerQueryVariables>;
export const BillingChargesDocument = new TypedDocumentString(`
    query BillingCharges($cursor: String, $limit: Int) {
  billingCharges(cursor: $cursor, limit: $limit) {
    charges {
      id
      recordingId
      sessionId
      name
      kind
      source
      state
      secondsBilled
      minimumSeconds
      rate
      cost
      openedAt
      settledAt
    }
    nextCursor
  }
}
    `) as unknown as TypedDocumentString<BillingChargesQuery, BillingChargesQueryVariables>;
export const BillingUsageDocument = new TypedDocumentString(`
    query BillingUsage($startDate: String!, $endDate: String!, $tz: String) {
  billingUsage(startDate: $startDate, endDate: $endDate, tz: $tz) {
    startDate
    endDate
    tz
    currency
    totals {
      seconds
      amount
    }
    bySource {
      source
      seconds
      amount
    }
    byKind {
      kind
      seconds
      amount
    }
    days {
      date
      seconds
      amount
      bySource {
        source
        seconds
        amount
      }
      byKind {
        kind
        seconds
        amount
      }
    }
  }
}
    `) as unknown as TypedDocumentString<BillingUsageQuery, BillingUsageQueryVariables>;
export const BillingUsageChargesDocument = new TypedDocumentString(`
    query BillingUsageCharges($startDate: String!, $endDate: String!, $tz: String, $kind: String, $source: String, $cursor: String, $limit: Int) {
  billingUsageCharges(
    startDate: $startDate
    endDate: $endDate
    tz: $tz
    kind: $kind
    source: $source
    cursor: $cursor
    limit: $limit
  ) {
    startDate
    endDate
    tz
    currency
    count
    total
    seconds
    nextCursor
    charges {
      id
      type
      chargeId
      recordingId
      sessionId
      name
      kind
      source
      state
      secondsBilled
      rate
      cost
      description
      at
    }
  }
}
    `) as unknown as TypedDocumentString<BillingUsageChargesQuery, BillingUsageChargesQueryVariables>;
export const BillingDocument = new TypedDocumentString(`
    query Billing {
  billing {
    enabled
    balance
    inGrace
    canStart
    startBlock
    canStartLive
    startBlockLive
    currency
    plan {
      id
      name
    }
    rates {
      file
      live
      minimumSeconds
      currency
    }
    limits {
      concurrentTranscriptions
      createsPerHour
      createsPerHourUnpaid
      retentionDays
    }
    limitsUsage {
      concurrentTranscriptions
      createsThisHour
      createsResetAt
    }
    subscription {
      id
      planId
      interval
      status
      currentPeriodStart
      currentPeriodEnd
      cancelAtPeriodEnd
      pendingInterval
    }
    pendingChange {
      kind
      at
      planId
      interval
    }
    pendingPayment {
      checkoutId
      kind
      amount
      url
      createdAt
    }
    monthlyCredit {
      amount
      left
      periodStart
    }
    card {
      brand
      last4
      declined
      expMonth
      expYear
    }
    period {
      start
      end
    }
    previousPeriod {
      start
      end
    }
    accountCreated
    retentionDeadline
    hasPaid
    topUpUrl
    autoTopUp {
      enabled
      available
      amount
      threshold
      last {
        at
        amount
        outcome
      }
    }
    lowBalanceAlert {
      enabled
      threshold
    }
  }
}
    `) as unknown as TypedDocumentString<BillingQuery, BillingQueryVariables>;
export const BillingPlansDocument = new TypedDocumentString(`
    query BillingPlans {
  billingPlans {
    enabled
    currency
    defaultPlanId
    topUpPresets
    signupCredit
    downgradeGraceDays
    topUpRange {
      ...MoneyRangeFields
    }
    plans {
      id
      name
      includedMonthlyCredit
      graceOnZero
      features
      billedByHand
      rates {
        file
        live
        minimumSeconds
      }
      prices {
        month
        year
      }
      limits {
        concurrentTranscriptions
        createsPerHour
        createsPerHourUnpaid
        retentionDays
      }
    }
    autoTopUp {
      offered
      thresholds
      amounts
      perDay
      thresholdRange {
        ...MoneyRangeFields
      }
      amountRange {
        ...MoneyRangeFields
      }
    }
    lowBalanceAlert {
      thresholds
      range {
        ...MoneyRangeFields
      }
    }
  }
}
    fragment MoneyRangeFields on MoneyRange {
  min
  max
}`) as unknown as TypedDocumentString<BillingPlansQuery, BillingPlansQueryVariables>;
export const BroadcastsDocument = new TypedDocumentString(`
    query Broadcasts($cursor: String, $lifecycle: String, $limit: Int) {
  broadcasts(cursor: $cursor, lifecycle: $lifecycle, limit: $limit) {
    items {
      ...BroadcastFields
    }
    nextCursor
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<BroadcastsQuery, BroadcastsQueryVariables>;
export const BroadcastDocument = new TypedDocumentString(`
    query Broadcast($id: ID!) {
  broadcast(id: $id) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<BroadcastQuery, BroadcastQueryVariables>;
export const CreateBroadcastDocument = new TypedDocumentString(`
    mutation CreateBroadcast($input: CreateBroadcastInput!) {
  createBroadcast(input: $input) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<CreateBroadcastMutation, CreateBroadcastMutationVariables>;
export const UpdateBroadcastDocument = new TypedDocumentString(`
    mutation UpdateBroadcast($id: ID!, $input: UpdateBroadcastInput!) {
  updateBroadcast(id: $id, input: $input) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<UpdateBroadcastMutation, UpdateBroadcastMutationVariables>;
export const ArchiveBroadcastDocument = new TypedDocumentString(`
    mutation ArchiveBroadcast($id: ID!) {
  archiveBroadcast(id: $id) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<ArchiveBroadcastMutation, ArchiveBroadcastMutationVariables>;
export const RestoreBroadcastDocument = new TypedDocumentString(`
    mutation RestoreBroadcast($id: ID!) {
  restoreBroadcast(id: $id) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<RestoreBroadcastMutation, RestoreBroadcastMutationVariables>;
export const PurgeBroadcastDocument = new TypedDocumentString(`
    mutation PurgeBroadcast($id: ID!) {
  purgeBroadcast(id: $id) {
    ...PurgedFields
  }
}
    fragment PurgedFields on Purged {
  id
  purged
}`) as unknown as TypedDocumentString<PurgeBroadcastMutation, PurgeBroadcastMutationVariables>;
export const AttachTranscriptionBroadcastDocument = new TypedDocumentString(`
    mutation AttachTranscriptionBroadcast($transcriptionId: ID!, $broadcastId: ID!) {
  attachTranscriptionBroadcast(
    transcriptionId: $transcriptionId
    broadcastId: $broadcastId
  ) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<AttachTranscriptionBroadcastMutation, AttachTranscriptionBroadcastMutationVariables>;
export const DetachTranscriptionBroadcastDocument = new TypedDocumentString(`
    mutation DetachTranscriptionBroadcast($transcriptionId: ID!, $broadcastId: ID!) {
  detachTranscriptionBroadcast(
    transcriptionId: $transcriptionId
    broadcastId: $broadcastId
  ) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<DetachTranscriptionBroadcastMutation, DetachTranscriptionBroadcastMutationVariables>;
export const StartBroadcastRecordingDocument = new TypedDocumentString(`
    mutation StartBroadcastRecording($broadcastId: ID!, $input: StartBroadcastRecordingInput) {
  startBroadcastRecording(broadcastId: $broadcastId, input: $input) {
    ...RecordingGrantFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment RecordingGrantFields on RecordingGrant {
  sessionId
  streamUrl
  expiresAt
  recording {
    ...RecordingFields
  }
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<StartBroadcastRecordingMutation, StartBroadcastRecordingMutationVariables>;
export const CreateBroadcastAudioSourceDocument = new TypedDocumentString(`
    mutation CreateBroadcastAudioSource($broadcastId: ID!, $input: CreateAudioSourceInput!) {
  createBroadcastAudioSource(broadcastId: $broadcastId, input: $input) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<CreateBroadcastAudioSourceMutation, CreateBroadcastAudioSourceMutationVariables>;
export const DeleteBroadcastAudioSourceDocument = new TypedDocumentString(`
    mutation DeleteBroadcastAudioSource($broadcastId: ID!, $sourceId: ID!) {
  deleteBroadcastAudioSource(broadcastId: $broadcastId, sourceId: $sourceId) {
    ...BroadcastFields
  }
}
    fragment BroadcastFields on Broadcast {
  id
  code
  name
  kind
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  access
  lifecycle
  ownerPrincipalId
  shareUrl
  settings {
    ...SettingsFields
  }
  recordingCount
  audioSources {
    id
    name
    url
  }
  transcriptions {
    id
    name
  }
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    transcriptionId
    kind
    name
    state
    lifecycle
    startedAt
    endedAt
    durationS
  }
  lastRecordedAt
  listenersNow
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<DeleteBroadcastAudioSourceMutation, DeleteBroadcastAudioSourceMutationVariables>;
export const BroadcastAudioSourceCheckDocument = new TypedDocumentString(`
    query BroadcastAudioSourceCheck($broadcastId: ID!, $sourceId: ID!, $fresh: Boolean) {
  broadcastAudioSourceCheck(
    broadcastId: $broadcastId
    sourceId: $sourceId
    fresh: $fresh
  ) {
    ...AudioSourceCheckFields
  }
}
    fragment AudioSourceCheckFields on AudioSourceCheck {
  state
  checkedAt
  problem
  message
  httpStatus
  fix {
    url
    kind
    label
  }
}`) as unknown as TypedDocumentString<BroadcastAudioSourceCheckQuery, BroadcastAudioSourceCheckQueryVariables>;
export const BroadcastRecordingsDocument = new TypedDocumentString(`
    query BroadcastRecordings($broadcastId: ID!, $cursor: String, $lifecycle: String, $limit: Int) {
  broadcastRecordings(
    broadcastId: $broadcastId
    cursor: $cursor
    lifecycle: $lifecycle
    limit: $limit
  ) {
    items {
      ...RecordingFields
    }
    nextCursor
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<BroadcastRecordingsQuery, BroadcastRecordingsQueryVariables>;
export const RecordingCorrectionsDocument = new TypedDocumentString(`
    query RecordingCorrections($recordingId: ID!, $cursor: String, $limit: Int) {
  recordingCorrections(recordingId: $recordingId, cursor: $cursor, limit: $limit) {
    corrections {
      ...CorrectionFields
    }
    nextCursor
  }
}
    fragment CorrectionFields on Correction {
  id
  batchId
  kind
  from
  to
  actor {
    apiKeyId
    displayName
    userId
  }
  appliedAt
  seq
  speaker
  wordIdx
  revertedAt
  voiced
  notVoicedReason
}`) as unknown as TypedDocumentString<RecordingCorrectionsQuery, RecordingCorrectionsQueryVariables>;
export const CorrectRecordingDocument = new TypedDocumentString(`
    mutation CorrectRecording($recordingId: ID!, $input: CorrectionBatchInput!) {
  correctRecording(recordingId: $recordingId, input: $input) {
    batchId
    corrections {
      ...CorrectionFields
    }
  }
}
    fragment CorrectionFields on Correction {
  id
  batchId
  kind
  from
  to
  actor {
    apiKeyId
    displayName
    userId
  }
  appliedAt
  seq
  speaker
  wordIdx
  revertedAt
  voiced
  notVoicedReason
}`) as unknown as TypedDocumentString<CorrectRecordingMutation, CorrectRecordingMutationVariables>;
export const RetranscribeLineDocument = new TypedDocumentString(`
    mutation RetranscribeLine($recordingId: ID!, $input: RetranscribeInput!) {
  retranscribeLine(recordingId: $recordingId, input: $input) {
    batchId
    corrections {
      ...CorrectionFields
    }
    text
    language
  }
}
    fragment CorrectionFields on Correction {
  id
  batchId
  kind
  from
  to
  actor {
    apiKeyId
    displayName
    userId
  }
  appliedAt
  seq
  speaker
  wordIdx
  revertedAt
  voiced
  notVoicedReason
}`) as unknown as TypedDocumentString<RetranscribeLineMutation, RetranscribeLineMutationVariables>;
export const RevertCorrectionDocument = new TypedDocumentString(`
    mutation RevertCorrection($id: ID!) {
  revertCorrection(id: $id) {
    ...CorrectionFields
  }
}
    fragment CorrectionFields on Correction {
  id
  batchId
  kind
  from
  to
  actor {
    apiKeyId
    displayName
    userId
  }
  appliedAt
  seq
  speaker
  wordIdx
  revertedAt
  voiced
  notVoicedReason
}`) as unknown as TypedDocumentString<RevertCorrectionMutation, RevertCorrectionMutationVariables>;
export const RecordingJobDocument = new TypedDocumentString(`
    query RecordingJob($recordingId: ID!) {
  recordingJob(recordingId: $recordingId) {
    ...JobFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}`) as unknown as TypedDocumentString<RecordingJobQuery, RecordingJobQueryVariables>;
export const StartRecordingJobDocument = new TypedDocumentString(`
    mutation StartRecordingJob($recordingId: ID!, $window: CropWindowInput) {
  startRecordingJob(recordingId: $recordingId, window: $window) {
    ...JobFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}`) as unknown as TypedDocumentString<StartRecordingJobMutation, StartRecordingJobMutationVariables>;
export const RetryRecordingJobDocument = new TypedDocumentString(`
    mutation RetryRecordingJob($recordingId: ID!) {
  retryRecordingJob(recordingId: $recordingId) {
    ...JobFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}`) as unknown as TypedDocumentString<RetryRecordingJobMutation, RetryRecordingJobMutationVariables>;
export const ListenerBroadcastDocument = new TypedDocumentString(`
    query ListenerBroadcast($code: String!, $listenerToken: String, $shareCode: String) {
  listenerBroadcast(
    code: $code
    listenerToken: $listenerToken
    shareCode: $shareCode
  ) {
    ...ListenerBroadcastFields
  }
}
    fragment ListenerBroadcastFields on ListenerBroadcast {
  broadcastId
  code
  name
  access
  authorized
  spokenLanguage
  languages
  currentRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
  lastRecording {
    recordingId
    state
    startedAt
    transcriptionId
  }
}`) as unknown as TypedDocumentString<ListenerBroadcastQuery, ListenerBroadcastQueryVariables>;
export const CreateListenerTokenDocument = new TypedDocumentString(`
    mutation CreateListenerToken($code: String!, $password: String) {
  createListenerToken(code: $code, password: $password) {
    ...ListenerTokenFields
  }
}
    fragment ListenerTokenFields on ListenerToken {
  listenerToken
  broadcastId
  expiresAt
}`) as unknown as TypedDocumentString<CreateListenerTokenMutation, CreateListenerTokenMutationVariables>;
export const HealthDocument = new TypedDocumentString(`
    query Health {
  health {
    ...HealthFields
  }
}
    fragment HealthFields on Health {
  status
  version
  time
}`) as unknown as TypedDocumentString<HealthQuery, HealthQueryVariables>;
export const LanguagesDocument = new TypedDocumentString(`
    query Languages {
  languages {
    transcription {
      ...LanguageFields
    }
    translation {
      ...LanguageFields
    }
    voice {
      ...LanguageFields
    }
  }
}
    fragment LanguageFields on Language {
  code
  name
  nativeName
}`) as unknown as TypedDocumentString<LanguagesQuery, LanguagesQueryVariables>;
export const RealtimeCapabilitiesDocument = new TypedDocumentString(`
    query RealtimeCapabilities {
  realtimeCapabilities {
    ...CapabilitiesFields
  }
}
    fragment CapabilitiesFields on Capabilities {
  languages
  speakerLabelModes
  latencyModes
  audio {
    encodings
    sampleRates
    channels
  }
  limits {
    maxUploadBytes
    maxDurationS
  }
}`) as unknown as TypedDocumentString<RealtimeCapabilitiesQuery, RealtimeCapabilitiesQueryVariables>;
export const CreateRealtimeSessionDocument = new TypedDocumentString(`
    mutation CreateRealtimeSession($options: RealtimeSessionOptionsInput) {
  createRealtimeSession(options: $options) {
    sessionId
    streamUrl
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<CreateRealtimeSessionMutation, CreateRealtimeSessionMutationVariables>;
export const RecordingDocument = new TypedDocumentString(`
    query Recording($id: ID!, $shareCode: String, $listenerToken: String) {
  recording(id: $id, shareCode: $shareCode, listenerToken: $listenerToken) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<RecordingQuery, RecordingQueryVariables>;
export const ArchiveRecordingDocument = new TypedDocumentString(`
    mutation ArchiveRecording($id: ID!) {
  archiveRecording(id: $id) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<ArchiveRecordingMutation, ArchiveRecordingMutationVariables>;
export const RestoreRecordingDocument = new TypedDocumentString(`
    mutation RestoreRecording($id: ID!) {
  restoreRecording(id: $id) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<RestoreRecordingMutation, RestoreRecordingMutationVariables>;
export const PurgeRecordingDocument = new TypedDocumentString(`
    mutation PurgeRecording($id: ID!) {
  purgeRecording(id: $id) {
    ...PurgedFields
  }
}
    fragment PurgedFields on Purged {
  id
  purged
}`) as unknown as TypedDocumentString<PurgeRecordingMutation, PurgeRecordingMutationVariables>;
export const RecordingTranscriptDocument = new TypedDocumentString(`
    query RecordingTranscript($recordingId: ID!, $after: Int, $lang: String, $shareCode: String, $listenerToken: String) {
  recordingTranscript(
    recordingId: $recordingId
    after: $after
    lang: $lang
    shareCode: $shareCode
    listenerToken: $listenerToken
  ) {
    recordingId
    transcriptionId
    state
    language
    durationS
    lastSeq
    partial
    job {
      state
      pct
    }
    sentences {
      id
      speaker
      start
      end
      text
      translations
      confidence
      unclear
      suppressed
    }
    segments {
      seq
      speaker
      speakerConfidence
      speakerProvisional
      translations
      translationSources
      start
      end
      text
      words {
        start
        end
        text
        prob
        low
      }
      confidence
      language
      decoder
      recognizedText
      scriptFrom
      scriptPos
      suppressed
    }
    speakers {
      index
      name
    }
  }
}
    `) as unknown as TypedDocumentString<RecordingTranscriptQuery, RecordingTranscriptQueryVariables>;
export const RecordingTranslationDocument = new TypedDocumentString(`
    query RecordingTranslation($recordingId: ID!, $lang: String!, $sentences: [String!], $shareCode: String, $listenerToken: String) {
  recordingTranslation(
    recordingId: $recordingId
    lang: $lang
    sentences: $sentences
    shareCode: $shareCode
    listenerToken: $listenerToken
  ) {
    recordingId
    lang
    language
    sentences {
      id
      start
      end
      text
      translation
      source
      suppressed
    }
  }
}
    `) as unknown as TypedDocumentString<RecordingTranslationQuery, RecordingTranslationQueryVariables>;
export const NameRecordingSpeakerDocument = new TypedDocumentString(`
    mutation NameRecordingSpeaker($recordingId: ID!, $idx: Int!, $name: String) {
  nameRecordingSpeaker(recordingId: $recordingId, idx: $idx, name: $name) {
    index
    name
  }
}
    `) as unknown as TypedDocumentString<NameRecordingSpeakerMutation, NameRecordingSpeakerMutationVariables>;
export const RecordingEventsDocument = new TypedDocumentString(`
    query RecordingEvents($recordingId: ID!, $cursor: String, $after: Int, $limit: Int) {
  recordingEvents(
    recordingId: $recordingId
    cursor: $cursor
    after: $after
    limit: $limit
  ) {
    events {
      seq
      type
      at
      frame
    }
    lastSeq
    nextCursor
  }
}
    `) as unknown as TypedDocumentString<RecordingEventsQuery, RecordingEventsQueryVariables>;
export const RecordingMediaTokenDocument = new TypedDocumentString(`
    query RecordingMediaToken($recordingId: ID!) {
  recordingMediaToken(recordingId: $recordingId) {
    token
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<RecordingMediaTokenQuery, RecordingMediaTokenQueryVariables>;
export const StartRecordingDocument = new TypedDocumentString(`
    mutation StartRecording($transcriptionId: ID!, $input: StartRecordingInput) {
  startRecording(transcriptionId: $transcriptionId, input: $input) {
    ...RecordingGrantFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment RecordingGrantFields on RecordingGrant {
  sessionId
  streamUrl
  expiresAt
  recording {
    ...RecordingFields
  }
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<StartRecordingMutation, StartRecordingMutationVariables>;
export const RecordingPublishTokenDocument = new TypedDocumentString(`
    mutation RecordingPublishToken($id: ID!, $takeover: Boolean) {
  recordingPublishToken(id: $id, takeover: $takeover) {
    ...RecordingGrantFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment RecordingGrantFields on RecordingGrant {
  sessionId
  streamUrl
  expiresAt
  recording {
    ...RecordingFields
  }
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<RecordingPublishTokenMutation, RecordingPublishTokenMutationVariables>;
export const TranscriptionRecordingsDocument = new TypedDocumentString(`
    query TranscriptionRecordings($transcriptionId: ID!, $cursor: String, $limit: Int) {
  transcriptionRecordings(
    transcriptionId: $transcriptionId
    cursor: $cursor
    limit: $limit
  ) {
    items {
      ...RecordingFields
    }
    nextCursor
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<TranscriptionRecordingsQuery, TranscriptionRecordingsQueryVariables>;
export const PauseRecordingDocument = new TypedDocumentString(`
    mutation PauseRecording($id: ID!) {
  pauseRecording(id: $id) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<PauseRecordingMutation, PauseRecordingMutationVariables>;
export const ResumeRecordingDocument = new TypedDocumentString(`
    mutation ResumeRecording($id: ID!) {
  resumeRecording(id: $id) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<ResumeRecordingMutation, ResumeRecordingMutationVariables>;
export const StopRecordingDocument = new TypedDocumentString(`
    mutation StopRecording($id: ID!) {
  stopRecording(id: $id) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<StopRecordingMutation, StopRecordingMutationVariables>;
export const UpdateRecordingSettingsDocument = new TypedDocumentString(`
    mutation UpdateRecordingSettings($id: ID!, $input: RecordingSettingsInput!) {
  updateRecordingSettings(id: $id, input: $input) {
    ...RecordingFields
  }
}
    fragment RecordingFields on Recording {
  id
  transcriptionId
  kind
  name
  state
  lifecycle
  durationS
  spokenLanguage
  lastSeq
  scriptText
  settings {
    ...SettingsFields
  }
  ingest {
    state
    bytes
    seconds
    reconnects
    error
  }
  captureSpans {
    idx
    wallStart
    mediaStart
    reason
    mediaEnd
    wallEnd
  }
  endedAt
  finalizedAt
  title
  summary
  createdAt
  updatedAt
  archivedAt
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<UpdateRecordingSettingsMutation, UpdateRecordingSettingsMutationVariables>;
export const RtmpDocument = new TypedDocumentString(`
    query Rtmp {
  rtmp {
    ...RtmpStatusFields
  }
}
    fragment RtmpStatusFields on RtmpStatus {
  serverUrl
  streamKey
  maskedStreamKey
  transcriptionId
  audio {
    codec
    sampleRate
    channels
    since
  }
  monitorUrl
  monitorExpiresAt
}`) as unknown as TypedDocumentString<RtmpQuery, RtmpQueryVariables>;
export const RotateRtmpKeyDocument = new TypedDocumentString(`
    mutation RotateRtmpKey {
  rotateRtmpKey {
    ...RtmpStatusFields
  }
}
    fragment RtmpStatusFields on RtmpStatus {
  serverUrl
  streamKey
  maskedStreamKey
  transcriptionId
  audio {
    codec
    sampleRate
    channels
    since
  }
  monitorUrl
  monitorExpiresAt
}`) as unknown as TypedDocumentString<RotateRtmpKeyMutation, RotateRtmpKeyMutationVariables>;
export const SearchDocument = new TypedDocumentString(`
    query Search($q: String!, $lang: String, $transcriptionId: ID, $broadcast: [String!], $listenerToken: String, $cursor: String, $limit: Int) {
  search(
    q: $q
    lang: $lang
    transcriptionId: $transcriptionId
    broadcast: $broadcast
    listenerToken: $listenerToken
    cursor: $cursor
    limit: $limit
  ) {
    results {
      recordingId
      transcriptionId
      sentenceId
      start
      end
      speaker
      text
      snippet
      score
      language
      lang
      original
      unclear
    }
    nextCursor
  }
}
    `) as unknown as TypedDocumentString<SearchQuery, SearchQueryVariables>;
export const ShareLinksDocument = new TypedDocumentString(`
    query ShareLinks($transcriptionId: ID!) {
  shareLinks(transcriptionId: $transcriptionId) {
    ...ShareLinkFields
  }
}
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<ShareLinksQuery, ShareLinksQueryVariables>;
export const CreateShareLinkDocument = new TypedDocumentString(`
    mutation CreateShareLink($transcriptionId: ID!, $input: CreateShareLinkInput!) {
  createShareLink(transcriptionId: $transcriptionId, input: $input) {
    ...ShareLinkFields
  }
}
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateShareLinkMutation, CreateShareLinkMutationVariables>;
export const UpdateShareLinkDocument = new TypedDocumentString(`
    mutation UpdateShareLink($id: ID!, $input: UpdateShareLinkInput!) {
  updateShareLink(id: $id, input: $input) {
    ...ShareLinkFields
  }
}
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateShareLinkMutation, UpdateShareLinkMutationVariables>;
export const RevokeShareLinkDocument = new TypedDocumentString(`
    mutation RevokeShareLink($id: ID!) {
  revokeShareLink(id: $id) {
    ...ShareLinkFields
  }
}
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<RevokeShareLinkMutation, RevokeShareLinkMutationVariables>;
export const BroadcastShareLinksDocument = new TypedDocumentString(`
    query BroadcastShareLinks($broadcastId: ID!) {
  broadcastShareLinks(broadcastId: $broadcastId) {
    ...ShareLinkFields
  }
}
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<BroadcastShareLinksQuery, BroadcastShareLinksQueryVariables>;
export const CreateBroadcastShareLinkDocument = new TypedDocumentString(`
    mutation CreateBroadcastShareLink($broadcastId: ID!, $input: CreateShareLinkInput!) {
  createBroadcastShareLink(broadcastId: $broadcastId, input: $input) {
    ...ShareLinkFields
  }
}
    fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateBroadcastShareLinkMutation, CreateBroadcastShareLinkMutationVariables>;
export const RecordingSummaryDocument = new TypedDocumentString(`
    query RecordingSummary($recordingId: ID!, $lang: String, $shareCode: String) {
  recordingSummary(recordingId: $recordingId, lang: $lang, shareCode: $shareCode) {
    ...RecordingSummaryFields
  }
}
    fragment RecordingSummaryFields on RecordingSummary {
  recordingId
  state
  title
  summary
  language
  lang
  provider
  writtenAt
  reason
  retryable
  error
}`) as unknown as TypedDocumentString<RecordingSummaryQuery, RecordingSummaryQueryVariables>;
export const SummarizeRecordingDocument = new TypedDocumentString(`
    mutation SummarizeRecording($recordingId: ID!) {
  summarizeRecording(recordingId: $recordingId) {
    ...RecordingSummaryFields
  }
}
    fragment RecordingSummaryFields on RecordingSummary {
  recordingId
  state
  title
  summary
  language
  lang
  provider
  writtenAt
  reason
  retryable
  error
}`) as unknown as TypedDocumentString<SummarizeRecordingMutation, SummarizeRecordingMutationVariables>;
export const TranscriptionsDocument = new TypedDocumentString(`
    query Transcriptions($cursor: String, $lifecycle: String, $limit: Int) {
  transcriptions(cursor: $cursor, lifecycle: $lifecycle, limit: $limit) {
    items {
      ...TranscriptionFields
    }
    nextCursor
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<TranscriptionsQuery, TranscriptionsQueryVariables>;
export const TranscriptionDocument = new TypedDocumentString(`
    query Transcription($id: ID!) {
  transcription(id: $id) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<TranscriptionQuery, TranscriptionQueryVariables>;
export const CreateTranscriptionDocument = new TypedDocumentString(`
    mutation CreateTranscription($options: CreateTranscriptionInput, $file: Upload) {
  createTranscription(options: $options, file: $file) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<CreateTranscriptionMutation, CreateTranscriptionMutationVariables>;
export const UploadRecordingDocument = new TypedDocumentString(`
    mutation UploadRecording($transcriptionId: ID!, $options: CreateTranscriptionInput, $file: Upload) {
  uploadRecording(
    transcriptionId: $transcriptionId
    options: $options
    file: $file
  ) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<UploadRecordingMutation, UploadRecordingMutationVariables>;
export const UpdateTranscriptionDocument = new TypedDocumentString(`
    mutation UpdateTranscription($id: ID!, $input: UpdateTranscriptionInput!) {
  updateTranscription(id: $id, input: $input) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<UpdateTranscriptionMutation, UpdateTranscriptionMutationVariables>;
export const ArchiveTranscriptionDocument = new TypedDocumentString(`
    mutation ArchiveTranscription($id: ID!) {
  archiveTranscription(id: $id) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<ArchiveTranscriptionMutation, ArchiveTranscriptionMutationVariables>;
export const RestoreTranscriptionDocument = new TypedDocumentString(`
    mutation RestoreTranscription($id: ID!) {
  restoreTranscription(id: $id) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<RestoreTranscriptionMutation, RestoreTranscriptionMutationVariables>;
export const PurgeTranscriptionDocument = new TypedDocumentString(`
    mutation PurgeTranscription($id: ID!) {
  purgeTranscription(id: $id) {
    ...PurgedFields
  }
}
    fragment PurgedFields on Purged {
  id
  purged
}`) as unknown as TypedDocumentString<PurgeTranscriptionMutation, PurgeTranscriptionMutationVariables>;
export const TranscriptionProbeDocument = new TypedDocumentString(`
    query TranscriptionProbe($url: String!) {
  transcriptionProbe(url: $url) {
    kind
    ok
    problem
    source
    media {
      url
      title
    }
    contentType
    bytes
    url
  }
}
    `) as unknown as TypedDocumentString<TranscriptionProbeQuery, TranscriptionProbeQueryVariables>;
export const CreateLiveTranscriptionDocument = new TypedDocumentString(`
    mutation CreateLiveTranscription($input: CreateLiveTranscriptionInput!) {
  createLiveTranscription(input: $input) {
    ...TranscriptionFields
  }
}
    fragment JobFields on TranscriptionJob {
  recordingId
  state
  progress {
    pct
    processedS
    totalS
    segmentsDone
    segmentsTotal
    phase
    phasePct
    fetchedBytes
    fetchTotalBytes
    uncoveredSpeechS
  }
  error
  errorCode
  source
  queue {
    position
  }
  preview {
    peaks
    bucketS
    durationS
    expiresAt
    available
  }
  window {
    startS
    endS
  }
  attempts
  createdAt
  startedAt
  finishedAt
}
fragment ShareLinkFields on ShareLink {
  id
  code
  label
  transcriptionId
  broadcastId
  allowDownload
  allowExport
  allowTranslate
  isDefault
  createdAt
  updatedAt
}
fragment TranscriptionFields on Transcription {
  id
  kind
  name
  state
  settings {
    ...SettingsFields
  }
  sourceUrl
  source {
    ... on MicSource {
      kind
    }
    ... on StreamSource {
      kind
      url
    }
  }
  broadcasts {
    id
    name
    code
    access
    shareUrl
  }
  recordingId
  job {
    ...JobFields
  }
  durationS
  spokenLanguage
  shareLink {
    ...ShareLinkFields
  }
  createdAt
  updatedAt
  archivedAt
  purgeAfter
}
fragment SettingsFields on Settings {
  spokenLanguage
  speakerLabels
  confidencePolicy {
    hideBelow
    lowThreshold
    suppressCount
  }
  voiceByLang
  latencyMode
  translate
  llmFix
}`) as unknown as TypedDocumentString<CreateLiveTranscriptionMutation, CreateLiveTranscriptionMutationVariables>;
export const RecordingVoiceTracksDocument = new TypedDocumentString(`
    query RecordingVoiceTracks($recordingId: ID!, $lang: String, $shareCode: String, $listenerToken: String) {
  recordingVoiceTracks(
    recordingId: $recordingId
    lang: $lang
    shareCode: $shareCode
    listenerToken: $listenerToken
  ) {
    ...VoiceTracksFields
  }
}
    fragment VoiceTracksFields on VoiceTracks {
  recordingId
  language
  tracks {
    lang
    voice
    spokenLanguage
    sealed
    stale
    staleSentences
    sealedAt
    durationS
    job {
      state
      progress
      error
      attempts
      renderS
      synthesizedS
      startedAt
    }
    clips {
      sentenceId
      voice
      start
      end
      durationS
      text
      textFrom
      spoken
      translationSource
    }
  }
}`) as unknown as TypedDocumentString<RecordingVoiceTracksQuery, RecordingVoiceTracksQueryVariables>;
export const RenderVoiceTracksDocument = new TypedDocumentString(`
    mutation RenderVoiceTracks($recordingId: ID!, $languages: [String!]!, $force: Boolean) {
  renderVoiceTracks(
    recordingId: $recordingId
    languages: $languages
    force: $force
  ) {
    ...VoiceTracksFields
  }
}
    fragment VoiceTracksFields on VoiceTracks {
  recordingId
  language
  tracks {
    lang
    voice
    spokenLanguage
    sealed
    stale
    staleSentences
    sealedAt
    durationS
    job {
      state
      progress
      error
      attempts
      renderS
      synthesizedS
      startedAt
    }
    clips {
      sentenceId
      voice
      start
      end
      durationS
      text
      textFrom
      spoken
      translationSource
    }
  }
}`) as unknown as TypedDocumentString<RenderVoiceTracksMutation, RenderVoiceTracksMutationVariables>;
export const VoicesDocument = new TypedDocumentString(`
    query Voices($cursor: String, $limit: Int) {
  voices(cursor: $cursor, limit: $limit) {
    items {
      ...VoiceFields
    }
    nextCursor
  }
}
    fragment VoiceFields on Voice {
  id
  name
  color
  gender
  sampleUrl
  consent
  draft
  enabled
  state
  progress
  error
  source {
    recordingId
    speaker
  }
  speechS
  fit {
    cloner
    speechS
    pitchHz
    gender
    basedOn
    blend
    voicePitchHz
    distance
    candidates {
      voice
      distance
    }
  }
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<VoicesQuery, VoicesQueryVariables>;
export const VoiceDocument = new TypedDocumentString(`
    query Voice($id: ID!) {
  voice(id: $id) {
    ...VoiceFields
  }
}
    fragment VoiceFields on Voice {
  id
  name
  color
  gender
  sampleUrl
  consent
  draft
  enabled
  state
  progress
  error
  source {
    recordingId
    speaker
  }
  speechS
  fit {
    cloner
    speechS
    pitchHz
    gender
    basedOn
    blend
    voicePitchHz
    distance
    candidates {
      voice
      distance
    }
  }
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<VoiceQuery, VoiceQueryVariables>;
export const AvailableVoicesDocument = new TypedDocumentString(`
    query AvailableVoices($lang: String!) {
  availableVoices(lang: $lang) {
    ...AvailableVoicesFields
  }
}
    fragment AvailableVoicesFields on AvailableVoices {
  lang
  voices {
    id
    kind
    name
    language
    gender
    default
    color
  }
}`) as unknown as TypedDocumentString<AvailableVoicesQuery, AvailableVoicesQueryVariables>;
export const CreateVoiceDocument = new TypedDocumentString(`
    mutation CreateVoice($input: CreateVoiceInput!, $sample: Upload!) {
  createVoice(input: $input, sample: $sample) {
    ...VoiceFields
  }
}
    fragment VoiceFields on Voice {
  id
  name
  color
  gender
  sampleUrl
  consent
  draft
  enabled
  state
  progress
  error
  source {
    recordingId
    speaker
  }
  speechS
  fit {
    cloner
    speechS
    pitchHz
    gender
    basedOn
    blend
    voicePitchHz
    distance
    candidates {
      voice
      distance
    }
  }
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateVoiceMutation, CreateVoiceMutationVariables>;
export const CreateVoiceFromSpeakerDocument = new TypedDocumentString(`
    mutation CreateVoiceFromSpeaker($input: CreateVoiceFromSpeakerInput!) {
  createVoiceFromSpeaker(input: $input) {
    ...VoiceFields
  }
}
    fragment VoiceFields on Voice {
  id
  name
  color
  gender
  sampleUrl
  consent
  draft
  enabled
  state
  progress
  error
  source {
    recordingId
    speaker
  }
  speechS
  fit {
    cloner
    speechS
    pitchHz
    gender
    basedOn
    blend
    voicePitchHz
    distance
    candidates {
      voice
      distance
    }
  }
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateVoiceFromSpeakerMutation, CreateVoiceFromSpeakerMutationVariables>;
export const UpdateVoiceDocument = new TypedDocumentString(`
    mutation UpdateVoice($id: ID!, $input: UpdateVoiceInput!) {
  updateVoice(id: $id, input: $input) {
    ...VoiceFields
  }
}
    fragment VoiceFields on Voice {
  id
  name
  color
  gender
  sampleUrl
  consent
  draft
  enabled
  state
  progress
  error
  source {
    recordingId
    speaker
  }
  speechS
  fit {
    cloner
    speechS
    pitchHz
    gender
    basedOn
    blend
    voicePitchHz
    distance
    candidates {
      voice
      distance
    }
  }
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateVoiceMutation, UpdateVoiceMutationVariables>;
export const DeleteVoiceDocument = new TypedDocumentString(`
    mutation DeleteVoice($id: ID!) {
  deleteVoice(id: $id) {
    id
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteVoiceMutation, DeleteVoiceMutationVariables>;