/**
 * A faithful fake of the parts of Stripe's v1 HTTP API that billing uses, on loopback. It reads request bodies
 * form-encoded exactly as the `stripe` package sends them (`line_items[0][price_data][currency]=eur`), answers JSON
 * shaped like Stripe's objects (`id`, `object`, unix-second times, ids in place of unexpanded objects, `expand[]`
 * honoured one level deep), refuses like Stripe (`{error: {type, code, message, decline_code, param}}` with Stripe's
 * HTTP status: 400 invalid request, 401 bad key, 402 card error, 404 missing route) and replays the first answer to a
 * repeated `Idempotency-Key` (a different body with the same key is Stripe's 400 `idempotency_error`).
 *
 * Modelled: customers (create, retrieve, update), coupons (create), prices (registered by the test, retrieve),
 * checkout sessions (`payment` mode with `price_data`, `subscription` mode with a price; retrieve; open → complete or
 * expired; `url` is a page of the fake), payment methods (list by customer newest first, retrieve, detach), billing
 * portal sessions, payment intents (off-session confirm against a saved card; retrieve), charges (`receipt_url`),
 * subscriptions (retrieve, update `cancel_at_period_end`), subscription schedules (create `from_subscription`,
 * update phases, release) and invoices (`hosted_invoice_url`, `invoice_pdf`, `status`). The period of a subscription
 * is on its item, as in API versions since 2025-03-31. A switch of price at the next period is a schedule whose
 * second phase starts when the current period ends; renewSubscription() enters it, and releases the schedule once
 * its last phase is over (`end_behavior: release`), as Stripe does.
 *
 * Test controls are plain methods (the customer paying, time passing, the provider failing); each event goes to
 * `webhookUrl`, signed as Stripe signs (`Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.payload">`).
 */
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { listenOnLoopback } from './loopback.js';

type StripeObject = Record<string, any> & { id: string; object: string };

export interface FakeStripeRequest {
  method: string;
  path: string;
  /** The decoded form body (POST) or query (GET), nested as Stripe reads it. */
  params: Record<string, any>;
  idempotencyKey: string | null;
}

export interface WebhookDelivery {
  event: StripeObject;
  payload: string;
  signature: string;
  /** The receiver's HTTP status, or null when nobody answered (or no webhookUrl was set). */
  status: number | null;
}

export interface CardDetails {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** `apple_pay`, `google_pay`: a wallet card. */
  wallet?: string;
}

export interface FakeStripeOptions {
  secretKey?: string;
  webhookSecret?: string;
  webhookUrl?: string | null;
  currency?: string;
}

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; decline_code?: string; param?: string; [more: string]: unknown },
  ) {
    super(body.message);
  }
}

const invalid = (message: string, param?: string, code?: string) =>
  new StripeError(400, { type: 'invalid_request_error', message, ...(param && { param }), ...(code && { code }) });

const unix = (date = new Date()) => Math.floor(date.getTime() / 1000);
const list = (data: unknown[], url: string) => ({ object: 'list', data, has_more: false, url });

/** The end of one billing interval from `start` (unix seconds), in calendar months as Stripe bills. */
function addInterval(start: number, interval: string, count = 1): number {
  const date = new Date(start * 1000);
  if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + count);
  else if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + count);
  else if (interval === 'week') date.setUTCDate(date.getUTCDate() + 7 * count);
  else date.setUTCDate(date.getUTCDate() + count);
  return unix(date);
}

/** Parses `a[b][0][c]=v&expand[]=x` into nested objects and arrays, as Stripe's API reads form bodies and queries. */
export function parseStripeForm(encoded: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const pair of encoded.split('&')) {
    if (!pair) continue;
    const [rawKey, rawValue = ''] = pair.split('=');
    const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    const key = decode(rawKey!);
    const path = [key.replace(/\[.*$/, ''), ...[...key.matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]!)];
    let node: Record<string, any> = root;
    path.forEach((segment, index) => {
      const last = index === path.length - 1;
      const slot = segment === '' ? String(Object.keys(node).length) : segment;
      if (last) node[slot] = decode(rawValue);
      else node = node[slot] ??= {};
    });
  }
  const arrays = (value: any): any => {
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    const converted = Object.fromEntries(keys.map((key) => [key, arrays(value[key])]));
    return keys.length > 0 && keys.every((key, index) => key === String(index)) ? keys.map((key) => converted[key]) : converted;
  };
  return arrays(root);
}

const flag = (value: unknown) => value === 'true' || value === true;
const integer = (value: unknown, param: string): number => {
  const number = Number(value);
  if (value === undefined || value === '' || !Number.isInteger(number)) throw invalid(`Invalid integer: ${String(value)}`, param);
  return number;
};
/** Stripe reads an empty string as "unset". */
const orNull = (value: unknown) => (value === '' || value === undefined ? null : value);

export class FakeStripe {
  readonly requests: FakeStripeRequest[] = [];
  readonly deliveries: WebhookDelivery[] = [];
  secretKey: string;
  webhookSecret: string;
  webhookUrl: string | null;
  currency: string;
  /** How many retrievals of a new invoice or charge show no document yet (`hosted_invoice_url`, `invoice_pdf`, `receipt_url` null). */
  documentDelay = 0;
  private url = '';
  private close_: () => Promise<void> = async () => {};
  private readonly objects = new Map<string, StripeObject>();
  /** What a checkout session was created with that Stripe does not show on the session. */
  private readonly sessionRequests = new Map<string, Record<string, any>>();
  private readonly idempotent = new Map<string, { method: string; path: string; body: string; status: number; answer: unknown }>();
  private readonly declining = new Set<string>();
  private readonly documentsPending = new Map<string, number>();
  private failures = 0;
  private isDown = false;

