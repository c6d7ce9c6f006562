-- A phone number found however its groups are written (docs/design.md §6.1).
--
-- PostgreSQL's parser reads "555-123-4567" as 555, -123 and -4567, "555.123.4567" as one word and
-- "(555) 123-4567" as 555, 123 and -4567: a phone number kept one way was not found when asked for
-- another way, or as the digits alone ("5551234567"). The search document and every query now
-- also join the groups of a phone number: two to four digits (or three in brackets, a space
-- allowed after them), then three or four, then four, all separated by the same hyphen or dot,
-- with an optional country or trunk prefix of one to three digits and a hyphen ("1-800-555-1234"),
-- nine digits at least. An international number ("+49 30 1234567", "+1 555-123-4567") is read
-- twice, with its country code and without ("49301234567 301234567"), and a plus before seven
-- digits or more is dropped, so "+49301234567" and "5551234567" find them. A date's groups (2024-05-01, 12.05.2024: two digits in the middle) do not
-- have that shape and stay as they are. A number written against Korean ("2024년", "3개",
-- "010-1234-5678이에요": a counter or a particle) was one word with it, found by neither "2024" nor
-- the number: a space now parts a digit from the Hangul after it. A date written with slashes
-- ("03/14/2027") was one word too, a path to the parser: its numbers are parted the same way.
-- The content is stored as written; only what search reads changes.

create or replace function engram_join_digit_groups(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select case when p_text is null or p_text !~ '\d[,''’\u00a0\u2009\u202f.\-)]|\+\d' then p_text
    else regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(p_text,
           '(\d)[,''’\u00a0\u2009\u202f](?=\d{3}(?!\d))', '\1', 'g'),
           '\+(\d{1,3})[ .-](\d{1,4})[ .-](\d{3,8})(?:[ .-](\d{3,4}))?(?![\d.-]?\d)', '\1\2\3\4 \2\3\4', 'g'),
           '\+(?=\d{7,})', '', 'g'),
           '(^|[^\d.-])(?:(\d{1,3})-)?(\d{2,4})([.-])(\d{3,4})\4(\d{4})(?![.-]?\d)', '\1\2\3\5\6', 'g'),
           '\((\d{2,4})\)\s?(\d{3,4})[.-](\d{4})(?![.-]?\d)', '\1\2\3', 'g')
    end
  $$;

create or replace function engram_search_text(p_text text) returns text
  language sql immutable parallel safe
  as $$
    select engram_fold_accents(regexp_replace(engram_join_digit_groups(p_text), '(\d)(?=[\uac00-\ud7a3])|(\d)/(?=\d)', '\1\2 ', 'g'))
  $$;

-- The rows whose document changes (those with phone numbers), computed, so Citus runs it on the
-- shards. Run as the schema's owner (row-level security).
update memories set tags = tags
where search_vector is distinct from engram_search_document(key, content, tags);
