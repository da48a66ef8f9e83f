/**
 * The prose of the REST operations: `rest/operations/<module>.md` holds, under `## operationId`, an operation's
 * summary (its first paragraph) and description (the paragraphs after it), then optionally `### Errors` (items
 * `- 403 forbidden: text`), `### Parameters` (items `- lang: text`) and a socket's `### Frames` (items
 * `- server session.ready: text`, `- client eof: text`), so route entries keep only what the router and the OpenAPI
 * document need from code: an error named by status and code, a parameter by name and schema, a frame by type. A
 * paragraph's lines, and an item with the indented lines under it, are one line of text (joined with spaces). A text
 * that names a limit from code writes `${NAME}`, and the route entry's `textValues` gives NAME its value.
 * The error, parameter and frame constants several routes share (`notFound`, `realtimeFrames`) keep their texts too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RouteEntry, RouteError, RouteFrame, RouteParameter } from './types.js';

export interface OperationText {
  /** Absent where the route entry builds its own and the heading carries only sections. */
  summary?: string;
  description?: string;
  /** By `<status> <code>`: `403 forbidden`. */
  errors?: Map<string, string>;
  /** By parameter name. */
  parameters?: Map<string, string>;
  /** By `<direction> <type>`: `server session.ready`. */
  frames?: Map<string, string>;
}

const HEADING = /^## ([A-Za-z][A-Za-z0-9]*)$/;
const SECTION = /^### (Errors|Parameters|Frames)$/;
const ERROR_ITEM = /^- (\d{3} [a-z_]+): (.+)$/;
const PARAMETER_ITEM = /^- ([A-Za-z_][A-Za-z0-9_]*): (.+)$/;
const FRAME_ITEM = /^- ((?:server|client) [a-z][a-z0-9._]*): (.+)$/;
const ITEMS = {
  Errors: [ERROR_ITEM, '- 403 forbidden: text'], Parameters: [PARAMETER_ITEM, '- name: text'], Frames: [FRAME_ITEM, '- server type: text'],
} as const;

type Section = keyof typeof ITEMS;

