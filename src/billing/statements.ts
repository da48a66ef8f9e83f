/**
 * The account's statements, read from the ledger (src/billing/ledger.ts writes it; nothing here moves money): the
 * credit movements (`GET /v1/billing/ledger`), the charges (`/charges`), the usage report per day in a time zone
 * (`/usage`) and the charges behind it (`/usage/charges`). Money is dollars with whole cents in every answer.
 *
 * Usage is attributed by ledger movement, never by charge: each movement of a charge (a metered point, the settle's
 * correction, a void's refund, any other movement naming the charge) counts on the day it was written, in the
 * report's time zone. A live recording metered every minute across midnight therefore splits between the two days,
 * a running transcription counts at what it has been charged so far, and a refund or correction reduces the day it
 * happens. Audio seconds follow the charge's metered points: a metered point adds what it raised the billed seconds
 * by, the settle's correction takes back what it trimmed, a void takes back everything; other movements move money
 * only. Charges keep their name and source, so a deleted recording's charges are still reported.
 *
 * Billing off: every statement is empty (the usage report lists its days with zeros); the ranges are still checked.
 */
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { ApiError, errors } from '../core/errors.js';
import { dollars, ratePerHour, type BillingService } from './service.js';

const LIST_DEFAULT = 50;
const LIST_MAX = 500;
/** The spec's "Usage report range: at most 92 days". */
export const USAGE_MAX_DAYS = 92;
const DAY_MS = 86_400_000;

export type WorkKind = 'file' | 'live';
const WORK_KINDS: readonly WorkKind[] = ['file', 'live'];

export interface PageQuery {
  cursor?: string | null;
  limit?: number | null;
}

export interface LedgerEntryView {
  id: string;
  kind: string;
  amount: number;
  balanceAfter: number;
  description: string;
  chargeId: string | null;
  paymentId: string | null;
  createdAt: string;
}

/** What a charge is, as both the charges list and the usage report's charges show it. */
interface ChargeFacts {
  id: string;
  recordingId: string | null;
  sessionId: string | null;
  name: string;
  kind: string;
  source: string;
  state: string;
  secondsBilled: number;
  rate: number;
  cost: number;
}

export interface RecordingChargeView extends ChargeFacts {
  minimumSeconds: number;
  openedAt: string;
  settledAt: string | null;
}

export interface UsageAmount { seconds: number; amount: number }
export interface UsageBySource extends UsageAmount { source: string }
export interface UsageByKind extends UsageAmount { kind: WorkKind }
export interface UsageDay extends UsageAmount { date: string; bySource: UsageBySource[]; byKind: UsageByKind[] }

export interface UsageReport {
  startDate: string;
  endDate: string;
  tz: string;
  currency: string | null;
  totals: UsageAmount;
  bySource: UsageBySource[];
  byKind: UsageByKind[];
  days: UsageDay[];
}

export interface UsageChargeView extends ChargeFacts {
  type: 'charge' | 'correction';
  chargeId: string;
  description: string | null;
  at: string;
}

export interface UsageChargePage {
  startDate: string;
  endDate: string;
  tz: string;
  currency: string | null;
  count: number;
  total: number;
  seconds: number;
  charges: UsageChargeView[];
  nextCursor: string | null;
}

export interface UsageQuery {
  startDate: string;
  endDate: string;
  tz?: string | null;
}

export interface UsageChargesQuery extends UsageQuery, PageQuery {
  kind?: string | null;
  source?: string | null;
}

/**
 * The page cursor (core/cursor.ts), its instant kept inside the years the database holds: a forged cursor is a 400
 * naming `cursor`, never a database error.
 */
function pageCursor(raw: string | null | undefined): { at: Date; id: string } | null {
  if (!raw) return null;
  const cursor = decodeCursor(raw);
  const at = new Date(cursor.createdAt);
  if (at.getUTCFullYear() < 1970 || at.getUTCFullYear() > 9999) {
    throw errors.invalidOptions('cursor is not one this endpoint returned.', { field: 'cursor' });
  }
  return { at, id: cursor.id };
}

function pageLimit(limit: number | null | undefined): number {
  const value = limit ?? LIST_DEFAULT;
  if (!Number.isInteger(value) || value < 1 || value > LIST_MAX) {
    throw errors.invalidOptions(`limit must be an integer from 1 to ${LIST_MAX}.`, { field: 'limit' });
  }
  return value;
}

/** Seconds to the millisecond (float sums of metered points would otherwise show 59.99999999). */
const seconds = (value: number) => Math.round(value * 1000) / 1000;

