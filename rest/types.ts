/**
 * The shape of a REST route entry. Each `rest/routes/<resource>.ts` exports an array of these; `rest/route-table.ts`
 * joins them. An entry is the whole truth about its route: the router serves it and `/v1/openapi.json` describes it
 * from the same object, so a route cannot exist without being described.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { Kind, type OperationDefinitionNode } from 'graphql';
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { WebSocket } from 'ws';
import type { Scope } from '../src/core/identity/scopes.js';
import type { Context } from '../src/core/context.js';
import { resultSchema, type JsonSchema } from './shapes.js';

export type { JsonSchema } from './shapes.js';

/**
 * Who may call (published in the `x-auth-mode` vendor extension): `public` no credential; `optional` a credential
 * changes the answer; `user` a signed-in person only; `key` an API key only; `userOrKey` either.
 */
export type AuthMode = 'public' | 'optional' | 'user' | 'key' | 'userOrKey';

export interface RouteAuth {
  mode: AuthMode;
  scopes: Scope[];
}

export interface RestInput {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  headers: Request['headers'];
}

export interface RestAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A parameter; its text, if any, is in `rest/operations/<module>.md` unless the entry (or a shared constant) has it. */
export interface RouteParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

/** An error a route answers; its text is in `rest/operations/<module>.md` unless the entry (or a shared constant) has it. */
export interface RouteError {
  status: number;
  code: string;
  description?: string;
}

/** A request body: its content type (default `application/json`) and schema, plus other content types it may take. */
export interface RouteRequest {
  description?: string;
  schema: JsonSchema;
  contentType?: string;
  /** Whether a body must be sent; default: when `schema` requires a field. */
  required?: boolean;
  /** Further content types of the same operation (e.g. JSON besides multipart), each with its schema. */
  alternatives?: { contentType: string; schema: JsonSchema }[];
}

interface RouteBase {
  /** `/v1/things/{id}`: OpenAPI path syntax; the router turns `{id}` into `:id`. */
  path: string;
  operationId: string;
  /** Short prose; most routes keep theirs in `rest/operations/<module>.md` (rest/operation-texts.ts). */
  summary?: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  /**
   * Values the route's texts in `rest/operations/<module>.md` name as `${NAME}` (a limit from code), so the prose
   * stays there and the number stays the code's.
   */
  textValues?: Record<string, string | number>;
  /**
   * Path and query parameters, described. Query parameters are also enforced from this declaration before the route
   * runs (type, range, length, enum, required, given once: rest/query.ts `checkQuery`), so what is declared is what is
   * accepted.
   */
  parameters?: RouteParameter[];
  /**
   * Error codes this route can answer besides those derived in rest/openapi.ts (auth errors from `auth`, idempotency
   * errors from `idempotent`, body errors from `request`, 404 from path parameters, 429), for the description.
   */
  errors?: RouteError[];
  /**
   * A protocol's own error body this route answers with instead of the envelope (OAuth's at the token endpoint,
   * JSON-RPC's at the MCP endpoint): every error status is then declared as either, since refusals made before the
   * protocol runs (credentials, rate limits, overload) keep the envelope.
   */
  protocolError?: JsonSchema;
}

