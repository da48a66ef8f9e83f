/**
 * How MCP tools reach the API: the typed operations of schema/operations/*.graphql, run with the caller's context
 * by the same runner as every REST route (no second implementation), and the shape an MCP tool answers in, success or
 * refusal. A refusal (a missing scope, a 404, a refused link) is a tool result with `isError`, naming the error's
 * `code`, never a protocol error.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toApiError } from '../core/errors.js';

/** Runs a typed operation with the request's context (the REST router's runner): its data, or its first error thrown. */
export type Run = <TData, TVars>(document: TypedDocumentNode<TData, TVars>, variables: TVars) => Promise<TData>;

export const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** A value as pretty JSON text, for the model to read. */
export const jsonResult = (value: unknown): CallToolResult => textResult(JSON.stringify(value, null, 2));

/** A failure as a tool error: `code: message`, with the error's details (the missing `scope`, the `field`). */
export function errorResult(error: unknown): CallToolResult {
  const refusal = toApiError(error);
  const message = refusal.status >= 500 && refusal.code === 'internal' ? 'The server failed; try again.' : refusal.message;
  const details = refusal.details && Object.keys(refusal.details).length ? ` ${JSON.stringify(refusal.details)}` : '';
  return { isError: true, content: [{ type: 'text', text: `${refusal.code} (${refusal.status}): ${message}${details}` }] };
}
