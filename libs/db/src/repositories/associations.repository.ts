import { Inject, Injectable, Optional } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { GeneralisationLink, LifecycleConfig, LinkRelation, MemoryCategory, MemoryType } from '@engram/memory';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import { setLocal, type TenantTx } from '../tenant-db';
import { VECTOR_ARITHMETIC } from '../db-handle';
import { nearestSql, type VectorArithmetic } from './retrieval-sql';
import type { VectorScan } from './retrieval-types';

/** A memory whose links are to be built (what the rules need of it). */
export interface UnlinkedMemory {
  id: string;
  mind_id: string;
  content: string;
  tags: string[];
}

/** A source memory and the named things its links may share (libs/memory namedThings). */
export interface LinkSource {
  id: string;
  names: readonly string[];
}

/**
 * One link as the API shows it: the other memory, what it is to this one, how strongly, and the
 * other memory's short view (its category, key, full content, type and event time).
 */
export interface AssociationRow {
  /** The other memory. */
  memory_id: string;
  relation: LinkRelation;
  /** 0..1 (1 for a generalisation link). */
  weight: number;
  /** The named thing shared (shares_entity), else null. */
  via: string | null;
  /** `out`: found from this memory (or held in its association_graph); `in`: found from the other one (the relation as seen from here). */
  direction: 'out' | 'in';
  /** When the link was built (a generalisation link: when its semantic memory was written). */
  created_at: Date;
  category: MemoryCategory;
  key: string;
  /** The full text (a compacted memory's inflated by CompactContentPlugin). */
  content: string;
  content_z: Uint8Array | null;
  memory_type: MemoryType;
  occurred_at: Date;
}

/** Where a page of links ends: the last link's weight, relation and other memory (the list's order). */
export interface AssociationCursor {
  weight: number;
  memory_id: string;
  relation: LinkRelation;
}

/** The relation as seen from the link's target, in SQL (libs/memory inverseRelation). */
const INVERSE_RELATION_SQL = sql.raw(
  `case a.relation when 'precedes' then 'follows' when 'follows' then 'precedes' when 'causes' then 'effects' when 'effects' then 'causes' else a.relation end`,
);

/**
 * A memory's links both ways, as SQL rows `(other, relation, weight, via, direction, created_at)`:
 * a link found from the other memory (`in`) with its relation as seen from this one, and a pair
 * linked both ways once per relation, the stronger (ties: the link found from this memory). Two
 * index look-ups: the primary key and memory_associations_target_idx. What the API lists and what
 * search follows (RetrievalRepository.search).
 *
 * @param memoryId the memory's id, as SQL (a parameter or a column of the outer query)
 */
