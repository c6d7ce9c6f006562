-- When a memory was last said again (docs/design.md §6.4, "the newest fact wins").
--
-- A repetition reinforces the memory it repeats instead of writing a copy (seed 000 rehearsal),
-- so the memory kept the time of its first statement: "I live in Paris", then "I live in
-- Berlin", then "I live in Paris" again ranked Berlin first, as the newer of the two, and the
-- recall dated Paris before Berlin (a newcomer's find). `restated_at` is the latest time it was
-- said again, null when never; ranking among statements of the same thing takes the later of it
-- and when the memory was first stated.

alter table memories add column restated_at timestamptz;
