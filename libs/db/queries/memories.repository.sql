-- The SQL of MemoriesRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MemoriesRepository.insertIfAbsent
insert into
  "memories" (
    "id",
    "mind_id",
    "category",
    "key",
    "content",
    "content_hash",
    "source",
    "confidence",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7, $8, $9)
on conflict ("tenant_id", "mind_id", "category", "key") do nothing
returning
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z";

-- MemoriesRepository.insertMany
insert into
  "memories" (
    "id",
    "mind_id",
    "category",
    "key",
    "content",
    "content_hash",
    "source",
    "confidence",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- MemoriesRepository.findByKeyForUpdate
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "category" = $3
  and "key" = $4
for update;

-- MemoriesRepository.findByKeysForUpdate
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and (mind_id, category, key) in (
    select
      *
    from
      unnest($2::uuid[], $3::text[], $4::text[])
  )
for update;

-- MemoriesRepository.takenIds
select
  "id"
from
  "memories"
where
  "tenant_id" = $1
  and "id" in ($2);

-- MemoriesRepository.findById (plain)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3;

-- MemoriesRepository.findById (for update)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3
for update;

-- MemoriesRepository.findByIds
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" in ($3, $4);

-- MemoriesRepository.update
update "memories"
set
  "content" = $1,
  "version" = $2
where
  "tenant_id" = $3
  and "mind_id" = $4
  and "id" = $5
returning
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z";

-- MemoriesRepository.recordAccess
update "memories"
set
  "access_count" = least(access_count::bigint + 1, 2147483647)::int,
  "last_accessed" = $1::timestamptz,
  "current_retention" = (
    case
      when current_retention is null
      or strength_days is null then current_retention
      else (
        case
          when not (
            $2::float8 > 0
            and (
              coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $3::float8,
                    $4::float8
                  ),
                  $5::timestamptz
                ),
                1
              ) < $6::float8
              or forgotten_at is not null
            )
          ) then (
            case
              when (
                next_review is not null
                and $7::timestamptz >= next_review
              ) then least(
                1,
                coalesce(
                  engram_retention_at (
                    current_retention,
                    retention_at,
                    engram_effective_strength (
                      strength_days,
                      access_count,
                      $8::float8,
                      $9::float8
                    ),
                    $10::timestamptz
                  ),
                  1
                ) + $11::float8 * (
                  1 - coalesce(
                    engram_retention_at (
                      current_retention,
                      retention_at,
                      engram_effective_strength (
                        strength_days,
                        access_count,
                        $12::float8,
                        $13::float8
                      ),
                      $14::timestamptz
                    ),
                    1
                  )
                )
              )
              else coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $15::float8,
                    $16::float8
                  ),
                  $17::timestamptz
                ),
                1
              )
            end
          )
          when (
            $18::float8 * exp(
              least(
                (
                  case
                    when (
                      case
                        when (
                          next_review is not null
                          and $19::timestamptz >= next_review
                        ) then engram_next_review_after (review_schedule, $20::timestamptz)
                        else next_review
                      end
                    ) is not null then greatest(
                      0,
                      extract(
                        epoch
                        from
                          (
                            (
                              case
                                when (
                                  next_review is not null
                                  and $21::timestamptz >= next_review
                                ) then engram_next_review_after (review_schedule, $22::timestamptz)
                                else next_review
                              end
                            ) - $23::timestamptz
                          )
                      ) / 3600.0
                    )
                    else greatest(
                      $24::float8,
                      $25::float8 * (
                        1 - (
                          case
                            when importance_score > 1e-300 then importance_score
                            else 0
                          end
                        ) * $26::float8
                      )
                    )
                  end
                ) / (
                  24 * (
                    case
                      when (
                        layer <> 'long_term'
                        and (
                          access_count + 1 >= $27::int
                          or $28::timestamptz - least(occurred_at, created_at) > make_interval(secs => $29::float8)
                          or coalesce(importance_score, 0) >= $30::float8
                        )
                      ) then round(
                        (
                          strength_days * (
                            case
                              when layer = 'working' then $31::float8
                              else $32::float8
                            end
                          )
                        )::numeric,
                        12
                      )::float8
                      else strength_days
                    end
                  ) * (
                    engram_effective_strength (
                      (
                        case
                          when (
                            layer <> 'long_term'
                            and (
                              access_count + 1 >= $33::int
                              or $34::timestamptz - least(occurred_at, created_at) > make_interval(secs => $35::float8)
                              or coalesce(importance_score, 0) >= $36::float8
                            )
                          ) then round(
                            (
                              strength_days * (
                                case
                                  when layer = 'working' then $37::float8
                                  else $38::float8
                                end
                              )
                            )::numeric,
                            12
                          )::float8
                          else strength_days
                        end
                      ),
                      least(access_count::bigint + 1, 2147483647)::int,
                      $39::float8,
                      $40::float8
                    ) / (
                      case
                        when (
                          layer <> 'long_term'
                          and (
                            access_count + 1 >= $41::int
                            or $42::timestamptz - least(occurred_at, created_at) > make_interval(secs => $43::float8)
                            or coalesce(importance_score, 0) >= $44::float8
                          )
                        ) then round(
                          (
                            strength_days * (
                              case
                                when layer = 'working' then $45::float8
                                else $46::float8
                              end
                            )
                          )::numeric,
                          12
                        )::float8
                        else strength_days
                      end
                    )
                  )
                ),
                50
              )
            )
          ) <= 1 then greatest(
            (
              case
                when (
                  next_review is not null
                  and $47::timestamptz >= next_review
                ) then least(
                  1,
                  coalesce(
                    engram_retention_at (
                      current_retention,
                      retention_at,
                      engram_effective_strength (
                        strength_days,
                        access_count,
                        $48::float8,
                        $49::float8
                      ),
                      $50::timestamptz
                    ),
                    1
                  ) + $51::float8 * (
                    1 - coalesce(
                      engram_retention_at (
                        current_retention,
                        retention_at,
                        engram_effective_strength (
                          strength_days,
                          access_count,
                          $52::float8,
                          $53::float8
                        ),
                        $54::timestamptz
                      ),
                      1
                    )
                  )
                )
                else coalesce(
                  engram_retention_at (
                    current_retention,
                    retention_at,
                    engram_effective_strength (
                      strength_days,
                      access_count,
                      $55::float8,
                      $56::float8
                    ),
                    $57::timestamptz
                  ),
                  1
                )
              end
            ),
            (
              $58::float8 * exp(
                least(
                  (
                    case
                      when (
                        case
                          when (
                            next_review is not null
                            and $59::timestamptz >= next_review
                          ) then engram_next_review_after (review_schedule, $60::timestamptz)
                          else next_review
                        end
                      ) is not null then greatest(
                        0,
                        extract(
                          epoch
                          from
                            (
                              (
                                case
                                  when (
                                    next_review is not null
                                    and $61::timestamptz >= next_review
                                  ) then engram_next_review_after (review_schedule, $62::timestamptz)
                                  else next_review
                                end
                              ) - $63::timestamptz
                            )
                        ) / 3600.0
                      )
                      else greatest(
                        $64::float8,
                        $65::float8 * (
                          1 - (
                            case
                              when importance_score > 1e-300 then importance_score
                              else 0
                            end
                          ) * $66::float8
                        )
                      )
                    end
                  ) / (
                    24 * (
                      case
                        when (
                          layer <> 'long_term'
                          and (
                            access_count + 1 >= $67::int
                            or $68::timestamptz - least(occurred_at, created_at) > make_interval(secs => $69::float8)
                            or coalesce(importance_score, 0) >= $70::float8
                          )
                        ) then round(
                          (
                            strength_days * (
                              case
                                when layer = 'working' then $71::float8
                                else $72::float8
                              end
                            )
                          )::numeric,
                          12
                        )::float8
                        else strength_days
                      end
                    ) * (
                      engram_effective_strength (
                        (
                          case
                            when (
                              layer <> 'long_term'
                              and (
                                access_count + 1 >= $73::int
                                or $74::timestamptz - least(occurred_at, created_at) > make_interval(secs => $75::float8)
                                or coalesce(importance_score, 0) >= $76::float8
                              )
                            ) then round(
                              (
                                strength_days * (
                                  case
                                    when layer = 'working' then $77::float8
                                    else $78::float8
                                  end
                                )
                              )::numeric,
                              12
                            )::float8
                            else strength_days
                          end
                        ),
                        least(access_count::bigint + 1, 2147483647)::int,
                        $79::float8,
                        $80::float8
                      ) / (
                        case
                          when (
                            layer <> 'long_term'
                            and (
                              access_count + 1 >= $81::int
                              or $82::timestamptz - least(occurred_at, created_at) > make_interval(secs => $83::float8)
                              or coalesce(importance_score, 0) >= $84::float8
                            )
                          ) then round(
                            (
                              strength_days * (
                                case
                                  when layer = 'working' then $85::float8
                                  else $86::float8
                                end
                              )
                            )::numeric,
                            12
                          )::float8
                          else strength_days
                        end
                      )
                    )
                  ),
                  50
                )
              )
            )
          )
          else 1
        end
      )
    end
  ),
  "retention_at" = (
    case
      when current_retention is null then retention_at
      else $87::timestamptz
    end
  ),
  "review_count" = least(
    review_count::bigint + (
      case
        when (
          next_review is not null
          and $88::timestamptz >= next_review
        ) then 1
        else 0
      end
    ),
    2147483647
  )::int,
  "last_reviewed" = (
    case
      when (
        next_review is not null
        and $89::timestamptz >= next_review
      ) then $90::timestamptz
      else last_reviewed
    end
  ),
  "next_review" = (
    case
      when (
        next_review is not null
        and $91::timestamptz >= next_review
      ) then engram_next_review_after (review_schedule, $92::timestamptz)
      else next_review
    end
  ),
  "layer" = (
    case
      when (
        layer <> 'long_term'
        and (
          access_count + 1 >= $93::int
          or $94::timestamptz - least(occurred_at, created_at) > make_interval(secs => $95::float8)
          or coalesce(importance_score, 0) >= $96::float8
        )
      ) then (
        case
          when layer = 'working' then 'short_term'
          else 'long_term'
        end
      )
      else layer
    end
  ),
  "strength_days" = (
    case
      when strength_days is null then null
      when current_retention is null then (
        case
          when (
            layer <> 'long_term'
            and (
              access_count + 1 >= $97::int
              or $98::timestamptz - least(occurred_at, created_at) > make_interval(secs => $99::float8)
              or coalesce(importance_score, 0) >= $100::float8
            )
          ) then round(
            (
              strength_days * (
                case
                  when layer = 'working' then $101::float8
                  else $102::float8
                end
              )
            )::numeric,
            12
          )::float8
          else strength_days
        end
      )
      else (
        case
          when (
            $103::float8 > 0
            and (
              coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $104::float8,
                    $105::float8
                  ),
                  $106::timestamptz
                ),
                1
              ) < $107::float8
              or forgotten_at is not null
            )
          )
          and (
            $108::float8 * exp(
              least(
                (
                  case
                    when (
                      case
                        when (
                          next_review is not null
                          and $109::timestamptz >= next_review
                        ) then engram_next_review_after (review_schedule, $110::timestamptz)
                        else next_review
                      end
                    ) is not null then greatest(
                      0,
                      extract(
                        epoch
                        from
                          (
                            (
                              case
                                when (
                                  next_review is not null
                                  and $111::timestamptz >= next_review
                                ) then engram_next_review_after (review_schedule, $112::timestamptz)
                                else next_review
                              end
                            ) - $113::timestamptz
                          )
                      ) / 3600.0
                    )
                    else greatest(
                      $114::float8,
                      $115::float8 * (
                        1 - (
                          case
                            when importance_score > 1e-300 then importance_score
                            else 0
                          end
                        ) * $116::float8
                      )
                    )
                  end
                ) / (
                  24 * (
                    case
                      when (
                        layer <> 'long_term'
                        and (
                          access_count + 1 >= $117::int
                          or $118::timestamptz - least(occurred_at, created_at) > make_interval(secs => $119::float8)
                          or coalesce(importance_score, 0) >= $120::float8
                        )
                      ) then round(
                        (
                          strength_days * (
                            case
                              when layer = 'working' then $121::float8
                              else $122::float8
                            end
                          )
                        )::numeric,
                        12
                      )::float8
                      else strength_days
                    end
                  ) * (
                    engram_effective_strength (
                      (
                        case
                          when (
                            layer <> 'long_term'
                            and (
                              access_count + 1 >= $123::int
                              or $124::timestamptz - least(occurred_at, created_at) > make_interval(secs => $125::float8)
                              or coalesce(importance_score, 0) >= $126::float8
                            )
                          ) then round(
                            (
                              strength_days * (
                                case
                                  when layer = 'working' then $127::float8
                                  else $128::float8
                                end
                              )
                            )::numeric,
                            12
                          )::float8
                          else strength_days
                        end
                      ),
                      least(access_count::bigint + 1, 2147483647)::int,
                      $129::float8,
                      $130::float8
                    ) / (
                      case
                        when (
                          layer <> 'long_term'
                          and (
                            access_count + 1 >= $131::int
                            or $132::timestamptz - least(occurred_at, created_at) > make_interval(secs => $133::float8)
                            or coalesce(importance_score, 0) >= $134::float8
                          )
                        ) then round(
                          (
                            strength_days * (
                              case
                                when layer = 'working' then $135::float8
                                else $136::float8
                              end
                            )
                          )::numeric,
                          12
                        )::float8
                        else strength_days
                      end
                    )
                  )
                ),
                50
              )
            )
          ) > 1 then greatest(
            (
              case
                when (
                  layer <> 'long_term'
                  and (
                    access_count + 1 >= $137::int
                    or $138::timestamptz - least(occurred_at, created_at) > make_interval(secs => $139::float8)
                    or coalesce(importance_score, 0) >= $140::float8
                  )
                ) then round(
                  (
                    strength_days * (
                      case
                        when layer = 'working' then $141::float8
                        else $142::float8
                      end
                    )
                  )::numeric,
                  12
                )::float8
                else strength_days
              end
            ),
            round(
              (
                (
                  case
                    when (
                      case
                        when (
                          next_review is not null
                          and $143::timestamptz >= next_review
                        ) then engram_next_review_after (review_schedule, $144::timestamptz)
                        else next_review
                      end
                    ) is not null then greatest(
                      0,
                      extract(
                        epoch
                        from
                          (
                            (
                              case
                                when (
                                  next_review is not null
                                  and $145::timestamptz >= next_review
                                ) then engram_next_review_after (review_schedule, $146::timestamptz)
                                else next_review
                              end
                            ) - $147::timestamptz
                          )
                      ) / 3600.0
                    )
                    else greatest(
                      $148::float8,
                      $149::float8 * (
                        1 - (
                          case
                            when importance_score > 1e-300 then importance_score
                            else 0
                          end
                        ) * $150::float8
                      )
                    )
                  end
                ) / (24 * $151::float8) / (
                  engram_effective_strength (
                    (
                      case
                        when (
                          layer <> 'long_term'
                          and (
                            access_count + 1 >= $152::int
                            or $153::timestamptz - least(occurred_at, created_at) > make_interval(secs => $154::float8)
                            or coalesce(importance_score, 0) >= $155::float8
                          )
                        ) then round(
                          (
                            strength_days * (
                              case
                                when layer = 'working' then $156::float8
                                else $157::float8
                              end
                            )
                          )::numeric,
                          12
                        )::float8
                        else strength_days
                      end
                    ),
                    least(access_count::bigint + 1, 2147483647)::int,
                    $158::float8,
                    $159::float8
                  ) / (
                    case
                      when (
                        layer <> 'long_term'
                        and (
                          access_count + 1 >= $160::int
                          or $161::timestamptz - least(occurred_at, created_at) > make_interval(secs => $162::float8)
                          or coalesce(importance_score, 0) >= $163::float8
                        )
                      ) then round(
                        (
                          strength_days * (
                            case
                              when layer = 'working' then $164::float8
                              else $165::float8
                            end
                          )
                        )::numeric,
                        12
                      )::float8
                      else strength_days
                    end
                  )
                )
              )::numeric,
              12
            )::float8
          )
          else (
            case
              when (
                layer <> 'long_term'
                and (
                  access_count + 1 >= $166::int
                  or $167::timestamptz - least(occurred_at, created_at) > make_interval(secs => $168::float8)
                  or coalesce(importance_score, 0) >= $169::float8
                )
              ) then round(
                (
                  strength_days * (
                    case
                      when layer = 'working' then $170::float8
                      else $171::float8
                    end
                  )
                )::numeric,
                12
              )::float8
              else strength_days
            end
          )
        end
      )
    end
  ),
  "forgotten_at" = (
    case
      when current_retention is not null
      and strength_days is not null
      and (
        case
          when not (
            $172::float8 > 0
            and (
              coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $173::float8,
                    $174::float8
                  ),
                  $175::timestamptz
                ),
                1
              ) < $176::float8
              or forgotten_at is not null
            )
          ) then (
            case
              when (
                next_review is not null
                and $177::timestamptz >= next_review
              ) then least(
                1,
                coalesce(
                  engram_retention_at (
                    current_retention,
                    retention_at,
                    engram_effective_strength (
                      strength_days,
                      access_count,
                      $178::float8,
                      $179::float8
                    ),
                    $180::timestamptz
                  ),
                  1
                ) + $181::float8 * (
                  1 - coalesce(
                    engram_retention_at (
                      current_retention,
                      retention_at,
                      engram_effective_strength (
                        strength_days,
                        access_count,
                        $182::float8,
                        $183::float8
                      ),
                      $184::timestamptz
                    ),
                    1
                  )
                )
              )
              else coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $185::float8,
                    $186::float8
                  ),
                  $187::timestamptz
                ),
                1
              )
            end
          )
          when (
            $188::float8 * exp(
              least(
                (
                  case
                    when (
                      case
                        when (
                          next_review is not null
                          and $189::timestamptz >= next_review
                        ) then engram_next_review_after (review_schedule, $190::timestamptz)
                        else next_review
                      end
                    ) is not null then greatest(
                      0,
                      extract(
                        epoch
                        from
                          (
                            (
                              case
                                when (
                                  next_review is not null
                                  and $191::timestamptz >= next_review
                                ) then engram_next_review_after (review_schedule, $192::timestamptz)
                                else next_review
                              end
                            ) - $193::timestamptz
                          )
                      ) / 3600.0
                    )
                    else greatest(
                      $194::float8,
                      $195::float8 * (
                        1 - (
                          case
                            when importance_score > 1e-300 then importance_score
                            else 0
                          end
                        ) * $196::float8
                      )
                    )
                  end
                ) / (
                  24 * (
                    case
                      when (
                        layer <> 'long_term'
                        and (
                          access_count + 1 >= $197::int
                          or $198::timestamptz - least(occurred_at, created_at) > make_interval(secs => $199::float8)
                          or coalesce(importance_score, 0) >= $200::float8
                        )
                      ) then round(
                        (
                          strength_days * (
                            case
                              when layer = 'working' then $201::float8
                              else $202::float8
                            end
                          )
                        )::numeric,
                        12
                      )::float8
                      else strength_days
                    end
                  ) * (
                    engram_effective_strength (
                      (
                        case
                          when (
                            layer <> 'long_term'
                            and (
                              access_count + 1 >= $203::int
                              or $204::timestamptz - least(occurred_at, created_at) > make_interval(secs => $205::float8)
                              or coalesce(importance_score, 0) >= $206::float8
                            )
                          ) then round(
                            (
                              strength_days * (
                                case
                                  when layer = 'working' then $207::float8
                                  else $208::float8
                                end
                              )
                            )::numeric,
                            12
                          )::float8
                          else strength_days
                        end
                      ),
                      least(access_count::bigint + 1, 2147483647)::int,
                      $209::float8,
                      $210::float8
                    ) / (
                      case
                        when (
                          layer <> 'long_term'
                          and (
                            access_count + 1 >= $211::int
                            or $212::timestamptz - least(occurred_at, created_at) > make_interval(secs => $213::float8)
                            or coalesce(importance_score, 0) >= $214::float8
                          )
                        ) then round(
                          (
                            strength_days * (
                              case
                                when layer = 'working' then $215::float8
                                else $216::float8
                              end
                            )
                          )::numeric,
                          12
                        )::float8
                        else strength_days
                      end
                    )
                  )
                ),
                50
              )
            )
          ) <= 1 then greatest(
            (
              case
                when (
                  next_review is not null
                  and $217::timestamptz >= next_review
                ) then least(
                  1,
                  coalesce(
                    engram_retention_at (
                      current_retention,
                      retention_at,
                      engram_effective_strength (
                        strength_days,
                        access_count,
                        $218::float8,
                        $219::float8
                      ),
                      $220::timestamptz
                    ),
                    1
                  ) + $221::float8 * (
                    1 - coalesce(
                      engram_retention_at (
                        current_retention,
                        retention_at,
                        engram_effective_strength (
                          strength_days,
                          access_count,
                          $222::float8,
                          $223::float8
                        ),
                        $224::timestamptz
                      ),
                      1
                    )
                  )
                )
                else coalesce(
                  engram_retention_at (
                    current_retention,
                    retention_at,
                    engram_effective_strength (
                      strength_days,
                      access_count,
                      $225::float8,
                      $226::float8
                    ),
                    $227::timestamptz
                  ),
                  1
                )
              end
            ),
            (
              $228::float8 * exp(
                least(
                  (
                    case
                      when (
                        case
                          when (
                            next_review is not null
                            and $229::timestamptz >= next_review
                          ) then engram_next_review_after (review_schedule, $230::timestamptz)
                          else next_review
                        end
                      ) is not null then greatest(
                        0,
                        extract(
                          epoch
                          from
                            (
                              (
                                case
                                  when (
                                    next_review is not null
                                    and $231::timestamptz >= next_review
                                  ) then engram_next_review_after (review_schedule, $232::timestamptz)
                                  else next_review
                                end
                              ) - $233::timestamptz
                            )
                        ) / 3600.0
                      )
                      else greatest(
                        $234::float8,
                        $235::float8 * (
                          1 - (
                            case
                              when importance_score > 1e-300 then importance_score
                              else 0
                            end
                          ) * $236::float8
                        )
                      )
                    end
                  ) / (
                    24 * (
                      case
                        when (
                          layer <> 'long_term'
                          and (
                            access_count + 1 >= $237::int
                            or $238::timestamptz - least(occurred_at, created_at) > make_interval(secs => $239::float8)
                            or coalesce(importance_score, 0) >= $240::float8
                          )
                        ) then round(
                          (
                            strength_days * (
                              case
                                when layer = 'working' then $241::float8
                                else $242::float8
                              end
                            )
                          )::numeric,
                          12
                        )::float8
                        else strength_days
                      end
                    ) * (
                      engram_effective_strength (
                        (
                          case
                            when (
                              layer <> 'long_term'
                              and (
                                access_count + 1 >= $243::int
                                or $244::timestamptz - least(occurred_at, created_at) > make_interval(secs => $245::float8)
                                or coalesce(importance_score, 0) >= $246::float8
                              )
                            ) then round(
                              (
                                strength_days * (
                                  case
                                    when layer = 'working' then $247::float8
                                    else $248::float8
                                  end
                                )
                              )::numeric,
                              12
                            )::float8
                            else strength_days
                          end
                        ),
                        least(access_count::bigint + 1, 2147483647)::int,
                        $249::float8,
                        $250::float8
                      ) / (
                        case
                          when (
                            layer <> 'long_term'
                            and (
                              access_count + 1 >= $251::int
                              or $252::timestamptz - least(occurred_at, created_at) > make_interval(secs => $253::float8)
                              or coalesce(importance_score, 0) >= $254::float8
                            )
                          ) then round(
                            (
                              strength_days * (
                                case
                                  when layer = 'working' then $255::float8
                                  else $256::float8
                                end
                              )
                            )::numeric,
                            12
                          )::float8
                          else strength_days
                        end
                      )
                    )
                  ),
                  50
                )
              )
            )
          )
          else 1
        end
      ) >= $257::float8 then null
      else forgotten_at
    end
  ),
  "tier" = (
    case
      when tier = 'archive' then 'warm'
      else tier
    end
  ),
  "embedding_status" = (
    case
      when tier = 'archive'
      and embedding_status = 'archived' then 'pending'
      else embedding_status
    end
  ),
  "embedding_attempts" = (
    case
      when tier = 'archive'
      and embedding_status = 'archived' then 0
      else embedding_attempts
    end
  )
