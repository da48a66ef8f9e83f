/**
 * Listener fan-out benchmark (`npm run bench -- listeners`): one live recording of a public broadcast followed by N
 * WebSocket listeners (`WS /v1/recordings/{id}/subscribe`, no credential) on one gateway process, the clients held by
 * one separate Node process (this file run with `--listener-clients`), for N = 1,000 then 5,000: one gateway
 * (`withBenchServices`: a gateway process and a worker process on a fresh database), listeners added between levels.
 *
 * The commits are the publisher's: `LiveRecordingsService.storeCommit`, the method a publisher's session calls for
 * every committed segment, called from this process on a steady clock (one every BENCH_LISTENERS_INTERVAL_MS) with
 * segments shaped as the engine commits them (text, word timings, confidence). So the measured path is the real
 * one: the segment and its `transcript.committed` event committed in PostgreSQL → published on Redis → the
 * gateway's hub (src/listeners/fanout.ts) → N sockets. Only the speech engine is left out, so commits come when we
 * say and the listeners' gateway spends its CPU on fan-out alone (as when the publisher is on another gateway).
 *
 * - latency: a listener's receipt of the frame (its `message` event) minus the moment the commit's transaction
 *   returned in this process; all processes read the same clock (performance.timeOrigin + performance.now()).
 *   p50 / p99 / max over every (listener, timed commit). `p99 from at`: the same against the frame's `at` (stamped
 *   inside the transaction before its writes, so a few ms earlier). The first BENCH_LISTENERS_WARMUP commits of a
 *   level are delivered and checked but not timed.
 * - complete: listeners that received every commit of the level exactly once, cursors gapless, socket still open.
 * - RSS: the gateway's VmRSS before any listener (60 s after its start, once a few listeners came and went) and
 *   with the level's N listeners connected and idle, each read after a full garbage collection (asked for through
 *   the gateway's inspector: it runs with --inspect=127.0.0.1:0, and nothing is attached while frames flow), so
 *   garbage does not count; KiB per idle listener = ΔRSS / N (and the V8 heap's share of it, the steadier number).
 *   Peak: while the level's frames flow (no collection asked for).
 * - gateway CPU s: user + system CPU of the gateway process from a level's first timed commit until every listener
 *   has its last. client CPU s: the same for the listeners' process, which shares the machine's cores: when it is
 *   busy, receipts are late for reasons of its own.
 * Logged per level: the first listener's latency per commit (database → Redis → hub → one socket), the spread from
 * first to last listener (the fan-out), the gateway's kernel share of its CPU and its event loop delay while frames
 * flow (a histogram put in it through the inspector: one frame's walk over every socket holds the loop), the
 * client process's CPU and event loop delay. BENCH_LISTENERS_VERBOSE=1 logs every commit.
 * Goal (the issue): 5,000 listeners with p99 ≤ 250 ms on the 2-core machine; ratio = p99 / 250 ms. The machine's
 * other load counts: the load average is logged with each level.
 *
 * Needs PostgreSQL and Redis like the tests (TEST_POSTGRES_URL, REDIS_URL). Knobs: BENCH_LISTENERS (levels,
 * "1000,5000"), BENCH_LISTENERS_COMMITS (40 timed), BENCH_LISTENERS_INTERVAL_MS (1000), BENCH_LISTENERS_WARMUP (2).
 */
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { withBenchServices, type BenchServices } from './helpers/services.js';

export interface ListenersBenchOptions {
  /** Listener counts, one level each, in rising order (listeners are added between levels). */
  levels?: number[];
  /** Commits timed per level. */
  commits?: number;
  /** Commits delivered before the timed ones of each level (not timed). */
  warmupCommits?: number;
  /** Milliseconds between commits. */
  intervalMs?: number;
  /** Upgrades the client process has in flight at once while connecting. */
  connectConcurrency?: number;
  goalP99Ms?: number;
  verbose?: boolean;
  log?: (line: string) => void;
}

export interface ListenersBenchRow {
  listeners: number;
  connected: number;
  /** Listeners that received every commit of the level exactly once, in cursor order. */
  complete: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** p99 of receipt minus the frame's own `at`. */
  p99FromAtMs: number;
  /** p99Ms over the goal. */
  ratio: number;
  rssBeforeMiB: number;
  rssIdleMiB: number;
  rssPeakMiB: number;
  kibPerListener: number;
  /** V8 heap in use per idle listener (KiB), of the same readings. */
  heapKibPerListener: number;
  gatewayCpuS: number;
  clientCpuS: number;
  holds: boolean;
  problems: string[];
}

