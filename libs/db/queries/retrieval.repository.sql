-- The SQL of RetrievalRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- RetrievalRepository.startSearch (text)
select
  set_config('enable_seqscan', 'off', true) as seqscan,
  array(
    select distinct
      l
    from
      unnest(
        tsvector_to_array(
          to_tsvector(
            'english',
            engram_cjk_document (engram_search_text (coalesce($1::text, '')))
          )
        )
      ) as l
    order by
      l
  ) as lexemes /* prepared */;

-- RetrievalRepository.startSearch (vector only)
select
  set_config('enable_seqscan', 'off', true) as seqscan,
  array(
    select distinct
      l
    from
      unnest(
        tsvector_to_array(
          to_tsvector(
            'english',
            engram_cjk_document (engram_search_text (coalesce($1::text, '')))
          )
        )
      ) as l
    order by
      l
  ) as lexemes /* prepared */;

-- RetrievalRepository.search (any with a vector, exact)
with
  hits as (
    select
      'text' as branch,
      t.id,
      t.temporal_context,
      t.temporal_position,
      t.score
    from
      (
        with
          idf as (
            select
              *
            from
              unnest($1::text[], $2::float8[], $3::text[]) as i (l, idf, prefix)
          ),
          -- The match goes through engram_text_match (the GIN index; see its migration). An array, so
          -- that the rows are fetched by key (a join would read the whole tenant to hash it).
          capped as (
            select
              array(
                select
                  x.id
                from
                  engram_text_match ($4, $5, $6::tsquery, $7) x
              ) as ids
          ),
          matched as (
            select
              m.id,
              m.temporal_context,
              m.temporal_position,
              m.search_vector,
              length(m.content)::float8 as dl
            from
              memories m
            where
              m.tenant_id = $8
              and m.id = any (
                (
                  select
                    ids
                  from
                    capped
                )::uuid[]
              )
              and m.mind_id = $9
              and (
                (
                  expires_at is null
                  or expires_at > $10::timestamptz
                )
                and category = $11
              )
            union all
            (
              select
                m.id,
                m.temporal_context,
                m.temporal_position,
                m.search_vector,
                length(m.content)::float8 as dl
              from
                memories m
              where
                (
                  select
                    cardinality(ids)
                  from
                    capped
                ) >= $12
                and m.tenant_id = $13
                and m.mind_id = $14
                and (
                  (
                    expires_at is null
                    or expires_at > $15::timestamptz
                  )
                  and category = $16
                )
                and m.search_vector @@ $17::tsquery
                and not (
                  m.id = any (
                    (
                      select
                        ids
                      from
                        capped
                    )::uuid[]
                  )
                )
              limit
                $18
            )
          )
          -- Rounded to 1e-9: the sum's order follows the plan, and equal scores must tie exactly, so
          -- that the id decides between them and the same search answers in the same order.
        select
          m.id,
          m.temporal_context,
          m.temporal_position,
          round(
            sum(
              i.idf * (u.tf * ($19::float8 + 1)) / (
                u.tf + $20::float8 * (
                  1 - $21::float8 + $22::float8 * m.dl / $23::float8
                )
              )
            )::numeric,
            9
          )::float8 as score
        from
          matched m
          cross join lateral (
            select
              lexeme,
              coalesce(array_length(positions, 1), 1)::float8 as tf
            from
              unnest(m.search_vector)
          ) u
          join idf i on i.l = u.lexeme
        group by
          m.id,
          m.temporal_context,
          m.temporal_position
        order by
          score desc,
          m.id desc
        limit
          $24
      ) t
    union all
    select
      'vector' as branch,
      v.id,
      v.temporal_context,
      v.temporal_position,
      v.score
    from
      (
        select
          *
        from
          (
            select
              id,
              temporal_context,
              temporal_position,
              (embedding <=> $25::halfvec)::float8 as score
            from
              memories
            where
              tenant_id = $26
              and mind_id = $27
              and embedding is not null
              and (
                (
                  expires_at is null
                  or expires_at > $28::timestamptz
                )
                and category = $29
              )
            offset
              0
          ) exact
        order by
          score,
          id desc
        limit
          $30
      ) v
    where
      1 - v.score >= $31::float8
  ),
  tops as (
    select distinct
      id
    from
      (
        select
          h.id,
          row_number() over (
            partition by
              h.branch
            order by
              case
                when h.branch = 'text' then - h.score
                else h.score
              end,
              h.id desc
          ) as r
        from
          hits h
      ) x
    where
      r <= $32
  ),
  links as (
    select
      s.id as source,
      l.other as target,
      l.relation,
      l.weight
    from
      tops s
      cross join lateral (
        select
          *
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
                  a.tenant_id = $33
                  and a.memory_id = s.id
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
                  a.tenant_id = $34
                  and a.target_id = s.id
              ) x
            order by
              x.other,
              x.relation,
              x.weight desc,
              x.direction desc
          ) z
        order by
          z.weight desc,
          z.other desc
        limit
          $35
      ) l
  ),
  -- The hits' neighbours' places, the hits' own places left out (a neighbour past the ends of
  -- integer cannot exist).
  slots as (
    select
      h.temporal_context as context,
      (h.temporal_position::bigint + d)::int as position
    from
      hits h
      cross join generate_series($36::int, $37::int) d
    where
      h.temporal_context is not null
      and d <> 0
      and h.temporal_position::bigint + d between -2147483648 and 2147483647
    except
    select
      h.temporal_context,
      h.temporal_position
    from
      hits h
    where
      h.temporal_context is not null
  )
