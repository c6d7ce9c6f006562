import { Injectable } from '@nestjs/common';
import { StmRepository, TenantDb } from '@engram/db';
import { QueueName } from '@engram/queues';
import { ConversationStream, systemScope } from '@engram/services';
import type { JobReport, TenantJob } from './tenant-job';

/**
 * The sleep cycle (queue `consolidation`, every few minutes; seed 000 consolidation of
 * short-term into long-term memory, docs/design.md §4): the STM time rules applied to every
 * conversation of the tenant with entries in STM. Reports `{conversations, consolidated}`.
 */
@Injectable()
export class SleepCycleJob implements TenantJob {
  readonly queue = QueueName.Consolidation;

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly stm: StmRepository,
    private readonly conversations: ConversationStream,
  ) {}

  async run(tenantId: string): Promise<JobReport> {
    const conversations = await this.tenantDb.run(tenantId, (tx) => this.stm.conversationsWithEntries(tx));
    let consolidated = 0;
    for (const c of conversations) consolidated += (await this.conversations.sleepCycle(systemScope(tenantId, c.mind_id), c.conversation_id)).consolidated.length;
    return { conversations: conversations.length, consolidated };
  }
}
