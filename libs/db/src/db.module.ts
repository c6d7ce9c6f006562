import { Global, Inject, Logger, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { openDatabase, type DatabaseHandle } from './database';
import { DATABASE, TenantDb } from './tenant-db';
import { LifecycleSettings } from './lifecycle-settings';
import { MemoriesRepository } from './repositories/memories.repository';
import { MemoryVersionsRepository } from './repositories/memory-versions.repository';
import { MindKeysRepository } from './repositories/mind-keys.repository';
import { MindsRepository } from './repositories/minds.repository';
import { TenantsRepository } from './repositories/tenants.repository';
import { UsersRepository } from './repositories/users.repository';
import { StmRepository } from './repositories/stm.repository';
import { MessagesRepository } from './repositories/messages.repository';
import { RetrievalRepository } from './repositories/retrieval.repository';

/** Injection token of the open {@link DatabaseHandle}. */
export const DATABASE_HANDLE = Symbol('DATABASE_HANDLE');

const repositories = [
  TenantsRepository,
  UsersRepository,
  MindsRepository,
  MindKeysRepository,
  MemoriesRepository,
  MemoryVersionsRepository,
  StmRepository,
  MessagesRepository,
  RetrievalRepository,
];

const providers: Provider[] = [
  {
    provide: DATABASE_HANDLE,
    inject: [APP_CONFIG],
    useFactory: async (config: AppConfig): Promise<DatabaseHandle> => {
      const handle = await openDatabase(config);
      const logger = new Logger('Database');
      logger.log(
        handle.mode === 'embedded'
          ? `embedded PGlite at ${config.ENGRAM_DATA_DIR}/pg${handle.applied.length ? `; applied ${handle.applied.join(', ')}` : ''}`
          : 'connected to PostgreSQL',
      );
      return handle;
    },
  },
  { provide: DATABASE, inject: [DATABASE_HANDLE], useFactory: (handle: DatabaseHandle) => handle.db },
  TenantDb,
  LifecycleSettings,
  ...repositories,
];

/** The database for Nest apps: opens it at start (migrating in embedded mode), closes it at shutdown. */
@Global()
@Module({ providers, exports: [DATABASE_HANDLE, DATABASE, TenantDb, LifecycleSettings, ...repositories] })
export class DbModule implements OnApplicationShutdown {
  constructor(@Inject(DATABASE_HANDLE) private readonly handle: DatabaseHandle) {}

  async onApplicationShutdown(): Promise<void> {
    await this.handle.close();
  }
}
