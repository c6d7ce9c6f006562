import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DummyDriver, Kysely, NoResultError, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Transaction } from 'kysely';
import { format } from 'sql-formatter';
import { REPOSITORIES, SAMPLE, sqlExamples, type DB, type TenantTx } from '@engram/db';

/**
 * `npm run sql:generate`: writes the SQL of every repository method into
 * `libs/db/queries/<repository>.sql` (after immich's `@GenerateSql`), so that a change of a query
 * shows in review. Each method runs with its `@GenerateSql` examples against a Kysely whose
 * driver answers nothing (no database), and every statement it issues is recorded, formatted.
 * scripts/sql-snapshots.spec.ts fails when the files and the code disagree.
 */

export const QUERIES_DIR = resolve(__dirname, '..', 'libs', 'db', 'queries');

/** A Kysely that compiles PostgreSQL and records each statement instead of running it. */
function recordingDb(statements: string[]): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    },
  });
}

/** kebab-case file name of a repository class: `MemorySweepsRepository` → `memory-sweeps.repository.sql`. */
export function snapshotFileName(className: string): string {
  return `${className.replace(/Repository$/, '').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}.repository.sql`;
}

/**
 * The snapshot files' contents by file name, and the problems found (a repository method
 * without an example, an example that fails other than by finding no row).
 */
export async function renderSqlSnapshots(): Promise<{ files: Map<string, string>; problems: string[] }> {
  const files = new Map<string, string>();
  const problems: string[] = [];
  for (const cls of REPOSITORIES) {
    const repository = new cls() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const examples = sqlExamples(cls);
    const parts = [`-- The SQL of ${cls.name} (libs/db/src/repositories), written by \`npm run sql:generate\`: do not edit.`];
    for (const method of Object.getOwnPropertyNames(cls.prototype).filter((m) => m !== 'constructor')) {
      const calls = examples.get(method);
      if (!calls) {
        problems.push(`${cls.name}.${method} has no @GenerateSql example`);
        continue;
      }
      for (const call of calls) {
        const statements: string[] = [];
        const db = recordingDb(statements);
        const tx: TenantTx = { trx: db as unknown as Transaction<DB>, tenantId: SAMPLE.uuid };
        try {
          await (repository[method] as (...args: unknown[]) => Promise<unknown>).call(repository, call.withoutTenant ? db : tx, ...call.params);
        } catch (error) {
          // The driver answers no rows: a method that needs one stops there, its SQL recorded.
          if (!(error instanceof NoResultError)) problems.push(`${cls.name}.${method}${call.name ? ` (${call.name})` : ''}: ${error instanceof Error ? error.message : String(error)}`);
        }
        const title = `-- ${cls.name}.${method}${call.name ? ` (${call.name})` : ''}`;
        const body = statements.length === 0 ? '-- (no statement)' : statements.map((s) => `${format(s, { language: 'postgresql', keywordCase: 'lower', tabWidth: 2 })};`).join('\n\n');
        parts.push(`${title}\n${body}`);
      }
    }
    files.set(snapshotFileName(cls.name), `${parts.join('\n\n')}\n`);
  }
  return { files, problems };
}

async function main(): Promise<void> {
  const { files, problems } = await renderSqlSnapshots();
  if (problems.length > 0) throw new Error(`cannot snapshot the SQL:\n${problems.join('\n')}`);
  await mkdir(QUERIES_DIR, { recursive: true });
  for (const old of await readdir(QUERIES_DIR)) if (old.endsWith('.sql') && !files.has(old)) await rm(join(QUERIES_DIR, old));
  for (const [name, content] of files) await writeFile(join(QUERIES_DIR, name), content);
  process.stdout.write(`wrote ${files.size} files to libs/db/queries\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
