import { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { AppError, type FieldProblem } from '@engram/services';
import { zodProblems } from '../../common/zod-problems';

/** Problems listed in one error, as in the REST API's error answers. */
const MAX_PROBLEMS = 20;

const logger = new Logger('Mcp');

/**
 * The field name of a problem in the tool's words: REST names renamed (`tag` → `tags`, with
 * what follows, `tag[0]` → `tags[0]`), and a rule on the whole REST body (zod's empty path,
 * `body`) said of the tool's `arguments`.
 */
function toolField(field: string, rename: Record<string, string>): string {
  for (const [from, to] of Object.entries({ body: 'arguments', ...rename })) {
    if (field === from || field.startsWith(`${from}[`) || field.startsWith(`${from}.`)) return to + field.slice(from.length);
  }
  return field;
}

/** A 400 listing `problems` as `<field>: <rule>; ...`, like the REST API's 400 message. */
function badRequest(problems: FieldProblem[]): AppError {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : '';
  return new AppError('bad_request', shown.map((p) => `${p.field}: ${p.message}`).join('; ') + more, shown);
}

/**
 * Validates tool arguments with the REST API's own schema, so every rule and message is the
 * API's. Field names of the REST shape are renamed back to the tool's (`tag` → `tags`).
 *
 * @throws AppError 400 `<field>: <rule>; ...`, exactly like the REST API's 400 message.
 */
export function parseAs<T extends z.ZodType>(schema: T, input: unknown, rename: Record<string, string> = {}): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw badRequest(zodProblems(result.error).map((p) => ({ field: toolField(p.field, rename), message: p.message })));
}

/**
 * Runs a REST check (a path parameter's, e.g. `conversationId(id)`) and answers its 400 in the
 * tool's argument names: `renamed(() => conversationId(id), {conversationId: 'conversation_id'})`.
 * @throws AppError the check's error, its fields renamed; any other error as it is
 */
export function renamed<T>(check: () => T, rename: Record<string, string>): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'bad_request' || error.problems.length === 0) throw error;
    throw badRequest(error.problems.map((p) => ({ field: toolField(p.field, rename), message: p.message })));
  }
}

/**
 * Query-string form of a number or boolean argument (the REST query schemas read text); any other
 * value goes on as it is, for the REST schema to refuse with its message.
 */
export const asParam = (value: unknown): unknown => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);

/** Drops undefined members, so a REST schema's defaults apply and `.strict()` sees only given fields. */
export function defined<T extends Record<string, unknown>>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A tool's answer: `structured` as `structuredContent` (checked by the SDK against the tool's
 * `outputSchema`) and a short text for people and for clients that show text only.
 */
export function answer(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * Runs a tool: the API's errors become tool errors with the API's message; anything else is
 * logged and answered as "internal error" (never a stack or SQL text).
 */
export async function run(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) return { content: [{ type: 'text', text: error.message }], isError: true };
    logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
    return { content: [{ type: 'text', text: 'internal error' }], isError: true };
  }
}
