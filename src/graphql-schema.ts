/**
 * The GraphQL schema: the builder plus one import per resource module. Add yours here (one line).
 */
import { builder } from './core/builder.js';
import './meta/graphql.js';
import './account/graphql.js';
import './share-links/graphql.js';
import './jobs/graphql.js';
import './transcriptions/graphql.js';
import './broadcasts/graphql.js';
import './listeners/graphql.js';
import './recordings/graphql.js';
import './live/recordings-graphql.js';
import './recordings/voice-tracks-graphql.js';
import './corrections/graphql.js';
import './summaries/graphql.js';
import './search/graphql.js';
import './live/graphql.js';
import './auth/graphql.js';
import './voices/graphql.js';
import './live/rtmp-graphql.js';
import './billing/graphql.js';
import './billing/settings-graphql.js';
import './billing/payments-graphql.js';
import './billing/statements-graphql.js';

export const schema = builder.toSchema({ sortSchema: true });
