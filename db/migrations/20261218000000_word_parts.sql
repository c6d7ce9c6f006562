-- The words inside an e-mail address, a web address, a file path, a snake_case name or an id
-- such as "JIRA-4821" are found one by one (docs/design.md §6.1).
--
-- PostgreSQL's parser keeps "priya.sharma@globex.io", "github.com/acme/widgetron" and
-- "billing_utils.py" whole, and reads "JIRA-4821" as "jira" and "-4821": "globex", "widgetron",
-- "billing" and "4821" found nothing by full text, in either mode (a tester's find, after
-- neotoma #1981). The search document and every query now part such a word where a letter meets
-- one of @ . / _ : - before a letter or digit, or a digit meets one of them before a letter:
-- "priya sharma globex io", "JIRA 4821". Between two digits nothing is parted, so dates,
-- versions, decimals and phone numbers ("2024-05-01", "1.2.3", "3.5", "555-123-4567") read as
-- before. A query goes through the same function, so "engram.conf" and "priya.sharma@globex.io"
-- find what holds them. ASCII letters only: Unicode classes depend on the database's locale.
-- The content is stored as written; only what search reads changes.

create or replace function engram_search_text(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select regexp_replace(
      engram_fold_accents(regexp_replace(engram_join_digit_groups(p_text), '(\d)(?=[\uac00-\ud7a3])|(\d)/(?=\d)', '\1\2 ', 'g')),
      '([A-Za-z])[@./_:\-]+(?=[A-Za-z0-9])|([0-9])[@./_:\-]+(?=[A-Za-z])', '\1\2 ', 'g')
  $$;

-- The rows whose document changes, computed, so Citus runs it on the shards. Run as the schema's
-- owner (row-level security).
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
