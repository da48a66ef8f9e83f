/**
 * GET /metrics as Prometheus scrapes it: the text parsed strictly (test/helpers/prometheus.ts), the families there
 * with their labels, and the counters moved by real requests — REST, GraphQL, a queued file job, a realtime
 * session. Who may scrape: a token when METRICS_TOKEN is set (401 envelope otherwise), loopback only by default,
 * nothing with METRICS=off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeConnection } from '../helpers/realtime-client.js';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus, json, upload } from '../helpers/http.js';
import { createStreamUrl, fileChunks, GO_FORWARD } from '../helpers/realtime.js';
import { familiesOf, sampleValue, type MetricFamily } from '../helpers/prometheus.js';
import { loadMetricsSettings } from '../../src/core/config/metrics.js';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';

// No background workers: an uploaded file's job stays queued, as it does behind busy workers.
const server = useTestServer({ workers: [] });

const scrape = async (target: TestServer, headers: Record<string, string> = {}): Promise<Map<string, MetricFamily>> =>
  familiesOf(await target.request('/metrics', { auth: null, headers }));

describe('GET /metrics', () => {
  it('exposes every family with its help and type, Node process metrics included', async () => {
    const families = await scrape(server);
    const expected: Record<string, MetricFamily['type']> = {
      speechgate_http_request_duration_seconds: 'histogram',
      speechgate_graphql_operations_total: 'counter',
      speechgate_jobs: 'gauge',
      speechgate_queue_jobs: 'gauge',
      speechgate_live_recordings: 'gauge',
      speechgate_engine_slots_busy: 'gauge',
      speechgate_engine_slots: 'gauge',
      speechgate_engine_slots_waiting: 'gauge',
      speechgate_realtime_sessions_open: 'gauge',
      speechgate_listeners_connected: 'gauge',
      speechgate_commit_latency_seconds: 'histogram',
      speechgate_realtime_factor: 'histogram',
      speechgate_ledger_errors_total: 'counter',
      speechgate_engine_provider: 'gauge',
      process_cpu_user_seconds_total: 'counter',
      nodejs_eventloop_lag_seconds: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) {
      expect(families.get(name)?.type, name).toBe(type);
      expect(families.get(name)?.help, name).not.toBe('');
    }
    // Every state is a series, zero or not, so a dashboard's query never comes back empty.
    expect(families.get('speechgate_jobs')!.samples.map((sample) => sample.labels.state).sort()).toEqual([
      'cropping', 'fetching', 'queued', 'transcribing',
    ]);
    expect(families.get('speechgate_live_recordings')!.samples.map((sample) => sample.labels.state).sort()).toEqual([
      'ended', 'live', 'paused',
    ]);
    expect(sampleValue(families, 'speechgate_engine_slots')).toBeGreaterThan(0);
    expect(sampleValue(families, 'speechgate_engine_slots_busy')).toBe(0);
    // This gateway runs no workers: no queue of its own is counted (worker processes count theirs).
    expect(families.get('speechgate_queue_jobs')!.samples).toEqual([]);
  });

  it('times REST requests by route template and status, never by the raw URL', async () => {
    const before = await scrape(server);
    const labels = { method: 'GET', route: '/v1/recordings/{id}', status: '404' };
    const id = 'rec_metricsprobe0000000000';
    for (let i = 0; i < 3; i += 1) await expectStatus(await server.request(`/v1/recordings/${id}`), 404, 'not_found');
    await expectStatus(await server.request(`/v1/no-such-thing/${id}`), 404, 'not_found');
    const after = await scrape(server);
    expect(
      sampleValue(after, 'speechgate_http_request_duration_seconds_count', labels) - sampleValue(
        before, 'speechgate_http_request_duration_seconds_count', labels,
      ),
    ).toBe(3);
    expect(sampleValue(after, 'speechgate_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(sampleValue(
      after, 'speechgate_http_request_duration_seconds_count', labels,
    ));
    expect(
      sampleValue(after, 'speechgate_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    const routes = new Set(after.get('speechgate_http_request_duration_seconds')!.samples.map((sample) => sample.labels.route));
    for (const route of routes) expect(route).not.toContain(id);
    // The earlier scrapes are themselves timed, under their own route.
    expect(routes).toContain('/metrics');
  });

  it('counts GraphQL operations by name and outcome, those REST routes run included', async () => {
    const before = await scrape(server);
    const ok = { operation: 'MetricsProbe', type: 'query', outcome: 'ok' };
    const failed = { operation: 'MetricsDenied', type: 'query', outcome: 'error' };
    const health = { operation: 'Health', type: 'query', outcome: 'ok' };
    for (let i = 0; i < 2; i += 1) expect(
      (await json(await server.graphql('query MetricsProbe { health { status } }'))).data.health.status,
    ).toBe('ok');
    const denied = await json(await server.graphql('query MetricsDenied { me { scopes } }', {}, { auth: null }));
    expect(denied.errors?.length).toBeGreaterThan(0);
    expect((await server.request('/v1/health', { auth: null })).status).toBe(200);
    const after = await scrape(server);
    const moved = (labels: Record<string, string>) => sampleValue(after, 'speechgate_graphql_operations_total', labels) - sampleValue(
      before, 'speechgate_graphql_operations_total', labels,
    );
    expect(moved(ok)).toBe(2);
    expect(moved(failed)).toBe(1);
    expect(moved(health)).toBe(1);
    expect(
      sampleValue(after, 'speechgate_http_request_duration_seconds_count', { method: 'POST', route: '/graphql', status: '200' }),
    ).toBeGreaterThanOrEqual(3);
  });

  it('reads the queue depth from the jobs table when scraped', async () => {
    const before = sampleValue(await scrape(server), 'speechgate_jobs', { state: 'queued' });
    await expectStatus(await upload(server), 201);
    const after = await scrape(server);
    expect(sampleValue(after, 'speechgate_jobs', { state: 'queued' })).toBe(before + 1);
    expect(sampleValue(after, 'speechgate_http_request_duration_seconds_count', {
      method: 'POST', route: '/v1/transcriptions', status: '201',
    })).toBe(1);
  });

  it('counts the realtime session\'s slot and socket while it runs, then its commits\' latency and its real-time factor', async () => {
    const before = await scrape(server);
    const connection = new RealtimeConnection(await createStreamUrl(server, { spokenLanguage: 'en' }));
    await connection.ready();
    const running = await scrape(server);
    expect(sampleValue(running, 'speechgate_engine_slots_busy')).toBe(1);
    expect(sampleValue(running, 'speechgate_realtime_sessions_open')).toBe(1);
    for (const chunk of await fileChunks(GO_FORWARD)) connection.sendPcm(chunk);
    connection.eof();
    const result = await connection.closed;
    expect(result.done?.stats.realtimeFactor).toBeGreaterThan(0);
    expect(result.commits.length).toBeGreaterThan(0);
    const after = await scrape(server);
    const moved = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('speechgate_commit_latency_seconds_count', { session: 'realtime' })).toBe(result.commits.length);
    expect(moved('speechgate_realtime_factor_count', { kind: 'realtime' })).toBe(1);
    expect(moved('speechgate_realtime_factor_sum', { kind: 'realtime' })).toBeCloseTo(result.done!.stats.realtimeFactor, 2);
    // The engine that ran it says which execution provider it asked for and which it runs on.
    expect(sampleValue(after, 'speechgate_engine_provider', { use: 'realtime', requested: 'cpu', provider: 'cpu' })).toBe(1);
    await eventually(async () => {
      const idle = await scrape(server);
      expect(sampleValue(idle, 'speechgate_engine_slots_busy')).toBe(0);
      expect(sampleValue(idle, 'speechgate_realtime_sessions_open')).toBe(0);
    });
  });

  it('refuses a peer that is not this machine unless opened (a proxy on loopback forwards the client\'s address)', async () => {
    const response = await server.request('/metrics', { auth: null, headers: { 'x-forwarded-for': '203.0.113.7' } });
    await expectStatus(response, 403, 'forbidden');
  });
});

describe('GET /metrics behind configuration', () => {
  let withToken: TestServer;
  let off: TestServer;
  const token = 'metrics-token-for-tests-0123456789';
  beforeAll(async () => {
    [withToken, off] = await Promise.all([
      startTestServer({ workers: [], env: { METRICS_TOKEN: token } }),
      startTestServer({ workers: [], env: { METRICS: 'off' } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([withToken?.close(), off?.close()]);
  });

  it('needs the bearer token when METRICS_TOKEN is set, from this machine too', async () => {
    const missing = await expectStatus(await withToken.request('/metrics', { auth: null }), 401, 'invalid_token');
    expect(missing).toMatchObject({ defined: true, status: 401, data: { retryable: false } });
    expect(missing.requestId).toMatch(/^req_/);
    await expectStatus(await withToken.request('/metrics', { auth: `${token}x` }), 401, 'invalid_token');
    // An API key is not the metrics token.
    await expectStatus(await withToken.request('/metrics'), 401, 'invalid_token');
    const families = await scrape(withToken, { authorization: `Bearer ${token}` });
    expect(families.get('speechgate_jobs')?.type).toBe('gauge');
    // With the token, a forwarded (remote) client is let in: the token is what protects it.
    expect((await withToken.request('/metrics', { auth: token, headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200);
  });

  it('is not served with METRICS=off', async () => {
    await expectStatus(await off.request('/metrics', { auth: null }), 404, 'not_found');
  });
});

describe('metrics settings', () => {
  it('reads METRICS, METRICS_TOKEN and the worker\'s METRICS_PORT, refusing what is not one of them', () => {
    expect(loadMetricsSettings({})).toEqual({ access: 'local', token: null, workerPort: null });
    expect(loadMetricsSettings({ METRICS: 'OPEN', METRICS_TOKEN: 't0ken', METRICS_PORT: '9464' })).toEqual({
      access: 'open', token: 't0ken', workerPort: 9464,
    });
    expect(loadMetricsSettings({ METRICS_PORT: '0' }).workerPort).toBe(0);
    expect(loadMetricsSettings({ METRICS_PORT: 'off' }).workerPort).toBeNull();
    for (const port of ['-1', '65536', '9100.5', 'metrics']) expect(() => loadMetricsSettings({ METRICS_PORT: port }), port).toThrow(
      /METRICS_PORT/,
    );
    expect(() => loadMetricsSettings({ METRICS: 'public' })).toThrow(/METRICS must be/);
  });
});