export function linksBothWays(tenantId: string, memoryId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    select distinct on (x.other, x.relation) x.* from (
      select a.target_id as other, a.relation, a.weight, a.via, 'out' as direction, a.created_at from memory_associations a
      where a.tenant_id = ${tenantId} and a.memory_id = ${memoryId}
      union all
      select a.memory_id, ${INVERSE_RELATION_SQL}, a.weight, a.via, 'in', a.created_at from memory_associations a
      where a.tenant_id = ${tenantId} and a.target_id = ${memoryId}) x
    order by x.other, x.relation, x.weight desc, x.direction desc`;
}

const M = SAMPLE.uuid;
const LINK = { scan: { exact: true } as const, mindSize: 600 };

/**
 * The association graph (docs/design.md §6.8): typed, weighted links between memories of one
 * mind, kept in `memory_associations`, built by libs/jobs AssociationJob with the rules of
 * libs/memory associations.ts, followed by search (RetrievalRepository) and listed by the API.
 */
/**
 * A CTE (`relinked`) for a statement whose CTE `rows` deletes memories (returning `id`): the
 * memories whose own `precedes` / `follows` link points at a deleted one are marked unlinked, so
 * the association job links them to the nearest memory in time that is left (docs/design.md
 * §6.8). Every sub-statement sees the links as they were before the delete's cascade. Links of
 * other relations are only removed: a memory keeps its other similar ones and names.
 */
export function relinkNeighboursSql(tenantId: string) {
  return sql`relinked as (
        update memories set associated_at = null
        where tenant_id = ${tenantId} and associated_at is not null and id in (
          select a.memory_id from memory_associations a
          where a.tenant_id = ${tenantId} and a.target_id in (select id from rows) and a.relation in ('precedes', 'follows')))`;
}

@Injectable()
export class AssociationsRepository {
  /** @param arithmetic how the similarity pass compute distances on this database (retrieval-sql `nearestSql`); absent: PostgreSQL's */
  constructor(@Optional() @Inject(VECTOR_ARITHMETIC) private readonly arithmetic: VectorArithmetic = 'halfvec') {}

  /**
   * Up to `limit` memories whose links are to be built: new or changed content
   * (`associated_at` null) that has its vector, or will not get one. Locked (skipping locked
   * rows), so that two runs of the job do not link the same memory at once; `no key update`, not
   * `update`: the other run's links to these rows take their foreign key's key-share lock, which
   * `for update` blocks (two runs of one tenant deadlocked on each other's batches). In id order, read
   * from memories_unlinked_idx up to the limit (`memories.id`: a bare `id` would be the text
   * output column, and every unlinked memory of the tenant would be sorted for each batch).
   */
  @GenerateSql({ params: [SAMPLE.limit] })
  async unlinked(tx: TenantTx, limit: number): Promise<UnlinkedMemory[]> {
    const { rows } = await sql<UnlinkedMemory>`
      select id::text as id, mind_id::text as mind_id, content, tags from memories
      where tenant_id = ${tx.tenantId} and associated_at is null and embedding_status <> 'pending'
      order by memories.id limit ${limit}
      for no key update skip locked`.execute(tx.trx);
    return rows;
  }

  /**
   * Builds the links of `sources` (memories of one mind), set-based, replacing the ones they had:
   *
   * - `similar_to`: the `per_relation` nearest memories of the mind by cosine similarity of their
   *   vectors, at least `similar_min`, never through a vector of zeros (a text with no word the
   *   embedder knows: "🙂🙂🙂"), whose cosine distance is NaN, which PostgreSQL orders above every
   *   number: such memories were linked at weight 1 to unrelated ones (a newcomer's) (exactly in small minds, one pass over the mind's vectors for
   *   the whole batch; through the HNSW index per source in large ones, `vector_indexed`);
   * - `precedes` / `follows`: the nearest memory before and after in the same temporal context,
   *   weight 1 / gap in positions;
   * - `shares_entity`: up to `per_relation` memories that name one of the source's named things,
   *   counting only names at most `entity_max_share` of the mind holds (at least 2 memories),
   *   weight libs/memory entityWeight (its rarity), the strongest name of each pair kept.
   *
   * Then marks the sources linked. Idempotent: run again, it writes the same links.
   * @returns links written
   */
  @GenerateSql({ params: [M, [{ id: SAMPLE.uuid2, names: ['dgia', 'budget'] }], SAMPLE.config, LINK] })
  async link(tx: TenantTx, mindId: string, sources: readonly LinkSource[], config: LifecycleConfig, options: { scan: VectorScan; mindSize: number }): Promise<number> {
    if (sources.length === 0) return 0;
    const t = tx.tenantId;
    const a = config.associations;
    const ids = sources.map((s) => s.id);
    const pairs = sources.flatMap((s) => s.names.map((name) => [s.id, name] as const));
    const n = Math.max(2, options.mindSize);
    const cap = Math.max(2, Math.floor(a.entity_max_share * n));
    await sql`delete from memory_associations where tenant_id = ${t} and memory_id = any(${ids}::uuid[])`.execute(tx.trx);
    if (!options.scan.exact) await setLocal(tx, { 'hnsw.ef_search': options.scan.efSearch, 'hnsw.iterative_scan': 'relaxed_order' });
    // The exact pass compares as nearestSql's scans do on this database: widened in embedded mode.
    const stored = this.arithmetic === 'vector' ? sql`embedding::vector` : sql`embedding`;
    const similar = options.scan.exact
      ? // Each vector read once (the CTEs below): a stored vector is TOAST (3 KB), and a join of
        // the stored vectors detoasted the mind's again for every source (92,000 buffer reads for
        // 152 × 152 pairs, 73 ms; normalised copies, materialised: 783 and 13 ms; measured before
        // vectors were kept in the row as halfvec, and kept: each is still read once). l2_normalize
        // leaves the cosine distance as it is.
        sql`
        select source, target, 'similar_to'::text as relation, 1 - d as weight, null::text as via from (
          select source, target, d, row_number() over (partition by source order by d, target desc) as rn from (
            select s.id as source, m.id as target, (s.v <=> m.v)::float8 as d
            from src_vectors s join mind_vectors m on m.id <> s.id) pairs) p
        where rn <= ${a.per_relation} and 1 - d >= ${a.similar_min}::float8 and d <> 'NaN'::float8`
      : sql`
        select s.id as source, n.id as target, 'similar_to'::text as relation, 1 - n.score as weight, null::text as via
        from src s cross join lateral (${nearestSql(t, mindId, sql`s.embedding`, sql`id <> s.id`, a.per_relation, false, this.arithmetic)}) n
        where s.embedding is not null and 1 - n.score >= ${a.similar_min}::float8 and n.score <> 'NaN'::float8`;
    // On Citus this is one router query on the tenant's shards only in this shape: tenant_id
    // taken from a co-located table's distribution column (the tenant's row, a primary-key
    // look-up; with the parameter the rows were gathered on the coordinator and sent to every
    // shard), and the CTEs inside the SELECT (an INSERT's own CTEs reach the worker with their
    // table names unrewritten: a nested distributed query there).
    const result = await sql`
      insert into memory_associations (tenant_id, mind_id, memory_id, target_id, relation, weight, via)
      select o.id, ${mindId}, l.source, l.target, l.relation, least(1, greatest(0, l.weight)), l.via
      from tenants o cross join (
        with src as (
          select id, embedding, temporal_context, temporal_position, occurred_at from memories
          where tenant_id = ${t} and mind_id = ${mindId} and id = any(${ids}::uuid[])),
        -- Referenced by the exact pass only (an unreferenced CTE is not run).
        src_vectors as materialized (select id, l2_normalize(${stored}) as v from src where embedding is not null),
        mind_vectors as materialized (
          select id, l2_normalize(${stored}) as v from memories where tenant_id = ${t} and mind_id = ${mindId} and embedding is not null),
        names as (select x.source, x.name from unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::text[]) as x(source, name)),
        -- Each distinct name looked up once (a name is often in several memories of a batch),
        -- materialised: inlined, the look-up ran again for every mention of its ids below.
        looked_up as materialized (
          select d.name, array(select x.id from engram_text_match(${t}, ${mindId}, phraseto_tsquery('english', d.name), ${cap + 1}) x) as ids
          from (select distinct name from names) d where numnode(phraseto_tsquery('english', d.name)) > 0),
        matched as (select n.source, n.name, l.ids from names n join looked_up l on l.name = n.name),
        shared as (
          select distinct on (m.source, x.id) m.source, x.id as target, m.name,
                 ln(${n}::float8 / cardinality(m.ids)) / ln(${n}::float8) as weight
          from matched m cross join unnest(m.ids) as x(id)
          where cardinality(m.ids) between 2 and ${cap} and x.id <> m.source
          order by m.source, x.id, cardinality(m.ids), m.name),
        links as (
          ${similar}
          union all
          -- Equal positions (a message that arrived late with an earlier time, two imports of one
          -- place) are ordered by event time, then id, one position apart at most.
          select s.id, p.id, 'precedes', 1.0 / greatest(1, s.temporal_position - p.temporal_position), null
          from src s cross join lateral (
            select m.id, m.temporal_position from memories m
            where m.tenant_id = ${t} and m.mind_id = ${mindId} and m.temporal_context = s.temporal_context and m.temporal_position <= s.temporal_position
              and (m.temporal_position < s.temporal_position or (m.occurred_at, m.id) < (s.occurred_at, s.id))
            order by m.temporal_position desc, m.occurred_at desc, m.id desc limit 1) p
          where s.temporal_context is not null
          union all
          select s.id, f.id, 'follows', 1.0 / greatest(1, f.temporal_position - s.temporal_position), null
          from src s cross join lateral (
            select m.id, m.temporal_position from memories m
            where m.tenant_id = ${t} and m.mind_id = ${mindId} and m.temporal_context = s.temporal_context and m.temporal_position >= s.temporal_position
              and (m.temporal_position > s.temporal_position or (m.occurred_at, m.id) > (s.occurred_at, s.id))
            order by m.temporal_position, m.occurred_at, m.id limit 1) f
          where s.temporal_context is not null
          union all
          select source, target, 'shares_entity', weight, name from (
            select source, target, weight, name, row_number() over (partition by source order by weight desc, target desc) as rn from shared) r
          where rn <= ${a.per_relation})
        select * from links) l
      where o.id = ${t}
      on conflict do nothing`.execute(tx.trx);
    await sql`update memories set associated_at = now() where tenant_id = ${t} and id = any(${ids}::uuid[])`.execute(tx.trx);
    return Number(result.numAffectedRows ?? 0n);
  }

  /**
   * A page of a memory's links, both directions (a link found from the other memory is shown with
   * its relation as seen from this one; a pair linked both ways once, the stronger), with the
   * memory's `generalisations` (`links`: libs/memory generalisationLinks of its
   * association_graph, weight 1, kept only where the other memory is in the mind; `created`: the
   * memory's created_at), each with the other memory's short view; strongest first, then
   * relation, then the other memory's id, all descending; after `after`; `relation` narrows them
   * to one relation. Reads only (no access recorded).
   */
  @GenerateSql(
    { params: [M, SAMPLE.uuid2, { limit: SAMPLE.limit }] },
    {
      name: 'generalisation links, after a cursor',
      params: [M, SAMPLE.uuid2, { limit: SAMPLE.limit, relation: 'similar_to', after: { weight: 0.5, memory_id: M, relation: 'similar_to' }, generalisations: { links: [{ memory_id: M, relation: 'generalises' }], created: SAMPLE.date } }],
    },
  )
  async list(
    tx: TenantTx,
    mindId: string,
    memoryId: string,
    page: { limit: number; relation?: LinkRelation; after?: AssociationCursor; generalisations?: { links: readonly GeneralisationLink[]; created: Date } },
  ): Promise<AssociationRow[]> {
    const t = tx.tenantId;
    const after = page.after ? sql`and (l.weight, l.relation, l.memory_id) < (${page.after.weight}::float8, ${page.after.relation}::text, ${page.after.memory_id}::uuid)` : sql``;
    const relation = page.relation ? sql`and l.relation = ${page.relation}` : sql``;
    const generalised = page.generalisations?.links ?? [];
    // A generalisation link dates from its semantic memory: the other memory where that is the
    // other one (`generalises`), else this one.
    const linked = generalised.length
      ? sql`
          union all
          select g.memory_id, g.relation, 1::float8, null::text, 'out', case g.relation when 'generalises' then m.created_at else ${page.generalisations!.created}::timestamptz end
          from unnest(${generalised.map((g) => g.memory_id)}::uuid[], ${generalised.map((g) => g.relation)}::text[]) as g(memory_id, relation)
          join memories m on m.tenant_id = ${t} and m.mind_id = ${mindId} and m.id = g.memory_id`
      : sql``;
    // Links stay within a mind: the other memory's row, read in the mind, keeps them there.
    const { rows } = await sql<AssociationRow>`
      select l.memory_id::text as memory_id, l.relation, l.weight, l.via, l.direction, l.created_at,
             o.category, o.key, o.content, o.content_z, o.memory_type, o.occurred_at from (
        select b.other as memory_id, b.relation, b.weight, b.via, b.direction, b.created_at from (${linksBothWays(t, sql`${memoryId}::uuid`)}) b${linked}) l
      join memories o on o.tenant_id = ${t} and o.mind_id = ${mindId} and o.id = l.memory_id
      where true ${relation} ${after}
      order by l.weight desc, l.relation desc, l.memory_id desc
      limit ${page.limit}`.execute(tx.trx);
    return rows;
  }

  /**
   * The mind's graph in two counts: its links, and its memories whose links are not built yet
   * (new or changed, awaiting the association job; those still waiting for a vector included).
   */
  @GenerateSql({ params: [M] })
  async counts(tx: TenantTx, mindId: string): Promise<{ links: number; unlinked: number }> {
    const t = tx.tenantId;
    const { rows } = await sql<{ links: number; unlinked: number }>`
      select (select count(*)::int from memory_associations where tenant_id = ${t} and mind_id = ${mindId}) as links,
             (select count(*)::int from memories where tenant_id = ${t} and mind_id = ${mindId} and associated_at is null) as unlinked`.execute(tx.trx);
    return rows[0] ?? { links: 0, unlinked: 0 };
  }
}
