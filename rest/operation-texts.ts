/**
 * The prose of the REST operations: `rest/operations/<module>.md` holds, under `## operationId`, an operation's
 * summary (its first paragraph) and description (the paragraphs after it), so route entries keep only what the router
 * and the OpenAPI document need from code. A paragraph's lines are one line of text (joined with spaces). An entry
 * whose summary is built in code (it names a limit) keeps both texts there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RouteEntry } from './types.js';

export interface OperationText {
  summary: string;
  description?: string;
}

const HEADING = /^## ([A-Za-z][A-Za-z0-9]*)$/;

/** The texts of one file, by operationId; a file that repeats an id or leaves an entry empty is refused. */
export function parseOperationTexts(markdown: string, file: string): Map<string, OperationText> {
  const texts = new Map<string, OperationText>();
  let current: { id: string; paragraphs: string[][] } | null = null;
  const close = () => {
    if (!current) return;
    const [summary, ...rest] = current.paragraphs.filter((lines) => lines.length).map((lines) => lines.join(' '));
    if (!summary) throw new Error(`${file}: ## ${current.id} has no summary`);
    if (texts.has(current.id)) throw new Error(`${file}: ## ${current.id} is there twice`);
    texts.set(current.id, rest.length ? { summary, description: rest.join('\n\n') } : { summary });
  };
  for (const line of markdown.split('\n')) {
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      current = { id: heading[1]!, paragraphs: [[]] };
    } else if (current) {
      if (line.trim() === '') current.paragraphs.push([]);
      else current.paragraphs.at(-1)!.push(line.trim());
    }
  }
  close();
  return texts;
}

function readOperationTexts(): Map<string, OperationText> {
  const folder = new URL('./operations/', import.meta.url);
  const all = new Map<string, OperationText>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.md')).sort()) {
    for (const [id, text] of parseOperationTexts(readFileSync(new URL(file, folder), 'utf8'), `rest/operations/${file}`)) {
      if (all.has(id)) throw new Error(`rest/operations/${file}: ${id} is described in another file too`);
      all.set(id, text);
    }
  }
  return all;
}

/**
 * The routes with their texts: each route's summary and description from its entry, or else from the operations
 * files. A route with a summary in neither place, one with texts in both, or a text no route has stops the server
 * at start (and `npm test`), so the document never ships an operation without its prose.
 */
export function withOperationTexts(routes: RouteEntry[], texts = readOperationTexts()): RouteEntry[] {
  const ids = new Set(routes.map((route) => route.operationId));
  for (const id of texts.keys()) if (!ids.has(id)) throw new Error(`rest/operations: ${id} is not the operationId of a route`);
  return routes.map((route) => {
    const text = texts.get(route.operationId);
    if (text && (route.summary || route.description)) {
      throw new Error(`${route.operationId}: texts both in its route entry and in rest/operations`);
    }
    if (!text && !route.summary) throw new Error(`${route.operationId}: no summary (write it in rest/operations/<module>.md)`);
    return text ? { ...route, ...text } : route;
  });
}
