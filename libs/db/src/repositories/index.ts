import { AssociationsRepository } from './associations.repository';
import { EmbeddingsRepository } from './embeddings.repository';
import { MemoriesRepository } from './memories.repository';
import { MemoryAccessesRepository } from './memory-accesses.repository';
import { MemorySweepsRepository } from './memory-sweeps.repository';
import { MemoryVersionsRepository } from './memory-versions.repository';
import { MessagesRepository } from './messages.repository';
import { MindKeysRepository } from './mind-keys.repository';
import { MindStatsRepository } from './mind-stats.repository';
import { MindsRepository } from './minds.repository';
import { RetrievalRepository } from './retrieval.repository';
import { ServiceKeysRepository } from './service-keys.repository';
import { StmRepository } from './stm.repository';
import { SystemRepository } from './system.repository';
import { TenantsRepository } from './tenants.repository';
import { TombstonesRepository } from './tombstones.repository';
import { UsersRepository } from './users.repository';
import { WebhooksRepository } from './webhooks.repository';

export * from './associations.repository';
export * from './embeddings.repository';
export * from './memories.repository';
export * from './memory-accesses.repository';
export * from './memory-sweeps.repository';
export * from './memory-versions.repository';
export * from './messages.repository';
export * from './mind-keys.repository';
export * from './mind-stats.repository';
export * from './minds.repository';
export * from './retrieval.repository';
export * from './retrieval-types';
export { lexemeQuery } from './retrieval-sql';
export * from './service-keys.repository';
export * from './stm.repository';
export * from './system.repository';
export * from './tenants.repository';
export * from './tombstones.repository';
export * from './users.repository';
export * from './webhooks.repository';

/** Every repository: all the SQL of the application lives in these (each method snapshotted in libs/db/queries). */
export const REPOSITORIES = [
  TenantsRepository,
  UsersRepository,
  MindsRepository,
  MindKeysRepository,
  ServiceKeysRepository,
  MemoriesRepository,
  MemoryAccessesRepository,
  MemoryVersionsRepository,
  MemorySweepsRepository,
  EmbeddingsRepository,
  TombstonesRepository,
  StmRepository,
  MessagesRepository,
  RetrievalRepository,
  MindStatsRepository,
  SystemRepository,
  WebhooksRepository,
  AssociationsRepository,
] as const;