select
  h.branch,
  h.score,
  null::text as source,
  null::text as relation,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $38::float8,
          $39::float8
        ),
        $40::timestamptz
      ),
      1
    )
  end as retention
from
  hits h
  join memories m on m.tenant_id = $41
  and m.id = h.id
union all
select
  null,
  null,
  null,
  null,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $42::float8,
          $43::float8
        ),
        $44::timestamptz
      ),
      1
    )
  end as retention
from
  slots s
  join memories m on m.tenant_id = $45
  and m.mind_id = $46
  and m.temporal_context = s.context
  and m.temporal_position = s.position
where
  (
    (
      expires_at is null
      or expires_at > $47::timestamptz
    )
    and category = $48
  )
  and m.id not in (
    select
      h.id
    from
      hits h
  )
union all
select
  'link',
  l.weight,
  l.source::text,
  l.relation,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $49::float8,
          $50::float8
        ),
        $51::timestamptz
      ),
      1
    )
  end as retention
from
  links l
  join memories m on m.tenant_id = $52
  and m.id = l.target
where
  m.mind_id = $53
  and (
    (
      expires_at is null
      or expires_at > $54::timestamptz
    )
    and category = $55
  ) /* prepared */;

-- RetrievalRepository.search (all, indexed vectors)
set
  local hnsw.ef_search = '100';

set
  local hnsw.iterative_scan = 'relaxed_order';

set
  local enable_sort = 'off';

