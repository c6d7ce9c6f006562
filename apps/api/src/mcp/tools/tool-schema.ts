import { z } from 'zod';

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
