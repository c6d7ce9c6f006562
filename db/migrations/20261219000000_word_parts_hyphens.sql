-- A hyphen between two letters is left to PostgreSQL's parser again (docs/design.md §6.1).
--
-- Migration 20261218000000 parted every word where a letter met `@ . / _ : -`. A hyphenated word
-- between letters ("self-care", "well-known") was already read by the parser as the whole word and
-- its parts; parted, it lost the whole word, the rarest of the three, and LoCoMo's evidence recall
-- fell by a tenth of a point. Now a hyphen parts a word only between a letter and a digit
-- ("JIRA-4821", "4821-B"); `@ . / _ :` part as before, but not between two single letters:
-- initials and abbreviations ("U.S.", "J.K. Rowling", "e.g.") stay the parser's one word, which
-- parted were two letters found everywhere. A query in `all` mode quotes such a run (libs/memory
-- quoteWordParts), so that its words are one phrase.

create or replace function engram_search_text(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select regexp_replace(
      engram_fold_accents(regexp_replace(engram_join_digit_groups(p_text), '(\d)(?=[\uac00-\ud7a3])|(\d)/(?=\d)', '\1\2 ', 'g')),
      '([A-Za-z]{2})[@./_:]+(?=[A-Za-z0-9])|((?<![A-Za-z])[A-Za-z])[@./_:]+(?=[A-Za-z0-9]{2}|[0-9])|([0-9])[@./_:]+(?=[A-Za-z])|([A-Za-z])-+(?=[0-9])|([0-9])-+(?=[A-Za-z])', '\1\2\3\4\5 ', 'g')
  $$;

-- The rows whose document changes, computed, so Citus runs it on the shards. Run as the schema's
-- owner (row-level security).
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
