/**
 * GraphQL errors carry the spec's code: an ApiError thrown anywhere under a resolver becomes a GraphQL error with
 * `extensions: { code, status, retryable, details, requestId }`; GraphQL's own request errors (syntax, validation,
 * variable coercion) become `invalid_options`; anything unexpected is logged and answered as `internal` without
 * its message. This is yoga's `maskedErrors.maskError` hook.
 */
import { GraphQLError } from 'graphql';
import { ApiError, toApiError } from '../errors.js';
import type { Logger } from '../logger.js';

export function useApiErrorMasking(logger: Logger) {
  return {
    maskError(error: unknown, _message: string, isDev?: boolean): Error {
      void isDev;
      const graphqlError = error instanceof GraphQLError ? error : null;
      const original = graphqlError ? graphqlError.originalError : error;
      let apiError: ApiError;
      if (graphqlError && !original) {
        apiError = new ApiError('invalid_options', 400, graphqlError.message);
      } else if (original instanceof GraphQLError && !original.originalError) {
        apiError = new ApiError('invalid_options', 400, original.message);
      } else {
        apiError = toApiError(original);
        if (apiError.status >= 500) logger.error({ err: original, path: graphqlError?.path }, 'resolver failed');
      }
      return new GraphQLError(apiError.message, {
        nodes: graphqlError?.nodes,
        source: graphqlError?.source,
        positions: graphqlError?.positions,
        path: graphqlError?.path,
        originalError: apiError,
        extensions: { code: apiError.code, status: apiError.status, retryable: apiError.retryable, details: apiError.details },
      });
    },
  };
}
