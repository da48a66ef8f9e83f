/**
 * Every REST route, joined from rest/routes/<resource>.ts. Add your resource's array here (one line); the router
 * and /v1/openapi.json both read this list.
 */
import { accountRoutes } from './routes/account.js';
import { authRoutes } from './routes/auth.js';
import { connectRoutes } from './routes/connect.js';
import { correctionRoutes } from './routes/corrections.js';
import { billingRoutes } from './routes/billing.js';
import { billingPaymentRoutes } from './routes/billing-payments.js';
import { billingSettingsRoutes } from './routes/billing-settings.js';
import { billingStatementRoutes } from './routes/billing-statements.js';
import { broadcastRoutes } from './routes/broadcasts.js';
import { docsRoutes } from './routes/docs.js';
import { graphiqlRoutes } from './routes/graphiql.js';
import { jobRoutes } from './routes/jobs.js';
import { listenerRoutes } from './routes/listeners.js';
import { listenerPageRoutes } from './routes/listener-page.js';
import { mcpRoutes } from './routes/mcp.js';
import { metaRoutes } from './routes/meta.js';
import { metricsRoutes } from './routes/metrics.js';
import { realtimeRoutes } from './routes/realtime.js';
import { recordingRoutes } from './routes/recordings.js';
import { shareLinkRoutes } from './routes/share-links.js';
import { summaryRoutes } from './routes/summaries.js';
import { searchRoutes } from './routes/search.js';
import { rtmpRoutes } from './routes/rtmp.js';
import { transcriptionRoutes } from './routes/transcriptions.js';
import { voiceRoutes } from './routes/voices.js';
import { voiceTrackRoutes } from './routes/voice-tracks.js';
import { withOperationTexts } from './operation-texts.js';
import { withRouteDefaults, type RouteEntry } from './types.js';

export const routeTable: RouteEntry[] = withOperationTexts(withRouteDefaults([
  ...transcriptionRoutes,
  ...broadcastRoutes,
  ...listenerRoutes,
  ...jobRoutes,
  ...recordingRoutes,
  ...correctionRoutes,
  ...summaryRoutes,
  ...voiceTrackRoutes,
  ...searchRoutes,
  ...rtmpRoutes,
  ...shareLinkRoutes,
  ...metaRoutes,
  ...metricsRoutes,
  ...mcpRoutes,
  ...accountRoutes,
  ...billingRoutes,
  ...billingPaymentRoutes,
  ...billingSettingsRoutes,
  ...billingStatementRoutes,
  ...authRoutes,
  ...connectRoutes,
  ...docsRoutes,
  ...graphiqlRoutes,
  ...realtimeRoutes,
  ...listenerPageRoutes,
  ...voiceRoutes,
]));
