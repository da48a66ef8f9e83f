/**
 * Property-based fuzzing of the REST surface from the served `/v1/openapi.json` (fast-check). For every HTTP
 * operation, requests are generated from its declared parameters and request bodies, mixed with hostile values
 * (NUL and control characters, huge strings, huge/negative/fractional numbers, wrong types, missing required and
 * extra fields, empty and null bodies, odd content types, path ids that do not exist), sent with a valid key
 * (scope `*`), with no credential, or with a bad one (garbage, revoked, expired); every operation gets at least one
 * request with no credential at all. Every answer must:
 *
 * - not be a 5xx (a 503 `unavailable` is allowed, as the spec allows it);
 * - when not 2xx/3xx, be the spec's envelope (`defined`, `code`, `status` = HTTP status, `message`,
 *   `data.retryable`, `data.details`, `requestId` = `X-Request-Id`);
 * - have a status the operation declares in the document (the document describes what the server does), and a JSON
 *   body that is that status's declared schema (Ajv; errors included: the envelope, or a protocol's own error form
 *   where the route declares one);
 * - not be 2xx/3xx on a protected operation (auth mode other than `public`) without a valid credential;
 * - not be 2xx/3xx for a JSON body the document calls invalid (negative data: a wrong type, a value out of range or
 *   enum, a required field missing, an undeclared one).
 *
 * WebSocket operations are not fuzzed over HTTP; a plain GET of each must answer the envelope (404).
 *
 * Each operation first sends a few fixed requests (a NUL byte in each path id, string query parameter and string body
 * field, with the key; one generated request with no credential), then FUZZ_RUNS generated ones (default 20) from seed
 * FUZZ_SEED (default 20240909). The generated runs of the whole file share a wall-clock budget of FUZZ_BUDGET_S
 * seconds (default 60), each operation an equal share of what is left: past its share an operation's remaining runs
 * send nothing, so more runs never make the file run away. A failure prints the request (method, URL, headers, body)
 * and the answer. Run alone: `npx vitest run test/core/fuzz.test.ts`; more runs by hand:
 * `FUZZ_RUNS=300 FUZZ_BUDGET_S=600 npx vitest run test/core/fuzz.test.ts`.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../rest/route-table.js';
import { resolveSchema, type OpenApiDocument, type Operation, type Schema } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = Number(process.env.FUZZ_SEED ?? 20240909);
/** Shrinking re-sends many requests; off unless asked for (FUZZ_SHRINK=1), the first counterexample is printed as is. */
const SHRINK = process.env.FUZZ_SHRINK === '1';
/** Wall-clock budget of all generated runs; the fixed requests are always sent. */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_S ?? 60) * 1000;

interface FuzzRequest {
  method: string;
  path: string;
  query: [string, string][];
  credential: 'valid' | 'none' | 'bad';
  headers: Record<string, string>;
  body?: { contentType?: string; text?: string; form?: [string, string | { bytes: number[]; name: string }][] };
}

let server: TestServer;
let documentJson: OpenApiDocument;
/** Ids that exist (a transcription, its recording, a share link, an API key that is not the test's own). */
let pools: Record<string, string[]>;
/** Bad credentials: garbage, a revoked key, an expired key, another scheme. */
let badTokens: string[];
/** When the budget of generated runs is spent (set once the server is up). */
let deadline: number;

beforeAll(async () => {
  // Billing on (the manual provider): every billing route and every creation point's admission is fuzzed too; the
  // credit and the creation rate are large enough that generated creates are rarely refused for money.
  server = await startTestServer({
    workers: [],
    env: {
      RATE_LIMIT_MAX: '1000000',
      ...billingEnv({
        signupCredit: 100_000, topUp: { presets: [10], range: { min: 5, max: 100_000 } },
        plans: [{
          id: 'payg', name: 'Fuzz', rates: { file: 0.01, live: 0.01, minimumSeconds: 1 },
          limits: { concurrentTranscriptions: 50, createsPerHour: 1_000_000, createsPerHourUnpaid: 1_000_000 },
        }],
      }),
    },
  });
  const response = await server.request('/v1/openapi.json', { auth: null });
  expect(response.status).toBe(200);
  documentJson = await response.json() as typeof documentJson;

  const created = await server.request('/v1/transcriptions', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({
      url: 'https://example.org/fuzz.mp3', name: 'fuzz',
    }),
  });
  expect(created.status).toBe(201);
  const transcription = await created.json() as { id: string; recordingId: string; shareLink: { id: string } };
  const victim = await server.createKey(['read']);
  const revoked = await server.createKey(['*'], { revoked: true });
  const expired = await server.createKey(['*'], { expiresAt: new Date(Date.now() - 60_000) });
  pools = {
    id: [transcription.id, transcription.recordingId, transcription.shareLink.id, victim.id],
    broadcast: [],
  };
  badTokens = [
    'Bearer sg_live_0000000000000000000000000000', 'Bearer not-a-token', 'Basic Zm9vOmJhcg==', `Bearer ${revoked.key}`,
    `Bearer ${expired.key}`, 'Bearer eyJhbGciOiJub25lIn0.e30.',
  ];
  deadline = Date.now() + BUDGET_MS;
});
afterAll(async () => { await server?.close(); });

