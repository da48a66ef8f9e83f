/**
 * The route table publishes each route's auth mode and scopes (OpenAPI `x-auth-mode`, `x-auth-scopes`); the GraphQL
 * fields the route runs enforce theirs (`authScopes`). This keeps the two from telling different stories.
 */
import { Kind, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../rest/route-table.js';
import type { GraphQLRoute } from '../../rest/types.js';
import { schema } from '../../src/graphql-schema.js';

const CREDENTIAL_SCOPES = ['read', 'write', 'recordings:publish', '*'];

function declaredScopes(route: GraphQLRoute): Record<string, unknown>[] {
  const operation = (route.document as { definitions: readonly { kind: string }[] }).definitions
    .find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
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
        expect(isPublic, `x-auth-mode ${route.auth.mode} vs field public`).toBe(route.auth.mode === 'public' || route.auth.mode === 'optional');
        if (!isPublic) expect([...route.auth.scopes].sort(), 'x-auth-scopes vs field scopes').toEqual(fieldScopes.sort());
        if (scopes.user === true) expect(route.auth.mode).toBe('user');
        if (scopes.key === true) expect(route.auth.mode).toBe('key');
      }
    });
  }
});
