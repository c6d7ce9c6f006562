-- A number found however its thousands are written (docs/design.md §6.1).
--
-- PostgreSQL's parser reads "450,000" as two words, 450 and 000: "450000" found nothing in "The
-- house cost $450,000", and "85,000" found the house (by its "000") rather than "User earns 85000
-- dollars a year" (a tester's find). The search document and every query now join the groups of a
-- number first: a digit, a group separator (comma, apostrophe, no-break or thin space) and three
-- digits that end the number are one number ("10,000,000" is 10000000; "3,5" and "1,2,3" stay).
-- Dates and phone numbers, written with hyphens, are left as they are. The content is stored as
-- written; only what search reads changes.

create function engram_join_digit_groups(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select case when p_text is null or p_text !~ '\d[,''’\u00a0\u2009\u202f]\d' then p_text
    else regexp_replace(p_text, '(\d)[,''’\u00a0\u2009\u202f](?=\d{3}(?!\d))', '\1', 'g')
    end
  $$;

-- What search reads of a text: numbers joined, accents folded (migration 20261209000000).
create function engram_search_text(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select engram_fold_accents(engram_join_digit_groups(p_text))
  $$;

create or replace function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, engram_cjk_document(engram_search_text(regexp_replace(coalesce(p_content, ''), '^(user|assistant|system|tool): ', '', 'gn')))), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, engram_cjk_document(engram_search_text(coalesce(array_to_string(array(
             select t from unnest(p_tags) as t where t not in ('user', 'assistant', 'system', 'tool')), ' '), '')))), 'B')
  $$;

-- The rows whose document changes (those with grouped numbers), as migration 20261207000000 found
-- them: computed, so Citus runs it on the shards. Run as the schema's owner (row-level security).
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
