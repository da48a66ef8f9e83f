/**
 * GraphQL's edge for src/core/text-input.ts: an operation whose variables or argument literals hold a NUL character,
 * or nest too deep, is answered with `invalid_options` naming the variable or argument, before any resolver runs.
 * (A literal is bounded by the token limit too: the parser stops long before it could nest that deep.)
 */
import { Kind, valueFromASTUntyped, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { inputProblem, inputRefusal, type InputProblem } from '../text-input.js';
import { asRequestError } from './use-api-errors.js';

function refusal(document: DocumentNode, variables: Record<string, unknown> | null | undefined) {
  let problem: InputProblem | null = variables ? inputProblem(variables, '') : null;
  if (problem === null) {
    visit(document, {
      Argument(node) {
        if (problem !== null || node.value.kind === Kind.VARIABLE) return;
        problem = inputProblem(valueFromASTUntyped(node.value), node.name.value);
      },
    });
  }
  return problem === null ? null : asRequestError(inputRefusal(problem, 'variables'));
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