// ---- calendar days in a time zone ----

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a `YYYY-MM-DD` calendar date; 400 invalid_options naming `field` unless it is one. */
function parseDay(value: string, field: string): number {
  const match = DAY_PATTERN.exec(value);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day); // not Date.UTC: it reads years 0..99 as 1900..1999
  if (!match || at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) {
    throw errors.invalidOptions(`${field} must be a calendar date as YYYY-MM-DD.`, { field });
  }
  return at.getTime() / DAY_MS;
}

const dayString = (dayNumber: number) => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's canonical IANA name; 400 invalid_options naming `tz` for anything the zone database does not know. */
function parseZone(value: string): string {
  try {
    if (value.length > 64) throw new RangeError('too long');
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw errors.invalidOptions('tz must be an IANA time zone such as Europe/Berlin or UTC.', { field: 'tz' });
  }
}

function wallClock(at: Date, tz: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, format);
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour), minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The calendar day (days since 1970-01-01) an instant falls on in `tz`. */
function localDay(at: Date, tz: string): number {
  const wall = wallClock(at, tz);
  return Date.UTC(wall.year, wall.month - 1, wall.day) / DAY_MS;
}

/** How far `tz`'s wall clock is ahead of UTC at `at`, in milliseconds. */
function zoneOffset(at: number, tz: string): number {
  const wall = wallClock(new Date(at), tz);
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - Math.floor(at / 1000) * 1000;
}

/** The first instant of a calendar day in `tz` (its midnight, or the first wall-clock time after a DST jump over it). */
function dayStart(dayNumber: number, tz: string): Date {
  const midnightAsUtc = dayNumber * DAY_MS;
  const guess = midnightAsUtc - zoneOffset(midnightAsUtc - zoneOffset(midnightAsUtc, tz), tz);
  if (localDay(new Date(guess), tz) === dayNumber && localDay(new Date(guess - 1), tz) === dayNumber - 1) return new Date(guess);
  // No midnight that day (a DST jump forward over 00:00, as in Santiago or Havana): the day starts at the jump.
  // Zones are at most 14 hours from UTC and jumps fall on whole seconds: search the seconds around.
  let low = Math.floor((midnightAsUtc - 15 * 3_600_000) / 1000);
  let high = Math.ceil((midnightAsUtc + 15 * 3_600_000) / 1000);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (localDay(new Date(middle * 1000), tz) >= dayNumber) high = middle;
    else low = middle + 1;
  }
  return new Date(low * 1000);
}

/** A usage range as asked, checked, then clamped to the account's life. */
interface UsageRange {
  tz: string;
  /** Days (since 1970-01-01) used: empty when `first > last` (the range lies wholly before the account or after today). */
  first: number;
  last: number;
  /** The instants bounding the used days: [from, to). */
  from: Date;
  to: Date;
}

/**
 * Checks the asked range (dates, zone, order, at most 92 days as asked) and clamps it: a start before the account's
 * first day (its creation, in `tz`) moves to it, an end after today (in `tz`) to today.
 */
function usageRange(query: UsageQuery, accountCreatedAt: Date, now = new Date()): UsageRange {
  const start = parseDay(query.startDate, 'startDate');
  const end = parseDay(query.endDate, 'endDate');
  const tz = parseZone(query.tz ?? 'UTC');
  if (start > end) throw errors.invalidOptions('startDate must be on or before endDate.', { field: 'startDate' });
  const asked = end - start + 1;
  if (asked > USAGE_MAX_DAYS) {
    throw new ApiError('range_too_long', 400, `The usage report covers at most ${USAGE_MAX_DAYS} days; ${asked} were asked.`, {
      details: { maxDays: USAGE_MAX_DAYS, days: asked },
    });
  }
  const first = Math.max(start, localDay(accountCreatedAt, tz));
  const last = Math.min(end, localDay(now, tz));
  return { tz, first, last, from: dayStart(first, tz), to: dayStart(Math.max(first, last + 1), tz) };
}

const isEmpty = (range: UsageRange) => range.first > range.last;

// ---- ledger and charges ----

type LedgerRow = Prisma.LedgerEntryGetPayload<{}>;
type ChargeRow = Prisma.ChargeGetPayload<{}>;

const ledgerEntryView = (row: LedgerRow): LedgerEntryView => ({
  id: row.id,
  kind: row.kind,
  amount: dollars(row.amountCents),
  balanceAfter: dollars(row.balanceAfterCents),
  description: row.description,
  chargeId: row.chargeId,
  paymentId: row.paymentId,
  createdAt: row.createdAt.toISOString(),
});