// ---- hostile values ----

const HUGE = 'x'.repeat(70_000);
const hostileStrings = [
  '', ' ', '\u0000', 'a\u0000b', '\u0001\u0007\u001b[31m\u007f', '\t\r\n', '\ud800', '\u202eevil', '𝕳𝖊𝖑𝖑𝖔 ｗｉｄｅ', '../../../etc/passwd',
  '%00', "' OR 1=1 --", '<script>alert(1)</script>', '${jndi:ldap://x}', HUGE,
];
const hostileNumbers = [-1, -0.5, 0.5, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e-320];
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...hostileStrings),
  fc.constantFrom(...hostileNumbers),
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': null }, [[[[[]]]]], { nested: { deep: [1, 'a', null] } }),
);
/** Query values arrive as strings: numbers that are not integers, out of range, not numbers at all. */
const hostileQuery = fc.constantFrom(
  '', ' ', '\u0000', 'a\u0000b', '\u0001\u001f', 'NaN', 'Infinity', '-1', '-0', '1.5', '1e3', '0x10', '2147483648', '-2147483649',
  '99999999999999999999', ' 1', 'true', 'null', '[]', '%', 'x'.repeat(5_000), 'y'.repeat(20_000),
);
/** Path ids that do not exist (or are odd), next to the ones that do. */
const hostilePathIds = ['does-not-exist', 'tr_00000000000000000000', '\u0000', ' ', 'ü', '%', "'", 'a;b', 'x'.repeat(3_000)];

const deref = (schema: Schema | undefined): Schema => resolveSchema(documentJson, schema);

/** A value of the declared type (within its declared ranges and lengths, kept small), without hostile values. */
function typedArb(raw: Schema, depth: number): fc.Arbitrary<unknown> {
  const schema = deref(raw);
  let arb: fc.Arbitrary<unknown>;
  if (Array.isArray(schema.enum)) arb = fc.constantFrom(...schema.enum);
  else if (schema.type === 'string' && schema.format === 'date-time') {
    arb = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
  } else if (schema.type === 'string') {
    const minLength = schema.minLength ?? 0;
    arb = fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 24, 24)) });
  } else if (schema.type === 'integer') arb = fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
  else if (schema.type === 'number') arb = fc.double({
    min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true,
  });
  else if (schema.type === 'boolean') arb = fc.boolean();
  else if (schema.type === 'array') {
    arb = depth > 3 ? fc.constant([]) : fc.array(valueArb(schema.items ?? {}, depth + 1), {
      minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
    });
  } else if (schema.type === 'object' || schema.properties) arb = objectArb(schema, depth);
  else arb = fc.jsonValue({ maxDepth: 2 });
  return schema.nullable ? fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }) : arb;
}

/** A declared value most of the time, a hostile one sometimes. */
function valueArb(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: typedArb(schema, depth) }, { weight: 1, arbitrary: hostileValue });
}

