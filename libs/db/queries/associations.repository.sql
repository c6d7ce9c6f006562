-- The SQL of AssociationsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- AssociationsRepository.unlinked
select
  id::text as id,
  mind_id::text as mind_id,
  content,
  tags
from
  memories
where
  tenant_id = $1
  and associated_at is null
  and embedding_status <> 'pending'
order by
  memories.id
limit
  $2
for no key update
  skip locked;

-- AssociationsRepository.link
delete from memory_associations
where
  tenant_id = $1
  and memory_id = any ($2::uuid[]);

insert into
  memory_associations (
    tenant_id,
    mind_id,
    memory_id,
    target_id,
    relation,
    weight,
    via
  )
select
  o.id,
  $1,
  l.source,
  l.target,
  l.relation,
  least(1, greatest(0, l.weight)),
  l.via
from
  tenants o
  cross join (
    with
      src as (
        select
          id,
          embedding,
          temporal_context,
          temporal_position,
          occurred_at
        from
          memories
        where
          tenant_id = $2
          and mind_id = $3
          and id = any ($4::uuid[])
      ),
      -- Referenced by the exact pass only (an unreferenced CTE is not run).
      src_vectors as materialized (
        select
          id,
          l2_normalize (embedding) as v
        from
          src
        where
          embedding is not null
      ),
      mind_vectors as materialized (
        select
          id,
          l2_normalize (embedding) as v
        from
          memories
        where
          tenant_id = $5
          and mind_id = $6
          and embedding is not null
      ),
      names as (
        select
          x.source,
          x.name
        from
          unnest($7::uuid[], $8::text[]) as x (source, name)
      ),
      -- Each distinct name looked up once (a name is often in several memories of a batch),
      -- materialised: inlined, the look-up ran again for every mention of its ids below.
      looked_up as materialized (
        select
          d.name,
          array(
            select
              x.id
            from
              engram_text_match ($9, $10, phraseto_tsquery('english', d.name), $11) x
          ) as ids
        from
          (
            select distinct
              name
            from
              names
          ) d
        where
          numnode(phraseto_tsquery('english', d.name)) > 0
      ),
      matched as (
        select
          n.source,
          n.name,
          l.ids
        from
          names n
          join looked_up l on l.name = n.name
      ),
      shared as (
        select distinct
          on (m.source, x.id) m.source,
          x.id as target,
          m.name,
          ln($12::float8 / cardinality(m.ids)) / ln($13::float8) as weight
        from
          matched m
          cross join unnest(m.ids) as x (id)
        where
          cardinality(m.ids) between 2 and $14
          and x.id <> m.source
        order by
          m.source,
          x.id,
          cardinality(m.ids),
          m.name
      ),
      links as (
        select
          source,
          target,
          'similar_to'::text as relation,
          1 - d as weight,
          null::text as via
        from
          (
            select
              source,
              target,
              d,
              row_number() over (
                partition by
                  source
                order by
                  d,
                  target desc
              ) as rn
            from
              (
                select
                  s.id as source,
                  m.id as target,
                  (s.v <=> m.v)::float8 as d
                from
                  src_vectors s
                  join mind_vectors m on m.id <> s.id
              ) pairs
          ) p
        where
          rn <= $15
          and 1 - d >= $16::float8
          and d <> 'NaN'::float8
        union all
        -- Equal positions (a message that arrived late with an earlier time, two imports of one
        -- place) are ordered by event time, then id, one position apart at most.
        select
          s.id,
          p.id,
          'precedes',
          1.0 / greatest(1, s.temporal_position - p.temporal_position),
          null
        from
          src s
          cross join lateral (
            select
              m.id,
              m.temporal_position
            from
              memories m
            where
              m.tenant_id = $17
              and m.mind_id = $18
              and m.temporal_context = s.temporal_context
              and m.temporal_position <= s.temporal_position
              and (
                m.temporal_position < s.temporal_position
                or (m.occurred_at, m.id) < (s.occurred_at, s.id)
              )
            order by
              m.temporal_position desc,
              m.occurred_at desc,
              m.id desc
            limit
              1
          ) p
        where
          s.temporal_context is not null
        union all
        select
          s.id,
          f.id,
          'follows',
          1.0 / greatest(1, f.temporal_position - s.temporal_position),
          null
        from
          src s
          cross join lateral (
            select
              m.id,
              m.temporal_position
            from
              memories m
            where
              m.tenant_id = $19
              and m.mind_id = $20
              and m.temporal_context = s.temporal_context
              and m.temporal_position >= s.temporal_position
              and (
                m.temporal_position > s.temporal_position
                or (m.occurred_at, m.id) > (s.occurred_at, s.id)
              )
            order by
              m.temporal_position,
              m.occurred_at,
              m.id
            limit
              1
          ) f
        where
          s.temporal_context is not null
        union all
        select
          source,
          target,
          'shares_entity',
          weight,
          name
        from
          (
            select
              source,
              target,
              weight,
              name,
              row_number() over (
                partition by
                  source
                order by
                  weight desc,
                  target desc
              ) as rn
            from
              shared
          ) r
        where
          rn <= $21
      )
    select
      *
    from
      links
  ) l