type Settings = Required<Omit<ListenersBenchOptions, 'levels' | 'log'>>;

const CLIENTS_FLAG = '--listener-clients';
/** How long after its start a gateway's memory is read for the baseline. */
const STARTUP_SETTLE_MS = 60_000;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------
// The listeners' process: holds every client socket, stamps each frame's arrival, answers the bench over IPC.

type ClientCommand =
  | { cmd: 'connect'; url: string; count: number; concurrency: number }
  | { cmd: 'disconnect' }
  | { cmd: 'arm'; frames: number }
  | { cmd: 'mark' }
  | { cmd: 'progress'; cursor: number }
  | { cmd: 'report' };

interface FrameMeta { cursor: number; type: string; seq: number | null; at: string | null; bytes: number }

interface ClientReport {
  /** Arrival times, listener-major: receipts[i * frames + k] is listener i's arrival of the k-th frame since `arm`. */
  receipts: Float64Array;
  frames: number;
  listeners: number;
  /** Listeners whose every frame since `arm` came once, in order, with the socket still open. */
  complete: number;
  gaps: number;
  closed: number;
  errors: string[];
  /** Every frame since `arm` as listener 0 saw it, parsed. */
  meta: FrameMeta[];
  cpuS: number;
  lagMaxMs: number;
  lagP99Ms: number;
}

interface Listener { ws: WebSocket; base: number; last: number; gaps: number; count: number; closed: boolean }

const CURSOR_KEY = Buffer.from('"cursor":');

