/**
 * The provider of an operator who bills by hand: credit and plans are granted by the operator, so nothing is
 * bought online. Every operation that would take a payment or open the provider's pages is refused with one
 * message the customer can act on; nothing here talks to anybody.
 */
import {
  ProviderRefused,
  WebhookSignatureError,
  type ChargeOutcome,
  type CreatedCheckout,
  type PaymentProvider,
  type ProviderCheckout,
  type ProviderEvent,
  type ProviderPaymentMethod,
  type ProviderSubscription,
} from './provider.js';

const BILLED_BY_HAND = 'this server bills by hand; ask the operator';

export class ManualProvider implements PaymentProvider {
  readonly kind = 'manual' as const;
  readonly offersAutomaticCharges = false;

  /** There is no provider-side customer; the account id stands for one so that callers can store something. */
  async ensureCustomer(input: { accountId: string }): Promise<string> {
    return `manual:${input.accountId}`;
  }

  async createCheckout(): Promise<CreatedCheckout> {
    throw new ProviderRefused(BILLED_BY_HAND);
  }

  async getCheckout(providerId: string): Promise<ProviderCheckout> {
    throw new ProviderRefused(`no checkout ${providerId}: ${BILLED_BY_HAND}`, { code: 'resource_missing' });
  }

  async listPaymentMethods(): Promise<ProviderPaymentMethod[]> {
    return [];
  }

  async detachPaymentMethod(id: string): Promise<void> {
    throw new ProviderRefused(`no payment method ${id}: ${BILLED_BY_HAND}`, { code: 'resource_missing' });
  }

  async portalUrl(): Promise<string> {
    throw new ProviderRefused(BILLED_BY_HAND);
  }

  async chargeOffSession(): Promise<ChargeOutcome> {
    throw new ProviderRefused(BILLED_BY_HAND);
  }

  async getSubscription(id: string): Promise<ProviderSubscription> {
    throw new ProviderRefused(`no subscription ${id}: ${BILLED_BY_HAND}`, { code: 'resource_missing' });
  }

  async setCancelAtPeriodEnd(id: string): Promise<ProviderSubscription> {
    return this.getSubscription(id);
  }

  async scheduleInterval(id: string): Promise<ProviderSubscription> {
    return this.getSubscription(id);
  }

  /** The operator sends documents themselves; there is never one to link to. */
  async documentUrl(): Promise<string | null> {
    return null;
  }

  /** Nobody is entitled to post events here, so every delivery is refused as unsigned. */
  verifyWebhook(): ProviderEvent {
    throw new WebhookSignatureError('this server bills by hand and takes no payment webhooks');
  }
}
