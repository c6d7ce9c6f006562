import { createMigratedDatabase } from './test-db';
import { TEMPLATE_ENV, TEST_DATABASE_URL } from './env';

/**
 * Once per `jest` run: creates a template database and migrates it as the owner. Each test
 * file then copies it (CREATE DATABASE ... TEMPLATE), which takes milliseconds
 * (CONVENTIONS "Tests", after immich).
 */
export default async function globalSetup(): Promise<void> {
  const template = `engram_test_${process.pid}_${Date.now().toString(36)}`;
  await createMigratedDatabase(TEST_DATABASE_URL, template);
  process.env[TEMPLATE_ENV] = template;
}