/** The frame's `cursor`, read without parsing the JSON (the last `"cursor":` key of the text; -1 when none). */
function cursorOf(data: Buffer): number {
  const at = data.lastIndexOf(CURSOR_KEY);
  if (at < 0) return -1;
  let value = 0;
  for (let i = at + CURSOR_KEY.length; i < data.length; i++) {
    const digit = data[i]! - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

async function runClients(): Promise<void> {
  const listeners: Listener[] = [];
  let receipts = new Float64Array(0);
  let frames = 0;
  const meta: FrameMeta[] = [];
  const errors: string[] = [];
  const lag = monitorEventLoopDelay({ resolution: 10 });
  let cpuMark = process.cpuUsage();

  /** Resolves with the listener once its `subscribe.ready` came. */
  const open = (url: string): Promise<Listener> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { handshakeTimeout: 60_000, perMessageDeflate: false });
      const listener: Listener = { ws, base: -2, last: -2, gaps: 0, count: 0, closed: false };
      let index = -1;
      ws.on('message', (data: Buffer, isBinary) => {
        const arrived = now();
        if (isBinary) return;
        if (index < 0) {
          const ready = JSON.parse(data.toString()) as { type: string; lastSeq: number };
          if (ready.type !== 'subscribe.ready') return reject(new Error(`first frame ${ready.type}`));
          listener.base = listener.last = ready.lastSeq;
          index = listeners.push(listener) - 1;
          return resolve(listener);
        }
        const cursor = cursorOf(data);
        if (cursor < 0) {
          if (errors.length < 5) errors.push(data.toString().slice(0, 200));
          return;
        }
        if (cursor !== listener.last + 1) listener.gaps++;
        listener.last = cursor;
        listener.count++;
        const k = cursor - listener.base - 1;
        if (k >= 0 && k < frames) receipts[index * frames + k] = arrived;
        if (index === 0) {
          const frame = JSON.parse(data.toString()) as { type: string; cursor?: number; seq?: number; at?: string };
          // The cursor read without parsing must be the frame's own (report's `meta` check catches a difference).
          meta.push({
            cursor: frame.cursor === cursor ? cursor : -1, type: frame.type, seq: frame.seq ?? null, at: frame.at ?? null,
            bytes: data.length,
          });
        }
      });
      ws.on('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.on('error', reject);
      ws.on('close', (code) => {
        listener.closed = true;
        if (index >= 0 && errors.length < 5) errors.push(`listener ${index} closed ${code}`);
      });
    });

  const handle = async (message: ClientCommand): Promise<unknown> => {
    switch (message.cmd) {
      case 'connect': {
        const failures: string[] = [];
        let left = message.count;
        const lane = async () => {
          while (left > 0) {
            left--;
            await open(message.url).catch((error: Error) => failures.push(error.message));
          }
        };
        await Promise.all(Array.from({ length: Math.min(message.concurrency, message.count) }, lane));
        return {
          connected: listeners.length, cursors: [...new Set(listeners.map((l) => l.last))], failures: failures.slice(0, 5),
          failed: failures.length,
        };
      }
      case 'disconnect': {
        await Promise.all(listeners.map((l) => new Promise((resolve) => {
          if (l.closed) return resolve(null);
          l.ws.once('close', resolve);
          l.ws.close();
        })));
        listeners.length = 0;
        errors.length = 0;
        return { disconnected: true };
      }
      case 'arm':
        // From here every listener counts afresh: the frames after the cursor it has now.
        frames = message.frames;
        receipts = new Float64Array(listeners.length * frames).fill(Number.NaN);
        for (const l of listeners) Object.assign(l, { base: l.last, gaps: 0, count: 0 });
        meta.length = 0;
        return { armed: true };
      case 'mark':
        cpuMark = process.cpuUsage();
        lag.reset();
        lag.enable();
        return { marked: true };
      case 'progress':
        return { at: listeners.filter((l) => l.last >= message.cursor).length };
      case 'report': {
        lag.disable();
        const cpu = process.cpuUsage(cpuMark);
        return {
          receipts, frames, errors, meta,
          listeners: listeners.length,
          complete: listeners.filter((l) => !l.closed && l.gaps === 0 && l.count === frames && l.last === l.base + frames).length,
          gaps: listeners.reduce((sum, l) => sum + l.gaps, 0),
          closed: listeners.filter((l) => l.closed).length,
          cpuS: (cpu.user + cpu.system) / 1e6,
          lagMaxMs: lag.max / 1e6,
          lagP99Ms: lag.percentile(99) / 1e6,
        } satisfies ClientReport;
      }
    }
  };
  process.on('message', (message: ClientCommand & { id: number }) => {
    void handle(message).then(
      (result) => process.send!({ id: message.id, result }),
      (error: Error) => process.send!({ id: message.id, error: error.stack ?? String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

/** The listeners' process, driven by request/answer messages. */
function startClients() {
  const child = fork(fileURLToPath(import.meta.url), [CLIENTS_FLAG], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let id = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(`listener clients: ${message.error}`));
    else waiter?.resolve(message.result);
  });
  child.once('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`listener clients exited ${code}`));
    pending.clear();
  });
  return {
    ask<T>(command: ClientCommand): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.set(++id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ ...command, id });
      });
    },
    async stop(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The bench: services, the publisher's commits, the gateway's memory and CPU.

/** RSS (MiB) and CPU seconds (user + system, clock ticks of 1/100 s) of a process, from /proc. */
async function processUsage(pid: number): Promise<{ rssMiB: number; cpuS: number; systemS: number }> {
  const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readFile(`/proc/${pid}/stat`, 'utf8')]);
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  const ticks = stat.replace(/^.*\) /s, '').split(' ');
  return { rssMiB: rssKiB / 1024, cpuS: (Number(ticks[11]) + Number(ticks[12])) / 100, systemS: Number(ticks[12]) / 100 };
}

/**
 * A session on the gateway's inspector (it runs with `--inspect=127.0.0.1:0`), opened only for a reading: nothing is
 * attached while frames flow.
 */
async function inspectGateway<T>(
  inspectorUrl: string, use: (call: (method: string, params?: object) => Promise<Record<string, unknown>>) => Promise<T>,
): Promise<T> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let id = 0;
  const call = (method: string, params: object = {}) => new Promise<Record<string, unknown>>((resolve, reject) => {
    const mine = ++id;
    const onMessage = (data: Buffer) => {
      const answer = JSON.parse(data.toString()) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
      if (answer.id !== mine) return;
      socket.off('message', onMessage);
      if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
      else resolve(answer.result ?? {});
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ id: mine, method, params }));
  });
  try {
    return await use(call);
  } finally {
    socket.close();
  }
}