/** An object of the declared properties (required ones usually present), sometimes with a field it does not declare. */
function objectArb(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (depth > 3) return fc.constant({});
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>(schema.required ?? []);
  const record = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valueArb(property, depth + 1)])),
    { requiredKeys: [] },
  ).chain((value) => fc.constantFrom(...(required.size ? [true, true, true, false] : [true])).map((keepRequired) => {
    const out: Record<string, unknown> = { ...value };
    if (keepRequired) for (const name of required) if (!(name in out)) out[name] = undefined;
    return out;
  }));
  // Required fields missing from the record get a declared value (they stay missing one time in four).
  const filled = record.chain((value) => {
    const missing = Object.keys(value).filter((name) => value[name] === undefined);
    if (!missing.length) return fc.constant(value);
    return fc.tuple(...missing.map((name) => typedArb(properties[name] ?? {}, depth + 1))).map((values) => {
      const out = { ...value };
      missing.forEach((name, i) => { out[name] = values[i]; });
      return out;
    });
  });
  return fc.oneof(
    { weight: 6, arbitrary: filled },
    {
      weight: 1,
      arbitrary: fc.tuple(filled, fc.constantFrom('extraField', '__proto__', 'constructor', ''), hostileValue).map(
        ([value, name, extra]) => ({ ...(value as object), [name]: extra }),
      ),
    },
  );
}

function queryArb(parameter: Schema): fc.Arbitrary<string[]> {
  const schema = deref(parameter.schema);
  const declared = typedArb({ ...schema, nullable: false }, 1).map((value) => [String(value)]);
  return fc.oneof(
    { weight: 5, arbitrary: declared },
    { weight: 2, arbitrary: hostileQuery.map((value) => [value]) },
    { weight: parameter.required ? 1 : 3, arbitrary: fc.constant([] as string[]) },
    { weight: 1, arbitrary: fc.tuple(declared, declared).map(([a, b]) => [...a, ...b]) },
  );
}