where
  "tenant_id" = $258
  and "mind_id" = $259
  and "id" in ($260)
returning
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z";

-- MemoriesRepository.delete
delete from "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3;

-- MemoriesRepository.deleteReturning
delete from "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3
returning
  "id",
  "mind_id",
  "category",
  "key";

-- MemoriesRepository.deleteForMind
delete from "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2;

-- MemoriesRepository.factKeys
select
  "category",
  "key"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "memory_type" <> $3
order by
  "updated_at" desc
limit
  $4;

-- MemoriesRepository.list
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and (
    (
      expires_at is null
      or expires_at > $3::timestamptz
    )
    and category = $4
    and tags @> $5::text[]
  )
  and "id" < $6
order by
  "id" desc
limit
  $7;

-- MemoriesRepository.pageOfMind
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" > $3
order by
  "id"
limit
  $4;

-- MemoriesRepository.expiring
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "expires_at" > $3
  and "expires_at" <= $4
order by
  "expires_at" asc,
  "id" asc
limit
  $5;

-- MemoriesRepository.recall (all)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and (
    expires_at is null
    or expires_at > $3::timestamptz
  )
  and "forgotten_at" is null
order by
  array_position(
    array['critical', 'high', 'normal', 'low']::text[],
    priority
  ),
  "updated_at" desc,
  "id" desc
