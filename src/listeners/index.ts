/**
 * src/listeners's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { ListenerAccess } from './access.js';
export { type Subscriber } from './fanout.js';
export {
  planBroadcastEvents, planSubscription, serveBroadcastEvents, serveSubscription, type BroadcastEventsPlan, type SubscribePlan,
} from './sockets.js';
