import { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { MEMORY_CATEGORIES, MEMORY_PRIORITIES } from '@engram/memory';
import { AppError } from '@engram/services';
import { zodProblems } from '../../common/zod-problems';
import type { MemoryView } from '../../memory/memory.view';

/** Problems listed in one error, as in the REST API's error answers. */
const MAX_PROBLEMS = 20;

const logger = new Logger('Mcp');

/**
 * Validates tool arguments with the REST API's own schema, so every rule and message is the
 * API's. Field names of the REST shape are renamed back to the tool's (`tag` → `tags`).
 *
 * @throws AppError 400 `<field>: <rule>; ...`, exactly like the REST API's 400 message.
 */
export function parseAs<T extends z.ZodType>(schema: T, input: unknown, rename: Record<string, string> = {}): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = zodProblems(result.error).map((p) => {
    for (const [from, to] of Object.entries(rename)) {
      if (p.field === from || p.field.startsWith(`${from}[`) || p.field.startsWith(`${from}.`)) {
        return { field: to + p.field.slice(from.length), message: p.message };
      }
    }
    return p;
  });
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : '';
  throw new AppError('bad_request', shown.map((p) => `${p.field}: ${p.message}`).join('; ') + more, shown);
}

/** Query-string form of an optional number or boolean (the REST schemas read query strings). */
export const asParam = (value: number | boolean | undefined): string | undefined => (value === undefined ? undefined : String(value));

/** Drops undefined members, so a REST schema's defaults apply and `.strict()` sees only given fields. */
export function defined<T extends Record<string, unknown>>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
export const json = (value: unknown): CallToolResult => text(JSON.stringify(value));

/** The compact form of a memory in tool answers. */
export function compact(m: MemoryView & { score?: number }) {
  return {
    id: m.id,
    category: m.category,
    key: m.key,
    content: m.content,
    tags: m.tags,
    priority: m.priority,
    verified: m.verified,
    ...(m.score === undefined ? {} : { score: Number(m.score.toFixed(4)) }),
    expires_at: m.expires_at,
    updated_at: m.updated_at,
  };
}

export const CATEGORY_TEXT = `one of ${MEMORY_CATEGORIES.join(', ')}`;
export const PRIORITY_TEXT = `one of ${MEMORY_PRIORITIES.join(', ')}`;

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
