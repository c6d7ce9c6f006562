import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase } from '../../libs/db/src';
import { TEMPLATE_ENV, TEST_DATABASE_URL, databaseUrl } from './env';

/**
 * Once per `jest` run: creates a template database and migrates it as the owner. Each test
 * file then copies it (CREATE DATABASE ... TEMPLATE), which takes milliseconds
 * (CONVENTIONS "Tests", after immich).
 */
export default async function globalSetup(): Promise<void> {
  const template = `engram_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${template}`);
  } finally {
    await admin.end();
  }
  const owner = openOwnerDatabase(databaseUrl(template));
  try {
    await migrateToLatest(owner);
  } finally {
    await owner.destroy();
  }
  process.env[TEMPLATE_ENV] = template;
}
