-- What the search document reads as words (docs/design.md §6.1).
--
-- 1. A conversation's role is not a word of what was said. The conversation stream writes each
--    line of an episode as "<speaker>: ..." and tags the episode with its speaker; a message
--    without a speaker's name is spoken by its role ("user: I have asthma", tagged `user`). The
--    document took the role for a word of every such memory: "what is the user's job" then matched
--    every line the user said on "user" twice (content and tag) and ranked them above the saved
--    fact that answers it. The document now leaves out a role at the start of a line (lowercase,
--    as the stream writes it) and role tags; the content and the tags themselves are unchanged
--    (recall shows who said what; a tag filter still finds `user`).
-- 2. Chinese and Japanese are written without spaces: PostgreSQL's parser took a whole run of
--    Han and kana for one word, so "北京" did not find "我住在北京，在谷歌工作" (a peer's bug
--    report, mem0 #4884, tried on Engram). Each such run is read as its overlapping pairs of
--    characters (bigrams, as Lucene's CJKBigramFilter does), in the document and in the query
--    (libs/db retrieval.repository `startSearch`, memory-filter `websearchSql`), so a word of two
--    or more characters finds the text that holds it. Hangul keeps its words (it is spaced; a query's
--    word matches its forms with a particle: libs/memory `hangulPrefix`).

-- A text with each run of Han or kana characters replaced by its bigrams (a lone character stays),
-- spaced from what surrounds it.
create function engram_cjk_bigrams(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select case when p_text is null or p_text !~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]' then p_text
    else (
      select string_agg(
               case when r.parts[1] ~ '^[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]'
                 then ' ' || case when length(r.parts[1]) = 1 then r.parts[1]
                                  else (select string_agg(substr(r.parts[1], i, 2), ' ' order by i) from generate_series(1, length(r.parts[1]) - 1) as i) end || ' '
                 else r.parts[1] end,
               '' order by r.n)
      from regexp_matches(p_text, '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+', 'g') with ordinality as r(parts, n))
    end
  $$;

create or replace function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, engram_cjk_bigrams(regexp_replace(coalesce(p_content, ''), '^(user|assistant|system|tool): ', '', 'gn'))), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, engram_cjk_bigrams(coalesce(array_to_string(array(
             select t from unnest(p_tags) as t where t not in ('user', 'assistant', 'system', 'tool')), ' '), ''))), 'B')
  $$;

-- A stored generated column is computed again when its row is updated: the rows whose document
-- changes, found by computing it (immutable, so Citus runs it on the shards; a filter calling the
-- stable array_to_string was refused there). An assignment of tags does not fire the content
-- trigger. Row-level security is forced on memories: run as the schema's owner that bypasses it
-- (`postgres` in docs/runbook.md), or the rows keep their old documents until next written.
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
