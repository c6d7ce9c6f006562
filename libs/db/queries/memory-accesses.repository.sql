-- The SQL of MemoryAccessesRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MemoryAccessesRepository.recordAccess
update memories m
set
  (
    "access_count",
    "last_accessed",
    "current_retention",
    "retention_at",
    "review_count",
    "last_reviewed",
    "next_review",
    "layer",
    "strength_days",
    "forgotten_at",
    "tier",
    "embedding_status",
    "embedding_attempts"
  ) = (
    select
      least(access_count::bigint + 1, 2147483647)::int,
      $1::timestamptz,
      (
        case
          when current_retention is null
          or strength_days is null then current_retention
          else s5.a_revived_r
        end
      ),
      (
        case
          when current_retention is null then retention_at
          else $2::timestamptz
        end
      ),
      least(
        review_count::bigint + (
          case
            when s1.a_due then 1
            else 0
          end
        ),
        2147483647
      )::int,
      (
        case
          when s1.a_due then $3::timestamptz
          else last_reviewed
        end
      ),
      s2.a_next_review,
      (
        case
          when s1.a_promote then (
            case
              when layer = 'working' then 'short_term'
              else 'long_term'
            end
          )
          else layer
        end
      ),
      (
        case
          when strength_days is null then null
          when current_retention is null then s2.a_promoted
          else s5.a_revived_s
        end
      ),
      (
        case
          when current_retention is not null
          and strength_days is not null
          and s5.a_revived_r >= $4::float8 then null
          else forgotten_at
        end
      ),
      (
        case
          when tier = 'archive' then 'warm'
          else tier
        end
      ),
      (
        case
          when tier = 'archive'
          and embedding_status = 'archived' then 'pending'
          else embedding_status
        end
      ),
      (
        case
          when tier = 'archive'
          and embedding_status = 'archived' then 0
          else embedding_attempts
        end
      )
    from
      (
        select
          coalesce(
            engram_retention_at (
              current_retention,
              retention_at,
              engram_effective_strength (
                strength_days,
                access_count,
                $5::float8,
                $6::float8
              ),
              $7::timestamptz
            ),
            1
          ) as a_r_now,
          (
            next_review is not null
            and $8::timestamptz >= next_review
          ) as a_due,
          (
            layer <> 'long_term'
            and (
              access_count + 1 >= $9::int
              or $10::timestamptz - least(occurred_at, created_at) > make_interval(secs => $11::float8)
              or coalesce(importance_score, 0) >= $12::float8
            )
          ) as a_promote
        offset
          0
      ) s1
      cross join lateral (
        select
          (
            case
              when s1.a_due then least(1, s1.a_r_now + $13::float8 * (1 - s1.a_r_now))
              else s1.a_r_now
            end
          ) as a_new_r,
          (
            case
              when s1.a_promote then round(
                (
                  strength_days * (
                    case
                      when layer = 'working' then $14::float8
                      else $15::float8
                    end
                  )
                )::numeric,
                12
              )::float8
              else strength_days
            end
          ) as a_promoted,
          (
            case
              when s1.a_due then engram_next_review_after (review_schedule, $16::timestamptz)
              else next_review
            end
          ) as a_next_review
        offset
          0
      ) s2
      cross join lateral (
        select
          (
            case
              when s2.a_next_review is not null then greatest(
                0,
                extract(
                  epoch
                  from
                    (s2.a_next_review - $17::timestamptz)
                ) / 3600.0
              )
              else greatest(
                $18::float8,
                $19::float8 * (
                  1 - (
                    case
                      when importance_score > 1e-300 then importance_score
                      else 0
                    end
                  ) * $20::float8
                )
              )
            end
          ) as a_horizon,
          (
            engram_effective_strength (
              s2.a_promoted,
              least(access_count::bigint + 1, 2147483647)::int,
              $21::float8,
              $22::float8
            ) / s2.a_promoted
          ) as a_factor
        offset
          0
      ) s3
      cross join lateral (
        select
          (
            $23::float8 * exp(
              least(
                s3.a_horizon / (24 * s2.a_promoted * s3.a_factor),
                50
              )
            )
          ) as a_needed,
          (
            $24::float8 > 0
            and (
              s1.a_r_now < $25::float8
              or forgotten_at is not null
            )
          ) as a_below
        offset
          0
      ) s4
      cross join lateral (
        select
          (
            case
              when not s4.a_below then s2.a_new_r
              when s4.a_needed <= 1 then greatest(s2.a_new_r, s4.a_needed)
              else 1
            end
          ) as a_revived_r,
          (
            case
              when s4.a_below
              and s4.a_needed > 1 then greatest(
                s2.a_promoted,
                round(
                  (s3.a_horizon / (24 * $26::float8) / s3.a_factor)::numeric,
                  12
                )::float8
              )
              else s2.a_promoted
            end
          ) as a_revived_s
        offset
          0
      ) s5
  )