  constructor(options: FakeStripeOptions = {}) {
    this.secretKey = options.secretKey ?? 'sk_test_fake';
    this.webhookSecret = options.webhookSecret ?? 'whsec_fake';
    this.webhookUrl = options.webhookUrl ?? null;
    this.currency = options.currency ?? 'eur';
  }

  /** Where the `stripe` package should send requests (`apiBase`). */
  get baseUrl(): string {
    return this.url;
  }

  async listen(): Promise<this> {
    const loopback = await listenOnLoopback((req, res) => this.handle(req, res));
    this.url = loopback.url;
    this.close_ = loopback.close;
    return this;
  }

  close(): Promise<void> {
    return this.close_();
  }

  // ---- test controls -------------------------------------------------------------------------------------------

  /** Registers a recurring price (`price_pro_month`, 1900 cents, month) as the Dashboard would. */
  addPrice(price: { id: string; unitAmount: number; interval: 'month' | 'year'; currency?: string; product?: string }): void {
    const product = price.product ?? `prod_${price.id}`;
    this.store({
      id: price.id,
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created: unix(),
      currency: price.currency ?? this.currency,
      livemode: false,
      lookup_key: null,
      metadata: {},
      nickname: null,
      product,
      recurring: { interval: price.interval, interval_count: 1, meter: null, usage_type: 'licensed' },
      tax_behavior: 'unspecified',
      type: 'recurring',
      unit_amount: price.unitAmount,
      unit_amount_decimal: String(price.unitAmount),
    });
  }

  /** The next `count` requests get Stripe's 500 `api_error` (not saved for idempotent replay: they never ran). */
  failNextRequests(count: number): void {
    this.failures = count;
  }

  /** Every request's connection is dropped unanswered until up(). */
  down(): void {
    this.isDown = true;
  }

  up(): void {
    this.isDown = false;
  }

  /** Off-session charges (and renewals) on this card are declined with `card_declined`. */
  setDeclining(paymentMethodId: string, declining: boolean): void {
    if (declining) this.declining.add(paymentMethodId);
    else this.declining.delete(paymentMethodId);
  }

  /** A customer deleted in the Dashboard: retrieving it answers `{id, object, deleted: true}`. */
  deleteCustomer(id: string): void {
    this.store({ id, object: 'customer', deleted: true });
  }

  /** An object as Stripe holds it now (a copy), for assertions. */
  get(id: string): StripeObject | undefined {
    const object = this.objects.get(id);
    return object && structuredClone(object);
  }

  /** Signs a payload as Stripe signs a webhook delivery (a past `timestamp` makes an old signature). */
  sign(payload: string, options: { timestamp?: number; secret?: string } = {}): string {
    const timestamp = options.timestamp ?? unix();
    const v1 = createHmac('sha256', options.secret ?? this.webhookSecret).update(`${timestamp}.${payload}`).digest('hex');
    return `t=${timestamp},v1=${v1}`;
  }