export interface GraphQLRoute<TData = any, TVars = any> extends RouteBase {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The operation this route runs (a typed document generated from schema/operations/*.graphql). */
  document: TypedDocumentNode<TData, TVars>;
  /**
   * Path/query/body → operation variables. Throw ApiError invalid_options/invalid_body to refuse. A typed input
   * is checked here with the service's own parser first (`ctx` gives the caller and services), so an unknown field
   * or a wrong type is refused naming the field before GraphQL coerces the body.
   */
  variables?: (input: RestInput, ctx: Context) => TVars;
  /** Operation result → REST answer (`graphqlRoute` defaults it to the root field's data with `response.status`). */
  result: (data: TData, input: RestInput) => RestAnswer;
  request?: RouteRequest;
  response: { status: number; description: string; schema?: JsonSchema };
  /** Opt into Idempotency-Key (creates): replay, 422 idempotency_key_reused, 409 conflict while running. */
  idempotent?: boolean;
}

/** Runs a typed operation (a document of src/generated/graphql.ts) and answers its data, or throws its first error. */
export type RunTyped = <TData, TVars>(document: TypedDocumentNode<TData, TVars>, variables: TVars) => Promise<TData>;

/** A route served by a plain handler (documents, metadata, uploads that stream): described all the same. */
export interface HandlerRoute extends RouteBase {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** `run` executes a typed GraphQL operation with this request's context (errors thrown as ApiError). */
  handler: (req: Request, res: Response, ctx: Context, run: RunTyped) => Promise<void> | void;
  request?: RouteRequest;
  response: { status: number; description: string; schema?: JsonSchema; contentType?: string };
  /** Another success answer the handler gives on request (content negotiation: `/audio` with `Accept: application/json`). */
  alternative?: { status: number; description: string; schema?: JsonSchema; contentType?: string };
  idempotent?: boolean;
  /** The handler reads the request body itself (multipart uploads streamed to storage): no JSON parsing first. */
  ownBody?: boolean;
  /** Leave out of /v1/openapi.json (pages and assets served outside the API, like /docs). */
  undocumented?: boolean;
}

/** A socket frame by its `type`; its text is in `rest/operations/<module>.md` unless the entry (or a shared constant) has it. */
export interface RouteFrame {
  type: string;
  description?: string;
  schema?: JsonSchema;
}

/** A REST WebSocket (`WS /v1/...`): the frames go to OpenAPI's `x-websocket`. */
export interface SocketRoute extends RouteBase {
  method: 'ws';
  /** Largest client frame in bytes (default 64 KiB); a larger one closes the socket with 1009. */
  maxPayload?: number;
  frames: { server: RouteFrame[]; client?: RouteFrame[] };
  /**
   * Called after the upgrade with the caller's context (identity already judged; check it yourself if the
   * socket has its own credentials) and the path parameters. Refuse before the upgrade by throwing from
   * `authorize` instead: the refusal is answered as an HTTP error envelope.
   */
  authorize?: (req: IncomingMessage, params: Record<string, string>, ctx: Context) => Promise<void> | void;
  onConnection: (socket: WebSocket, req: IncomingMessage, params: Record<string, string>, ctx: Context) => void | Promise<void>;
}

export type RouteEntry = GraphQLRoute | HandlerRoute | SocketRoute;

/** A route as `rest/routes/<resource>.ts` writes it: `auth` may be left to `routeAuth`'s default. */
export type RouteSpec =
  | (Omit<GraphQLRoute, 'auth'> & { auth?: RouteAuth })
  | (Omit<HandlerRoute, 'auth'> & { auth?: RouteAuth })
  | (Omit<SocketRoute, 'auth'> & { auth?: RouteAuth });

/**
 * Who may call a route that does not say: an API key or a signed-in person with scope `read` to read (`GET`, a
 * socket) and `write` to change anything. The default is the closed one: a public route, a person-only one or a
 * route that reads with `POST` says so in its entry.
 */
export function routeAuth(method: RouteEntry['method']): RouteAuth {
  return { mode: 'userOrKey', scopes: [method === 'get' || method === 'ws' ? 'read' : 'write'] };
}

/** The route table's entries with their defaults filled in (`auth`). */
export function withRouteDefaults(routes: RouteSpec[]): RouteEntry[] {
  return routes.map((route) => ({ ...route, auth: route.auth ?? routeAuth(route.method) }) as RouteEntry);
}

/** A GraphQL route entry as written: `result`, `auth` and the response's schema may be left to their defaults. */
type GraphQLRouteSpec<TData, TVars> = Omit<GraphQLRoute<TData, TVars>, 'result' | 'auth' | 'response'> & {
  result?: GraphQLRoute<TData, TVars>['result'];
  auth?: RouteAuth;
  response: { status: number; description: string; schema?: JsonSchema };
};

/**
 * A GraphQL route entry. Left out, `result` answers what most routes answer: the data of the operation's one root
 * field (as the operation names it) as the body, with `response.status`, and the response's schema is what that field
 * answers (`resultSchema`, from the GraphQL types); `auth` is `routeAuth`'s default.
 */
export function graphqlRoute<TData, TVars>(spec: GraphQLRouteSpec<TData, TVars>): GraphQLRoute<TData, TVars> {
  if (spec.result && !spec.response.schema) throw new Error(`${spec.operationId}: a route with its own result declares its schema`);
  const route = {
    ...spec,
    auth: spec.auth ?? routeAuth(spec.method),
    response: { ...spec.response, schema: spec.response.schema ?? resultSchema(spec.document) },
  };
  if (spec.result) return { ...route, result: spec.result };
  const operation = spec.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const [selection, ...more] = operation?.selectionSet.selections ?? [];
  if (!selection || more.length || selection.kind !== Kind.FIELD) {
    throw new Error(`${spec.operationId}: an operation of several root fields needs its own result`);
  }
  const key = selection.alias?.value ?? selection.name.value;
  return { ...route, result: (data) => ({ status: spec.response.status, body: (data as Record<string, unknown>)[key] }) };
}
