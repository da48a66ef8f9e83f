/**
 * What a client sends, checked once where it enters (the REST router and JSON parser, the GraphQL plugin, the
 * multipart reader) — path ids, query values, JSON bodies and their keys, GraphQL variables and literals, multipart
 * options — and refused as `400 invalid_options` naming the field, instead of failing deep inside as a 500:
 * - a NUL character (U+0000) in a string or key: PostgreSQL's `text` cannot hold one;
 * - arrays and objects nested deeper than `MAX_INPUT_DEPTH`: no field of the interface nests more than a few levels,
 *   and anything that walks a value recursively (serialisers, validators, the database driver) could run out of stack.
 * The walk itself keeps its own stack, so no input can exhaust the call stack here.
 */
import { errors } from './errors.js';

/** Levels of arrays and objects a client's value may nest (the body or the variables object is level 1). */
export const MAX_INPUT_DEPTH = 64;

export interface InputProblem {
  kind: 'nul' | 'depth';
  /** The path (`settings.name`, `items[2]`) of the string or key holding a NUL, or of the value nested too deep. */
  at: string;
}

/** The first problem in `value` (strings and keys in document order), or null. `path` names `value` itself. */
export function inputProblem(value: unknown, path: string): InputProblem | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path, depth: 1 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (item.value.includes('\0')) return { kind: 'nul', at: item.path };
      continue;
    }
    if (!item.value || typeof item.value !== 'object') continue;
    if (item.depth > MAX_INPUT_DEPTH) return { kind: 'depth', at: item.path };
    const children: Array<{ value: unknown; path: string; depth: number }> = [];
    if (Array.isArray(item.value)) {
      item.value.forEach((child, i) => children.push({ value: child, path: `${item.path}[${i}]`, depth: item.depth + 1 }));
    } else {
      for (const [key, child] of Object.entries(item.value)) {
        const childPath = item.path ? `${item.path}.${key}` : key;
        if (key.includes('\0')) return { kind: 'nul', at: childPath };
        children.push({ value: child, path: childPath, depth: item.depth + 1 });
      }
    }
    // Reversed onto the stack: the first child is looked at first (the first problem in document order).
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return null;
}

/** The refusal of a problem: its field is the path, or its top-level field for one nested too deep (the path is long). */
export function inputRefusal(problem: InputProblem, whole = 'body') {
  if (problem.kind === 'nul') {
    return errors.invalidOptions(
      `${problem.at || `The ${whole}`} contains a NUL character (\\u0000), which no field accepts.`, { field: problem.at || whole },
    );
  }
  const field = /^[^.[]+/.exec(problem.at)?.[0] ?? whole;
  return errors.invalidOptions(`${field === whole ? `The ${whole}` : field} nests arrays and objects more than ${MAX_INPUT_DEPTH} levels `
    + `deep.`, { field, limit: MAX_INPUT_DEPTH });
}

/** Throws `400 invalid_options` naming the field when `value` holds a NUL character or nests too deep. */
export function refuseBadInput(value: unknown, path = ''): void {
  const problem = inputProblem(value, path);
  if (problem) throw inputRefusal(problem);
}