with
  hits as (
    select
      'text' as branch,
      t.id,
      t.temporal_context,
      t.temporal_position,
      t.score
    from
      (
        with
          idf as (
            select
              *
            from
              unnest($1::text[], $2::float8[], $3::text[]) as i (l, idf, prefix)
          ),
          -- The match goes through engram_text_match (the GIN index; see its migration). An array, so
          -- that the rows are fetched by key (a join would read the whole tenant to hash it).
          capped as (
            select
              array(
                select
                  x.id
                from
                  engram_text_match (
                    $4,
                    $5,
                    regexp_replace(
                      websearch_to_tsquery(
                        'english',
                        engram_cjk_bigrams (engram_search_text ($6))
                      )::text,
                      '''([\uac00-\ud7a3]+)''',
                      '''\1'':*',
                      'g'
                    )::tsquery,
                    $7
                  ) x
              ) as ids
          ),
          matched as (
            select
              m.id,
              m.temporal_context,
              m.temporal_position,
              m.search_vector,
              length(m.content)::float8 as dl
            from
              memories m
            where
              m.tenant_id = $8
              and m.id = any (
                (
                  select
                    ids
                  from
                    capped
                )::uuid[]
              )
              and m.mind_id = $9
              and (
                (
                  expires_at is null
                  or expires_at > $10::timestamptz
                )
                and category = $11
                and search_vector @@ regexp_replace(
                  websearch_to_tsquery(
                    'english',
                    engram_cjk_bigrams (engram_search_text ($12))
                  )::text,
                  '''([\uac00-\ud7a3]+)''',
                  '''\1'':*',
                  'g'
                )::tsquery
              )
            union all
            (
              select
                m.id,
                m.temporal_context,
                m.temporal_position,
                m.search_vector,
                length(m.content)::float8 as dl
              from
                memories m
              where
                (
                  select
                    cardinality(ids)
                  from
                    capped
                ) >= $13
                and m.tenant_id = $14
                and m.mind_id = $15
                and (
                  (
                    expires_at is null
                    or expires_at > $16::timestamptz
                  )
                  and category = $17
                  and search_vector @@ regexp_replace(
                    websearch_to_tsquery(
                      'english',
                      engram_cjk_bigrams (engram_search_text ($18))
                    )::text,
                    '''([\uac00-\ud7a3]+)''',
                    '''\1'':*',
                    'g'
                  )::tsquery
                )
                and m.search_vector @@ regexp_replace(
                  websearch_to_tsquery(
                    'english',
                    engram_cjk_bigrams (engram_search_text ($19))
                  )::text,
                  '''([\uac00-\ud7a3]+)''',
                  '''\1'':*',
                  'g'
                )::tsquery
                and not (
                  m.id = any (
                    (
                      select
                        ids
                      from
                        capped
                    )::uuid[]
                  )
                )
              limit
                $20
            )
          )
          -- Rounded to 1e-9: the sum's order follows the plan, and equal scores must tie exactly, so
          -- that the id decides between them and the same search answers in the same order.
        select
          m.id,
          m.temporal_context,
          m.temporal_position,
          round(
            sum(
              i.idf * (u.tf * ($21::float8 + 1)) / (
                u.tf + $22::float8 * (
                  1 - $23::float8 + $24::float8 * m.dl / $25::float8
                )
              )
            )::numeric,
            9
          )::float8 as score
        from
          matched m
          cross join lateral (
            select
              lexeme,
              coalesce(array_length(positions, 1), 1)::float8 as tf
            from
              unnest(m.search_vector)
          ) u
          join idf i on i.l = u.lexeme
        group by
          m.id,
          m.temporal_context,
          m.temporal_position
        order by
          score desc,
          m.id desc
        limit
          $26
      ) t
    union all
    select
      'vector' as branch,
      v.id,
      v.temporal_context,
      v.temporal_position,
      v.score
    from
      (
        select
          *
        from
          (
            (
              select
                id,
                temporal_context,
                temporal_position,
                (embedding <=> $27::halfvec)::float8 as score
              from
                memories
              where
                tenant_id = $28
                and mind_id = $29
                and embedding is not null
                and (
                  (
                    expires_at is null
                    or expires_at > $30::timestamptz
                  )
                  and category = $31
                  and search_vector @@ regexp_replace(
                    websearch_to_tsquery(
                      'english',
                      engram_cjk_bigrams (engram_search_text ($32))
                    )::text,
                    '''([\uac00-\ud7a3]+)''',
                    '''\1'':*',
                    'g'
                  )::tsquery
                )
                and vector_indexed
              order by
                embedding <=> $33::halfvec
              limit
                $34
            )
            union all
            (
              select
                *
              from
                (
                  select
                    id,
                    temporal_context,
                    temporal_position,
                    (embedding <=> $35::halfvec)::float8 as score
                  from
                    memories
                  where
                    tenant_id = $36
                    and mind_id = $37
                    and embedding is not null
                    and (
                      (
                        expires_at is null
                        or expires_at > $38::timestamptz
                      )
                      and category = $39
                      and search_vector @@ regexp_replace(
                        websearch_to_tsquery(
                          'english',
                          engram_cjk_bigrams (engram_search_text ($40))
                        )::text,
                        '''([\uac00-\ud7a3]+)''',
                        '''\1'':*',
                        'g'
                      )::tsquery
                    )
                    and not vector_indexed
                  offset
                    0
                ) unindexed
              order by
                score,
                id desc
              limit
                $41
            )
          ) nearest
        order by
          score,
          id desc
        limit
          $42
      ) v
    where
      1 - v.score >= $43::float8
  ),
  tops as (
    select distinct
      id
    from
      (
        select
          h.id,
          row_number() over (
            partition by
              h.branch
            order by
              case
                when h.branch = 'text' then - h.score
                else h.score
              end,
              h.id desc
          ) as r
        from
          hits h
      ) x
    where
      r <= $44
  ),
  links as (
    select
      s.id as source,
      l.other as target,
      l.relation,
      l.weight
    from
      tops s
      cross join lateral (
        select
          *
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
                  a.tenant_id = $45
                  and a.memory_id = s.id
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
                  a.tenant_id = $46
                  and a.target_id = s.id
              ) x
            order by
              x.other,
              x.relation,
              x.weight desc,
              x.direction desc
          ) z
        order by
          z.weight desc,
          z.other desc
        limit
          $47
      ) l
  ),
  -- The hits' neighbours' places, the hits' own places left out (a neighbour past the ends of
  -- integer cannot exist).
  slots as (
    select
      h.temporal_context as context,
      (h.temporal_position::bigint + d)::int as position
    from
      hits h
      cross join generate_series($48::int, $49::int) d
    where
      h.temporal_context is not null
      and d <> 0
      and h.temporal_position::bigint + d between -2147483648 and 2147483647
    except
    select
      h.temporal_context,
      h.temporal_position
    from
      hits h
    where
      h.temporal_context is not null
  )