const recordingChargeView = (row: ChargeRow): RecordingChargeView => ({
  id: row.id,
  recordingId: row.recordingId,
  sessionId: row.sessionId,
  name: row.name,
  kind: row.kind,
  source: row.source,
  state: row.state,
  secondsBilled: seconds(row.billedSeconds),
  minimumSeconds: row.minimumSeconds,
  rate: ratePerHour(row.rateMicros),
  cost: dollars(row.costCents),
  openedAt: row.openedAt.toISOString(),
  settledAt: row.settledAt?.toISOString() ?? null,
});

/** Credit movements newest first; (createdAt, id) cursor so rows written in the same millisecond page cleanly. */
export async function ledgerPage(prisma: PrismaClient, billing: BillingService, accountId: string, query: PageQuery): Promise<{
  entries: LedgerEntryView[]; nextCursor: string | null;
}> {
  const limit = pageLimit(query.limit);
  const cursor = pageCursor(query.cursor);
  if (!billing.enabled) return { entries: [], nextCursor: null };
  // The billing row (and its signup credit, the first movement) is made on first use: a new account's ledger shows it.
  await billing.account(accountId);
  const rows = await prisma.ledgerEntry.findMany({
    where: { accountId, ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { entries: page.map(ledgerEntryView), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
}

/** The account's charges newest first (by when they opened), open, settled and void alike. */
export async function chargePage(prisma: PrismaClient, billing: BillingService, accountId: string, query: PageQuery): Promise<{
  charges: RecordingChargeView[]; nextCursor: string | null;
}> {
  const limit = pageLimit(query.limit);
  const cursor = pageCursor(query.cursor);
  if (!billing.enabled) return { charges: [], nextCursor: null };
  const rows = await prisma.charge.findMany({
    where: { accountId, ...(cursor ? { OR: [{ openedAt: { lt: cursor.at } }, { openedAt: cursor.at, id: { lt: cursor.id } }] } : {}) },
    orderBy: [{ openedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    charges: page.map(recordingChargeView),
    nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.openedAt, id: last.id }) : null,
  };
}

// ---- usage ----

/** An instant as the ledger's columns hold it (timestamp without zone, in UTC), whatever the session's zone. */
const utc = (at: Date) => Prisma.sql`(${at.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/**
 * The movements of every charge that moved money inside [from, to), each with the audio seconds it stands for
 * (`seconds`). A charge's billed seconds after a movement: a metered point's total (its key `charge:<id>:<seconds>`,
 * written by ledger.ts `meterCharge`), the charge's final billed seconds after the settle's correction
 * (`charge:<id>:settle`), none after a void's refund (`charge:<id>:void`). Points are ordered by those seconds, which
 * only grow while metering, then settle, then void — so two movements in the same millisecond still order right.
 * A void charge that cost nothing has no refund to take its seconds back: none of its movements count seconds.
 */
function chargeMovements(accountId: string, range: UsageRange): Prisma.Sql {
  return Prisma.sql`
    touched AS (
      SELECT DISTINCT "chargeId" AS id FROM "LedgerEntry"
      WHERE "accountId" = ${accountId} AND "chargeId" IS NOT NULL AND "createdAt" >= ${utc(range.from)} AND "createdAt" < ${utc(range.to)}
    ),
    staged AS (
      SELECT l.id, l."chargeId", l.kind, l."amountCents", l."createdAt", l.description, c.kind AS work, c.source,
        CASE
          WHEN position(('charge:' || l."chargeId" || ':') in l.key) <> 1 THEN NULL
          WHEN l.kind = 'charge' AND l.key ~ ':[0-9]+[.][0-9]{3}$' THEN 0
          WHEN l.kind = 'correction' AND l.key = 'charge:' || l."chargeId" || ':settle' THEN 1
          WHEN l.kind = 'refund' AND l.key = 'charge:' || l."chargeId" || ':void' THEN 2
        END AS phase,
        l.key, c."billedSeconds", c.state AS "chargeState", c."costCents" AS "chargeCents"
      FROM "LedgerEntry" l JOIN "Charge" c ON c.id = l."chargeId" AND c."accountId" = l."accountId"
      WHERE l."accountId" = ${accountId} AND l."chargeId" IN (SELECT id FROM touched) AND l."createdAt" < ${utc(range.to)}
    ),
    points AS (
      SELECT s.*, CASE s.phase
          WHEN 0 THEN substring(s.key from ':([0-9]+[.][0-9]{3})$')::float8
          WHEN 1 THEN s."billedSeconds"
          WHEN 2 THEN 0::float8
        END AS "secondsAfter"
      FROM staged s
    ),
    moved AS (
      SELECT p.id, p."chargeId", p.kind, p."amountCents", p."createdAt", p.description, p.work, p.source,
        CASE WHEN p.phase IS NULL OR (p."chargeState" = 'void' AND p."chargeCents" = 0) THEN 0::float8
          ELSE p."secondsAfter" - COALESCE(lag(p."secondsAfter") OVER (PARTITION BY p."chargeId", p.phase IS NULL ORDER BY p.phase,
            p."secondsAfter", p."createdAt", p.id), 0)
        END AS seconds
      FROM points p
    )`;
}

interface Tally { cents: number; seconds: number }

function addTo<K>(map: Map<K, Tally>, key: K, cents: number, secondsUsed: number): void {
  const tally = map.get(key) ?? { cents: 0, seconds: 0 };
  tally.cents += cents;
  tally.seconds += secondsUsed;
  map.set(key, tally);
}

const amountOf = (tally: Tally | undefined): UsageAmount => ({ seconds: seconds(tally?.seconds ?? 0), amount: dollars(tally?.cents ?? 0) });

/** Sources by spend, largest first (the dashboard's order), then by name. */
function sourceList(map: Map<string, Tally>): UsageBySource[] {
  return [...map].sort(([a, x], [b, y]) => y.cents - x.cents || (a < b ? -1 : 1)).map(
    ([source, tally]) => ({ source, ...amountOf(tally) }),
  );
}

const kindList = (map: Map<string, Tally>): UsageByKind[] => WORK_KINDS.map((kind) => ({ kind, ...amountOf(map.get(kind)) }));

async function accountCreatedAt(prisma: PrismaClient, accountId: string): Promise<Date> {
  return (await prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { createdAt: true } })).createdAt;
}

/** Spend per day in `tz`, per source and per kind, over the asked range clamped to the account's life. */
export async function usageReport(
  prisma: PrismaClient, billing: BillingService, accountId: string, query: UsageQuery,
): Promise<UsageReport> {
  const range = usageRange(query, await accountCreatedAt(prisma, accountId));
  const dayNumbers = isEmpty(range) ? [] : Array.from({ length: range.last - range.first + 1 }, (_, index) => range.first + index);
  const total = new Map<string, Tally>();
  const perSource = new Map<string, Tally>();
  const perKind = new Map<string, Tally>();
  const perDay = new Map<number, { all: Map<string, Tally>; sources: Map<string, Tally>; kinds: Map<string, Tally> }>(
    dayNumbers.map((day) => [day, { all: new Map(), sources: new Map(), kinds: new Map() }]),
  );
  if (billing.enabled && dayNumbers.length > 0) {
    // Day i (1-based) is [bounds[i-1], bounds[i]): width_bucket over the days' first instants in the zone.
    const bounds = [...dayNumbers, range.last + 1].map((day) => dayStart(day, range.tz).toISOString());
    const rows = await prisma.$queryRaw<Array<{ bucket: number; source: string; kind: string; cents: bigint; seconds: number }>>`
      WITH ${chargeMovements(accountId, range)}
      SELECT width_bucket(m."createdAt", ARRAY(SELECT (b::timestamptz AT TIME ZONE 'UTC')::timestamp(3) FROM unnest(${bounds}::text[])
        WITH ORDINALITY AS u(b, n) ORDER BY n))::int AS bucket,
             m.source, m.work AS kind, SUM(-m."amountCents")::bigint AS cents, SUM(m.seconds)::float8 AS seconds
      FROM moved m
      WHERE m."createdAt" >= ${utc(range.from)}
      GROUP BY 1, 2, 3`;
    for (const row of rows) {
      const day = perDay.get(range.first + row.bucket - 1);
      if (!day) continue;
      const cents = Number(row.cents);
      for (const [map, key] of [
        [total, ''], [perSource, row.source], [perKind, row.kind], [day.all, ''], [day.sources, row.source], [day.kinds, row.kind],
      ] as const) {
        addTo(map, key, cents, row.seconds);
      }
    }
  }
  return {
    startDate: dayString(range.first),
    endDate: dayString(range.last),
    tz: range.tz,
    currency: billing.settings?.currency ?? null,
    totals: amountOf(total.get('')),
    bySource: sourceList(perSource),
    byKind: kindList(perKind),
    days: dayNumbers.map((dayNumber) => {
      const day = perDay.get(dayNumber)!;
      return { date: dayString(dayNumber), ...amountOf(day.all.get('')), bySource: sourceList(day.sources), byKind: kindList(day.kinds) };
    }),
  };
}

/**
 * The charges behind the report, newest first: one `charge` item per charge opened in the range or metered in it
 * (its audio seconds and cost are what it was metered inside the range), and one `correction` item per refund or
 * correction of a charge written inside the range (negative cost; a settle's trim of a live charge metered by whole
 * minutes, a void's refund). Items add up to the report: `total` and `seconds` equal the report's totals with the
 * same range and filters. `count`, `total` and `seconds` cover every match, not only the page.
 */
export async function usageCharges(
  prisma: PrismaClient, billing: BillingService, accountId: string, query: UsageChargesQuery,
): Promise<UsageChargePage> {
  const range = usageRange(query, await accountCreatedAt(prisma, accountId));
  const limit = pageLimit(query.limit);
  const cursor = pageCursor(query.cursor);
  if (query.kind != null && !WORK_KINDS.includes(query.kind as WorkKind)) {
    throw errors.invalidOptions('kind must be file or live.', { field: 'kind' });
  }
  const head = {
    startDate: dayString(range.first), endDate: dayString(range.last), tz: range.tz, currency: billing.settings?.currency ?? null,
  };
  if (!billing.enabled || isEmpty(range)) return { ...head, count: 0, total: 0, seconds: 0, charges: [], nextCursor: null };

  const items = Prisma.sql`
    WITH ${chargeMovements(accountId, range)},
    items AS (
      SELECT c.id, 'charge' AS type, c.id AS "chargeId", c."openedAt" AS at, c.kind, c.source, NULL::text AS description,
             COALESCE(SUM(-m."amountCents") FILTER (WHERE m.kind = 'charge' AND m."createdAt" >= ${utc(range.from)}), 0)::bigint AS cents,
             COALESCE(SUM(m.seconds) FILTER (WHERE m.kind = 'charge' AND m."createdAt" >= ${utc(range.from)}), 0)::float8 AS seconds
      FROM "Charge" c LEFT JOIN moved m ON m."chargeId" = c.id
      WHERE c."accountId" = ${accountId}
        AND (c.id IN (SELECT "chargeId" FROM moved WHERE kind = 'charge' AND "createdAt" >= ${utc(range.from)})
             OR (c."openedAt" >= ${utc(range.from)} AND c."openedAt" < ${utc(range.to)}))
      GROUP BY c.id
      UNION ALL
      SELECT m.id, 'correction', m."chargeId", m."createdAt", m.work, m.source, m.description, (-m."amountCents")::bigint, m.seconds
      FROM moved m
      WHERE m.kind <> 'charge' AND m."createdAt" >= ${utc(range.from)}
    ),
    matches AS (
      SELECT * FROM items i
      WHERE ${query.kind != null ? Prisma.sql`i.kind = ${query.kind}` : Prisma.sql`TRUE`}
        AND ${query.source != null ? Prisma.sql`i.source = ${query.source}` : Prisma.sql`TRUE`}
    )`;
  const [summary] = await prisma.$queryRaw<Array<{ count: number; cents: bigint; seconds: number }>>`
    ${items}
    SELECT count(*)::int AS count, COALESCE(SUM(cents), 0)::bigint AS cents, COALESCE(SUM(seconds), 0)::float8 AS seconds FROM matches`;
  const rows = await prisma.$queryRaw<Array<{
    id: string; type: 'charge' | 'correction'; at: Date; description: string | null; cents: bigint; seconds: number;
    charge: Pick<ChargeRow, 'id' | 'recordingId' | 'sessionId' | 'name' | 'kind' | 'source' | 'state' | 'rateMicros'>;
  }>>`
    ${items}
    SELECT i.id, i.type, i.at, i.description, i.cents, i.seconds, row_to_json(c.*) AS charge
    FROM matches i JOIN "Charge" c ON c.id = i."chargeId"
    WHERE ${cursor ? Prisma.sql`(i.at, i.id) < (${utc(cursor.at)}, ${cursor.id})` : Prisma.sql`TRUE`}
    ORDER BY i.at DESC, i.id DESC
    LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    ...head,
    count: summary?.count ?? 0,
    total: dollars(Number(summary?.cents ?? 0)),
    seconds: seconds(summary?.seconds ?? 0),
    charges: page.map((row) => ({
      id: row.id,
      type: row.type,
      chargeId: row.charge.id,
      recordingId: row.charge.recordingId,
      sessionId: row.charge.sessionId,
      name: row.charge.name,
      kind: row.charge.kind,
      source: row.charge.source,
      state: row.charge.state,
      secondsBilled: seconds(row.seconds),
      rate: ratePerHour(row.charge.rateMicros),
      cost: dollars(Number(row.cents)),
      description: row.description,
      at: row.at.toISOString(),
    })),
    nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.at, id: last.id }) : null,
  };
}
