-- Tags in one Unicode form (docs/api.md, tags).
--
-- "résumé" can be typed precomposed (U+00E9) or decomposed (e + U+0301): the two look the same and
-- were stored as two tags, and a filter typed in one form missed memories tagged in the other (a
-- peer's class of bug report, tried on Engram by a tester). Tags are now composed (NFC, canonical
-- equivalence only: nothing a reader could tell apart changes) when written and when filtered by
-- (libs/memory normalizeTags); here the tags already stored are composed the same way, a tag that
-- becomes equal to an earlier one of the same memory dropped, first occurrences kept in order.
-- Version rows keep the tags as they were recorded.

create function engram_composed_tags(p_tags text[]) returns text[]
  language sql immutable parallel safe
  as $$
    select array(
      select c.tag from (
        select normalize(u.tag, NFC) as tag, min(u.n) as n from unnest(p_tags) with ordinality as u(tag, n) group by 1
      ) c order by c.n)
  $$;

-- Computed per row, so Citus runs it on the shards. Run as the schema's owner (row-level security).
update memories set tags = engram_composed_tags(tags)
where tags is distinct from engram_composed_tags(tags);

drop function engram_composed_tags(text[]);
