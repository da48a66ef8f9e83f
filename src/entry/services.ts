/**
 * Constructs every module's service from the shared dependencies, and injects what a module must not import
 * itself: the job queue (Bull, from workers/queue.ts) goes to the jobs service. A new module adds its line here and its field to
 * `Services` from its own service.ts.
 */
import { AccountsService } from '../account/service.js';
import { AuthService } from '../auth/service.js';
import { ConnectService } from '../connect/service.js';
import { BroadcastsService } from '../broadcasts/service.js';
import { CorrectionsService } from '../corrections/service.js';
import { FreshReader } from '../corrections/index.js';
import { IdempotencyService } from '../core/idempotency.js';
import type { ServiceDeps, Services } from '../core/services.js';
import { JobsService } from '../jobs/service.js';
import { CapabilitiesService } from '../meta/service.js';
import { RealtimeService } from '../live/service.js';
import { RecordingsService } from '../recordings/service.js';
import { LiveRecordingsService, RtmpService } from '../live/index.js';
import { ListenerLanguages, VoiceTracksService } from '../recordings/index.js';
import { ShareLinksService } from '../share-links/service.js';
import { SummariesService } from '../summaries/service.js';
import { SearchService } from '../search/service.js';
import { ListenerAccess } from '../listeners/index.js';
import { ListenersService } from '../listeners/service.js';
import { TranscriptionsService } from '../transcriptions/service.js';
import { TranslationService } from '../translation/service.js';
import { SpeechTranslation } from '../translation/index.js';
import { lazyJobQueue } from '../../workers/queue.js';
import { VoicesService } from '../voices/service.js';
import { VOICE_LANGUAGE_CODES } from '../voices/index.js';
import { lazyVoiceTrainingQueue } from '../../workers/voice-training.js';
import { lazyVoiceRenderQueue } from '../../workers/voice-render.js';
import { BillingService } from '../billing/service.js';
import { Metering, LowBalanceAlerts, createPaymentProvider, PaymentsService } from '../billing/index.js';
import { RedisHourlyLimiter } from '../core/hourly-limiter.js';
import { createLogger } from '../core/logger.js';
import { hidePathsUnder } from '../core/errors.js';

export function createServices(deps: ServiceDeps): Services {
  // Every process that answers clients or writes what they read (job failures) builds its services here.
  hidePathsUnder(deps.config.dataDir, deps.config.modelsDir, deps.config.voices.kokoroDir);
  const capabilities = new CapabilitiesService(deps);
  const shareLinks = new ShareLinksService(deps);
  // Prepaid credit (off unless BILLING_CONFIG): admission at every creation point, metering, payments.
  const billing = new BillingService(deps, new RedisHourlyLimiter({ redisUrl: deps.config.redisUrl, prefix: deps.config.redisPrefix }));
  const metering = new Metering(deps, billing);
  const jobs = new JobsService(deps, lazyJobQueue({ redisUrl: deps.config.redisUrl, redisPrefix: deps.config.redisPrefix }), metering);
  const translation = new TranslationService(deps);
  // Languages broadcast listeners read recordings in: new pairs limited per network, translated live once asked.
  const listenerLanguages = new ListenerLanguages({
    redisUrl: deps.config.redisUrl, prefix: deps.config.redisPrefix, pairsPerHour: deps.config.rateLimit.listenerTranslationPairsPerHour,
  });
  const realtime = new RealtimeService(deps, capabilities, translation, metering);
  const transcriptions = new TranscriptionsService(deps, capabilities, jobs, metering);
  const liveRecordings = new LiveRecordingsService(
    deps, realtime, jobs.context.queue, translation.translate.bind(translation), listenerLanguages, metering,
  );
  const listenerAccess = new ListenerAccess(deps);
  // The English pivot: sentences read again from their audio (Whisper's speech→English) on the accurate model,
  // on the realtime engine threads when they run it.
  const speechTranslation = new SpeechTranslation(deps, translation, () => realtime.runtime.engine);
  const recordings = new RecordingsService(deps, shareLinks, listenerAccess, translation, listenerLanguages, speechTranslation);
  const summaries = new SummariesService(deps, recordings, translation);
  // GET /v1/languages lists the targets the configured translation providers really serve.
  capabilities.register({ translationLanguages: () => translation.targets() });
  // GET /v1/languages lists the languages a catalogue voice speaks (every cloned voice speaks them too).
  capabilities.register({ voiceLanguages: () => [...VOICE_LANGUAGE_CODES] });
  // Cloned voices: trained on their own Bull queue (workers/voice-training.ts).
  const voices = new VoicesService(deps, lazyVoiceTrainingQueue({ redisUrl: deps.config.redisUrl, redisPrefix: deps.config.redisPrefix }));
  // Spoken-translation tracks: rendered on their own Bull queue (workers/voice-render.ts); a track pinned to a cloned
  // voice (settings.voiceByLang) speaks with its fitted style while it is usable.
  const voiceTracks = new VoiceTracksService(
    deps, recordings, (texts, from, to) => translation.translate(texts, from, to), (from, to) => translation.serves(from, to),
    lazyVoiceRenderQueue({ redisUrl: deps.config.redisUrl, redisPrefix: deps.config.redisPrefix }),
    (accountId, id) => voices.usableStyle(accountId, id),
  );
  const accounts = new AccountsService(deps);
  // Low-balance alert emails: told of every fall of a balance, one email per fall to the account's threshold.
  new LowBalanceAlerts(deps, billing).listen();
  // Checkouts, subscriptions, cards, auto top-up: through the provider the plans file names (Stripe or manual).
  const payments = new PaymentsService(
    deps, billing, createPaymentProvider(billing.settings), billing.hourly, createLogger(deps.config.logLevel),
  );
  // A fall of the balance to the account's auto top-up threshold charges its card (at most perDay a day).
  billing.onBalanceFell((accountId) => payments.autoTopUp(accountId, 'threshold'));
  return {
    billing,
    metering,
    payments,
    jobs,
    transcriptions,
    broadcasts: new BroadcastsService(deps, transcriptions, liveRecordings),
    recordings,
    // Fresh readings of a line's audio decode on this process's realtime engine threads; summaries and stored
    // translations follow corrections.
    corrections: new CorrectionsService(
      deps, new FreshReader(deps.config.dataDir, () => realtime.runtime.engine), () => capabilities.transcriptionLanguages(), summaries,
      (texts, from, to) => translation.translate(texts, from, to),
    ),
    listeners: new ListenersService(
      deps, recordings, shareLinks, listenerAccess, () => translation.targets(),
      (recordingId, sentence, lang, voice) => voiceTracks.speakForSubscriber(recordingId, sentence, lang, voice),
    ),
    shareLinks,
    summaries,
    translation,
    speechTranslation,
    voiceTracks,
    listenerLanguages,
    search: new SearchService(deps, listenerAccess, translation),
    idempotency: new IdempotencyService(deps),
    accounts,
    // Connect (OAuth 2.0 code with PKCE): its access token is a new API key of the approving person's account.
    connect: new ConnectService(deps, accounts),
    auth: new AuthService(deps),
    capabilities,
    realtime,
    liveRecordings,
    voices,
    // RTMP ingest: the account's stream key and status; the RTMP server itself runs with the app (src/live/transports/rtmp.ts).
    rtmp: new RtmpService(deps, transcriptions),
  };
}