select
  h.branch,
  h.score,
  null::text as source,
  null::text as relation,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $50::float8,
          $51::float8
        ),
        $52::timestamptz
      ),
      1
    )
  end as retention
from
  hits h
  join memories m on m.tenant_id = $53
  and m.id = h.id
union all
select
  null,
  null,
  null,
  null,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $54::float8,
          $55::float8
        ),
        $56::timestamptz
      ),
      1
    )
  end as retention
from
  slots s
  join memories m on m.tenant_id = $57
  and m.mind_id = $58
  and m.temporal_context = s.context
  and m.temporal_position = s.position
where
  (
    (
      expires_at is null
      or expires_at > $59::timestamptz
    )
    and category = $60
    and search_vector @@ regexp_replace(
      websearch_to_tsquery(
        'english',
        engram_cjk_bigrams (engram_search_text ($61))
      )::text,
      '''([\uac00-\ud7a3]+)''',
      '''\1'':*',
      'g'
    )::tsquery
  )
  and m.id not in (
    select
      h.id
    from
      hits h
  )
union all
select
  'link',
  l.weight,
  l.source::text,
  l.relation,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $62::float8,
          $63::float8
        ),
        $64::timestamptz
      ),
      1
    )
  end as retention
from
  links l
  join memories m on m.tenant_id = $65
  and m.id = l.target
where
  m.mind_id = $66
  and (
    (
      expires_at is null
      or expires_at > $67::timestamptz
    )
    and category = $68
    and search_vector @@ regexp_replace(
      websearch_to_tsquery(
        'english',
        engram_cjk_bigrams (engram_search_text ($69))
      )::text,
      '''([\uac00-\ud7a3]+)''',
      '''\1'':*',
      'g'
    )::tsquery
  ) /* prepared */;

-- RetrievalRepository.search (vector only)
set
  local hnsw.ef_search = '100';

set
  local hnsw.iterative_scan = 'relaxed_order';

set
  local enable_sort = 'off';