function bodyArb(operation: Operation, method: string): fc.Arbitrary<FuzzRequest['body']> {
  const content = operation.requestBody?.content ?? {};
  const choices: fc.WeightedArbitrary<FuzzRequest['body']>[] = [];
  for (const [contentType, { schema }] of Object.entries(content)) {
    if (contentType === 'application/json') {
      choices.push({ weight: 8, arbitrary: valueArb(schema).map((value) => ({ contentType, text: JSON.stringify(value) ?? 'null' })) });
    } else if (contentType === 'multipart/form-data') {
      const properties = (deref(schema).properties ?? {}) as Record<string, Schema>;
      const part = fc.oneof(
        ...Object.entries(properties).map(([name, property]) => (property.format === 'binary'
          ? fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }).map(
            (bytes) => [name, { bytes, name: 'clip.wav' }] as [string, { bytes: number[]; name: string }],
          )
          : valueArb(property).map((value) => [name, JSON.stringify(value) ?? 'null'] as [string, string]))),
        fc.tuple(fc.constantFrom('other', 'file', ''), fc.constantFrom('x', '\u0000', '{}')).map(
          ([name, value]) => [name, value] as [string, string],
        ),
      );
      choices.push({ weight: 6, arbitrary: fc.array(part, { maxLength: 3 }).map((form) => ({ form })) });
    }
  }
  const readsBody = method === 'post' || method === 'put' || method === 'patch';
  if (!readsBody && !choices.length) return fc.constant(undefined);
  choices.push(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: hostileValue.map((value) => ({ contentType: 'application/json', text: JSON.stringify(value) ?? 'null' })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{"a":', '', 'null', '"\\u0000"', '{"name": "\\u0000"}', '\u0000', `[${'['.repeat(5000)}`).map(
        (text) => ({ contentType: 'application/json', text }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string | undefined, string]>(
        ['text/plain', 'hello'], ['application/x-www-form-urlencoded', 'a=b&c=d'], ['application/xml', '<a/>'],
        ['application/json; charset=latin1', '{}'], ['application/json; charset=utf-16', '{}'], ['multipart/form-data', '--x\r\n'],
        ['multipart/form-data; boundary=zzz', '--zzz\r\nContent-Disposition: form-data; name="file"; '
          + 'filename="a.wav"\r\n\r\nabc\r\n--zzz--\r\n'],
        [undefined, '{}'], ['application/json', `{"name": "${'y'.repeat(1_100_000)}"}`],
      ).map(([contentType, text]) => ({ contentType, text })),
    },
  );
  return fc.oneof(...choices);
}

function requestArb(pathTemplate: string, method: string, operation: Operation): fc.Arbitrary<FuzzRequest> {
  const pathNames = [...pathTemplate.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const pathArb = fc.tuple(...pathNames.map(() => fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pools.id) }, { weight: 2, arbitrary: fc.constantFrom(...hostilePathIds) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  )))
    // A path id is never empty (that is another path) nor dots (URLs normalise them away).
    .map((values) => pathNames.reduce(
      (path, name, i) => path.replace(`{${name}}`, encodeURIComponent(values[i]!.replace(/^\.*$/, 'dots'))), pathTemplate,
    ));
  const queryParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  const queryArbs = fc.tuple(...queryParameters.map(queryArb)).map((lists) => lists.flatMap((values, i) => values.map(
    (value) => [queryParameters[i]!.name, value] as [string, string],
  )));
  const idempotencyKey = (operation.parameters ?? []).some((parameter) => parameter.name === 'Idempotency-Key')
    ? fc.oneof(fc.constant(undefined), fc.uuid(), fc.constantFrom('k', 'x'.repeat(300), 'fixed-key-1'))
    : fc.constant(undefined);
  return fc.record({
    path: pathArb, query: queryArbs, credential: fc.constantFrom<FuzzRequest['credential']>('valid', 'none', 'bad'),
    badToken: fc.constantFrom(...badTokens), idempotencyKey, body: bodyArb(operation, method),
  })
    .map(({ path, query, credential, badToken, idempotencyKey: key, body }) => ({
      method: method.toUpperCase(),
      path,
      query,
      credential,
      headers: {
        ...(credential === 'valid' ? {
          authorization: `Bearer ${server.apiKey}`,
        } : credential === 'bad' ? { authorization: badToken } : {}),
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body,
    }));
}

/**
 * Requests every run sends first, whatever the seed: a NUL byte in each path id, in each string query parameter and
 * in each string field of a JSON body, with the valid key (so the request gets past authentication).
 */
function examplesFor(pathTemplate: string, method: string, operation: Operation): FuzzRequest[] {
  const base = (path: string): FuzzRequest => ({
    method: method.toUpperCase(), path, query: [], credential: 'valid', headers: { authorization: `Bearer ${server.apiKey}` },
  });
  const withIds = (nulAt: string | null) => pathTemplate.replace(
    /\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(name === nulAt ? 'a\u0000b' : pools.id[0]!),
  );
  const out: FuzzRequest[] = [];
  for (const [, name] of pathTemplate.matchAll(/\{(\w+)\}/g)) out.push(base(withIds(name!)));
  for (const parameter of operation.parameters ?? []) {
    const schema = deref(parameter.schema);
    if (parameter.in === 'query' && schema.type === 'string' && !schema.enum) {
      out.push({ ...base(withIds(null)), query: [[parameter.name, 'a\u0000b']] });
    }
  }
  const json = operation.requestBody?.content['application/json'];
  if (json) {
    const properties = (deref(json.schema).properties ?? {}) as Record<string, Schema>;
    const strings = Object.entries(properties).filter(
      ([, property]) => deref(property).type === 'string' && !deref(property).enum && !deref(property).format,
    );
    for (const [name] of strings) out.push({
      ...base(withIds(null)), body: { contentType: 'application/json', text: JSON.stringify({ [name]: 'a\u0000b' }) },
    });
  }
  return out;
}

/**
 * A generated request sent with no credential at all: the random pick of credential may never draw `none` for an
 * operation, and "no 2xx on a protected operation without a credential" must be asked of every one.
 */
function withoutCredential(request: FuzzRequest): FuzzRequest {
  const { authorization: _dropped, ...headers } = request.headers;
  return { ...request, credential: 'none', headers };
}

// ---- sending and judging ----

function urlOf(request: FuzzRequest): string {
  const search = new URLSearchParams(request.query).toString();
  return `${server.url}${request.path}${search ? `?${search}` : ''}`;
}

function describeRequest(request: FuzzRequest): string {
  const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  const body = !request.body ? '(no body)'
    : request.body.form ? `multipart parts: `
      + `${clip(JSON.stringify(request.body.form.map(([name, value]) => [
        name, typeof value === 'string' ? value : `<${value.bytes.length} bytes ${value.name}>`,
      ])))}`
      : `${request.body.contentType ?? '(no content-type)'}: ${clip(JSON.stringify(request.body.text))}`;
  return `${request.method} ${clip(urlOf(request))}\n  credential: ${request.credential} ${JSON.stringify(request.headers)}\n  body: `
    + `${body}`;
}

async function send(request: FuzzRequest): Promise<{ status: number; headers: Headers; text: string }> {
  const headers = new Headers(request.headers);
  let body: BodyInit | undefined;
  if (request.body?.form) {
    const form = new FormData();
    for (const [name, value] of request.body.form) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([new Uint8Array(value.bytes)], { type: 'audio/wav' }), value.name);
    }
    body = form;
  } else if (request.body?.text !== undefined) {
    // Bytes, not a string: fetch adds no Content-Type of its own, so "no content type" is sent as such.
    body = new TextEncoder().encode(request.body.text);
    if (request.body.contentType) headers.set('content-type', request.body.contentType);
  }
  const response = await fetch(urlOf(request), {
    method: request.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, headers: response.headers, text: Buffer.from(await response.arrayBuffer()).toString('utf8') };
}

