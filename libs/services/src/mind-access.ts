import { Injectable } from '@nestjs/common';
import { MindsRepository, type Mind, type TenantTx } from '@engram/db';
import { AppError } from './app-error';
import type { MemoryScope } from './memory-scope';

/** The mind of a unit of work, looked up inside its transaction. */
@Injectable()
export class MindAccess {
  constructor(private readonly minds: MindsRepository) {}

  /** @throws AppError 404 when the mind does not exist in the caller's tenant (another tenant's mind included). */
  async require(tx: TenantTx, scope: Pick<MemoryScope, 'mindId'>): Promise<Mind> {
    const mind = await this.minds.findById(tx, scope.mindId);
    if (!mind) throw AppError.notFound('mind');
    return mind;
  }
}
