-- The SQL of EmbeddingsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- EmbeddingsRepository.resetOtherModels
update memories
set
  embedding = null,
  embedding_model = $1,
  embedding_status = 'pending',
  embedding_attempts = 0,
  embedded_at = null
where
  tenant_id = $2
  and embedding_model is distinct from $3
  and embedding_status <> 'archived';

-- EmbeddingsRepository.retryFailed
update memories
set
  embedding_status = 'pending',
  embedding_attempts = 0
where
  tenant_id = $1
  and embedding_status = 'failed';

-- EmbeddingsRepository.pending
select
  "id",
  "content",
  "content_z",
  "content_hash"
from
  "memories"
where
  "tenant_id" = $1
  and "embedding_status" = $2
order by
  "id"
limit
  $3;

-- EmbeddingsRepository.store
update memories m
set
  embedding = v.embedding::halfvec,
  embedding_model = $1,
  embedding_status = 'ready',
  embedded_at = $2,
  embedding_attempts = 0
from
  unnest($3::uuid[], $4::text[], $5::text[]) as v (id, embedding, hash)
where
  m.tenant_id = $6
  and m.id = v.id
  and m.embedding_status = 'pending'
  and m.content_hash = v.hash;

-- EmbeddingsRepository.countRefusal
update memories
set
  embedding_attempts = embedding_attempts + 1,
  embedding_status = case
    when embedding_attempts + 1 >= $1 then 'failed'
    else 'pending'
  end
where
  tenant_id = $2
  and id = any ($3::uuid[]);