/**
 * Error bodies a protocol defines: OAuth's `{error, error_description}` at the token endpoint (429 and 503 keep the
 * envelope), JSON-RPC's `{jsonrpc, error: {code, message}}` at the MCP endpoint.
 */
const PROTOCOL_ERRORS: Record<string, (body: Record<string, any>, status: number) => boolean> = {
  '/v1/connect/token': (body, status) =>
    status !== 429 && status !== 503 && typeof body.error === 'string' && typeof body.error_description === 'string',
  '/v1/mcp': (body) => body.jsonrpc === '2.0' && typeof body.error?.code === 'number' && typeof body.error?.message === 'string',
};

const validators = new Map<string, ValidateFunction | null>();
let ajv: Ajv | null = null;
/** A schema of the served document compiled with Ajv; its references point into the document's own components. */
function compileDeclared(schema: Schema): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(ajv);
    ajv.addSchema({ components: documentJson.components }, 'openapi');
  }
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
}
/**
 * The declared body schema of an answer (JSON content of its status), compiled once per operation and status; null
 * when the status declares no JSON body (a redirect, audio, a file).
 */
function declaredBody(operation: Operation, status: number): ValidateFunction | null {
  const key = `${operation.operationId} ${status}`;
  if (validators.has(key)) return validators.get(key)!;
  const declared = (operation.responses[String(status)] as {
    content?: Record<string, { schema?: Schema }>;
  } | undefined)?.content?.['application/json']?.schema;
  const validate = declared ? compileDeclared(declared) : null;
  validators.set(key, validate);
  return validate;
}

/**
 * Whether a JSON request body is one the document says is invalid (negative data: a wrong type, a value out of its
 * range or enum, a missing required or an undeclared field); null when it cannot tell (not a JSON body, no schema).
 */
const bodyValidators = new Map<string, ValidateFunction>();
function refusedByDocument(request: FuzzRequest, operation: Operation): string | null {
  const declared = operation.requestBody?.content['application/json']?.schema;
  if (!declared || request.body?.contentType !== 'application/json' || request.body.text === undefined) return null;
  let body: unknown;
  try {
    body = JSON.parse(request.body.text);
  } catch {
    return 'not JSON';
  }
  if (!bodyValidators.has(operation.operationId)) bodyValidators.set(operation.operationId, compileDeclared(declared));
  const validate = bodyValidators.get(operation.operationId)!;
  return validate(body) ? null : (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
}

/** The problems with one answer (empty: it is fine). */
function judge(request: FuzzRequest, operation: Operation, answer: { status: number; headers: Headers; text: string }): string[] {
  const problems: string[] = [];
  const { status } = answer;
  let envelope: Record<string, any> | null = null;
  if (status >= 400) {
    try {
      envelope = JSON.parse(answer.text);
    } catch {
      problems.push(`a ${status} that is not JSON`);
    }
  }
  if (status >= 500 && !(status === 503 && envelope?.code === 'unavailable')) {
    problems.push(`a ${status}${envelope?.code ? ` ${envelope.code}` : ''}`);
  }
  // Two routes answer in their protocol's error form instead of the envelope (README "Connect", "MCP").
  if (envelope && PROTOCOL_ERRORS[request.path]?.(envelope, status)) envelope = null;
  if (envelope) {
    const requestId = answer.headers.get('x-request-id');
    if (envelope.defined !== true) problems.push('envelope: `defined` is not true');
    if (typeof envelope.code !== 'string' || !envelope.code) problems.push('envelope: no `code`');
    if (envelope.status !== status) problems.push(`envelope: \`status\` ${envelope.status} is not the HTTP status ${status}`);
    if (typeof envelope.message !== 'string') problems.push('envelope: no `message`');
    if (typeof envelope.data?.retryable !== 'boolean') problems.push('envelope: no `data.retryable`');
    if (typeof envelope.data?.details !== 'object' || envelope.data.details === null) problems.push('envelope: no `data.details`');
    if (!requestId || envelope.requestId !== requestId) {
      problems.push(`envelope: \`requestId\` ${envelope.requestId} is not X-Request-Id ${requestId}`);
    }
    if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) {
      problems.push(`envelope served as ${answer.headers.get('content-type')}`);
    }
  }
  if (!(String(status) in operation.responses)) problems.push(`status ${status} is not declared (declared: `
    + `${Object.keys(operation.responses).join(', ')})`);
  else if (/^application\/json/.test(answer.headers.get('content-type') ?? '')) {
    // The body is what the document says this status carries.
    const validate = declaredBody(operation, status);
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push(`a ${status} served as JSON that is not JSON`);
    }
    if (validate && body !== undefined && !validate(body)) {
      problems.push(`the ${status} body is not its declared schema: `
        + `${(validate.errors ?? []).slice(0, 4).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ')}`);
    }
  }
  if (operation['x-auth-mode'] !== 'public' && request.credential !== 'valid' && status < 400) {
    problems.push(`a ${status} on a protected operation without a valid credential`);
  }
  // Negative data: a body the document calls invalid is refused, not taken.
  const invalid = status < 400 ? refusedByDocument(request, operation) : null;
  if (invalid !== null) problems.push(`a ${status} for a body the document calls invalid (${invalid})`);
  return problems;
}

