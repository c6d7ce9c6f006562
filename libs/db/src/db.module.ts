import { Global, Inject, Logger, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { openDatabase, type DatabaseHandle } from './database';
import { DATABASE, TenantDb } from './tenant-db';
import { REPOSITORIES } from './repositories';

import { DATABASE_HANDLE, VECTOR_ARITHMETIC } from './db-handle';
import { vectorArithmetic } from './repositories/retrieval-sql';
import { EmbeddedVacuum } from './embedded-vacuum';

export { DATABASE_HANDLE, VECTOR_ARITHMETIC } from './db-handle';

const repositories = [...REPOSITORIES];

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
  { provide: VECTOR_ARITHMETIC, inject: [DATABASE_HANDLE], useFactory: (handle: DatabaseHandle) => vectorArithmetic(handle.mode) },
  TenantDb,
  EmbeddedVacuum,
  ...repositories,
];

/** The database for Nest apps: opens it at start (migrating in embedded mode), closes it at shutdown. */
@Global()
@Module({ providers, exports: [DATABASE_HANDLE, DATABASE, TenantDb, EmbeddedVacuum, ...repositories] })
export class DbModule implements OnApplicationShutdown {
  constructor(@Inject(DATABASE_HANDLE) private readonly handle: DatabaseHandle) {}

  async onApplicationShutdown(): Promise<void> {
    await this.handle.close();
  }
}
