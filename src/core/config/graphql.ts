/**
 * Settings of the GraphQL endpoint (/graphql over HTTP and graphql-ws), read by `loadConfig` (src/core/config/index.ts) into
 * `config.graphql`. Every variable has a row in docs/configuration.md. The limits apply to documents
 * clients send; the REST adapter's own operations (schema/operations/*.graphql) are trusted and not checked.
 */
import { envInt as int, envString as str, type Env } from './env.js';

/**
 * `authenticated`: introspection needs a valid credential (GraphiQL users add an Authorization header); `public`:
 * anyone; `off`: nobody.
 */
export type IntrospectionPolicy = 'authenticated' | 'public' | 'off';

export interface GraphQLSettings {
  introspection: IntrospectionPolicy;
  /** Aliased fields in one operation (`__typename` aliases count too). */
  maxAliases: number;
  /** Field nesting depth (introspection's own nesting is not counted). */
  maxDepth: number;
  /** GraphQL Armor's static cost: 2 per object field, 1 per scalar, times 1.5 per level. */
  maxCost: number;
  /** Lexer tokens in a document (a GraphiQL introspection query is about 190). */
  maxTokens: number;
  /** Directives in one operation. */
  maxDirectives: number;
  /**
   * Items an operation may ask for across its paged lists: each list counts its `limit` (or its largest when given by a
   * variable), nested lists multiply.
   */
  maxListItems: number;
  /** Largest message a graphql-ws client may send, in bytes (a bigger one closes the socket with 1009). */
  wsMaxPayload: number;
  /** Operations one graphql-ws connection may have running at once (subscriptions, and queries still answering). */
  wsMaxOperations: number;
  /** Seconds a graphql-ws connection has to send `connection_init` before it is closed (4408). */
  wsInitTimeoutS: number;
}

export function loadGraphQLSettings(env: Env): GraphQLSettings {
  const introspection = (str(env, 'GRAPHQL_INTROSPECTION') ?? 'authenticated') as IntrospectionPolicy;
  if (!['authenticated', 'public', 'off'].includes(introspection)) {
    throw new Error(`GRAPHQL_INTROSPECTION must be authenticated, public or off, got "${introspection}"`);
  }
  return {
    introspection,
    maxAliases: int(env, 'GRAPHQL_MAX_ALIASES', 15),
    maxDepth: int(env, 'GRAPHQL_MAX_DEPTH', 10),
    maxCost: int(env, 'GRAPHQL_MAX_COST', 5000),
    maxTokens: int(env, 'GRAPHQL_MAX_TOKENS', 2000),
    maxDirectives: int(env, 'GRAPHQL_MAX_DIRECTIVES', 20),
    maxListItems: int(env, 'GRAPHQL_MAX_LIST_ITEMS', 2000),
    // As a REST JSON body: a document is at most GRAPHQL_MAX_TOKENS tokens, the rest is variables.
    wsMaxPayload: int(env, 'GRAPHQL_WS_MAX_PAYLOAD', 1024 * 1024),
    wsMaxOperations: int(env, 'GRAPHQL_WS_MAX_OPERATIONS', 50),
    wsInitTimeoutS: int(env, 'GRAPHQL_WS_INIT_TIMEOUT_S', 5),
  };
}
