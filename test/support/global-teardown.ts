import { Client } from 'pg';
import { TEMPLATE_ENV, TEST_DATABASE_URL } from './env';

/** Drops the run's template and every database copied from it. */
export default async function globalTeardown(): Promise<void> {
  const template = process.env[TEMPLATE_ENV];
  if (!template) return;
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname = $1 or datname like $2`,
      [template, `${template}\\_%`],
    );
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
  } finally {
    await admin.end();
  }
}
