-- A conversation's role is not a word of what was said. The conversation stream writes each line
-- of an episode as "<speaker>: ..." and tags the episode with its speaker; a message without a
-- speaker's name is spoken by its role ("user: I have asthma", tagged `user`). The search
-- document took the role for a word of every such memory: "what is the user's job" then matched
-- every line the user said on "user" twice (content and tag) and ranked them above the saved fact
-- that answers it (docs/design.md §6.1). The document now leaves out a role at the start of a line
-- (lowercase, as the stream writes it) and role tags; the content and the tags themselves are
-- unchanged (recall shows who said what; a tag filter still finds `user`).
create or replace function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, regexp_replace(coalesce(p_content, ''), '^(user|assistant|system|tool): ', '', 'gn')), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, coalesce(array_to_string(array(
             select t from unnest(p_tags) as t where t not in ('user', 'assistant', 'system', 'tool')), ' '), '')), 'B')
  $$;

-- A stored generated column is computed again when its row is updated: the rows whose document
-- changes (an assignment of tags does not fire the content trigger). Row-level security is forced
-- on memories: run as the schema's owner that bypasses it (`postgres` in docs/runbook.md), or the
-- rows keep their old documents until next written.
update memories set tags = tags
where tags && array['user', 'assistant', 'system', 'tool']
   or content ~ '(^|\n)(user|assistant|system|tool): ';