const httpRoutes = routeTable.filter((route) => route.method !== 'ws' && !('undocumented' in route && route.undocumented));
const socketRoutes = routeTable.filter((route) => route.method === 'ws');

describe('fuzzing the REST surface from /v1/openapi.json', () => {
  it('covers every documented HTTP operation', () => {
    const documented = Object.entries(documentJson.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    const sockets = new Set(socketRoutes.map((route) => `get ${route.path}`));
    expect(documented.filter((name) => !sockets.has(name)).sort()).toEqual(
      httpRoutes.map((route) => `${route.method} ${route.path}`).sort(),
    );
  });

  /** Sends one request and throws the problems with its answer, the request and the answer printed. */
  async function expectFine(request: FuzzRequest, operation: Operation): Promise<void> {
    let answer: Awaited<ReturnType<typeof send>>;
    try {
      answer = await send(request);
    } catch (error) {
      throw new Error(`no answer (${(error as Error).message})\n${describeRequest(request)}`);
    }
    const problems = judge(request, operation, answer);
    if (problems.length) {
      throw new Error(`${problems.join('; ')}\n${describeRequest(request)}\n  answer: ${answer.status} ${answer.text.slice(0, 400)}`);
    }
  }

  let operationsLeft = httpRoutes.length;
  it.each(httpRoutes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route.method, route.path] as const))('%s', async (
    _name, method, path,
  ) => {
    const operation = documentJson.paths[path]![method]!;
    const stopAt = Date.now() + Math.max(0, deadline - Date.now()) / operationsLeft;
    operationsLeft -= 1;
    const requests = requestArb(path, method, operation);
    const [generated] = fc.sample(requests, { seed: SEED, numRuns: 1 });
    for (const request of [...examplesFor(path, method, operation), withoutCredential(generated!)]) await expectFine(request, operation);
    let failed = false;
    const property = fc.asyncProperty(requests, async (request) => {
      // Past this operation's share of the budget the remaining runs send nothing (unless a failure is being shrunk).
      // Not fast-check's interruptAfterTimeLimit: it fails a property whose first run outlasts the share, and drops
      // the outcome of the run in flight.
      if (!failed && Date.now() >= stopAt) return;
      try {
        await expectFine(request, operation);
      } catch (error) {
        failed = true;
        throw error;
      }
    });
    await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: !SHRINK });
  });

  it.each(socketRoutes.map((route) => [route.path] as const))('a plain GET of the socket %s answers the envelope', async (path) => {
    const operation = documentJson.paths[path]!.get!;
    const concrete = path.replace(/\{\w+\}/g, (_m) => pools.id[0]!);
    for (const credential of ['valid', 'none'] as const) {
      const request: FuzzRequest = {
        method: 'GET', path: concrete, query: [], credential,
        headers: credential === 'valid' ? { authorization: `Bearer ${server.apiKey}` } : {},
      };
      const answer = await send(request);
      expect(answer.status, describeRequest(request)).toBe(404);
      expect(judge(request, operation, answer), describeRequest(request)).toEqual([]);
    }
  });
});