/** The texts of one file, by operationId; a file that repeats an id, an item or a section, or leaves an entry empty is refused. */
export function parseOperationTexts(markdown: string, file: string): Map<string, OperationText> {
  const texts = new Map<string, OperationText>();
  let current: { id: string; paragraphs: string[][]; section?: Section; items: Record<Section, Map<string, string[]>> } | null = null;
  const close = () => {
    if (!current) return;
    const [summary, ...rest] = current.paragraphs.filter((lines) => lines.length).map((lines) => lines.join(' '));
    const sections = current.items.Errors.size + current.items.Parameters.size + current.items.Frames.size;
    if (!summary && !sections) throw new Error(`${file}: ## ${current.id} has no summary`);
    if (texts.has(current.id)) throw new Error(`${file}: ## ${current.id} is there twice`);
    const joined = (items: Map<string, string[]>) => new Map([...items].map(([key, lines]) => [key, lines.join(' ')]));
    texts.set(current.id, {
      ...(summary ? { summary } : {}),
      ...(rest.length ? { description: rest.join('\n\n') } : {}),
      ...(current.items.Errors.size ? { errors: joined(current.items.Errors) } : {}),
      ...(current.items.Parameters.size ? { parameters: joined(current.items.Parameters) } : {}),
      ...(current.items.Frames.size ? { frames: joined(current.items.Frames) } : {}),
    });
  };
  let item: string[] | null = null;
  for (const line of markdown.split('\n')) {
    const heading = HEADING.exec(line);
    const section = SECTION.exec(line);
    if (heading) {
      close();
      current = { id: heading[1]!, paragraphs: [[]], items: { Errors: new Map(), Parameters: new Map(), Frames: new Map() } };
      item = null;
    } else if (current && section) {
      const name = section[1] as Section;
      if (current.section === name || current.items[name].size) throw new Error(`${file}: ## ${current.id} has ### ${name} twice`);
      current.section = name;
      item = null;
    } else if (current?.section) {
      if (line.trim() === '') continue;
      if (item && /^\s/.test(line)) {
        item.push(line.trim());
        continue;
      }
      const [pattern, form] = ITEMS[current.section];
      const match = pattern.exec(line);
      if (!match) throw new Error(`${file}: ## ${current.id} ### ${current.section}: "${line}" is not an item (${form})`);
      const items = current.items[current.section];
      if (items.has(match[1]!)) throw new Error(`${file}: ## ${current.id} names ${match[1]} twice`);
      item = [match[2]!.trim()];
      items.set(match[1]!, item);
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
 * Each text of `texts` (by key) given to the item of `items` with that key and no text of its own. A text whose items
 * all have their own (texts in both places), a text no item takes, a key two text-less items share, and (when
 * `required`) an item left without a text are refused.
 */
function fillTexts<T extends { description?: string }>(
  id: string, what: string, items: T[], keyOf: (item: T) => string, texts: Map<string, string> | undefined,
  fill: (item: T, description: string) => T, required: boolean,
): T[] {
  for (const [key, text] of texts ?? []) {
    const named = items.filter((item) => keyOf(item) === key);
    if (!named.length) throw new Error(`rest/operations: ${id} describes ${what} ${key}, which the route does not have`);
    const bare = named.filter((item) => item.description === undefined);
    if (!bare.length) throw new Error(`${id}: ${what} ${key} has texts both in its route entry and in rest/operations`);
    if (bare.length > 1) throw new Error(`${id}: ${what} ${key} is there twice without a text; write both in the route entry`);
    items = items.map((item) => (item === bare[0] ? fill(item, text) : item));
  }
  const bare = required ? items.find((item) => item.description === undefined) : undefined;
  if (bare) throw new Error(`${id}: ${what} ${keyOf(bare)} has no text (write it in rest/operations/<module>.md)`);
  return items;
}

/** The frame with its text after its type, where route entries write it. */
function describedFrame({ type, ...rest }: RouteFrame, description: string): RouteFrame {
  return { type, description, ...rest };
}

/** The parameter with its text before its schema, where route entries write it, so the document reads the same. */
function describedParameter(parameter: RouteParameter, description: string): RouteParameter {
  const { schema, ...head } = parameter;
  return { ...head, description, schema };
}

/** A socket's frames with their texts, by `<direction> <type>`; every frame must have one. */
function framesWithTexts(id: string, frames: { server: RouteFrame[]; client?: RouteFrame[] }, texts: Map<string, string> | undefined) {
  const fill = (direction: 'server' | 'client', list: RouteFrame[]) => {
    const own = new Map([...(texts ?? [])].filter(([key]) => key.startsWith(`${direction} `)));
    return fillTexts(id, 'frame', list, (frame) => `${direction} ${frame.type}`, own, describedFrame, true);
  };
  const client = fill('client', frames.client ?? []);
  return { ...frames, server: fill('server', frames.server), ...(frames.client ? { client } : {}) };
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The operation's texts with each `${NAME}` replaced by the route's `textValues[NAME]`; a name without a value, and a
 * value no text names, are refused (the number in the prose is always the one the code enforces).
 */
function withValues(id: string, text: OperationText | undefined, values: Record<string, string | number> = {}) {
  if (!text) {
    if (Object.keys(values).length) throw new Error(`${id}: textValues, but no text in rest/operations names them`);
    return text;
  }
  const used = new Set<string>();
  const fill = (value: string) => value.replace(PLACEHOLDER, (_match, name: string) => {
    if (!(name in values)) throw new Error(`rest/operations: ${id} names \${${name}}, which its route's textValues lack`);
    used.add(name);
    return String(values[name]);
  });
  const fillAll = (items: Map<string, string> | undefined) => items && new Map([...items].map(([key, value]) => [key, fill(value)]));
  const filled: OperationText = {
    ...(text.summary !== undefined ? { summary: fill(text.summary) } : {}),
    ...(text.description !== undefined ? { description: fill(text.description) } : {}),
    ...(text.errors ? { errors: fillAll(text.errors) } : {}),
    ...(text.parameters ? { parameters: fillAll(text.parameters) } : {}),
    ...(text.frames ? { frames: fillAll(text.frames) } : {}),
  };
  const unused = Object.keys(values).filter((name) => !used.has(name));
  if (unused.length) throw new Error(`${id}: textValues ${unused.join(', ')} named by no text in rest/operations`);
  return filled;
}

/**
 * The routes with their texts: each route's summary and description from its entry, or else from the operations
 * files, and each error's and parameter's text likewise. A route with a summary in neither place, an error without a
 * text, anything with texts in both, or a text no route (error, parameter) has stops the server at start (and
 * `npm test`), so the document never ships an operation without its prose.
 */
export function withOperationTexts(routes: RouteEntry[], texts = readOperationTexts()): RouteEntry[] {
  const ids = new Set(routes.map((route) => route.operationId));
  for (const id of texts.keys()) if (!ids.has(id)) throw new Error(`rest/operations: ${id} is not the operationId of a route`);
  return routes.map((route) => {
    const text = withValues(route.operationId, texts.get(route.operationId), route.textValues);
    if (text?.summary && (route.summary || route.description)) {
      throw new Error(`${route.operationId}: texts both in its route entry and in rest/operations`);
    }
    if (!text?.summary && !route.summary) throw new Error(`${route.operationId}: no summary (write it in rest/operations/<module>.md)`);
    const errors = fillTexts<RouteError>(route.operationId, 'error', route.errors ?? [], (error) => `${error.status} ${error.code}`,
      text?.errors, (error, description) => ({ ...error, description }), true);
    const parameters = fillTexts(route.operationId, 'parameter', route.parameters ?? [], (parameter) => parameter.name,
      text?.parameters, describedParameter, false);
    if (route.method !== 'ws' && text?.frames) {
      throw new Error(`rest/operations: ${route.operationId} describes frames, but is not a socket`);
    }
    const frames = route.method === 'ws' ? framesWithTexts(route.operationId, route.frames, text?.frames) : undefined;
    return {
      ...route,
      ...(frames ? { frames } : {}),
      ...(text?.summary ? { summary: text.summary, ...(text.description ? { description: text.description } : {}) } : {}),
      ...(route.errors ? { errors } : {}),
      ...(route.parameters ? { parameters } : {}),
    };
  });
}
