import type { OpenAPIObject } from '@nestjs/swagger';

// The endpoints of the API as its OpenAPI document describes them, with their schemas' $refs
// resolved: what test/fuzz.test.ts generates requests from, so a new endpoint is fuzzed without
// anyone listing it.

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export interface SchemaLike {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  $ref?: string;
  anyOf?: SchemaLike[];
  oneOf?: SchemaLike[];
  allOf?: SchemaLike[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  additionalProperties?: unknown;
  required?: string[];
}
export interface Endpoint {
  method: Method;
  /** OpenAPI path, `/v1/memory/{id}` */
  path: string;
  pathParams: string[];
  queryParams: { name: string; schema: SchemaLike; required: boolean }[];
  body?: SchemaLike;
  isWrite: boolean;
}

export function resolve(doc: OpenAPIObject, schema: SchemaLike | undefined, depth = 0): SchemaLike | undefined {
  if (!schema || depth > 8) return schema;
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return resolve(doc, (doc.components?.schemas as Record<string, SchemaLike> | undefined)?.[name], depth + 1);
  }
  return schema;
}

export function endpointsOf(doc: OpenAPIObject): Endpoint[] {
  const out: Endpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = (item as Record<string, unknown>)[method] as
        | { parameters?: { name: string; in: string; required?: boolean; schema?: SchemaLike }[]; requestBody?: { content?: Record<string, { schema?: SchemaLike }> } }
        | undefined;
      if (!op) continue;
      const params = op.parameters ?? [];
      out.push({
        method,
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolve(doc, p.schema) ?? {}, required: p.required === true })),
        body: resolve(doc, op.requestBody?.content?.['application/json']?.schema),
        isWrite: method !== 'get',
      });
    }
  }
  return out;
}