with
  hits as (
    select
      'vector' as branch,
      v.id,
      v.temporal_context,
      v.temporal_position,
      v.score
    from
      (
        select
          *
        from
          (
            (
              select
                id,
                temporal_context,
                temporal_position,
                (embedding <=> $1::halfvec)::float8 as score
              from
                memories
              where
                tenant_id = $2
                and mind_id = $3
                and embedding is not null
                and (
                  (
                    expires_at is null
                    or expires_at > $4::timestamptz
                  )
                  and category = $5
                )
                and vector_indexed
              order by
                embedding <=> $6::halfvec
              limit
                $7
            )
            union all
            (
              select
                *
              from
                (
                  select
                    id,
                    temporal_context,
                    temporal_position,
                    (embedding <=> $8::halfvec)::float8 as score
                  from
                    memories
                  where
                    tenant_id = $9
                    and mind_id = $10
                    and embedding is not null
                    and (
                      (
                        expires_at is null
                        or expires_at > $11::timestamptz
                      )
                      and category = $12
                    )
                    and not vector_indexed
                  offset
                    0
                ) unindexed
              order by
                score,
                id desc
              limit
                $13
            )
          ) nearest
        order by
          score,
          id desc
        limit
          $14
      ) v
    where
      1 - v.score >= $15::float8
  ),
  tops as (
    select distinct
      id
    from
      (
        select
          h.id,
          row_number() over (
            partition by
              h.branch
            order by
              case
                when h.branch = 'text' then - h.score
                else h.score
              end,
              h.id desc
          ) as r
        from
          hits h
      ) x
    where
      r <= $16
  ),
  links as (
    select
      s.id as source,
      l.other as target,
      l.relation,
      l.weight
    from
      tops s
      cross join lateral (
        select
          *
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
                  a.tenant_id = $17
                  and a.memory_id = s.id
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
                  a.tenant_id = $18
                  and a.target_id = s.id
              ) x
            order by
              x.other,
              x.relation,
              x.weight desc,
              x.direction desc
          ) z
        order by
          z.weight desc,
          z.other desc
        limit
          $19
      ) l
  ),
  -- The hits' neighbours' places, the hits' own places left out (a neighbour past the ends of
  -- integer cannot exist).
  slots as (
    select
      h.temporal_context as context,
      (h.temporal_position::bigint + d)::int as position
    from
      hits h
      cross join generate_series($20::int, $21::int) d
    where
      h.temporal_context is not null
      and d <> 0
      and h.temporal_position::bigint + d between -2147483648 and 2147483647
    except
    select
      h.temporal_context,
      h.temporal_position
    from
      hits h
    where
      h.temporal_context is not null
  )
select
  h.branch,
  h.score,
  null::text as source,
  null::text as relation,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $22::float8,
          $23::float8
        ),
        $24::timestamptz
      ),
      1
    )
  end as retention
from
  hits h
  join memories m on m.tenant_id = $25
  and m.id = h.id
union all
select
  null,
  null,
  null,
  null,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $26::float8,
          $27::float8
        ),
        $28::timestamptz
      ),
      1
    )
  end as retention
from
  slots s
  join memories m on m.tenant_id = $29
  and m.mind_id = $30
  and m.temporal_context = s.context
  and m.temporal_position = s.position
where
  (
    (
      expires_at is null
      or expires_at > $31::timestamptz
    )
    and category = $32
  )
  and m.id not in (
    select
      h.id
    from
      hits h
  )
union all
select
  'link',
  l.weight,
  l.source::text,
  l.relation,
  m.id::text as id,
  m.temporal_context,
  m.temporal_position,
  m.tags,
  m.importance_score,
  m.priority,
  (m.forgotten_at is not null) as forgotten,
  case
    when m.current_retention is null then null
    else coalesce(
      engram_retention_at (
        current_retention,
        retention_at,
        engram_effective_strength (
          strength_days,
          access_count,
          $33::float8,
          $34::float8
        ),
        $35::timestamptz
      ),
      1
    )
  end as retention
from
  links l
  join memories m on m.tenant_id = $36
  and m.id = l.target
where
  m.mind_id = $37
  and (
    (
      expires_at is null
      or expires_at > $38::timestamptz
    )
    and category = $39
  ) /* prepared */;

-- RetrievalRepository.configureScan (exact)
-- (no statement)

-- RetrievalRepository.configureScan (hnsw)
set
  local hnsw.ef_search = '100';

set
  local hnsw.iterative_scan = 'relaxed_order';

set
  local enable_sort = 'off';
