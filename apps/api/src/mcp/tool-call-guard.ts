import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, isJSONRPCRequest, type CallToolResult, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { zodProblems } from '../common/zod-problems';

/** The JSON type of a value, as a message says it: `null`, `an array`, `a string`, ... */
const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * The answer to a `tools/call` whose params the SDK would refuse before any tool sees them, or
 * undefined when they are well-formed.
 *
 * The SDK (1.x) checks a request's params against its own schema outside the tool handler: a
 * failure there becomes JSON-RPC -32603 (internal error) with zod's issues as raw JSON
 * (typescript-sdk issue #2012, e.g. `"arguments": null`). Instead:
 * - `arguments` that is not an object (null, an array, text, a number) is the tool's bad input:
 *   answered as the SDK answers a tool's invalid arguments, a tool result with `isError: true`,
 *   here `arguments: must be an object of the tool's arguments by name ({} for none), not null`;
 * - any other malformed params (no tool name, `params` not an object) → -32602 (invalid params)
 *   naming the field, e.g. `Invalid params: name: must be a string`.
 */
export function toolCallProblem(request: JSONRPCRequest): JSONRPCMessage | undefined {
  if (request.method !== 'tools/call') return undefined;
  const params = request.params as Record<string, unknown> | undefined;
  const args = params !== null && typeof params === 'object' && !Array.isArray(params) ? params.arguments : undefined;
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    const result: CallToolResult = {
      content: [{ type: 'text', text: `arguments: must be an object of the tool's arguments by name ({} for none), not ${typeName(args)}` }],
      isError: true,
    };
    return { jsonrpc: '2.0', id: request.id, result };
  }
  const checked = CallToolRequestSchema.safeParse(request);
  if (checked.success) return undefined;
  const problems = zodProblems(checked.error as never).map((p) => `${p.field.replace(/^params\.?/, '') || 'params'}: ${p.message}`);
  return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problems.join('; ')}` } };
}

/**
 * Answers malformed `tools/call` requests on `transport` itself (`toolCallProblem`), before the
 * SDK's server sees them; every other message goes on to the server. Call after `connect`.
 */
export function guardToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('guardToolCalls: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const answer = isJSONRPCRequest(message) ? toolCallProblem(message) : undefined;
    if (answer) transport.send(answer, { relatedRequestId: (message as JSONRPCRequest).id }).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
    else deliver(message, extra);
  };
}
