import { z } from 'zod';
import { TAG_MAX_LENGTH } from '@engram/memory';
import { INVISIBLE_CHARACTERS } from '../../common/zod-fields';

/** A JSON Schema object, as advertised in `tools/list`. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of the input side of a REST schema (`z.toJSONSchema`, `io: 'input'`), without
 * the dialect line. This is how a tool argument takes its enum, bounds and pattern from the
 * API's own field rule instead of a copied list. Refinements (trimmed non-empty, UTF-8 bytes)
 * have no JSON Schema form; the handler still applies them.
 */
export function jsonOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return json;
}

/**
 * One property of a REST object schema's JSON Schema, e.g. `propertyOf(SearchQuerySchema, 'limit')`
 * → `{type: 'integer', minimum: 1, maximum: 100, default: 10}`.
 * @throws Error at start-up when the REST schema has no such property (a renamed field must not
 *   silently drop the tool's bounds)
 */
export function propertyOf(schema: z.ZodType, name: string): JsonSchema {
  const property = ((jsonOf(schema).properties ?? {}) as Record<string, JsonSchema>)[name];
  if (!property) throw new Error(`MCP tool schema: the REST schema has no property ${name}`);
  return property;
}

/**
 * A REST schema's JSON Schema with some properties of an object in it amended, e.g. the message
 * items of `messages`: `amend(json, ['items'], {content: NOT_BLANK})`.
 * @throws Error at start-up when a property to amend is not there (a renamed REST field must not
 *   silently lose its rule here)
 */
export function amend(json: JsonSchema, path: readonly string[], changes: Record<string, JsonSchema>): JsonSchema {
  const copy = structuredClone(json);
  let object: JsonSchema = copy;
  for (const step of path) object = object[step] as JsonSchema;
  const properties = (object?.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, change] of Object.entries(changes)) {
    if (!properties[name]) throw new Error(`MCP tool schema: the REST schema has no property ${[...path, name].join('.')}`);
    properties[name] = { ...properties[name], ...change };
  }
  return copy;
}

// Rules of the REST fields that zod refinements carry (no JSON Schema of their own), written out
// for the tools' schemas, so that a value the schema allows is not refused by the handler.

/** Text that must not be empty or blank: one character outside INVISIBLE_CHARACTERS, as `hasVisibleText` checks. */
export const NOT_BLANK: JsonSchema = { minLength: 1, pattern: `[^${INVISIBLE_CHARACTERS}]` };

/** No control characters (`\p{Cc}`), written as ranges for regex engines without `\p`. */
const NO_CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';

/** A one-line name (`oneLine`): not blank, no control characters, at most `max` characters. */
export const oneLineText = (max: number): JsonSchema => ({ type: 'string', minLength: 1, maxLength: max, pattern: `^(?=[\\s\\S]*\\S)[^${NO_CONTROL}]+$` });

/** A tag (`tagText`): not blank, no commas or control characters, at most TAG_MAX_LENGTH characters. */
export const TAG_JSON: JsonSchema = { type: 'string', minLength: 1, maxLength: TAG_MAX_LENGTH, pattern: `^(?=[\\s\\S]*\\S)[^,${NO_CONTROL}]+$` };

/** The text of a search or recall query (`textParam(1000)`): not blank, at most 1000 characters. */
export const QUERY_TEXT: JsonSchema = { ...NOT_BLANK, maxLength: 1000 };

/** A date-time the API accepts (`isoDateTime`): ISO 8601 with a time zone. */
export const DATE_TIME: JsonSchema = { format: 'date-time' };

/**
 * A tool argument: advertised to the model with `json` and `description`, accepted by the SDK's
 * own check as any value, and validated by the tool's handler with the REST schema (`parseAs`),
 * so that a bad value is answered with the API's `<field>: <rule>` message rather than the SDK's
 * generic one.
 */
export function arg(json: JsonSchema, description: string) {
  return z.unknown().optional().meta({ ...json, description });
}

export type ToolArg = ReturnType<typeof arg>;

/**
 * A tool's input schema: exactly these arguments (an unknown argument is refused by the SDK,
 * naming it), `required` as advertised. Built once per process: `tools/list` converts it per
 * request, the JSON Schema of each argument is computed here.
 */
export function toolInput<T extends Record<string, ToolArg>>(args: T, required: readonly (keyof T & string)[] = []) {
  const input = z.strictObject(args);
  return required.length > 0 ? input.meta({ required: [...required] }) : input;
}

/** A date-time in answers: ISO 8601 with a zone (the API's times are UTC, `Z`). */
export const dateTimeOut = z.string().meta({ format: 'date-time' });

/** A 0..1 number rounded to 3 decimals for a model to read (0.1234567 → 0.123). */
export const unit = (x: number): number => Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;