where
  m.tenant_id = $27
  and m.mind_id = $28
  and m.id = any ($29::uuid[])
returning
  "m"."id",
  "m"."mind_id",
  "m"."category",
  "m"."key",
  "m"."content",
  "m"."tags",
  "m"."priority",
  "m"."source",
  "m"."verified",
  "m"."confidence",
  "m"."expires_at",
  "m"."occurred_at",
  "m"."restated_at",
  "m"."created_at",
  "m"."updated_at",
  "m"."version",
  "m"."memory_type",
  "m"."layer",
  "m"."importance_score",
  "m"."initial_retention",
  "m"."current_retention",
  "m"."strength_days",
  "m"."last_reviewed",
  "m"."review_schedule",
  "m"."next_review",
  "m"."review_count",
  "m"."access_count",
  "m"."last_accessed",
  "m"."consolidation_score",
  "m"."forgotten_at",
  "m"."storage_location",
  "m"."tier",
  "m"."payload",
  "m"."association_graph",
  "m"."semantic_tags",
  "m"."temporal_position",
  "m"."temporal_context",
  "m"."source_refs",
  "m"."content_hash",
  "m"."embedding_model",
  "m"."retention_at",
  "m"."importance_source",
  "m"."emotional_weight",
  "m"."hippocampus_dependency",
  "m"."synaptic_consolidated",
  "m"."embedding_status",
  "m"."embedded_at",
  "m"."compacted",
  "m"."content_z" /* prepared */;

-- MemoryAccessesRepository.accessStates
select
  "id",
  "layer",
  "priority",
  "importance_score",
  "current_retention",
  "retention_at",
  "strength_days",
  "access_count",
  "last_accessed",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "forgotten_at",
  "occurred_at",
  "created_at",
  "tier",
  "embedding_status"
from
  "memories"
where
  "tenant_id" = $1
  and id = any ($2::uuid[])
for no key update
  /* prepared */;

-- MemoryAccessesRepository.writeAccesses
update memories m
set
  access_count = v.access_count,
  last_accessed = v.last_accessed,
  current_retention = v.current_retention,
  retention_at = v.retention_at,
  review_count = v.review_count,
  last_reviewed = v.last_reviewed,
  next_review = v.next_review,
  layer = v.layer,
  strength_days = v.strength_days,
  forgotten_at = v.forgotten_at,
  tier = v.tier,
  embedding_status = v.embedding_status,
  embedding_attempts = (
    case
      when m.embedding_status = 'archived'
      and v.embedding_status = 'pending' then 0
      else m.embedding_attempts
    end
  )
from
  unnest(
    $1::uuid[],
    $2::int[],
    $3::timestamptz[],
    $4::float8[],
    $5::timestamptz[],
    $6::int[],
    $7::timestamptz[],
    $8::timestamptz[],
    $9::text[],
    $10::float8[],
    $11::timestamptz[],
    $12::text[],
    $13::text[]
  ) as v (
    id,
    access_count,
    last_accessed,
    current_retention,
    retention_at,
    review_count,
    last_reviewed,
    next_review,
    layer,
    strength_days,
    forgotten_at,
    tier,
    embedding_status
  )
  -- id = any(ids) as well as the join: the rows are then found by primary key whatever the
  -- planner estimates of the batch.
where
  m.tenant_id = $14
  and m.id = any ($15::uuid[])
  and m.id = v.id /* prepared */;