  /**
   * The customer pays on the checkout page. Paid: the session completes, the card is saved to the customer, and a
   * payment intent with its charge (payment mode) or a subscription with its paid first invoice (subscription mode)
   * is made; events follow. `decline`: the card is refused on the page, the session stays open (a top-up's payment
   * intent fails with `payment_intent.payment_failed`).
   */
  async completeCheckout(sessionId: string, options: { card?: CardDetails; decline?: boolean } = {}): Promise<WebhookDelivery[]> {
    const session = this.find(sessionId, 'checkout.session');
    if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${session.status}, not open`);
    const created = this.sessionRequests.get(sessionId)!;
    const card = this.createCard(session.customer, options.card);
    if (options.decline) {
      card.customer = null;
      if (session.mode !== 'payment') return [];
      const intent = this.createIntent({
        amount: session.amount_total, customer: session.customer, card, metadata: created.payment_intent_data?.metadata ?? {},
        declined: true,
      });
      return this.sendEvents([['payment_intent.payment_failed', intent]]);
    }
    Object.assign(session, { status: 'complete', payment_status: 'paid', url: null });
    if (session.mode === 'payment') {
      const intent = this.createIntent({
        amount: session.amount_total,
        customer: session.customer,
        card,
        metadata: created.payment_intent_data?.metadata ?? {},
        setupFutureUsage: created.payment_intent_data?.setup_future_usage ?? null,
        declined: false,
      });
      session.payment_intent = intent.id;
      const charge = this.objects.get(intent.latest_charge)!;
      return this.sendEvents([['charge.succeeded', charge], ['payment_intent.succeeded', intent], ['checkout.session.completed', session]]);
    }
    const price = this.find(created.line_items[0].price, 'price');
    const subscription = this.createSubscription(session, price, card.id, created.subscription_data?.metadata ?? {});
    const item = subscription.items.data[0];
    const invoice = this.createSubscriptionInvoice(subscription, 'subscription_create', session.amount_total, {
      start: item.current_period_start, end: item.current_period_end,
    });
    Object.assign(session, { subscription: subscription.id, invoice: invoice.id });
    return this.sendEvents([
      ['customer.subscription.created', subscription], ['invoice.paid', invoice], ['checkout.session.completed', session],
    ]);
  }

  /** The checkout's 24 hours pass unpaid. */
  async expireCheckout(sessionId: string): Promise<WebhookDelivery[]> {
    const session = this.find(sessionId, 'checkout.session');
    if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${session.status}, not open`);
    Object.assign(session, { status: 'expired', url: null });
    return this.sendEvents([['checkout.session.expired', session]]);
  }

  /**
   * The current period ends and the next begins: a scheduled phase that starts now takes over (its price), the new
   * period's invoice is paid with the default card (or fails on a declining one: `past_due`, `invoice.payment_failed`).
   */
  async renewSubscription(subscriptionId: string): Promise<WebhookDelivery[]> {
    const subscription = this.find(subscriptionId, 'subscription');
    if (subscription.status === 'canceled') throw new Error(`subscription ${subscriptionId} is canceled`);
    if (subscription.cancel_at_period_end) throw new Error(`subscription ${subscriptionId} ends at the period end; use endPeriod()`);
    const item = subscription.items.data[0];
    const previous = { items: structuredClone(subscription.items), status: subscription.status };
    const start: number = item.current_period_end;
    const schedule = subscription.schedule ? this.find(subscription.schedule, 'subscription_schedule') : null;
    const phase = schedule?.phases.find((candidate: any) => candidate.start_date === start);
    if (phase) {
      item.price = this.find(phase.items[0].price, 'price');
      schedule!.current_phase = { start_date: phase.start_date, end_date: phase.end_date };
    } else if (schedule) {
      this.releaseSchedule(schedule);
    }
    item.current_period_start = start;
    item.current_period_end = addInterval(start, item.price.recurring.interval, item.price.recurring.interval_count);
    const paymentMethod =
      subscription.default_payment_method ?? this.find(subscription.customer, 'customer').invoice_settings.default_payment_method;
    const failed = !paymentMethod || this.declining.has(paymentMethod);
    const invoice = this.createSubscriptionInvoice(subscription, 'subscription_cycle', item.price.unit_amount * (item.quantity ?? 1), {
      start: item.current_period_start,
      end: item.current_period_end,
    }, { previousStart: previous.items.data[0].current_period_start, failed });
    subscription.status = failed ? 'past_due' : 'active';
    subscription.latest_invoice = invoice.id;
    const changes = { items: previous.items, ...(failed && { status: previous.status }) };
    return this.sendEvents([
      ['customer.subscription.updated', subscription, changes], [failed ? 'invoice.payment_failed' : 'invoice.paid', invoice],
    ]);
  }

  /** The period of a subscription set to cancel at its end is over: it ends (`customer.subscription.deleted`). */
  async endPeriod(subscriptionId: string): Promise<WebhookDelivery[]> {
    const subscription = this.find(subscriptionId, 'subscription');
    if (!subscription.cancel_at_period_end) throw new Error(`subscription ${subscriptionId} is not set to cancel at the period end`);
    const end = subscription.items.data[0].current_period_end;
    Object.assign(subscription, { status: 'canceled', ended_at: end, canceled_at: subscription.canceled_at ?? unix() });
    return this.sendEvents([['customer.subscription.deleted', subscription]]);
  }

  // ---- HTTP ----------------------------------------------------------------------------------------------------

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.isDown) {
      req.socket.destroy();
      return;
    }
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://fake');
      const method = req.method!;
      const body = method === 'GET' || method === 'DELETE' ? url.search.slice(1) : raw;
      const params = parseStripeForm(body);
      const idempotencyKey = method === 'POST' ? ((req.headers['idempotency-key'] as string | undefined) ?? null) : null;
      this.requests.push({ method, path: url.pathname, params, idempotencyKey });
      const send = (status: number, answer: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(
          status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}`, ...headers },
        ).end(JSON.stringify(answer, null, 2));

      if (url.pathname.startsWith('/c/pay/') || url.pathname.startsWith('/p/session/')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Fake Stripe</title><p>A page of the fake '
          + 'Stripe.</p>');
        return;
      }
      if (this.failures > 0) {
        this.failures -= 1;
        send(500, { error: { type: 'api_error', message: 'An unknown error occurred while processing your request.' } });
        return;
      }
      if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
        send(401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: `
          + `${String(req.headers.authorization ?? '').slice(7, 15)}***` } });
        return;
      }
      if (idempotencyKey) {
        const first = this.idempotent.get(idempotencyKey);
        if (first && (first.body !== body || first.path !== url.pathname)) {
          send(400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key `
                + `other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          });
          return;
        }
        if (first) {
          send(first.status, first.answer, { 'idempotent-replayed': 'true', 'idempotency-key': idempotencyKey });
          return;
        }
      }
      let status = 200;
      let answer: unknown;
      try {
        answer = this.route(method, url.pathname, params);
      } catch (error) {
        // A fault of the fake itself answers 500 naming it (a throw here would end the test process instead).
        if (!(error instanceof StripeError)) {
          send(500, {
            error: { type: 'api_error', message: `fake Stripe failed: ${error instanceof Error ? error.stack : String(error)}` },
          });
          return;
        }
        status = error.status;
        answer = { error: {
          ...error.body, request_log_url: `${this.url}/logs`,
          doc_url: error.body.code ? `https://docs.stripe.com/error-codes/${error.body.code.replaceAll('_', '-')}` : undefined,
        } };
      }
      if (idempotencyKey) this.idempotent.set(idempotencyKey, { method, path: url.pathname, body, status, answer });
      send(status, answer, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
    });
  }

  private route(method: string, path: string, params: Record<string, any>): unknown {
    const expand: string[] = params.expand ?? [];
    const show = (object: StripeObject) => this.render(object, expand);
    const routes: Array<[string, RegExp, (id: string) => unknown]> = [
      ['POST', /^\/v1\/customers$/, () => this.createCustomer(params)],
      ['GET', /^\/v1\/customers\/([^/]+)$/, (id) => show(this.find(id, 'customer'))],
      ['POST', /^\/v1\/customers\/([^/]+)$/, (id) => show(this.updateCustomer(this.find(id, 'customer'), params))],
      ['POST', /^\/v1\/coupons$/, () => this.createCoupon(params)],
      ['GET', /^\/v1\/prices\/([^/]+)$/, (id) => show(this.find(id, 'price'))],
      ['POST', /^\/v1\/checkout\/sessions$/, () => this.createSession(params)],
      ['GET', /^\/v1\/checkout\/sessions\/([^/]+)$/, (id) => show(this.find(id, 'checkout.session'))],
      ['GET', /^\/v1\/payment_methods$/, () => this.listPaymentMethods(params)],
      ['GET', /^\/v1\/payment_methods\/([^/]+)$/, (id) => show(this.find(id, 'payment_method'))],
      ['POST', /^\/v1\/payment_methods\/([^/]+)\/detach$/, (id) => this.detach(this.find(id, 'payment_method'))],
      ['POST', /^\/v1\/billing_portal\/sessions$/, () => this.createPortalSession(params)],
      ['POST', /^\/v1\/payment_intents$/, () => this.confirmOffSession(params)],
      ['GET', /^\/v1\/payment_intents\/([^/]+)$/, (id) => show(this.find(id, 'payment_intent'))],
      ['GET', /^\/v1\/charges\/([^/]+)$/, (id) => show(this.withDocuments(this.find(id, 'charge')))],
      ['GET', /^\/v1\/invoices\/([^/]+)$/, (id) => show(this.withDocuments(this.find(id, 'invoice')))],
      ['GET', /^\/v1\/subscriptions\/([^/]+)$/, (id) => show(this.find(id, 'subscription'))],
      ['POST', /^\/v1\/subscriptions\/([^/]+)$/, (id) => show(this.updateSubscription(this.find(id, 'subscription'), params))],
      ['POST', /^\/v1\/subscription_schedules$/, () => show(this.createSchedule(params))],
      ['GET', /^\/v1\/subscription_schedules\/([^/]+)$/, (id) => show(this.find(id, 'subscription_schedule'))],
      [
        'POST', /^\/v1\/subscription_schedules\/([^/]+)$/,
        (id) => show(this.updateSchedule(this.find(id, 'subscription_schedule'), params)),
      ],
      [
        'POST', /^\/v1\/subscription_schedules\/([^/]+)\/release$/,
        (id) => show(this.releaseSchedule(this.find(id, 'subscription_schedule'))),
      ],
    ];
    for (const [routeMethod, pattern, run] of routes) {
      const match = routeMethod === method ? pattern.exec(path) : null;
      if (match) return run(decodeURIComponent(match[1] ?? ''));
    }
    throw new StripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}). Please see `
      + `https://stripe.com/docs or we can help at https://support.stripe.com/.` });
  }

  // ---- objects -------------------------------------------------------------------------------------------------

  private newId(prefix: string): string {
    return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
  }

  private store<T extends StripeObject>(object: T): T {
    this.objects.set(object.id, object);
    return object;
  }

  /** The object `id`; missing, Stripe answers 404 for an id in the path and 400 naming the `param` that held it. */
  private find(id: string, object: string, param?: string): StripeObject {
    const found = this.objects.get(id);
    if (found && found.object === object) return found;
    const message = `No such ${object === 'payment_method' ? 'PaymentMethod' : object}: '${id}'`;
    throw new StripeError(param ? 400 : 404, { type: 'invalid_request_error', code: 'resource_missing', message, ...(param && { param }) });
  }

  /** A copy for the wire, with the `expand` fields (one level) replaced by the objects they name. */
  private render(object: StripeObject, expand: string[] = []): StripeObject {
    const copy = structuredClone(object);
    for (const field of expand) {
      const target = typeof copy[field] === 'string' ? this.objects.get(copy[field]) : undefined;
      if (target) {
        copy[field] = structuredClone(target.object === 'charge' || target.object === 'invoice' ? this.withDocuments(target) : target);
      }
    }
    return copy;
  }

  /** A new invoice's or charge's documents appear after `documentDelay` retrievals, as Stripe renders them later. */
  private withDocuments(object: StripeObject): StripeObject {
    const pending = this.documentsPending.get(object.id) ?? 0;
    if (pending === 0) return object;
    this.documentsPending.set(object.id, pending - 1);
    return object.object === 'charge' ? { ...object, receipt_url: null } : { ...object, hosted_invoice_url: null, invoice_pdf: null };
  }

  private createCustomer(params: Record<string, any>): StripeObject {
    return this.store({
      id: this.newId('cus'),
      object: 'customer',
      address: null,
      balance: 0,
      created: unix(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: orNull(params.description),
      email: orNull(params.email),
      invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: params.metadata ?? {},
      name: orNull(params.name),
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    });
  }

  private updateCustomer(customer: StripeObject, params: Record<string, any>): StripeObject {
    if (customer.deleted) throw invalid('You cannot update a deleted customer.', undefined, 'resource_missing');
    for (const field of ['email', 'name', 'description'] as const) if (field in params) customer[field] = orNull(params[field]);
    if (params.metadata) customer.metadata = { ...customer.metadata, ...params.metadata };
    const defaultMethod = params.invoice_settings?.default_payment_method;
    if (defaultMethod !== undefined) {
      if (defaultMethod && this.objects.get(defaultMethod)?.customer !== customer.id) {
        throw invalid(
          `No such PaymentMethod: '${defaultMethod}'; the payment method is not attached to this customer.`,
          'invoice_settings[default_payment_method]', 'resource_missing',
        );
      }
      customer.invoice_settings.default_payment_method = orNull(defaultMethod);
    }
    return customer;
  }

  private createCoupon(params: Record<string, any>): StripeObject {
    const amountOff = params.amount_off === undefined ? null : integer(params.amount_off, 'amount_off');
    const percentOff = params.percent_off === undefined ? null : Number(params.percent_off);
    if ((amountOff === null) === (percentOff === null)) {
      throw invalid('You must pass exactly one of amount_off or percent_off.', 'amount_off');
    }
    if (amountOff !== null && !params.currency) throw invalid('You must pass currency when passing amount_off.', 'currency');
    return this.store({
      id: randomBytes(6).toString('base64url').replace(/[-_]/g, 'x'),
      object: 'coupon',
      amount_off: amountOff,
      created: unix(),
      currency: amountOff === null ? null : params.currency,
      duration: params.duration ?? 'once',
      duration_in_months: null,
      livemode: false,
      max_redemptions: params.max_redemptions === undefined ? null : Number(params.max_redemptions),
      metadata: params.metadata ?? {},
      name: orNull(params.name),
      percent_off: percentOff,
      redeem_by: null,
      times_redeemed: 0,
      valid: true,
    });
  }

  private createSession(params: Record<string, any>): StripeObject {
    const customer = this.find(params.customer ?? '', 'customer', 'customer');
    if (customer.deleted) throw invalid(`No such customer: '${customer.id}'`, 'customer', 'resource_missing');
    const line = params.line_items?.[0];
    if (!line) throw invalid('line_items is required in `payment` and `subscription` mode.', 'line_items');
    let subtotal: number;
    if (params.mode === 'payment') {
      if (!line.price_data) throw invalid('This fake takes a payment-mode line with price_data only.', 'line_items[0][price_data]');
      subtotal = integer(line.price_data.unit_amount, 'line_items[0][price_data][unit_amount]') * Number(line.quantity ?? 1);
      if (line.price_data.currency !== this.currency) {
        throw invalid(`Invalid currency: ${line.price_data.currency}`, 'line_items[0][price_data][currency]');
      }
    } else if (params.mode === 'subscription') {
      const price = this.find(line.price ?? '', 'price', 'line_items[0][price]');
      if (price.type !== 'recurring') throw invalid('The price specified is set to `type=one_time` but this field only accepts prices '
        + 'with `type=recurring`.', 'line_items[0][price]');
      subtotal = price.unit_amount * Number(line.quantity ?? 1);
    } else {
      throw invalid(`Invalid mode: must be one of payment, setup, or subscription`, 'mode');
    }
    const couponId: string | undefined = params.discounts?.[0]?.coupon;
    const coupon = couponId ? this.find(couponId, 'coupon', 'discounts[0][coupon]') : null;
    if (coupon && coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions) {
      throw invalid(`Coupon ${coupon.id} has been redeemed the maximum number of times.`, 'discounts[0][coupon]', 'coupon_expired');
    }
    if (coupon) coupon.times_redeemed += 1;
    const discount = coupon ? Math.min(subtotal, coupon.amount_off ?? Math.round((subtotal * coupon.percent_off) / 100)) : 0;
    if (subtotal - discount < 50 && params.mode === 'payment') throw invalid('The Checkout Session\'s total amount due must add up to at '
      + 'least €0.50 eur', undefined, 'amount_too_small');
    const id = this.newId('cs_test');
    this.sessionRequests.set(id, params);
    return this.store({
      id,
      object: 'checkout.session',
      amount_subtotal: subtotal,
      amount_total: subtotal - discount,
      cancel_url: orNull(params.cancel_url),
      client_reference_id: orNull(params.client_reference_id),
      created: unix(),
      currency: this.currency,
      customer: customer.id,
      customer_email: null,
      discounts: coupon ? [{ coupon: coupon.id, promotion_code: null }] : [],
      expires_at: params.expires_at ? Number(params.expires_at) : unix() + 24 * 3600,
      invoice: null,
      livemode: false,
      metadata: params.metadata ?? {},
      mode: params.mode,
      payment_intent: null,
      payment_method_types: ['card'],
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: orNull(params.success_url),
      total_details: { amount_discount: discount, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted',
      url: `${this.url}/c/pay/${id}`,
    });
  }

  private listPaymentMethods(params: Record<string, any>): unknown {
    if (!params.customer) throw invalid('Missing required param: customer.', 'customer');
    this.find(params.customer, 'customer', 'customer');
    const methods = [...this.objects.values()]
      .filter(
        (object) =>
          object.object === 'payment_method' && object.customer === params.customer && (!params.type || object.type === params.type),
      )
      .reverse()
      .slice(0, params.limit ? Number(params.limit) : 10);
    return list(methods.map((method) => this.render(method)), '/v1/payment_methods');
  }

  private detach(method: StripeObject): StripeObject {
    if (!method.customer) {
      throw invalid(
        'The payment method you provided is not attached to a customer so detachment is impossible.', undefined,
        'payment_method_unexpected_state',
      );
    }
    const customer = this.objects.get(method.customer);
    if (customer?.invoice_settings.default_payment_method === method.id) customer.invoice_settings.default_payment_method = null;
    method.customer = null;
    return this.render(method);
  }

  private createPortalSession(params: Record<string, any>): StripeObject {
    const customer = this.find(params.customer ?? '', 'customer', 'customer');
    const id = this.newId('bps');
    return this.store({
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_fake_default',
      created: unix(),
      customer: customer.id,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: orNull(params.return_url),
      url: `${this.url}/p/session/${id}`,
    });
  }

  private createCard(
    customerId: string, card: CardDetails = { brand: 'visa', last4: '4242', expMonth: 12, expYear: new Date().getUTCFullYear() + 3 },
  ): StripeObject {
    return this.store({
      id: this.newId('pm'),
      object: 'payment_method',
      allow_redisplay: 'always',
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        brand: card.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country: 'US',
        display_brand: card.brand,
        exp_month: card.expMonth,
        exp_year: card.expYear,
        fingerprint: randomBytes(8).toString('hex'),
        funding: 'credit',
        last4: card.last4,
        networks: { available: [card.brand], preferred: null },
        wallet: card.wallet ? { type: card.wallet, dynamic_last4: card.last4 } : null,
      },
      created: unix(),
      customer: customerId,
      livemode: false,
      metadata: {},
      type: 'card',
    });
  }

  /** A confirmed payment intent and its charge; a declined one carries Stripe's `last_payment_error`. */
  private createIntent(input: {
    amount: number; customer: string; card: StripeObject; metadata: Record<string, string>; description?: string | null;
    setupFutureUsage?: string | null; declined: boolean;
  }): StripeObject {
    const intentId = this.newId('pi');
    const chargeId = this.newId('ch');
    const declineError = {
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
      charge: chargeId,
      payment_method: this.render(input.card),
    };
    this.store({
      id: chargeId,
      object: 'charge',
      amount: input.amount,
      amount_captured: input.declined ? 0 : input.amount,
      amount_refunded: 0,
      captured: !input.declined,
      created: unix(),
      currency: this.currency,
      customer: input.customer,
      description: input.description ?? null,
      failure_code: input.declined ? 'card_declined' : null,
      failure_message: input.declined ? declineError.message : null,
      livemode: false,
      metadata: input.metadata,
      outcome: {
        network_status: input.declined ? 'declined_by_network' : 'approved_by_network', reason: input.declined ? 'generic_decline' : null,
        type: input.declined ? 'issuer_declined' : 'authorized',
      },
      paid: !input.declined,
      payment_intent: intentId,
      payment_method: input.card.id,
      payment_method_details: {
        type: 'card',
        card: {
          brand: input.card.card.brand, last4: input.card.card.last4, exp_month: input.card.card.exp_month,
          exp_year: input.card.card.exp_year,
        },
      },
      receipt_url: input.declined ? null : `${this.url}/receipts/${chargeId}`,
      refunded: false,
      status: input.declined ? 'failed' : 'succeeded',
    });
    if (!input.declined) this.documentsPending.set(chargeId, this.documentDelay);
    return this.store({
      id: intentId,
      object: 'payment_intent',
      amount: input.amount,
      amount_received: input.declined ? 0 : input.amount,
      capture_method: 'automatic',
      client_secret: `${intentId}_secret_${randomBytes(8).toString('hex')}`,
      confirmation_method: 'automatic',
      created: unix(),
      currency: this.currency,
      customer: input.customer,
      description: input.description ?? null,
      last_payment_error: input.declined ? declineError : null,
      latest_charge: chargeId,
      livemode: false,
      metadata: input.metadata,
      payment_method: input.declined ? null : input.card.id,
      payment_method_types: ['card'],
      setup_future_usage: input.setupFutureUsage ?? null,
      status: input.declined ? 'requires_payment_method' : 'succeeded',
    });
  }

  /** `POST /v1/payment_intents` with `confirm=true&off_session=true`: the saved card is charged now, or declines (402). */
  private confirmOffSession(params: Record<string, any>): unknown {
    const amount = integer(params.amount, 'amount');
    if (amount < 50) throw invalid('Amount must be at least €0.50 eur', 'amount', 'amount_too_small');
    if (params.currency !== this.currency) throw invalid(`Invalid currency: ${params.currency}`, 'currency');
    if (!flag(params.confirm) || !flag(params.off_session)) throw invalid('This fake takes off-session payment intents confirmed at '
      + 'creation only (confirm=true, off_session=true).', 'confirm');
    const customer = this.find(params.customer ?? '', 'customer', 'customer');
    const card = this.find(params.payment_method ?? '', 'payment_method', 'payment_method');
    if (card.customer !== customer.id) {
      throw invalid(`The provided PaymentMethod ${card.id} does not belong to the Customer ${customer.id}. Please use a PaymentMethod `
        + `attached to this Customer.`, 'payment_method');
    }
    const declined = this.declining.has(card.id);
    const intent = this.createIntent({
      amount, customer: customer.id, card, metadata: params.metadata ?? {}, description: orNull(params.description) as string | null,
      declined,
    });
    const charge = this.objects.get(intent.latest_charge)!;
    void this.sendEvents([
      [declined ? 'charge.failed' : 'charge.succeeded', charge],
      [declined ? 'payment_intent.payment_failed' : 'payment_intent.succeeded', intent],
    ]);
    if (declined) throw new StripeError(402, { ...intent.last_payment_error, payment_intent: this.render(intent) });
    return this.render(intent);
  }

  private createSubscription(
    session: StripeObject, price: StripeObject, paymentMethodId: string, metadata: Record<string, string>,
  ): StripeObject {
    const now = unix();
    const id = this.newId('sub');
    return this.store({
      id,
      object: 'subscription',
      billing_cycle_anchor: now,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      collection_method: 'charge_automatically',
      created: now,
      currency: this.currency,
      customer: session.customer,
      default_payment_method: paymentMethodId,
      discounts: [],
      ended_at: null,
      items: list(
        [{
          id: this.newId('si'), object: 'subscription_item', created: now, current_period_start: now,
          current_period_end: addInterval(now, price.recurring.interval, price.recurring.interval_count), discounts: [], metadata: {},
          price: structuredClone(price), quantity: 1, subscription: id, tax_rates: [],
        }],
        `/v1/subscription_items?subscription=${id}`,
      ),
      latest_invoice: null,
      livemode: false,
      metadata,
      schedule: null,
      start_date: now,
      status: 'active',
      trial_end: null,
      trial_start: null,
    });
  }

  /** A subscription's finalized invoice for one period, paid with a charge (or left open when the card fails). */
  private createSubscriptionInvoice(
    subscription: StripeObject, reason: string, amount: number, period: { start: number; end: number },
    options: { previousStart?: number; failed?: boolean } = {},
  ): StripeObject {
    const now = unix();
    const id = this.newId('in');
    const item = subscription.items.data[0];
    const paid = !options.failed;
    subscription.latest_invoice = id;
    this.documentsPending.set(id, this.documentDelay);
    return this.store({
      id,
      object: 'invoice',
      amount_due: amount,
      amount_paid: paid ? amount : 0,
      amount_remaining: paid ? 0 : amount,
      attempt_count: 1,
      attempted: true,
      billing_reason: reason,
      collection_method: 'charge_automatically',
      created: now,
      currency: this.currency,
      customer: subscription.customer,
      hosted_invoice_url: `${this.url}/invoices/${id}`,
      invoice_pdf: `${this.url}/invoices/${id}/pdf`,
      lines: list(
        [{
          id: this.newId('il'),
          object: 'line_item',
          amount,
          currency: this.currency,
          description: `1 × ${item.price.product} (at ${item.price.unit_amount / 100} / ${item.price.recurring.interval})`,
          invoice: id,
          livemode: false,
          metadata: {},
          parent: {
            type: 'subscription_item_details', invoice_item_details: null,
            subscription_item_details: {
              invoice_item: null, proration: false, proration_details: { credited_items: null }, subscription: subscription.id,
              subscription_item: item.id,
            },
          },
          period,
          pricing: {
            type: 'price_details', price_details: { price: item.price.id, product: item.price.product },
            unit_amount_decimal: String(item.price.unit_amount),
          },
          quantity: item.quantity ?? 1,
        }],
        `/v1/invoices/${id}/lines`,
      ),
      livemode: false,
      metadata: {},
      number: `${randomBytes(4).toString('hex').toUpperCase()}-0001`,
      parent: {
        type: 'subscription_details', quote_details: null,
        subscription_details: { metadata: subscription.metadata, subscription: subscription.id },
      },
      // Stripe's invoice period is the one whose usage it collects: for a renewal, the period that just ended.
      period_end: reason === 'subscription_cycle' ? period.start : now,
      period_start: options.previousStart ?? now,
      status: paid ? 'paid' : 'open',
      status_transitions: { finalized_at: now, paid_at: paid ? now : null, voided_at: null, marked_uncollectible_at: null },
      subtotal: amount,
      total: amount,
    });
  }

  private updateSubscription(subscription: StripeObject, params: Record<string, any>): StripeObject {
    const unknown = Object.keys(params).find(
      (key) => !['cancel_at_period_end', 'metadata', 'expand', 'default_payment_method'].includes(key),
    );
    if (unknown) {
      throw invalid(
        `Received unknown parameter: ${unknown} (this fake models cancel_at_period_end, metadata and default_payment_method)`, unknown,
        'parameter_unknown',
      );
    }
    if (subscription.status === 'canceled') throw invalid('A canceled subscription can only update its cancellation_details and metadata.');
    if ('cancel_at_period_end' in params) {
      if (subscription.schedule) {
        throw invalid(`The subscription is managed by the subscription schedule \`${subscription.schedule}\`, and updating any `
          + `cancelation behavior directly is not allowed. Please update the schedule instead.`);
      }
      const cancel = flag(params.cancel_at_period_end);
      Object.assign(subscription, {
        cancel_at_period_end: cancel,
        cancel_at: cancel ? subscription.items.data[0].current_period_end : null,
        canceled_at: cancel ? unix() : null,
      });
    }
    if (params.metadata) subscription.metadata = { ...subscription.metadata, ...params.metadata };
    if (params.default_payment_method !== undefined) subscription.default_payment_method = orNull(params.default_payment_method);
    void this.sendEvents([['customer.subscription.updated', subscription]]);
    return subscription;
  }

  private createSchedule(params: Record<string, any>): StripeObject {
    const subscription = this.find(params.from_subscription ?? '', 'subscription', 'from_subscription');
    if (subscription.schedule) {
      throw invalid(
        `You cannot migrate a subscription that is already attached to a schedule: \`${subscription.schedule}\`.`, 'from_subscription',
      );
    }
    if (subscription.status === 'canceled') throw invalid('You cannot migrate a canceled subscription.', 'from_subscription');
    const item = subscription.items.data[0];
    const phase = { start_date: item.current_period_start, end_date: item.current_period_end };
    const schedule = this.store({
      id: this.newId('sub_sched'),
      object: 'subscription_schedule',
      canceled_at: null,
      completed_at: null,
      created: unix(),
      current_phase: phase,
      customer: subscription.customer,
      end_behavior: 'release',
      livemode: false,
      metadata: {},
      phases: [{
        ...phase, items: [{ price: item.price.id, quantity: item.quantity ?? 1, metadata: {}, discounts: [], tax_rates: [] }],
        proration_behavior: 'create_prorations', metadata: {},
      }],
      released_at: null,
      released_subscription: null,
      status: 'active',
      subscription: subscription.id,
    });
    subscription.schedule = schedule.id;
    return schedule;
  }

  /** Replaces the phases, checked as Stripe checks them: the current phase keeps its start, phases follow each other. */
  private updateSchedule(schedule: StripeObject, params: Record<string, any>): StripeObject {
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw invalid(`You cannot update a subscription schedule that is currently in the \`${schedule.status}\` status. It must be in `
        + `\`not_started\` or \`active\`.`);
    }
    const unknown = Object.keys(params).find(
      (key) => !['phases', 'end_behavior', 'proration_behavior', 'metadata', 'expand'].includes(key),
    );
    if (unknown) throw invalid(`Received unknown parameter: ${unknown}`, unknown, 'parameter_unknown');
    if (params.end_behavior) schedule.end_behavior = params.end_behavior;
    if (params.phases) {
      let previousEnd: number | null = null;
      schedule.phases = (params.phases as any[]).map((phase, index) => {
        const param = `phases[${index}]`;
        const price = this.find(phase.items?.[0]?.price ?? '', 'price', `${param}[items][0][price]`);
        const start = phase.start_date === undefined ? previousEnd : phase.start_date === 'now' ? unix() : integer(
          phase.start_date, `${param}[start_date]`,
        );
        if (start === null) throw invalid('The first phase needs a start_date.', `${param}[start_date]`);
        if (index === 0 && start !== schedule.current_phase.start_date) throw invalid('You can not modify the start date of the current '
          + 'phase.', `${param}[start_date]`);
        if (previousEnd !== null && start !== previousEnd) {
          throw invalid(`The start date of phase ${index} must equal the end date of the phase before it.`, `${param}[start_date]`);
        }
        if (phase.end_date !== undefined && phase.duration !== undefined) throw invalid('You may only specify one of these parameters: '
          + 'duration, end_date.', `${param}[end_date]`);
        const end = phase.end_date !== undefined
          ? integer(phase.end_date, `${param}[end_date]`)
          : phase.duration
            ? addInterval(start, phase.duration.interval, Number(phase.duration.interval_count ?? 1))
            : addInterval(start, price.recurring.interval, price.recurring.interval_count);
        if (end <= start) throw invalid('The end date of a phase must be after its start date.', `${param}[end_date]`);
        previousEnd = end;
        return {
          start_date: start, end_date: end,
          items: [{ price: price.id, quantity: Number(phase.items[0].quantity ?? 1), metadata: {}, discounts: [], tax_rates: [] }],
          proration_behavior: phase.proration_behavior ?? 'create_prorations', metadata: phase.metadata ?? {},
        };
      });
      schedule.current_phase = { start_date: schedule.phases[0].start_date, end_date: schedule.phases[0].end_date };
    }
    return schedule;
  }

  private releaseSchedule(schedule: StripeObject): StripeObject {
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw invalid(`You cannot release a subscription schedule that is currently in the \`${schedule.status}\` status. It must be in `
        + `\`not_started\` or \`active\`.`);
    }
    const subscription = schedule.subscription ? this.objects.get(schedule.subscription) : undefined;
    if (subscription) subscription.schedule = null;
    Object.assign(schedule, {
      status: 'released', released_at: unix(), released_subscription: schedule.subscription, subscription: null, current_phase: null,
    });
    return schedule;
  }

  // ---- webhooks ------------------------------------------------------------------------------------------------

  /** Sends events in order, each one signed, to `webhookUrl`; resolves once each has its answer (or none). */
  private async sendEvents(
    events: Array<[type: string, object: StripeObject, previous?: Record<string, unknown>]>,
  ): Promise<WebhookDelivery[]> {
    // Each event shows its object as it is now, not as it is by the time the events before it were answered.
    const deliveries = events.map(([type, object, previous]): WebhookDelivery => {
      const event: StripeObject = {
        id: this.newId('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created: unix(),
        data: { object: this.render(object), ...(previous && { previous_attributes: structuredClone(previous) }) },
        livemode: false,
        pending_webhooks: this.webhookUrl ? 1 : 0,
        request: { id: null, idempotency_key: null },
        type,
      };
      const payload = JSON.stringify(event, null, 2);
      return { event, payload, signature: this.sign(payload), status: null };
    });
    this.deliveries.push(...deliveries);
    for (const delivery of deliveries) {
      if (!this.webhookUrl) continue;
      // One at a time and in order, as a test reads them; Stripe itself promises no order.
      try {
        const answer = await fetch(this.webhookUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json; charset=utf-8', 'stripe-signature': delivery.signature,
            'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          },
          body: delivery.payload,
          signal: AbortSignal.timeout(10_000),
        });
        delivery.status = answer.status;
        await answer.arrayBuffer();
      } catch {
        delivery.status = null;
      }
    }
    return deliveries;
  }
}

export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  return new FakeStripe(options).listen();
}
