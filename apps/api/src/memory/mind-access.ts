import { Injectable } from '@nestjs/common';
import { MindsRepository, type Mind, type TenantTx } from '@engram/db';
import { AppError } from '../common/app-error';
import type { MemoryScope } from './memory-scope';

/** The mind of a memory request, looked up inside the request's transaction. */
@Injectable()
export class MindAccess {
  constructor(private readonly minds: MindsRepository) {}

  /** @throws AppError 404 when the mind does not exist in the caller's tenant. */
  async require(tx: TenantTx, scope: MemoryScope): Promise<Mind> {
    const mind = await this.minds.findById(tx, scope.mindId);
    if (!mind) throw AppError.notFound('mind');
    return mind;
  }
}
