-- Words found whatever their accents (docs/design.md §6.1).
--
-- PostgreSQL's `english` configuration keeps diacritics: "cafe muller" found nothing in "We always
-- have lunch at Café Müller" (a peer's bug report tried on Engram), nor did Buro, Strasse, futbol
-- or "Ha Noi" find Büro, Straße, fútbol or "Hà Nội"; people and keyboards drop accents all the
-- time. The search document and every query (its lexemes, web-search syntax) are now folded: the
-- combining diacritical marks (U+0300-U+036F) are taken off after compatibility decomposition
-- (which also reads full-width "Ｐｙｔｈｏｎ" and half-width kana as the usual letters), the rest
-- composed again (Hangul syllables and kana with their voicing marks come back whole), and
-- the letters with no decomposition written as people type them without (ß ss, æ ae, œ oe, ø o,
-- ł l, đ d). The content, tags and key are stored as written; only what search reads changes.
-- `unaccent` (contrib) would do the same but is an extension to install on every node and in
-- PGlite; these are core functions.

create function engram_fold_accents(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select case when p_text is null or p_text !~ '[^\u0001-\u007f]' then p_text
    else replace(replace(replace(replace(replace(replace(translate(
           normalize(regexp_replace(normalize(p_text, NFKD), '[\u0300-\u036f]', '', 'g'), NFC),
           'øØłŁđĐ', 'oOlLdD'),
           'ß', 'ss'), 'ẞ', 'SS'), 'æ', 'ae'), 'Æ', 'AE'), 'œ', 'oe'), 'Œ', 'OE')
    end
  $$;

create or replace function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, engram_cjk_document(engram_fold_accents(regexp_replace(coalesce(p_content, ''), '^(user|assistant|system|tool): ', '', 'gn')))), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, engram_cjk_document(engram_fold_accents(coalesce(array_to_string(array(
             select t from unnest(p_tags) as t where t not in ('user', 'assistant', 'system', 'tool')), ' '), '')))), 'B')
  $$;

-- The rows whose document changes (those with accented letters), as migration 20261207000000
-- found them: computed, so Citus runs it on the shards. Run as the schema's owner (row-level security).
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
