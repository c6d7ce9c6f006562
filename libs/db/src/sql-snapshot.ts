import { DEFAULT_LIFECYCLE } from '@engram/memory';

/**
 * The SQL of every repository method is written into `libs/db/queries/<repository>.sql` by
 * `npm run sql:generate` and compared by the tests (after immich's `@GenerateSql`), so that a
 * change of a query shows in review as a change of its SQL. Each method says, with
 * {@link GenerateSql}, the arguments it is called with for its snapshot (after the transaction,
 * which the generator supplies); a method that runs several statements shows them all.
 */

/** One way of calling a repository method for its snapshot. */
export interface SqlExample {
  /** Shown after the method's name when a method has several examples. */
  name?: string;
  /** The arguments after the first (the TenantTx, or the Kysely for `withoutTenant` methods). */
  params: unknown[];
  /** The method takes a Kysely with no tenant (security-definer look-ups), not a TenantTx. */
  withoutTenant?: boolean;
}

const EXAMPLES = new Map<Function, Map<string, SqlExample[]>>();

/** Declares the snapshot call(s) of a repository method. */
export function GenerateSql(...examples: SqlExample[]): MethodDecorator {
  return (target, property) => {
    const cls = (target as { constructor: Function }).constructor;
    const methods = EXAMPLES.get(cls) ?? new Map<string, SqlExample[]>();
    methods.set(String(property), examples.length > 0 ? examples : [{ params: [] }]);
    EXAMPLES.set(cls, methods);
  };
}

/** The snapshot calls declared on a repository class, by method name. */
export function sqlExamples(cls: Function): ReadonlyMap<string, SqlExample[]> {
  return EXAMPLES.get(cls) ?? new Map();
}

/** Fixed arguments for snapshots: the SQL shows placeholders, so only their shape matters. */
export const SAMPLE = {
  uuid: '00000000-0000-7000-8000-000000000001',
  uuid2: '00000000-0000-7000-8000-000000000002',
  date: new Date('2026-01-01T00:00:00.000Z'),
  date2: new Date('2026-01-08T00:00:00.000Z'),
  config: DEFAULT_LIFECYCLE,
  limit: 10,
} as const;
