/** The served `/v1/openapi.json` as tests read it: its shapes, and schemas with `$ref` and `allOf` resolved. */

export type Schema = Record<string, any>;

export interface Operation {
  operationId: string;
  parameters?: Schema[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
  'x-auth-mode': string;
  'x-websocket'?: unknown;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** `schema` with a `$ref` followed into `components.schemas` and an `allOf` merged into one object schema. */
export function resolveSchema(document: OpenApiDocument, schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (typeof schema.$ref === 'string') return resolveSchema(document, document.components.schemas[schema.$ref.split('/').pop()!]);
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part: Schema) => resolveSchema(document, part));
    return {
      type: 'object', properties: Object.assign({}, ...parts.map((part: Schema) => part.properties ?? {})),
      required: parts.flatMap((part: Schema) => part.required ?? []),
    };
  }
  return schema;
}

/**
 * The server frame types a socket operation declares under `x-websocket` in the served document, and those of
 * `received` it does not: a frame the server sends must be in the document (it describes what the server does).
 */
export async function undeclaredFrames(baseUrl: string, operationId: string, received: Array<{ type: string }>): Promise<string[]> {
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, {
    operationId?: string; 'x-websocket'?: { server: Array<{ type: string }> };
  }>> };
  const operation = Object.values(document.paths).flatMap((methods) => Object.values(methods)).find(
    (candidate) => candidate.operationId === operationId,
  );
  const declared = new Set((operation?.['x-websocket']?.server ?? []).map((frame) => frame.type));
  return [...new Set(received.map((frame) => frame.type))].filter((type) => !declared.has(type));
}
