import { DEFAULT_CONFIDENCE, KEY_MAX_LENGTH, MEMORY_CATEGORIES, MEMORY_PRIORITIES, MEMORY_TYPES, type MemoryCategory, type MemoryPriority, type MemoryType } from '@engram/memory';

// What the tools tell a model about choosing values, in plain words. The values themselves come
// from libs/memory (the lists the API validates against); these maps are typed by them, so a new
// category, priority or memory type does not compile until it is explained here.

const CATEGORY_MEANING: Record<MemoryCategory, string> = {
  identity: "who the user is: name, role, employer, home town, languages",
  preference: 'how the user likes things done: tone, formats, tools, likes and dislikes',
  fact: "other lasting facts of the user's world: people, places, dates, accounts, constraints",
  project: 'a project or goal the user works on: its status, decisions, deadlines',
  skill: 'how to do something: a procedure, command or technique that worked',
  mistake: 'something that went wrong, and what to do instead next time',
  context: 'the situation for now (this week\'s goal, where the user is today); give it expires_at',
  note: 'anything else worth keeping',
};

const PRIORITY_MEANING: Record<MemoryPriority, string> = {
  low: 'nice to know',
  normal: 'the default',
  high: 'important to keep in mind',
  critical: 'must never be missed (allergies, hard constraints, safety); always listed first by recall',
};

const MEMORY_TYPE_MEANING: Record<MemoryType, string> = {
  stm: 'short-term entries taken from conversations',
  episodic: 'events and experiences',
  semantic: 'facts and knowledge',
  procedural: 'how-tos',
  working: 'current context',
};

const list = <K extends string>(values: readonly K[], meaning: Record<K, string>): string => values.map((v) => `${v}: ${meaning[v]}`).join('; ');

/** How to choose a category (every value the API accepts, with what it is for). */
export const CATEGORY_GUIDE = `What the memory is about. ${list(MEMORY_CATEGORIES, CATEGORY_MEANING)}.`;

/** How to choose a key, so that a later statement of the same thing replaces the old one. */
export const KEY_GUIDE =
  `A stable name for what the memory is about, in lower_snake_case (a letter first; at most ${KEY_MAX_LENGTH} characters): ` +
  'subject_attribute, e.g. user_employer, user_diet, project_atlas_deadline. The same category and key replace the earlier content ' +
  '(kept in history), so reuse the key when a fact changes (the user changed jobs: user_employer again) and pick a new key for a new fact. ' +
  'Keep values, dates and ids out of the key.';

export const PRIORITY_GUIDE = `${list(MEMORY_PRIORITIES, PRIORITY_MEANING)}.`;

export const MEMORY_TYPE_GUIDE = `The kind of memory: ${list(MEMORY_TYPES, MEMORY_TYPE_MEANING)}.`;

export const IMPORTANCE_GUIDE = 'How much this matters in the long run, 0 (trivial) to 1 (essential). Leave it out to let the server judge; important memories fade more slowly.';

export const EXPIRES_GUIDE = 'When the memory stops being true, as an ISO 8601 date-time with a time zone (e.g. 2030-01-31T00:00:00Z); from then on it is left out of recall and search. null: it never expires.';

/** What the numbers in answers mean. */
export const OCCURRED_GUIDE =
  'When the remembered event happened or the fact was stated, as an ISO 8601 date-time with a time zone (e.g. 2024-03-01T09:00:00Z); recall shows it as the memory\'s date, so a model can tell the newer of two facts. Leave it out for now.';

export const RELEVANCE_GUIDE = 'How well the hit matches the query compared with the best hit: 1 for the best, lower for weaker ones (0..1; relative, not a probability).';
export const RETENTION_GUIDE = 'How firmly the memory is held now, 0..1: it fades while unused and every recall, search hit or read strengthens it; null when not tracked.';
export const CONFIDENCE_GUIDE = `How sure the memory is, 0..1: ${DEFAULT_CONFIDENCE.user} when a person wrote it, ${DEFAULT_CONFIDENCE.agent} when an agent did, unless the writer said otherwise.`;
