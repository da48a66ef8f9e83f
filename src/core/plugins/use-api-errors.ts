/**
 * GraphQL errors carry the spec's code: an ApiError thrown anywhere under a resolver becomes a GraphQL error with
 * `extensions: { code, status, retryable, details }`; GraphQL's own request errors (bad JSON, wrong method, syntax,
 * validation, variable coercion) become `invalid_options` (or `method_not_allowed`) and keep the HTTP status yoga
 * gives them; anything unexpected is logged and answered as `internal` without its message.
 *
 * `useApiErrorMasking` is yoga's `maskedErrors` option (execution and request errors); `useApiErrorCodes` is the
 * plugin for validation errors, which yoga does not mask.
 */
import { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult } from '@envelop/core';
import type { Plugin } from 'graphql-yoga';
import { ApiError, isExpectedError, toApiError } from '../errors.js';
import type { Logger } from '../logger.js';

type HttpExtension = { status?: number; headers?: Record<string, string> };

/** A request error of GraphQL or yoga itself (no resolver involved) as the spec's error, naming the field it is about. */
function requestError(error: GraphQLError, wrapper?: GraphQLError): ApiError {
  const http = error.extensions?.http as HttpExtension | undefined;
  const status = http?.status && http.status >= 400 ? http.status : 400;
  const field = (wrapper && fieldOf(wrapper)) ?? fieldOf(error);
  return new ApiError(status === 405 ? 'method_not_allowed' : 'invalid_options', status, error.message, {
    headers: http?.headers, details: field ? { field } : {},
  });
}

/**
 * The variable, input field or argument a GraphQL request error is about: graphql-js names it in the message for
 * variables (`Variable "$input" got invalid value … at "input.limit"`) and arguments, and only points at it for a
 * literal (`Int cannot represent non 32-bit signed integer value`): there the name written before the value is it.
 */
function fieldOf(error: GraphQLError): string | null {
  const variable = /^Variable "\$(\w+)" got invalid value .*? at "([^"]+)"/s.exec(error.message) ?? /^Variable "\$(\w+)"/.exec(
    error.message,
  );
  if (variable) return variable[2] ?? variable[1]!;
  const named = /^(?:Argument|Field) "(?:\w+\.)?(\w+)"/.exec(error.message);
  if (named) return named[1]!;
  const at = error.positions?.[0];
  if (error.source && at !== undefined) return /(\w+)\s*:\s*$/.exec(error.source.body.slice(Math.max(0, at - 200), at))?.[1] ?? null;
  return null;
}

function withCode(error: GraphQLError | null, apiError: ApiError, isRequestError = false): GraphQLError {
  const given = error?.extensions?.http as HttpExtension | undefined;
  // A request that never ran answers its status (400, 405...) rather than GraphQL-over-JSON's 200: yoga keeps 200
  // for `application/json` when a status is marked `spec`, and marks unmarked validation errors, hence `spec: false`.
  const http = isRequestError ? { status: apiError.status, spec: false, ...(given?.headers ? { headers: given.headers } : {}) } : given;
  return new GraphQLError(apiError.message, {
    nodes: error?.nodes,
    source: error?.source,
    positions: error?.positions,
    path: error?.path,
    originalError: apiError,
    extensions: {
      code: apiError.code, status: apiError.status, retryable: apiError.retryable, details: apiError.details,
      ...(typeof error?.extensions?.requestId === 'string' ? { requestId: error.extensions.requestId } : {}),
      // yoga answers request errors with this status (and headers such as Allow); execution errors stay 200.
      ...(http ? { http } : {}),
    },
  });
}

/** An ApiError as a request error: the operation never ran, so HTTP answers the error's status (not 200). */
export function asRequestError(apiError: ApiError): GraphQLError {
  return withCode(null, apiError, true);
}

/** A request error that already carries its ApiError (query limits, introspection policy) keeps it. */
function requestErrorOf(error: GraphQLError): ApiError {
  return error.originalError instanceof ApiError ? error.originalError : requestError(error);
}

export function useApiErrorMasking(logger: Logger) {
  return {
    maskError(error: unknown): Error {
      const graphqlError = error instanceof GraphQLError ? error : null;
      const original = graphqlError ? graphqlError.originalError : error;
      if (graphqlError && !original) return withCode(graphqlError, requestError(graphqlError), true);
      if (original instanceof GraphQLError && !original.originalError) {
        return withCode(graphqlError ?? original, requestError(original, graphqlError ?? undefined), true);
      }
      // A request error made by asRequestError (query limits) that yoga marked on its way out: it answers its own status.
      if (original instanceof ApiError && graphqlError?.extensions?.http && !graphqlError.path) {
        return withCode(graphqlError, original, true);
      }
      const apiError = toApiError(original);
      if (!isExpectedError(apiError)) logger.error({ err: original, path: graphqlError?.path }, 'resolver failed');
      return withCode(graphqlError, apiError);
    },
  };
}

export function useApiErrorCodes(): Plugin {
  return {
    onValidate: () => ({ result, setResult }) => {
      if (result.length) setResult(result.map((error) => withCode(error, requestErrorOf(error), true)));
    },
    // The request id rides along (as in the REST envelope) so a client can quote it; masking, which runs after
    // this hook, keeps it.
    onExecute: ({ args }) => {
      const requestId = (args.contextValue as { requestId?: string } | undefined)?.requestId;
      if (!requestId) return undefined;
      return {
        onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (!result.errors?.length) return;
          setResult({
            ...result,
            errors: result.errors.map((error) => new GraphQLError(error.message, {
              nodes: error.nodes, source: error.source, positions: error.positions, path: error.path,
              originalError: error.originalError, extensions: { ...error.extensions, requestId },
            })),
          });
        }),
      };
    },
  };
}
