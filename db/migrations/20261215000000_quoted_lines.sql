-- A memory's quotes of other memories' lines are read without their marker and role
-- (docs/design.md §6.1).
--
-- A correction naming only a value is kept with the line it corrects, "(correcting: user: My
-- doctor put me on atorvastatin 10mg …)", and a change of home or work with the line it
-- replaces, "(previously: user: I live in Paris.)". The search document left the role out only
-- at a line's start, so such a memory was the one memory of the mind holding the word "user": a
-- question that named the user ("where does the user live") ranked it first on that word alone,
-- whatever it said. The marker and the role inside a quote are now left out like a line's role;
-- the quoted words stay. The content is stored as written; only what search reads changes.

create or replace function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, engram_cjk_document(engram_search_text(regexp_replace(coalesce(p_content, ''), '^(?:\((?:correcting|previously): )?(?:(?:user|assistant|system|tool): )?', '', 'gn')))), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, engram_cjk_document(engram_search_text(coalesce(array_to_string(array(
             select t from unnest(p_tags) as t where t not in ('user', 'assistant', 'system', 'tool')), ' '), '')))), 'B')
  $$;

-- The rows whose document changes (those quoting a line), computed, so Citus runs it on the
-- shards. Run as the schema's owner (row-level security).
update memories set tags = tags
where content like '%(correcting: %' or content like '%(previously: %';