/** The gateway's memory once garbage is gone: RSS and V8 heap in use after a full collection. */
function memoryAfterGc(inspectorUrl: string, pid: number): Promise<{ rssMiB: number; heapMiB: number }> {
  return inspectGateway(inspectorUrl, async (call) => {
    // Read until two readings a moment apart agree within 1 MiB (memory let go of lazily has gone back).
    let previous = Number.NaN;
    for (let i = 0; ; i++) {
      await call('HeapProfiler.collectGarbage');
      const heap = await call('Runtime.getHeapUsage');
      await sleep(1_000);
      const { rssMiB } = await processUsage(pid);
      if (Math.abs(rssMiB - previous) <= 1 || i === 10) return { rssMiB, heapMiB: (heap.usedSize as number) / 2 ** 20 };
      previous = rssMiB;
    }
  });
}

/**
 * The gateway's event loop delay while frames flow: `start` puts a histogram (perf_hooks) in the gateway, `read`
 * answers its p99 and max (ms) and removes it. A fan-out that holds the loop shows here as its duration.
 */
const gatewayLag = {
  start: (inspectorUrl: string) => inspectGateway(inspectorUrl, (call) => call('Runtime.evaluate', {
    expression: "globalThis.__benchLag = process.getBuiltinModule('node:perf_hooks').monitorEventLoopDelay({ resolution: 5 }); "
      + "globalThis.__benchLag.enable(); 1",
  })),
  read: (inspectorUrl: string) => inspectGateway(inspectorUrl, async (call) => {
    const { result } = await call('Runtime.evaluate', {
      expression: '(() => { const h = globalThis.__benchLag; h.disable(); delete globalThis.__benchLag; return { p99: h.percentile(99) / '
        + '1e6, max: h.max / 1e6 }; })()',
      returnByValue: true,
    });
    return (result as { value: { p99: number; max: number } }).value;
  }),
};

/** Sentences the segments say, word timings spread over their span (the engine's shape: start, end, text, prob). */
const LINES = [
  'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them.',
  'He was not an ill disposed young man, unless to be rather cold hearted and rather selfish is to be ill disposed.',
  'Had he married a more amiable woman he might have been made still more respectable than he was.',
  'He might even have been made amiable himself, for he was very young when he married, and very fond of his wife.',
];

function segmentBody(index: number, startS: number) {
  const text = LINES[index % LINES.length]!;
  const step = 0.32;
  const words = text.split(' ').map((token, i) => ({
    start: Math.round((startS + i * step) * 1000) / 1000,
    end: Math.round((startS + (i + 1) * step - 0.04) * 1000) / 1000,
    text: ` ${token}`,
    prob: Math.round((0.86 + ((index * 7 + i * 13) % 13) / 100) * 1000) / 1000,
  }));
  const confidence = Math.round((words.reduce((sum, word) => sum + word.prob, 0) / words.length) * 1000) / 1000;
  return {
    speaker: -1, start: words[0]!.start, end: words[words.length - 1]!.end, text, words, confidence, language: 'en', latencyS: 1.2,
    decoder: 'fast', catchup: true,
  };
}

