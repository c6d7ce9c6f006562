import { Controller, Delete, Get, HttpCode, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { AppError } from '@engram/services';
import { MIND_HEADER, memoryScopeOf } from '../memory/memory-scope';
import { McpServerFactory } from './mcp-server.factory';
import { guardToolCalls } from './tool-call-guard';

/**
 * The MCP endpoint (Model Context Protocol, streamable HTTP) at `/mcp`, outside `/v1`.
 *
 * Stateless: every POST gets a new MCP server and transport bound to the caller's mind, and no
 * session id is issued (any instance of the API can answer any request). Answers are JSON, not
 * SSE streams. GET (the server-to-client stream) and DELETE (ending a session) answer 405, as
 * there are no sessions.
 *
 * Auth: a Mind Key (`Authorization: Bearer emk_...`), checked by the global guard like every
 * API route: none, unknown or revoked → 401 with `WWW-Authenticate` (as every 401); a user's JWT → 403 (the
 * MCP endpoint is the agents' door; people use the REST API with X-Mind-Id).
 *
 * A `tools/call` with malformed params (`"arguments": null`, no tool name) is answered by
 * `guardToolCalls` with a readable error instead of the SDK's -32603.
 */
@ApiExcludeController()
@Controller({ path: 'mcp', version: VERSION_NEUTRAL })
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  /** One JSON-RPC message (request or notification) from an MCP client. */
  @Post()
  async post(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (principal.kind !== 'mind_key') {
      throw new AppError('forbidden', 'the MCP endpoint takes a Mind Key (Authorization: Bearer emk_...); a user JWT cannot use it');
    }
    const scope = memoryScopeOf(principal, req.headers[MIND_HEADER]);
    const server = this.servers.create(scope);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    guardToolCalls(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /** No server-to-client stream and no sessions in stateless mode: 405. */
  @Get()
  @HttpCode(405)
  get(@Res() res: Response): void {
    this.notAllowed(res);
  }

  @Delete()
  @HttpCode(405)
  delete(@Res() res: Response): void {
    this.notAllowed(res);
  }

  private notAllowed(res: Response): void {
    res
      .status(405)
      .setHeader('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST' }, id: null });
  }
}
