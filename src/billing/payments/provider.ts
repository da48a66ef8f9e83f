/**
 * The payment provider as billing sees it: customers, hosted checkouts, saved cards, off-session charges, a
 * subscription's period and scheduled switch, the documents a payment leaves, and signed webhook events. Provider-
 * neutral on purpose: the billing service never sees a Stripe type, so an operator who bills by hand (manual.ts)
 * plugs in the same way as Stripe (stripe.ts). Money is in whole cents, times are Dates.
 */

export type CheckoutKind = 'topup' | 'subscribe';
export type BillingInterval = 'month' | 'year';

export interface CreateCheckoutInput {
  customerId: string;
  kind: CheckoutKind;
  /** Top-up: the amount of credit bought. Null for a subscription (the price decides). */
  amountCents: number | null;
  /** Subscription: the provider's price for the plan and interval. Null for a top-up. */
  priceId: string | null;
  /** A promo code's reduction of the first payment, as a fixed amount or a percentage (at most one). */
  discountCents?: number;
  percentOff?: number;
  successUrl: string;
  cancelUrl: string;
  /** The same key gives the same checkout (a retried create must not open a second one). */
  idempotencyKey: string;
  metadata: Record<string, string>;
}

export interface CreatedCheckout {
  providerId: string;
  /** Where to send the customer. */
  url: string;
  expiresAt: Date | null;
  /** What the customer will pay first, after any discount (before tax); null when the provider cannot say. */
  amountCents: number | null;
}

export interface ProviderCheckout {
  providerId: string;
  kind: CheckoutKind;
  status: 'open' | 'complete' | 'expired';
  /** Complete is not paid for a delayed payment method: credit only once this is true. */
  paid: boolean;
  amountCents: number | null;
  customerId: string | null;
  subscriptionId: string | null;
  /** The payment (intent) of a top-up; null for a subscription (its invoice carries the payment). */
  paymentId: string | null;
  /** The card the customer paid with, saved for later charges; null until complete. */
  paymentMethodId: string | null;
  metadata: Record<string, string>;
}

export interface ProviderPaymentMethod {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** `apple_pay`, `google_pay`, … when the card came from a wallet. */
  wallet: string | null;
  isDefault: boolean;
}

export interface ChargeOffSessionInput {
  customerId: string;
  paymentMethodId: string;
  amountCents: number;
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}

export interface ChargeOutcome {
  /** The provider's payment id, also when declined (null only if the provider made none). */
  providerId: string | null;
  outcome: 'paid' | 'declined' | 'pending';
  /** Why it was declined, in the provider's words. */
  message: string | null;
}

export interface ProviderSubscription {
  id: string;
  customerId: string;
  /** The provider's own status word (`active`, `past_due`, `canceled`, …). */
  status: string;
  priceId: string;
  interval: BillingInterval;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  /** The price the next period switches to (scheduled by scheduleInterval); null when none is scheduled. */
  pendingPriceId: string | null;
  defaultPaymentMethodId: string | null;
  metadata: Record<string, string>;
}

/** A subscription as an event carries it: the scheduled switch is not part of it (read getSubscription for that). */
export type SubscriptionSnapshot = Omit<ProviderSubscription, 'pendingPriceId'>;

export type ProviderEvent =
  | {
      id: string;
      type: 'checkout.completed';
      checkoutProviderId: string;
      kind: CheckoutKind;
      customerId: string;
      amountCents: number;
      /** False while a delayed payment method has not settled; a later `checkout.completed` says paid. */
      paid: boolean;
      paymentId: string | null;
      subscriptionId: string | null;
      metadata: Record<string, string>;
    }
  | { id: string; type: 'checkout.expired' | 'checkout.failed'; checkoutProviderId: string; metadata: Record<string, string> }
  | {
      id: string;
      type: 'invoice.paid';
      invoiceId: string;
      subscriptionId: string;
      amountCents: number;
      /** The service period the invoice pays for. */
      periodStart: Date;
      periodEnd: Date;
      billingReason: 'subscription_create' | 'subscription_cycle' | 'other';
    }
  | { id: string; type: 'subscription.updated' | 'subscription.deleted'; subscription: SubscriptionSnapshot }
  | {
    id: string; type: 'payment.succeeded' | 'payment.failed'; paymentId: string; amountCents: number; metadata: Record<string, string>;
    message: string | null;
  }
  | { id: string; type: 'ignored'; providerType: string };

export interface PaymentProvider {
  readonly kind: 'stripe' | 'manual';
  /** False: the provider takes no automatic (off-session) charges, so auto top-up is not offered. */
  readonly offersAutomaticCharges: boolean;
  /** The provider's customer for an account: `existingId` when it still exists (name and email brought up to date), else a new one. */
  ensureCustomer(input: { existingId: string | null; accountId: string; email: string | null; name: string | null }): Promise<string>;
  createCheckout(input: CreateCheckoutInput): Promise<CreatedCheckout>;
  getCheckout(providerId: string): Promise<ProviderCheckout>;
  /** Newest first. */
  listPaymentMethods(customerId: string): Promise<ProviderPaymentMethod[]>;
  detachPaymentMethod(id: string): Promise<void>;
  /** A short-lived link to the provider's portal where the customer adds, replaces or defaults a card. */
  portalUrl(customerId: string, returnUrl: string): Promise<string>;
  /** Charges a saved card without the customer present; a decline is an outcome, not an error. */
  chargeOffSession(input: ChargeOffSessionInput): Promise<ChargeOutcome>;
  getSubscription(id: string): Promise<ProviderSubscription>;
  setCancelAtPeriodEnd(id: string, cancel: boolean): Promise<ProviderSubscription>;
  /** Switches to `priceId` when the current period ends (no proration, no charge now); null takes a scheduled switch back. */
  scheduleInterval(id: string, priceId: string | null): Promise<ProviderSubscription>;
  /** The invoice (of a subscription payment: an invoice id) or receipt (of a top-up: a payment id); null while not yet made. */
  documentUrl(payment: { providerId: string; kind: 'invoice' | 'receipt' }): Promise<string | null>;
  /** Checks the signature (and its age) of a webhook delivery and reads the event; throws WebhookSignatureError. */
  verifyWebhook(rawBody: Buffer | string, signatureHeader: string | undefined): ProviderEvent;
}

/** The provider did not answer (network failure, timeout, its own 5xx or rate limit): retrying later can help. */
export class ProviderUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider answered no (a declined card, an invalid request, a missing object); `message` is its reason. */
export class ProviderRefused extends Error {
  /** The provider's error code (`card_declined`, `resource_missing`, …), when it gave one. */
  readonly code: string | null;
  constructor(message: string, options?: { code?: string | null; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.name = 'ProviderRefused';
    this.code = options?.code ?? null;
  }
}

/** A webhook delivery whose signature is missing, wrong or too old: answer 400 and do nothing. */
export class WebhookSignatureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookSignatureError';
  }
}