/** The publisher's side: commits stored by `storeCommit` (as a publisher's session does) from this process. */
async function openPublisher(databaseUrl: string, redisPrefix: string, recordingId: string) {
  const [{ PrismaPg }, { PrismaClient }, { createPool }, { createRedisPubSub }, { LiveRecordingsService }] = await Promise.all([
    import('@prisma/adapter-pg'),
    import('../src/core/db/index.js'),
    import('../src/core/db/pg-pool.js'),
    import('../src/core/pubsub.js'),
    import('../src/live/recordings.js'),
  ]);
  const pool = createPool(databaseUrl, { max: 2 });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const pubsub = createRedisPubSub({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: redisPrefix });
  // storeCommit uses the event log's dependencies only (the database and pub/sub).
  const live = new LiveRecordingsService(
    { prisma, pubsub } as unknown as ConstructorParameters<typeof LiveRecordingsService>[0], null as never, null as never,
  );
  const { publisherEpoch } = await prisma.recording.findUniqueOrThrow({ where: { id: recordingId }, select: { publisherEpoch: true } });
  let segments = 0;
  let mediaS = 0;
  return {
    /** Stores the next segment; answers its seq and when its transaction had committed. */
    async commit(): Promise<{ seq: number; committedAt: number }> {
      const body = segmentBody(segments++, mediaS);
      mediaS = body.end + 0.2;
      const { seq } = await live.storeCommit(recordingId, publisherEpoch, 0, body);
      return { seq, committedAt: now() };
    },
    async close() {
      await pubsub.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function post<T>(services: BenchServices, pathname: string, body: unknown): Promise<T> {
  const response = await fetch(`${services.base}${pathname}`, {
    method: 'POST', headers: { ...services.headers, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const quantile = (sorted: Float64Array, p: number) => (sorted.length ? sorted[Math.min(
  sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1),
)]! : Number.NaN);
const median = (values: number[]) => quantile(Float64Array.from(values).sort(), 0.5);

type Clients = ReturnType<typeof startClients>;
type Memory = Awaited<ReturnType<typeof memoryAfterGc>>;
type Publisher = Awaited<ReturnType<typeof openPublisher>>;

/** One level's delivery: warm-up and timed commits on the clock, until every listener has the last; its row. */
async function deliver(
  pid: number, inspectorUrl: string, clients: Clients, publisher: Publisher, settings: Settings,
  level: { listeners: number; cursor: number; before: Memory; idle: Memory }, log: (line: string) => void,
): Promise<ListenersBenchRow> {
  const frames = settings.warmupCommits + settings.commits;
  await clients.ask({ cmd: 'arm', frames });
  let rssPeakMiB = level.idle.rssMiB;
  const sampler = setInterval(
    () => void processUsage(pid).then((usage) => (rssPeakMiB = Math.max(rssPeakMiB, usage.rssMiB))).catch(() => undefined), 250,
  );
  const commits: Array<{ seq: number; committedAt: number }> = [];
  let cpuBefore = { cpuS: 0, systemS: 0 };
  const started = performance.now();
  for (let k = 0; k < frames; k++) {
    const due = started + k * settings.intervalMs;
    if (due > performance.now()) await sleep(due - performance.now());
    if (k === settings.warmupCommits) {
      await clients.ask({ cmd: 'mark' });
      await gatewayLag.start(inspectorUrl);
      cpuBefore = await processUsage(pid);
    }
    commits.push(await publisher.commit());
  }
  const lastCursor = level.cursor + frames;
  const deadline = performance.now() + 30_000;
  while ((await clients.ask<{ at: number }>(
    { cmd: 'progress', cursor: lastCursor },
  )).at < level.listeners && performance.now() < deadline) await sleep(10);
  const cpuAfter = await processUsage(pid);
  const gatewayCpuS = cpuAfter.cpuS - cpuBefore.cpuS;
  clearInterval(sampler);
  const lag = await gatewayLag.read(inspectorUrl);
  const report = await clients.ask<ClientReport>({ cmd: 'report' });

  const problems: string[] = [];
  // Listener 0 parsed every frame: the k-th since `arm` must be the k-th commit, whole (not withheld as noop).
  const mismatch = commits.findIndex(
    (commit, k) =>
      report.meta[k]?.type !== 'transcript.committed' ||
      report.meta[k]?.seq !== commit.seq ||
      report.meta[k]?.cursor !== level.cursor + k + 1,
  );
  if (mismatch >= 0) problems.push(`frame ${mismatch} is not commit ${mismatch}: ${JSON.stringify(report.meta[mismatch] ?? null)}`);
  if (report.gaps) problems.push(`${report.gaps} cursor gaps`);
  if (report.closed) problems.push(`${report.closed} sockets closed: ${report.errors.join('; ')}`);
  if (report.complete < level.listeners) {
    problems.push(`${level.listeners - report.complete} of ${level.listeners} listeners did not get every frame once, in order`);
  }

  const latencies: number[] = [];
  const fromAt: number[] = [];
  // Per commit: its first listener's latency (database, Redis, the hub, one socket) and the spread to its last (the fan-out).
  const firsts: number[] = [];
  const spreads: number[] = [];
  let missing = 0;
  for (let k = settings.warmupCommits; k < frames; k++) {
    const committedAt = commits[k]!.committedAt;
    const at = Date.parse(report.meta[k]?.at ?? '');
    let first = Infinity;
    let last = -Infinity;
    const mine: number[] = [];
    for (let i = 0; i < report.listeners; i++) {
      const arrived = report.receipts[i * frames + k]!;
      if (Number.isNaN(arrived)) {
        missing++;
        continue;
      }
      mine.push(arrived - committedAt);
      fromAt.push(arrived - at);
      first = Math.min(first, arrived - committedAt);
      last = Math.max(last, arrived - committedAt);
    }
    latencies.push(...mine);
    firsts.push(first);
    spreads.push(last - first);
    if (settings.verbose) {
      log(`    commit ${k}: first ${first.toFixed(1)} ms, median ${median(mine).toFixed(1)} ms, last ${last.toFixed(1)} ms`);
    }
  }
  if (missing) problems.push(`${missing} timed receipts missing`);
  const sorted = Float64Array.from(latencies).sort();
  const p99Ms = quantile(sorted, 0.99);
  log(`  per commit (median over commits): first listener ${median(firsts).toFixed(1)} ms (worst ${Math.max(...firsts).toFixed(1)}), `
    + `first → last listener ${median(spreads).toFixed(1)} ms (worst ${Math.max(...spreads).toFixed(1)})`);
  log(`  gateway: ${gatewayCpuS.toFixed(2)} CPU s (${(cpuAfter.systemS - cpuBefore.systemS).toFixed(2)} s of it in the kernel), `
    + `${((gatewayCpuS / settings.commits) * 1000).toFixed(1)} ms a commit; event loop delay p99 ${lag.p99.toFixed(0)} ms, max `
      + `${lag.max.toFixed(0)} ms`);
  log(`  client process: ${report.cpuS.toFixed(1)} CPU s, event loop delay p99 ${report.lagP99Ms.toFixed(0)} ms, max `
    + `${report.lagMaxMs.toFixed(0)} ms; frames `
      + `${(report.meta.reduce((sum, m) => sum + m.bytes, 0) / Math.max(1, report.meta.length)).toFixed(0)} bytes; load average `
        + `${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (p99Ms > settings.goalP99Ms) problems.push(`p99 ${p99Ms.toFixed(0)} ms > ${settings.goalP99Ms} ms`);
  return {
    listeners: level.listeners,
    connected: report.listeners,
    complete: report.complete,
    p50Ms: quantile(sorted, 0.5),
    p99Ms,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    p99FromAtMs: quantile(Float64Array.from(fromAt).sort(), 0.99),
    ratio: p99Ms / settings.goalP99Ms,
    rssBeforeMiB: level.before.rssMiB,
    rssIdleMiB: level.idle.rssMiB,
    rssPeakMiB,
    kibPerListener: ((level.idle.rssMiB - level.before.rssMiB) * 1024) / level.listeners,
    heapKibPerListener: ((level.idle.heapMiB - level.before.heapMiB) * 1024) / level.listeners,
    gatewayCpuS,
    clientCpuS: report.cpuS,
    holds: problems.length === 0,
    problems,
  };
}

export async function benchListeners(options: ListenersBenchOptions = {}): Promise<{ rows: ListenersBenchRow[]; table: string }> {
  const levels = (options.levels ?? (process.env.BENCH_LISTENERS ?? '1000,5000').split(',').map(Number)).sort((a, b) => a - b);
  const settings: Settings = {
    commits: options.commits ?? Number(process.env.BENCH_LISTENERS_COMMITS ?? 40),
    warmupCommits: options.warmupCommits ?? Number(process.env.BENCH_LISTENERS_WARMUP ?? 2),
    intervalMs: options.intervalMs ?? Number(process.env.BENCH_LISTENERS_INTERVAL_MS ?? 1_000),
    connectConcurrency: options.connectConcurrency ?? 100,
    goalP99Ms: options.goalP99Ms ?? 250,
    verbose: options.verbose ?? process.env.BENCH_LISTENERS_VERBOSE === '1',
  };
  // Progress goes to stderr: `npm run bench` prints the returned table on stdout.
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  // The publisher in this process talks to the services' Redis channels: their prefix is ours to choose.
  const redisPrefix = `sgbench:${crypto.randomBytes(5).toString('hex')}:`;
  const gatewayEnv = { RATE_LIMIT_MAX: '1000000', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim() };
  const rows = await withBenchServices({ env: { REDIS_PREFIX: redisPrefix }, gatewayEnv, log }, async (services) => {
    const servicesUp = performance.now();
    const pid = services.gateway.child.pid!;
    const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/.exec(services.gateway.output())?.[1];
    if (!inspectorUrl) throw new Error('the gateway did not open its inspector');
    const broadcast = await post<{ id: string }>(services, '/v1/broadcasts', {
      name: 'Listeners bench', settings: { spokenLanguage: 'en' },
    });
    const grant = await post<{ recording: { id: string } }>(services, `/v1/broadcasts/${broadcast.id}/recordings`, {});
    // A public broadcast's listener sends no credential.
    const url = `${services.base.replace(/^http/, 'ws')}/v1/recordings/${grant.recording.id}/subscribe`;
    const publisher = await openPublisher(services.databaseUrl!, redisPrefix, grant.recording.id);
    const clients = startClients();
    try {
      // A few listeners come and go first: the upgrade path, the hub and the socket code are warm, not counted per listener.
      await clients.ask({ cmd: 'connect', url, count: 20, concurrency: 20 });
      await clients.ask({ cmd: 'disconnect' });
      // A gateway gives back some 50 MiB of what its start used 25 to 40 s after it (whatever the collections):
      // the baseline is read after that.
      await sleep(Math.max(0, STARTUP_SETTLE_MS - (performance.now() - servicesUp)));
      const before = await memoryAfterGc(inspectorUrl, pid);
      log(`listeners bench: gateway RSS ${before.rssMiB.toFixed(0)} MiB (V8 heap ${before.heapMiB.toFixed(0)} MiB) before listeners; `
        + `${settings.warmupCommits} + ${settings.commits} commits every ${settings.intervalMs} ms per level`);
      const done: ListenersBenchRow[] = [];
      for (const count of levels) {
        const connectStarted = performance.now();
        const joined = await clients.ask<{ connected: number; cursors: number[]; failed: number; failures: string[] }>({
          cmd: 'connect', url, count: count - (done.at(-1)?.listeners ?? 0), concurrency: settings.connectConcurrency,
        });
        log(`${count} listeners: ${joined.connected} connected (${((performance.now() - connectStarted) / 1000).toFixed(1)} s to add `
          + `them)${joined.failed ? `, ${joined.failed} failed: ${joined.failures.join('; ')}` : ''}`);
        if (joined.cursors.length !== 1) {
          throw new Error(`listeners stand at different cursors before the commits: ${joined.cursors.join(', ')}`);
        }
        await sleep(2_000);
        const idle = await memoryAfterGc(inspectorUrl, pid);
        log(`  idle: gateway RSS ${idle.rssMiB.toFixed(0)} MiB, V8 heap ${idle.heapMiB.toFixed(0)} MiB`);
        const row = await deliver(
          pid, inspectorUrl, clients, publisher, settings, { listeners: joined.connected, cursor: joined.cursors[0]!, before, idle }, log,
        );
        row.listeners = count;
        if (joined.failed) row.problems.unshift(`${joined.failed} listeners failed to connect`);
        row.holds = row.problems.length === 0;
        done.push(row);
        log(formatRow(row));
        for (const problem of row.problems) log(`  ${problem}`);
      }
      return done;
    } finally {
      await clients.stop();
      await publisher.close();
    }
  });
  return { rows, table: formatTable(rows, settings.goalP99Ms) };
}

function formatRow(row: ListenersBenchRow): string {
  const f = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  return `| ${row.listeners} | ${row.complete} / ${row.connected} | ${f(row.p50Ms)} | ${f(row.p99Ms)} | ${f(row.maxMs)} | `
    + `${f(row.ratio, 2)}× | ${f(row.p99FromAtMs)} | ${f(row.rssBeforeMiB)} → ${f(row.rssIdleMiB)} (peak ${f(row.rssPeakMiB)}) | `
      + `${f(row.kibPerListener, 1)} (heap ${f(row.heapKibPerListener, 1)}) | ${f(row.gatewayCpuS, 1)} | ${f(row.clientCpuS, 1)} | `
        + `${row.holds ? 'yes' : 'no'} |`;
}

function formatTable(rows: ListenersBenchRow[], goalP99Ms: number): string {
  return [
    `| listeners | got every frame / connected | p50 ms | p99 ms | max ms | p99 vs ${goalP99Ms} ms goal | p99 from \`at\` ms | gateway `
      + `RSS MiB: before → N idle (peak) | KiB per idle listener (of it V8 heap) | gateway CPU s | client CPU s | holds |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(formatRow),
  ].join('\n');
}

// Run as the listeners' process (`node --import tsx bench/listeners.ts --listener-clients`, forked by the bench).
if (process.argv.includes(CLIENTS_FLAG) && process.send) await runClients();
