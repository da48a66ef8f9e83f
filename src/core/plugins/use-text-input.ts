/**
 * GraphQL's edge for src/core/text-input.ts: an operation whose variables or argument literals hold a NUL character
 * is answered with `invalid_options` naming the variable or argument, before any resolver runs.
 */
import { Kind, valueFromASTUntyped, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { errors } from '../errors.js';
import { nulCharacterAt } from '../text-input.js';
import { asRequestError } from './use-api-errors.js';

function refusal(document: DocumentNode, variables: Record<string, unknown> | null | undefined) {
  let at = variables ? nulCharacterAt(variables, '') : null;
  if (at === null) {
    visit(document, {
      Argument(node) {
        if (at !== null || node.value.kind === Kind.VARIABLE) return;
        at = nulCharacterAt(valueFromASTUntyped(node.value), node.name.value);
      },
    });
  }
  if (at === null) return null;
  return asRequestError(errors.invalidOptions(`${at} contains a NUL character (\\u0000), which no field accepts.`, { field: at }));
}

export function useTextInput(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = refusal(args.document, args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = refusal(args.document, args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
