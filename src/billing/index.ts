/**
 * src/billing's face beside service.ts and graphql.ts: what other modules, rest/ and the processors use of its
 * other files. Nothing outside the module imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { LowBalanceAlerts, parseLowBalanceAlert } from './alerts.js';
export { parseAutoTopUpSettings } from './auto-top-up-settings.js';
export { parseBillingDetails } from './details.js';
export { Metering, meteringSweeper, windowSeconds } from './metering.js';
export { checkoutFields, createPaymentProvider, intervalField, PaymentsService, promoFields } from './payments/service.js';
export { USAGE_MAX_DAYS } from './statements.js';
export { billingSweeper } from './sweeper.js';
export { assignPlan, grantCredit } from './operator.js';
