/**
 * Counts GraphQL operations in `speechgate_graphql_operations_total` (src/core/metrics.ts) by operation name, type and
 * outcome: `ok` (no error), `partial` (errors beside data), `error` (errors and no data). Every executed operation
 * counts, whichever door it came through (/graphql, graphql-ws, a REST route running its document); a subscription
 * counts once, when it starts. Documents refused before execution (syntax, validation, query limits) are not
 * operations and are not counted here (their HTTP request is, by status).
 */
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphqlOperations, MAX_OPERATION_NAMES } from '../metrics.js';

export interface MetricsPluginOptions {
  /** Distinct operation names counted under their own name (clients choose names); the rest count as `other`. */
  maxOperationNames?: number;
}

function outcomeOf(result: ExecutionResult): 'ok' | 'partial' | 'error' {
  if (!result.errors?.length) return 'ok';
  return result.data ? 'partial' : 'error';
}

export function useMetrics(options: MetricsPluginOptions = {}): Plugin {
  const maxNames = options.maxOperationNames ?? MAX_OPERATION_NAMES;
  const named = new Set<string>();

  const labelsOf = (document: DocumentNode, operationName: string | null | undefined) => {
    const operation = getOperationAST(document, operationName);
    let name = operation?.name?.value ?? '(anonymous)';
    if (!named.has(name)) {
      if (named.size < maxNames) named.add(name);
      else name = 'other';
    }
    return { operation: name, type: operation?.operation ?? 'unknown' };
  };

  return {
    onExecute({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          // An incremental (@defer/@stream) result is counted by its start, as a subscription is.
          const outcome = Symbol.asyncIterator in result ? 'ok' : outcomeOf(result);
          graphqlOperations.inc({ ...labels, outcome });
        },
      };
    },
    onSubscribe({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      return {
        onSubscribeResult({ result }) {
          graphqlOperations.inc({ ...labels, outcome: Symbol.asyncIterator in result ? 'ok' : outcomeOf(result) });
        },
      };
    },
  };
}
