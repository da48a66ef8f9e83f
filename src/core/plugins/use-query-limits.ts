/**
 * Limits on the documents clients send to /graphql (HTTP and graphql-ws), so one request cannot cost what
 * thousands would: GraphQL Armor's envelop plugins (aliases, depth, static cost, tokens, directives), a budget of
 * list items (a paged list counts its `limit`, nested lists multiply), and the introspection policy
 * (`GRAPHQL_INTROSPECTION`: by default introspection needs a credential, so GraphiQL works for anyone holding a
 * key and the schema is not handed to anonymous callers).
 *
 * A refusal is the spec's `400 invalid_body` before anything runs (`details.limit` names the limit, `details.max`
 * its value); introspection without a credential is `401 invalid_token`, with `GRAPHQL_INTROSPECTION=off` `403
 * forbidden`. The REST adapter's operations (`runOperation`) are neither parsed nor validated here: they are the
 * checked-in documents of schema/operations, so no limit can refuse them.
 */
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import {
  GraphQLError, Kind, getNamedType, isListType, getNullableType, isObjectType, isInterfaceType,
  type ASTVisitor, type DocumentNode, type GraphQLField, type GraphQLObjectType,
  type GraphQLInterfaceType, type OperationDefinitionNode, type SelectionSetNode, type ValidationContext, visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ApiError, errors } from '../errors.js';
import type { GraphQLSettings } from '../config/graphql.js';
import type { Context } from '../context.js';
import { asRequestError } from './use-api-errors.js';

type LimitName = 'maxAliases' | 'maxDepth' | 'maxCost' | 'maxTokens' | 'maxDirectives' | 'maxListItems';

/** The refusal: a request error (never runs, answers 400) carrying the spec's code. */
function limitError(limit: LimitName, max: number, armorMessage: string): GraphQLError {
  const message = `${armorMessage.replace(/^Syntax Error: /, '')} (${limit}; this server allows ${max}.)`;
  return asRequestError(new ApiError('invalid_body', 400, message, { details: { field: 'query', limit, max } }));
}

/** A list without a literal `limit` counts as the largest page (a variable could ask for it). */
const LARGEST_PAGE = 500;

function listItems(
  context: ValidationContext, selectionSet: SelectionSetNode, parent: GraphQLObjectType | GraphQLInterfaceType, seen: Set<string>,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      const field = parent.getFields()[selection.name.value] as GraphQLField<unknown, unknown> | undefined;
      if (!field) continue; // an unknown field: validation reports it
      const named = getNamedType(field.type);
      const children = selection.selectionSet && (isObjectType(named) || isInterfaceType(named))
        ? listItems(context, selection.selectionSet, named, seen)
        : 0;
      const limitArg = field.args.find((arg) => arg.name === 'limit');
      if (limitArg) {
        const given = selection.arguments?.find((arg) => arg.name.value === 'limit')?.value;
        const pageSize = given?.kind === Kind.INT ? Number(given.value)
          : given ? LARGEST_PAGE
          : typeof limitArg.defaultValue === 'number' ? limitArg.defaultValue : LARGEST_PAGE;
        total += Math.max(1, pageSize) * (1 + children);
      } else if (isListType(getNullableType(field.type)) && children > 0) {
        total += children; // an unpaged list of paged lists: at least one of each
      } else total += children;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? context.getSchema().getType(selection.typeCondition.name.value) : parent;
      if (on && (isObjectType(on) || isInterfaceType(on))) total += listItems(context, selection.selectionSet, on, seen);
    } else {
      const name = selection.name.value;
      if (seen.has(name)) continue; // a cycle is reported by validation itself
      const fragment = context.getFragment(name);
      const on = fragment && context.getSchema().getType(fragment.typeCondition.name.value);
      if (fragment && on && (isObjectType(on) || isInterfaceType(on))) {
        total += listItems(context, fragment.selectionSet, on, new Set([...seen, name]));
      }
    }
  }
  return total;
}

function maxListItemsRule(max: number) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation: OperationDefinitionNode) {
      const root = context.getSchema().getRootType(operation.operation);
      if (!root) return;
      const items = listItems(context, operation.selectionSet, root, new Set());
      if (items > max) {
        context.reportError(limitError('maxListItems', max, `List items limit of ${max} exceeded, asked for up to ${items}.`));
      }
    },
  });
}

/** Whether the document reads the schema (`__schema`, `__type`); `__typename` is not introspection. */
export function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return false;
      }
      return undefined;
    },
  });
  return found;
}

export function useQueryLimits(settings: GraphQLSettings): Plugin[] {
  const report = (limit: LimitName, max: number) => ({
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null, error: GraphQLError) => {
      // Validation rules report into the result; the token counter runs inside the parser (no context): stop it there.
      if (context) context.reportError(limitError(limit, max, error.message));
      else throw limitError(limit, max, error.message);
    }],
  });
  const armor = new EnvelopArmor({
    // Every alias counts, `__typename`'s too (Armor lets those through by default: a thousand of them is still a
    // thousand answers to write).
    maxAliases: { n: settings.maxAliases, allowList: [], ...report('maxAliases', settings.maxAliases) },
    maxDepth: { n: settings.maxDepth, ignoreIntrospection: true, ...report('maxDepth', settings.maxDepth) },
    costLimit: { maxCost: settings.maxCost, ignoreIntrospection: true, ...report('maxCost', settings.maxCost) },
    maxTokens: { n: settings.maxTokens, ...report('maxTokens', settings.maxTokens) },
    maxDirectives: { n: settings.maxDirectives, ...report('maxDirectives', settings.maxDirectives) },
    // Suggestions ("Did you mean …?") would hand out the field names that gated introspection keeps back.
    blockFieldSuggestion: { enabled: settings.introspection !== 'public' },
  });
  const listRule = maxListItemsRule(settings.maxListItems);
  const limits: Plugin = {
    onValidate: ({ addValidationRule }) => addValidationRule(listRule),
  };
  const introspection: Plugin = {
    onExecute: ({ args, setResultAndStopExecution }) => {
      if (settings.introspection === 'public' || !usesIntrospection(args.document)) return;
      const ctx = args.contextValue as unknown as Context;
      let refusal: ApiError | null = null;
      if (settings.introspection === 'off') refusal = errors.forbidden(
        'Introspection is off on this server (GRAPHQL_INTROSPECTION=off).', { field: 'query' },
      );
      else if (ctx.credentialError) refusal = ctx.credentialError;
      else if (!ctx.identity) refusal = errors.invalidToken('Introspection needs a credential: send "Authorization: Bearer <API key or '
        + 'token>" (in GraphiQL, the Headers tab).');
      if (refusal) setResultAndStopExecution({ errors: [asRequestError(refusal)] });
    },
  };
  return [...(armor.protect().plugins as Plugin[]), limits, introspection];
}