limit
  $4;

-- MemoriesRepository.recall (critical)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "priority" = $3
  and (
    expires_at is null
    or expires_at > $4::timestamptz
  )
  and "forgotten_at" is null
order by
  array_position(
    array['critical', 'high', 'normal', 'low']::text[],
    priority
  ),
  "updated_at" desc,
  "id" desc
limit
  $5;

-- MemoriesRepository.recallCounts
select
  count(*)::int as "total",
  (
    count(*) filter (
      where
        verified
    )
  )::int as "verified"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and (
    expires_at is null
    or expires_at > $3::timestamptz
  )
  and "forgotten_at" is null;

-- MemoriesRepository.countsByLayerAndTier
select
  "layer",
  "tier",
  count(*)::int as "n",
  (
    count(*) filter (
      where
        forgotten_at is not null
    )
  )::int as "forgotten",
  (
    count(*) filter (
      where
        (
          expires_at is not null
          and expires_at <= $1::timestamptz
        )
    )
  )::int as "expired"
from
  "memories"
where
  "tenant_id" = $2
  and "mind_id" = $3
group by
  "layer",
  "tier";

-- MemoriesRepository.rescaleStrength
update memories
set
  strength_days = $1::float8 * (
    case
      when layer = 'working' then $2::float8
      when layer = 'short_term' then $3::float8
      else $4::float8
    end
  ) * (
    case
      when synaptic_consolidated then $5::float8
      else 1
    end
  )
where
  tenant_id = $6
  and strength_days is not null;
