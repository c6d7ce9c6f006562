import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { parse as parseContentType } from 'content-type';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiNoContentResponse, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ZodResponse } from 'nestjs-zod';
import { CLOCK, type Clock } from '@engram/config';
import { UsersOnly } from '../auth/auth.decorators';
import { CurrentPrincipal, type UserPrincipal } from '../auth/principal';
import { AppError } from '@engram/services';
import { Documented } from '../common/api-docs';
import { drainedOrClosed } from '../common/drained';
import { ParseIdPipe } from '../common/ids';
import { DeleteTenantQueryDto, ImportResultDto, PurgeResultDto } from './data-rights.dto';
import { DataRightsService } from './data-rights.service';
import { TenantExport } from './tenant-export.service';
import { TenantImport } from './tenant-import.service';

/**
 * Data rights: a tenant's owner can take all of the tenant's data out (export), bring it back
 * (import), purge a mind's memories and delete the tenant. The owner's JWT only: admins,
 * members and Mind Keys get 403.
 *
 * The export format is JSONL (`application/x-ndjson`), one JSON object per line, each with a
 * `type`:
 * - `tenant` (first): `{format: "engram-export", version: 1, id, name, created_at, exported_at}`;
 * - `settings`: `{lifecycle}`, the tenant's lifecycle overrides;
 * - `mind`: `{id, name, description, created_at, updated_at}`;
 * - `memory`: the memory as `GET /v1/memory/:id` answers it, with `mind_id` and its full text
 *   (compacted memories inflated);
 * - `memory_version`: `{memory_id, mind_id, version, change, category, key, content, tags,
 *   priority, source, verified, confidence, expires_at, actor_type, actor_id, created_at}`.
 * Each mind is followed by its memories, each memory by its versions (oldest first). Mind Keys,
 * users and password hashes are never in it.
 */
