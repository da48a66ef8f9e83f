/**
 * /graphql refuses what would cost far more than one request should (aliases, depth, tokens, directives, paged list
 * items) before anything runs, and introspection needs a credential by default (GRAPHQL_INTROSPECTION). The REST
 * adapter's own operations go through the same schema and are never refused by these limits.
 */
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

interface GraphQLAnswer {
  status: number; bytes: number;
  body: { data?: unknown; errors?: { message: string; extensions: { code: string; status: number; details?: Record<string, unknown> } }[] };
}

async function graphql(query: string, auth: string | null | undefined = undefined, on: TestServer = server): Promise<GraphQLAnswer> {
  const response = await on.request('/graphql', {
    method: 'POST', auth, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

/** The refusal: 400 invalid_body naming the limit, no data, a small answer. */
function expectRefused(answer: GraphQLAnswer, limit: string) {
  expect(answer.status).toBe(400);
  expect(answer.body.data ?? null).toBeNull();
  const refusal = answer.body.errors?.find((error) => error.extensions.details?.limit === limit);
  expect(refusal, JSON.stringify(answer.body.errors?.map((error) => error.message))).toBeDefined();
  expect(refusal!.extensions).toMatchObject({ code: 'invalid_body', status: 400, details: { field: 'query', limit } });
  expect(refusal!.message).toContain(limit);
  expect(answer.bytes).toBeLessThan(20_000);
}

const aliases = (count: number, field: string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

describe('query limits', () => {
  it('refuses 1,000 aliases of __schema from no credential, quickly and small', async () => {
    const answer = await graphql(aliases(1000, '__schema { types { name fields { name type { name } } } }'), null);
    expectRefused(answer, 'maxTokens');
    // Under the token limit the alias limit answers (and introspection is never reached).
    expectRefused(await graphql(aliases(100, '__schema { queryType { name } }'), null), 'maxAliases');
  });

  it('refuses four such requests in parallel without holding the server', async () => {
    const query = aliases(1000, '__schema { types { name fields { name } } }');
    const answers = await Promise.all([1, 2, 3, 4].map(() => graphql(query, null)));
    for (const answer of answers) expectRefused(answer, 'maxTokens');
    expect((await server.request('/v1/health', { auth: null })).status).toBe(200);
  });

  it('refuses many aliases of transcriptions(limit: 500) by their cost before running them', async () => {
    expectRefused(await graphql(aliases(5000, 'transcriptions(limit: 500) { items { id name } }')), 'maxTokens');
    expectRefused(await graphql(aliases(10, 'transcriptions(limit: 500) { items { id name } }')), 'maxListItems');
    // A variable counts as the largest page.
    const withVariable = await server.request('/graphql', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `query($n: Int) ${aliases(5, 'transcriptions(limit: $n) { items { id } }')}`, variables: { n: 1 } }),
    });
    expect(withVariable.status).toBe(400);
    // Ordinary pages are fine.
    const ok = await graphql(aliases(3, 'transcriptions(limit: 500) { items { id } }'));
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
  });

  it('refuses deep queries and piles of directives', async () => {
    const deep = `{ ${'a { '.repeat(12)}b${' }'.repeat(12)} }`;
    expectRefused(await graphql(deep), 'maxDepth');
    const directives = aliases(25, '__typename @include(if: true)');
    expectRefused(await graphql(directives), 'maxDirectives');
  });

  it('counts __typename aliases too: 200 are refused, 15 answered', async () => {
    expectRefused(await graphql(aliases(200, '__typename'), null), 'maxAliases');
    const fifteen = await graphql(aliases(15, '__typename'));
    expect(fifteen.status).toBe(200);
    expect(Object.keys(fifteen.body.data as object)).toHaveLength(15);
  });

  it('answers an ordinary query', async () => {
    const answer = await graphql('{ health { status } me { scopes } transcriptions { items { id job { state } shareLink { code } } } }');
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data).toMatchObject({ health: { status: 'ok' }, me: { scopes: ['*'] } });
  });
});

describe('introspection', () => {
  it('needs a credential by default: 401 invalid_token without one, the schema with one', async () => {
    const anonymous = await graphql('{ __schema { queryType { name } } }', null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.data ?? null).toBeNull();
    expect(anonymous.body.errors![0]!.extensions).toMatchObject({ code: 'invalid_token', status: 401 });
    expect((await graphql('{ __type(name: "Query") { name } }', null)).status).toBe(401);
    // __typename is not introspection.
    expect((await graphql('{ __typename }', null)).status).toBe(200);

    // GraphiQL's own introspection query, as GraphiQL sends it, with a key.
    const query = getIntrospectionQuery({
      descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true,
      oneOf: true,
    });
    const answer = await graphql(query);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const types = (answer.body.data as { __schema: { types: { name: string }[] } }).__schema.types.map((type) => type.name);
    expect(types).toContain('Transcription');
  });

  it('GRAPHQL_INTROSPECTION=public opens it; tight limits never refuse the REST adapter\'s operations', async () => {
    const other = await startTestServer({
      workers: [],
      env: {
        GRAPHQL_INTROSPECTION: 'public', GRAPHQL_MAX_ALIASES: '0', GRAPHQL_MAX_DEPTH: '1', GRAPHQL_MAX_TOKENS: '40', GRAPHQL_MAX_COST: '5',
        GRAPHQL_MAX_DIRECTIVES: '0', GRAPHQL_MAX_LIST_ITEMS: '1',
      },
    });
    try {
      const open = await graphql('{ __schema { queryType { name } } }', null, other);
      expect(open.status).toBe(200);
      expect(open.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
      expectRefused(await graphql('{ me { account { id } } }', undefined, other), 'maxDepth');
      // The same limits on REST: its operations are the checked-in documents, run without these checks.
      for (const path of ['/v1/me', '/v1/transcriptions?limit=500', '/v1/languages', '/v1/api-keys', '/v1/health']) {
        const response = await other.request(path);
        expect(response.status, path).toBe(200);
      }
      const created = await other.request('/v1/api-keys', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limits', scopes: ['read'] }),
      });
      expect(created.status).toBe(201);
    } finally {
      await other.close();
    }
  });
});
