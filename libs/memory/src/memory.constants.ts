/**
 * The vocabulary and limits of a memory record (seed 002 "필드", "카테고리", "우선순위 수준";
 * docs/design.md §3). The API validates against these and the SQL CHECK constraints repeat them.
 */

export const MEMORY_CATEGORIES = [
  'identity',
  'preference',
  'fact',
  'project',
  'skill',
  'mistake',
  'context',
  'note',
] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

/** Priorities from lowest to highest; recall lists critical first (seed 002). */
export const MEMORY_PRIORITIES = ['low', 'normal', 'high', 'critical'] as const;
export type MemoryPriority = (typeof MEMORY_PRIORITIES)[number];

export const MEMORY_TYPES = ['stm', 'episodic', 'semantic', 'procedural', 'working'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const MEMORY_LAYERS = ['working', 'short_term', 'long_term'] as const;
export type MemoryLayer = (typeof MEMORY_LAYERS)[number];
export const MEMORY_TIERS = ['hot', 'warm', 'cold', 'archive'] as const;
export type MemoryTier = (typeof MEMORY_TIERS)[number];

/** A key: snake_case, starting with a letter (seed 002 "키 규칙"). */
export const KEY_PATTERN = /^[a-z][a-z0-9_]*$/;
export const KEY_MAX_LENGTH = 128;
/** Content limit in UTF-8 bytes (32 KiB). */
export const CONTENT_MAX_BYTES = 32 * 1024;
export const TAGS_MAX = 20;
export const TAG_MAX_LENGTH = 64;
/** Items accepted by one `POST /memory/batch`. */
export const BATCH_MAX_ITEMS = 500;

/** Default confidence by who wrote a memory: a person 1.0, an agent 0.7 (seed 002 "신뢰도"). */
export const DEFAULT_CONFIDENCE = { user: 1.0, agent: 0.7 } as const;

/**
 * The memory type a keyed memory gets when the writer does not say (seed 000 LTM kinds):
 * facts about the user and the world are semantic, skills procedural, mistakes are episodes,
 * session context is working memory.
 */
export const DEFAULT_MEMORY_TYPE: Record<MemoryCategory, MemoryType> = {
  identity: 'semantic',
  preference: 'semantic',
  fact: 'semantic',
  project: 'semantic',
  skill: 'procedural',
  mistake: 'episodic',
  context: 'working',
  note: 'semantic',
};
