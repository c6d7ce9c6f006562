-- A word of one Chinese or Japanese character (docs/design.md §6.1).
--
-- Migration 20261207000000 reads each run of Han and kana characters as its overlapping bigrams,
-- so a word of two or more characters finds the text that holds it. A word of one character found
-- nothing inside a longer run: "猫" (cat) is no bigram of "我有一只猫". Chinese writes many
-- everyday words with one character (猫, 书, 家, 茶), Japanese many nouns (猫, 本, 犬). The search
-- document now also holds each Han character of a run of two or more, after the whole text (so the
-- bigrams keep their positions and a phrase of bigrams still matches); a lone character already
-- stood for itself. A query's run is still read as bigrams only (`engram_cjk_bigrams`): "北京"
-- must not find every text with 北 or 京 in it. Kana are left out of the characters: a kana of
-- one is a particle or an ending, not a word one searches for.

-- The text of a document: its runs as bigrams (engram_cjk_bigrams), then, spaced, each Han character
-- of the runs of two or more characters, in order.
create function engram_cjk_document(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select case when p_text is null or p_text !~ '[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]' then engram_cjk_bigrams(p_text)
    else engram_cjk_bigrams(p_text) || coalesce(' ' || (
      select string_agg(c.chars[1], ' ' order by r.n, c.k)
      from regexp_matches(p_text, '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}', 'g') with ordinality as r(parts, n),
           regexp_matches(r.parts[1], '[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]', 'g') with ordinality as c(chars, k)), '')
    end
  $$;

create or replace function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, engram_cjk_document(regexp_replace(coalesce(p_content, ''), '^(user|assistant|system|tool): ', '', 'gn'))), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, engram_cjk_document(coalesce(array_to_string(array(
             select t from unnest(p_tags) as t where t not in ('user', 'assistant', 'system', 'tool')), ' '), ''))), 'B')
  $$;

-- The rows whose document changes (those with Han characters), as migration 20261207000000 found
-- them: computed, so Citus runs it on the shards. Run as the schema's owner (row-level security).
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
