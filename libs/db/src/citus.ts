import { sql, type Kysely, type Transaction } from 'kysely';

/**
 * Tables Citus keeps whole on every node (reference tables) rather than split by tenant
 * (docs/design.md §1, "Citus"). `users` is one: its e-mail address is unique across the platform
 * (login takes only e-mail and password), a uniqueness a table distributed by `tenant_id` cannot
 * enforce; a reference table keeps `users_email_key` and `users_id_key` as they are and answers
 * the login look-up on the coordinator. Its foreign key to `tenants` is dropped (Citus has none
 * from a reference table to a distributed one): deleting a tenant deletes its users explicitly
 * (TenantsRepository.delete).
 */
export const CITUS_REFERENCE_TABLES = ['users'] as const;

/**
 * Global unique indexes of distributed tables, which Citus refuses unless they hold the
 * distribution column: on Citus each becomes unique on (key_hash, tenant_id), which still serves
 * the look-up by hash (its first column). Across tenants a key hash stays unique by construction:
 * it is the SHA-256 of 256 random bits.
 */
const HASH_KEYS = [
  { index: 'mind_keys_hash_key', table: 'mind_keys' },
  { index: 'service_keys_hash_key', table: 'service_keys' },
] as const;

/** The roles that own the security-definer look-ups: Citus connects to the workers as them. */
const DEFINER_ROLES = ['engram_auth', 'engram_metrics'] as const;

/** Whether `db` is a Citus coordinator (the citus extension is installed in it). */
export async function isCitus(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ citus: boolean }>`select exists (select 1 from pg_extension where extname = 'citus') as citus`.execute(db);
  return rows[0]?.citus === true;
}

/**
 * After the migrations, on a Citus coordinator only (does nothing elsewhere): distributes
 * `tenants` by `id` and every other table with a `tenant_id` by it, all co-located, so that each
 * tenant's rows of every table sit in one shard group and a unit of work is a router query;
 * makes {@link CITUS_REFERENCE_TABLES} reference tables. Idempotent (a table already distributed
 * is left alone), so it runs after every migration, and distributes the tables later migrations
 * add. Runs as the migration owner, in one transaction, serialised by an advisory lock.
 *
 * @returns the tables it distributed or made reference tables (empty when there was nothing to do).
 */
export async function distributeOnCitus(db: Kysely<unknown>): Promise<string[]> {
  if (!(await isCitus(db))) return [];
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('engram.distribute_on_citus'))`.execute(trx);
    // memories has a row trigger (engram_content_written) that only edits NEW: safe per shard.
    await sql`set local citus.enable_unsafe_triggers = on`.execute(trx);
    // One connection per node: function DDL after distributing tables in the same transaction
    // is refused after parallel shard operations.
    await sql`set local citus.multi_shard_modify_mode = 'sequential'`.execute(trx);
    // A security-definer function's statements on distributed tables reach the workers as its
    // owner, so the owners must be able to log in (they have no password; see docs/runbook.md).
    for (const role of DEFINER_ROLES) {
      await sql.raw(`alter role ${role} login`).execute(trx);
    }

    const { rows: tables } = await sql<{ table: string; distributed: boolean }>`
      select c.relname as "table", exists (select 1 from pg_dist_partition p where p.logicalrelid = c.oid) as distributed
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')
        and (c.relname = 'tenants' or exists (
          select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped))
      order by c.relname`.execute(trx);
    const pending = new Set(tables.filter((t) => !t.distributed).map((t) => t.table));
    const done: string[] = [];
    if (pending.size === 0) return done;
    await distributeTables(trx, pending, done);
    // engram_text_match runs inside the search's router query, i.e. on the worker holding the
    // tenant's shards, and reads memories again: a nested distributed query, which Citus refuses
    // unless allowed. Its body reads only the transaction's tenant (p_tenant =
    // engram_current_tenant()), co-located with the outer query's shard, so it is allowed for
    // this function alone; distributed by p_tenant, a direct call is delegated to that worker.
    await sql`select create_distributed_function('engram_text_match(uuid,uuid,tsquery,integer)', 'p_tenant', colocate_with => 'tenants')`.execute(trx);
    await sql`alter function engram_text_match(uuid, uuid, tsquery, integer) set citus.allow_nested_distributed_execution = on`.execute(trx);
    return done;
  });
}

async function distributeTables(trx: Transaction<unknown>, pending: Set<string>, done: string[]): Promise<void> {
  {

    if (pending.delete('tenants')) {
      await sql`select create_distributed_table('tenants', 'id')`.execute(trx);
      done.push('tenants');
    }
    for (const table of CITUS_REFERENCE_TABLES) {
      if (!pending.delete(table)) continue;
      const { rows: fks } = await sql<{ name: string }>`
        select conname as name from pg_constraint where conrelid = ${table}::regclass and contype = 'f'`.execute(trx);
      for (const fk of fks) await sql.raw(`alter table ${table} drop constraint ${fk.name}`).execute(trx);
      await sql`select create_reference_table(${table})`.execute(trx);
      done.push(table);
    }
    for (const { index, table } of HASH_KEYS) {
      if (!pending.has(table)) continue;
      await sql.raw(`drop index if exists ${index}`).execute(trx);
      await sql.raw(`create unique index ${index} on ${table} (key_hash, tenant_id)`).execute(trx);
    }

    // Parents before children: a table's foreign keys must point at tables already distributed.
    const { rows: edges } = await sql<{ child: string; parent: string }>`
      select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
      from pg_constraint c where c.contype = 'f' and c.connamespace = 'public'::regnamespace`.execute(trx);
    while (pending.size > 0) {
      const ready = [...pending].filter((t) => !edges.some((e) => e.child === t && e.parent !== t && pending.has(e.parent)));
      if (ready.length === 0) throw new Error(`cannot order the distribution of ${[...pending].join(', ')}: a foreign key cycle`);
      for (const table of ready.sort()) {
        await sql`select create_distributed_table(${table}, 'tenant_id', colocate_with => 'tenants')`.execute(trx);
        pending.delete(table);
        done.push(table);
      }
    }
  }
}