where
  o.id = $22
on conflict do nothing;

update memories
set
  associated_at = now()
where
  tenant_id = $1
  and id = any ($2::uuid[]);

-- AssociationsRepository.list
select
  l.memory_id::text as memory_id,
  l.relation,
  l.weight,
  l.via,
  l.direction,
  l.created_at,
  o.category,
  o.key,
  o.content,
  o.content_z,
  o.memory_type,
  o.occurred_at
from
  (
    select
      b.other as memory_id,
      b.relation,
      b.weight,
      b.via,
      b.direction,
      b.created_at
    from
      (
        select distinct
          on (x.other, x.relation) x.*
        from
          (
            select
              a.target_id as other,
              a.relation,
              a.weight,
              a.via,
              'out' as direction,
              a.created_at
            from
              memory_associations a
            where
              a.tenant_id = $1
              and a.memory_id = $2::uuid
            union all
            select
              a.memory_id,
              case a.relation
                when 'precedes' then 'follows'
                when 'follows' then 'precedes'
                when 'causes' then 'effects'
                when 'effects' then 'causes'
                else a.relation
              end,
              a.weight,
              a.via,
              'in',
              a.created_at
            from
              memory_associations a
            where
              a.tenant_id = $3
              and a.target_id = $4::uuid
          ) x
        order by
          x.other,
          x.relation,
          x.weight desc,
          x.direction desc
      ) b
  ) l
  join memories o on o.tenant_id = $5
  and o.mind_id = $6
  and o.id = l.memory_id
where
  true
order by
  l.weight desc,
  l.relation desc,
  l.memory_id desc
limit
  $7;

-- AssociationsRepository.list (generalisation links, after a cursor)
select
  l.memory_id::text as memory_id,
  l.relation,
  l.weight,
  l.via,
  l.direction,
  l.created_at,
  o.category,
  o.key,
  o.content,
  o.content_z,
  o.memory_type,
  o.occurred_at
from
  (
    select
      b.other as memory_id,
      b.relation,
      b.weight,
      b.via,
      b.direction,
      b.created_at
    from
      (
        select distinct
          on (x.other, x.relation) x.*
        from
          (
            select
              a.target_id as other,
              a.relation,
              a.weight,
              a.via,
              'out' as direction,
              a.created_at
            from
              memory_associations a
            where
              a.tenant_id = $1
              and a.memory_id = $2::uuid
            union all
            select
              a.memory_id,
              case a.relation
                when 'precedes' then 'follows'
                when 'follows' then 'precedes'
                when 'causes' then 'effects'
                when 'effects' then 'causes'
                else a.relation
              end,
              a.weight,
              a.via,
              'in',
              a.created_at
            from
              memory_associations a
            where
              a.tenant_id = $3
              and a.target_id = $4::uuid
          ) x
        order by
          x.other,
          x.relation,
          x.weight desc,
          x.direction desc
      ) b
    union all
    select
      g.memory_id,
      g.relation,
      1::float8,
      null::text,
      'out',
      case g.relation
        when 'generalises' then m.created_at
        else $5::timestamptz
      end
    from
      unnest($6::uuid[], $7::text[]) as g (memory_id, relation)
      join memories m on m.tenant_id = $8
      and m.mind_id = $9
      and m.id = g.memory_id
  ) l
  join memories o on o.tenant_id = $10
  and o.mind_id = $11
  and o.id = l.memory_id
where
  true
  and l.relation = $12
  and (l.weight, l.relation, l.memory_id) < ($13::float8, $14::text, $15::uuid)
order by
  l.weight desc,
  l.relation desc,
  l.memory_id desc
limit
  $16;

-- AssociationsRepository.counts
select
  (
    select
      count(*)::int
    from
      memory_associations
    where
      tenant_id = $1
      and mind_id = $2
  ) as links,
  (
    select
      count(*)::int
    from
      memories
    where
      tenant_id = $3
      and mind_id = $4
      and associated_at is null
  ) as unlinked;
