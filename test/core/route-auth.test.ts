/**
 * The route table publishes each route's auth mode and scopes (OpenAPI `x-auth-mode`, `x-auth-scopes`); the GraphQL
 * fields the route runs enforce theirs (`authScopes`), and the router enforces the declared ones for handler routes,
 * which run no field. This keeps the published and the enforced rules from telling different stories.
 */
import { Kind, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../rest/route-table.js';
import { graphqlRoute, withRouteDefaults, type GraphQLRoute, type HandlerRoute } from '../../rest/types.js';
import { resultSchema } from '../../rest/shapes.js';
import { MeDocument } from '../../src/generated/graphql.js';
import { useTestServer } from '../helpers/server.js';
import { schema } from '../../src/graphql-schema.js';

const CREDENTIAL_SCOPES = ['read', 'write', 'recordings:publish', '*'];

function declaredScopes(route: GraphQLRoute): Record<string, unknown>[] {
  const operation = (route.document as { definitions: readonly { kind: string }[] }).definitions
    .find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const root =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  return operation.selectionSet.selections.flatMap((selection) => {
    if (selection.kind !== Kind.FIELD || selection.name.value.startsWith('__')) return [];
    const field = root!.getFields()[selection.name.value]!;
    const scopes = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes;
    return typeof scopes === 'object' && scopes !== null ? [scopes as Record<string, unknown>] : []; // functions decide per call
  });
}

describe('route auth matches field auth', () => {
  const routes = routeTable.filter((route): route is GraphQLRoute => 'document' in route);

  it('covers the GraphQL routes of the table', () => {
    expect(routes.length).toBeGreaterThan(5);
  });

  for (const route of routes) {
    it(`${route.method.toUpperCase()} ${route.path}`, () => {
      const declared = declaredScopes(route);
      expect(declared.length, `the fields ${route.operationId} runs declare no authScopes object to compare with`).toBeGreaterThan(0);
      for (const scopes of declared) {
        const fieldScopes = CREDENTIAL_SCOPES.filter((scope) => scopes[scope] === true);
        const isPublic = scopes.public === true;
        expect(isPublic, `x-auth-mode ${route.auth.mode} vs field public`).toBe(
          route.auth.mode === 'public' || route.auth.mode === 'optional',
        );
        if (!isPublic) expect([...route.auth.scopes].sort(), 'x-auth-scopes vs field scopes').toEqual(fieldScopes.sort());
        if (scopes.user === true) expect(route.auth.mode).toBe('user');
        if (scopes.key === true) expect(route.auth.mode).toBe('key');
      }
    });
  }
});

describe('handler routes: the router enforces the declared auth', () => {
  const server = useTestServer({ workers: [] });
  const protectedHandlers = routeTable.filter(
    (route): route is HandlerRoute => 'handler' in route && route.auth.mode !== 'public' && route.auth.mode !== 'optional',
  );
  const pathOf = (route: HandlerRoute) => route.path.replace(/\{\w+\}/g, 'nothing_here');

  it('there are protected handler routes to check', () => {
    expect(protectedHandlers.length).toBeGreaterThan(0);
  });

  for (const route of protectedHandlers) {
    it(`${route.method.toUpperCase()} ${route.path}: 401 without a credential, 403 without its scopes, before anything else`, async () => {
      const init = {
        method: route.method.toUpperCase(), headers: { 'content-type': 'application/json' },
        body: route.method === 'get' ? undefined : '{}',
      };
      const anonymous = await server.request(pathOf(route), { ...init, auth: null });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ code: 'invalid_token' });
      const other = CREDENTIAL_SCOPES.filter((scope) => scope !== '*' && !(route.auth.scopes as string[]).includes(scope));
      if (route.auth.scopes.length && route.auth.mode !== 'user') {
        const { key } = await server.createKey(other);
        const unscoped = await server.request(pathOf(route), { ...init, auth: key });
        expect(unscoped.status).toBe(403);
        expect(await unscoped.json()).toMatchObject({ code: 'forbidden' });
      }
    });
  }
});

describe('route entry defaults', () => {
  it('a route that does not declare its auth takes the closed default: a credential, `read` to read, `write` otherwise', () => {
    const spec = { path: '/v1/x', operationId: 'x', tags: ['t'], handler: () => {}, response: { status: 200, description: 'x' } };
    const [read, write, socket, declared] = withRouteDefaults([
      { ...spec, method: 'get' }, { ...spec, method: 'delete' },
      { method: 'ws', path: '/v1/y', operationId: 'y', tags: ['t'], frames: { server: [] }, onConnection: () => {} },
      { ...spec, method: 'post', auth: { mode: 'public', scopes: [] } },
    ]);
    expect(read!.auth).toEqual({ mode: 'userOrKey', scopes: ['read'] });
    expect(write!.auth).toEqual({ mode: 'userOrKey', scopes: ['write'] });
    expect(socket!.auth).toEqual({ mode: 'userOrKey', scopes: ['read'] });
    expect(declared!.auth).toEqual({ mode: 'public', scopes: [] });
  });

  it('a GraphQL route without a response schema answers its root field\'s, derived; one with its own result must declare it', () => {
    const spec = { method: 'get' as const, path: '/v1/me', operationId: 'me', tags: ['t'], document: MeDocument };
    const route = graphqlRoute({ ...spec, response: { status: 200, description: 'x' } });
    expect(route.response.schema).toEqual(resultSchema(MeDocument));
    expect(route.auth).toEqual({ mode: 'userOrKey', scopes: ['read'] });
    expect(() => graphqlRoute({ ...spec, response: { status: 200, description: 'x' }, result: () => ({ status: 200 }) }))
      .toThrow('me: a route with its own result declares its schema');
  });
});
