-- Two more paths that can set a memory's importance (docs/design.md §5.1): `consolidation` (an
-- episode moved to long-term memory by repetition or emotion is at least as important as the
-- short_term threshold) and `llm_facts` (a fact the LLM extracted at consolidation, with the
-- importance it gave).
alter table memories drop constraint memories_importance_source_check;
alter table memories add constraint memories_importance_source_check
  check (importance_source in ('caller', 'explicit_save', 'llm', 'llm_regex', 'rules', 'consolidation', 'llm_facts'));
alter table messages drop constraint messages_importance_source_check;
alter table messages add constraint messages_importance_source_check
  check (importance_source in ('caller', 'explicit_save', 'llm', 'llm_regex', 'rules', 'consolidation', 'llm_facts'));
alter table stm_entries drop constraint stm_entries_importance_source_check;
alter table stm_entries add constraint stm_entries_importance_source_check
  check (importance_source in ('caller', 'explicit_save', 'llm', 'llm_regex', 'rules', 'consolidation', 'llm_facts'));
