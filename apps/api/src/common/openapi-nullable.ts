import type { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';

/**
 * The workaround for nestjs-zod's open issue #473/#474 (PR #477 unmerged; nestjs-zod 5.5.0 with
 * zod ≥ 4.5): zod's `toJSONSchema` now writes a union of bare types, a bare nullable field above
 * all (`z.string().nullable()`), as a JSON Schema type array, `{type: ['string', 'null']}`, where
 * zod < 4.5 wrote `{anyOf: [{type: 'string'}, {type: 'null'}]}`. nestjs-zod hands that to
 * @nestjs/swagger unchanged, and swagger reads an array-valued `type` as "an array of the first
 * type": the field comes out as `{type: 'array', items: {type: 'string'}}`, the `null` (and
 * every type but the first) lost; nested fields keep the raw type array, which OpenAPI 3.0 does
 * not allow. No later pass over the document can undo it (the lost types are gone), so this
 * rewrites the type arrays back to zod < 4.5's `anyOf` before swagger reads them, in each zod
 * DTO's `_OPENAPI_METADATA_FACTORY` (swagger's documented model hook), and nestjs-zod's own
 * `cleanupOpenApiDoc` then turns them into OpenAPI 3.0 (`nullable: true`) as it was written to.
 *
 * Remove when nestjs-zod normalizes type arrays itself; test/openapi.test.ts fails if a field is
 * documented otherwise than zod's own OpenAPI 3.0 output says.
 */

const FACTORY = '_OPENAPI_METADATA_FACTORY';
const PATCHED = Symbol('engram:openapi-type-arrays-normalized');
// nestjs-zod's marker: the DTO's schemas use JSON Schema 2020-12 syntax (`type: 'null'`) that
// cleanupOpenApiDoc must convert for OpenAPI 3.0. A DTO whose only such syntax was a type array
// would otherwise not be converted.
const USES_3_1_SYNTAX = 'x-nestjs_zod-uses-3-point-1-syntax';
const EMPTY_TYPE = 'x-nestjs_zod-empty-type';

type JsonSchema = Record<string, unknown>;
type ZodDtoClass = Type<unknown> & { isZodDto?: boolean; [FACTORY]?: () => Record<string, JsonSchema>; [PATCHED]?: true };

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a JSON schema in which every `type: [a, b, ...]` is `anyOf: [{type: a}, {type: b}, ...]`
 * (other keywords stay beside it), at every depth; `changed` says whether there was one.
 */
export function withoutTypeArrays(schema: unknown): { schema: unknown; changed: boolean } {
  let changed = false;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isSchema(value)) return value;
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(value)) out[key] = walk(child);
    if (Array.isArray(out.type)) {
      changed = true;
      const types = out.type as unknown[];
      delete out.type;
      // A single-member array is just that type.
      if (types.length === 1) out.type = types[0];
      else out.anyOf = [...types.map((type) => ({ type })), ...((out.anyOf as unknown[] | undefined) ?? [])];
    }
    return out;
  };
  return { schema: walk(schema), changed };
}

/** The DTO's property schemas as nestjs-zod makes them, with the type arrays rewritten. */
function normalizedProperties(properties: Record<string, JsonSchema>): Record<string, JsonSchema> {
  let any = false;
  const out: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(properties)) {
    // nestjs-zod's `$defs` (shared and recursive schemas) ride on each property: rewritten with it.
    const { schema, changed } = withoutTypeArrays(property);
    const fixed = schema as JsonSchema;
    if (changed && typeof fixed.type !== 'string') {
      // What nestjs-zod does for a property with no string `type` (an `anyOf` one).
      fixed.type = '';
      fixed[EMPTY_TYPE] = true;
    }
    any ||= changed;
    out[name] = fixed;
  }
  if (any) for (const property of Object.values(out)) property[USES_3_1_SYNTAX] = true;
  return out;
}

/** Wraps the metadata factory of a zod DTO class and of the zod DTO classes it extends (once each). */
function patchDto(dto: ZodDtoClass): void {
  for (let cls: ZodDtoClass | null = dto; cls && cls.isZodDto === true; cls = Object.getPrototypeOf(cls) as ZodDtoClass | null) {
    if (Object.prototype.hasOwnProperty.call(cls, PATCHED)) continue;
    const original = cls[FACTORY];
    if (typeof original !== 'function') continue;
    const target = cls;
    Object.defineProperty(target, FACTORY, {
      configurable: true,
      writable: true,
      value: () => normalizedProperties(original.call(target)),
    });
    Object.defineProperty(target, PATCHED, { value: true });
  }
}

/**
 * Every zod DTO class the app's controllers name anywhere in their metadata: parameter types
 * (`@Body() body: XDto`), `@ZodResponse`/`@ApiResponse` types (the `_Output` classes), `@ApiBody`,
 * `@ApiQuery`, extra models: what SwaggerModule will read.
 */
export function zodDtoClasses(app: INestApplication): Set<ZodDtoClass> {
  const found = new Set<ZodDtoClass>();
  const seen = new Set<unknown>();
  const collect = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || value === undefined || seen.has(value)) return;
    if (typeof value === 'function') {
      seen.add(value);
      if ((value as ZodDtoClass).isZodDto === true) found.add(value as ZodDtoClass);
      return;
    }
    if (typeof value !== 'object') return;
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) collect(child, depth + 1);
  };
  const metadataOf = (target: object, key?: string | symbol): void => {
    const keys = key === undefined ? Reflect.getMetadataKeys(target) : Reflect.getMetadataKeys(target, key);
    for (const metadataKey of keys) {
      collect(key === undefined ? Reflect.getMetadata(metadataKey, target) : Reflect.getMetadata(metadataKey, target, key), 0);
    }
  };
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller) continue;
      metadataOf(controller);
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        if (name === 'constructor') continue;
        metadataOf(prototype, name);
        const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value;
        if (typeof handler === 'function') metadataOf(handler);
      }
    }
  }
  return found;
}

/** Makes SwaggerModule see every zod DTO of the app with its nullable fields intact (see the file's comment). */
export function normalizeZodDtoTypeArrays(app: INestApplication): void {
  for (const dto of zodDtoClasses(app)) patchDto(dto);
}
