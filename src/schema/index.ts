/**
 * The GraphQL schema: the builder plus one import per resource module. Add yours here (one line).
 */
import { builder } from './builder.js';
import './meta/index.js';
import './account/index.js';
import './share-links/index.js';
import './transcriptions/index.js';
import './recordings/index.js';
import './realtime/index.js';
import './auth/index.js';

export const schema = builder.toSchema({ sortSchema: true });