@ApiTags('tenant')
@ApiBearerAuth()
@Controller({ version: '1' })
export class DataRightsController {
  constructor(
    private readonly dataRights: DataRightsService,
    private readonly tenantExport: TenantExport,
    private readonly tenantImport: TenantImport,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Streams the whole tenant as JSONL (see the class comment), read in batches of 1000 rows so
   * a big tenant is never held in memory. An error after the first line ends the stream early
   * (the status is already sent): a complete export ends with a line break after its last line.
   */
  @UsersOnly('owner')
  @Get('tenant/export')
  @Documented({ summary: 'Export the whole tenant as JSONL', errors: [{ status: 403, description: "not the tenant's owner (admins, members and Mind Keys)" }] })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({
    description: 'JSONL: one object per line with a `type` (tenant, settings, mind, memory, memory_version)',
    // One JSON object per line: no JSON schema describes the whole body (POST /v1/tenant/import takes it back).
    schema: { type: 'string', description: 'JSONL, a line break after each line' },
    headers: { 'Content-Disposition': { description: 'attachment; filename="engram-export-<date>.jsonl"', schema: { type: 'string' } } },
  })
  async export(@CurrentPrincipal() principal: UserPrincipal, @Res() res: Response): Promise<void> {
    const now = this.clock.now();
    const lines = this.tenantExport.exportLines(principal, now);
    // The first line before the headers: a failure there still answers as a normal error.
    const first = await lines.next();
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="engram-export-${now.toISOString().slice(0, 10)}.jsonl"`);
    res.setHeader('Cache-Control', 'no-store');
    let aborted = false;
    res.on('close', () => {
      if (!res.writableFinished) aborted = true;
    });
    try {
      if (!first.done && !res.write(`${first.value}\n`)) await drainedOrClosed(res);
      let buffer = '';
      for await (const line of lines) {
        if (aborted) break;
        buffer += `${line}\n`;
        if (buffer.length >= 64 * 1024) {
          const ok = res.write(buffer);
          buffer = '';
          if (!ok && !aborted) await drainedOrClosed(res);
        }
      }
      if (aborted) {
        await lines.return(undefined);
        return;
      }
      res.end(buffer);
    } catch (error) {
      // Headers are gone: all that is left is to cut the stream, so the client sees it incomplete.
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Imports a JSONL export (`Content-Type: application/x-ndjson`, up to `IMPORT_BODY_LIMIT`, gzip
   * accepted) into the caller's tenant, in one transaction: all or nothing. Idempotent: the
   * same file twice changes nothing the second time. Minds are matched by id, then by name,
   * else created with the file's id; memories by (mind, category, key): absent ones are created
   * with their history (and the file's id when free), equal ones left alone, different ones get
   * the file's content as a new version. The `settings` line replaces the lifecycle overrides.
   * 200 `{minds: {created, matched}, memories: {created, updated, unchanged}, versions: {created},
   * settings}`. 400 `line N: field: rule` for the first bad line (nothing stored); 415 for a
   * body that is not `application/x-ndjson`; 413 over `IMPORT_BODY_LIMIT` (decompressed).
   */
  @UsersOnly('owner')
  @Post('tenant/import')
  @Documented({
    summary: 'Import a JSONL export into the tenant',
    errors: [{ status: 400, description: 'a line of the file breaks a rule: `line N: field: rule` (nothing stored)' }, { status: 403, description: "not the tenant's owner (admins, members and Mind Keys)" }, 413, { status: 415, description: 'the body is not application/x-ndjson' }],
  })
  @HttpCode(200)
  @ApiConsumes('application/x-ndjson')
  @ApiBody({ schema: { type: 'string', description: 'the JSONL of GET /v1/tenant/export' } })
  @ZodResponse({ status: 200, type: ImportResultDto })
  import(@CurrentPrincipal() principal: UserPrincipal, @Body() body: unknown, @Headers('content-type') type: string | undefined) {
    // An empty body is not parsed at all: say it is empty, not that its type is wrong.
    if (typeof body !== 'string' && isNdjson(type)) return this.tenantImport.import(principal, '', this.clock.now());
    if (typeof body !== 'string') {
      throw new AppError('unsupported_media_type', 'Content-Type: must be application/x-ndjson (the JSONL of GET /v1/tenant/export)', [
        { field: 'Content-Type', message: 'must be application/x-ndjson (the JSONL of GET /v1/tenant/export)' },
      ]);
    }
    return this.tenantImport.import(principal, body, this.clock.now());
  }

  /**
   * Deletes all of a mind's memories with their history, eviction tombstones and short-term memory
   * (the mind, its keys and messages stay), and the webhook deliveries about them: 200 `{mind_id,
   * memories, versions, tombstones, stm_entries, webhook_deliveries}`, the counts deleted. 404 for a mind that is not this tenant's.
   */
  @UsersOnly('owner')
  @Delete('minds/:id/memories')
  @Documented({ summary: "Delete all of a mind's memories", errors: [{ status: 403, description: "not the tenant's owner (admins, members and Mind Keys)" }, 404] })
  @ZodResponse({ status: 200, type: PurgeResultDto })
  purgeMind(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    return this.dataRights.purgeMind(principal, id);
  }

  /**
   * Deletes the tenant and everything in it (users, minds, keys, memories, history, messages,
   * settings); every token of the tenant answers 401 afterwards. `?confirm=` must be the
   * tenant's name exactly, else 400 naming `confirm`. 204.
   */
  @UsersOnly('owner')
  @Delete('tenant')
  @Documented({
    summary: 'Delete the tenant and everything in it',
    errors: [{ status: 400, description: "`confirm` is not the tenant's name" }, { status: 403, description: "not the tenant's owner (admins, members and Mind Keys)" }],
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted, with everything in it' })
  async deleteTenant(@CurrentPrincipal() principal: UserPrincipal, @Query() query: DeleteTenantQueryDto): Promise<void> {
    await this.dataRights.deleteTenant(principal, query.confirm);
  }
}

/** True when the Content-Type header names JSONL (parameters such as a charset allowed). */
function isNdjson(type: string | undefined): boolean {
  try {
    return type !== undefined && parseContentType(type).type === 'application/x-ndjson';
  } catch {
    return false;
  }
}
