import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase } from '@engram/db';
import { TEMPLATE_ENV, TEST_DATABASE_URL, databaseUrl } from './env';

/**
 * Creates the database `name` on the server of `serverUrl` (a superuser's URL) and applies every
 * migration to it as that owner; the migrations also create the roles (engram_app, ...) where
 * the server lacks them. @returns the database's owner URL
 */
export async function createMigratedDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const owner = openOwnerDatabase(url.toString());
  try {
    await migrateToLatest(owner);
  } finally {
    await owner.destroy();
  }
  return url.toString();
}

/** A private copy of the migrated template for one test file. */
export interface TestDatabase {
  name: string;
  /** Connects as engram_app: what the service uses. */
  appUrl: string;
  /** Connects as the owner (superuser): for set-up and inspection only. */
  ownerUrl: string;
  drop(): Promise<void>;
}

/**
 * A new database copied from the migrated template, or from `from` (a database seeded once and
 * copied for each scenario).
 */
export async function createTestDatabase(from?: Pick<TestDatabase, 'name'>): Promise<TestDatabase> {
  const base = process.env[TEMPLATE_ENV];
  if (!base) throw new Error('no template database: run the medium tests through jest (global setup)');
  const template = from?.name ?? base;
  const name = `${base}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    appUrl: databaseUrl(name, 'engram_app'),
    ownerUrl: databaseUrl(name),
    drop: async () => {
      const c = new Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Runs one SQL statement as the database's owner (row-level security does not apply): for
 * seeding and inspecting what the service stored. Opens and closes its own connection.
 */
export function ownerQuery(db: Pick<TestDatabase, 'ownerUrl'>) {
  return async <T>(query: string, params: unknown[] = []): Promise<T[]> => {
    const c = new Client({ connectionString: db.ownerUrl });
    await c.connect();
    try {
      return (await c.query(query, params)).rows as T[];
    } finally {
      await c.end();
    }
  };
}
