import { CONTENT_MAX_BYTES, KEY_MAX_LENGTH, KEY_PATTERN, MEMORY_CATEGORIES, type MemoryCategory } from '../memory.constants';

/**
 * The LLM path of fact extraction (ours, issue 15; after mem0's fact extraction and seed 001
 * §1.2's three-level parse): at consolidation an OpenAI-compatible model is asked, with a JSON
 * schema, for keyed facts from the messages of an STM entry; each is upserted by its key, so a new
 * value of a key replaces the old one and the history keeps it (docs/design.md §4.3).
 */

/** One fact the model extracted. */
export interface ExtractedFact {
  category: MemoryCategory;
  /** snake_case, stable: the same fact keeps its key when its value changes. */
  key: string;
  /** One self-contained sentence. */
  content: string;
  /** 0..1 */
  importance: number;
}

/** How the answer was read: the whole JSON, or the fact objects found in text that is not valid JSON. */
export type FactsParse = 'json' | 'fragments';

/** At most this many facts are taken from one entry. */
export const FACTS_PER_ENTRY = 20;
/** At most this many of the mind's keys are shown to the model. */
export const FACT_KEYS_SHOWN = 200;

/** The JSON schema of the answer (OpenAI `response_format: {type: 'json_schema'}`). */
export const FACTS_JSON_SCHEMA = {
  name: 'facts',
  strict: true,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['facts'],
    properties: {
      facts: {
        type: 'array',
        maxItems: FACTS_PER_ENTRY,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['category', 'key', 'content', 'importance'],
          properties: {
            category: { type: 'string', enum: [...MEMORY_CATEGORIES] },
            key: { type: 'string', pattern: KEY_PATTERN.source, maxLength: KEY_MAX_LENGTH },
            content: { type: 'string' },
            importance: { type: 'number', minimum: 0, maximum: 1 },
          },
        },
      },
    },
  },
} as const;

/**
 * The chat messages asking for the facts of an entry.
 *
 * @param entry the entry's text, one `<speaker>: <message>` per line
 * @param saidAt when it was said (the entry's event time)
 * @param keys the mind's existing `category/key`s (newest first), so that the model reuses them
 */
export function factsPrompt(entry: string, saidAt: Date, keys: readonly string[]): { role: 'system' | 'user'; content: string }[] {
  return [
    {
      role: 'system',
      content:
        'You extract the durable facts an assistant should remember about the people in a conversation: who they are, work, home, ' +
        'family, health, plans, preferences, decisions, and changes to any of these. Leave out chatter, greetings and opinions about the ' +
        'conversation itself. Each fact is one self-contained sentence that names who it is about. Give each a category (one of ' +
        `${MEMORY_CATEGORIES.join(', ')}), a snake_case key that names what the fact is about rather than its value (employer, ` +
        'home_city, daughter_school), and an importance from 0 to 1. When a fact updates one the assistant already has, reuse that key ' +
        `exactly. Answer with JSON only: {"facts": [{"category": string, "key": string, "content": string, "importance": number}]}, ` +
        'or {"facts": []} when there is nothing to remember.',
    },
    {
      role: 'user',
      content: `Keys the assistant already has: ${keys.length ? keys.slice(0, FACT_KEYS_SHOWN).join(', ') : '(none)'}\nSaid on ${saidAt.toISOString()}:\n${entry}`,
    },
  ];
}

function asFact(value: unknown): ExtractedFact | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const key = typeof v.key === 'string' ? v.key.trim().toLowerCase() : '';
  const content = typeof v.content === 'string' ? v.content.trim() : '';
  const importance = typeof v.importance === 'number' ? v.importance : Number(v.importance);
  if (!(MEMORY_CATEGORIES as readonly unknown[]).includes(v.category)) return undefined;
  if (!KEY_PATTERN.test(key) || key.length > KEY_MAX_LENGTH || key.startsWith('episode_')) return undefined;
  if (content.length === 0 || Buffer.byteLength(content, 'utf8') > CONTENT_MAX_BYTES) return undefined;
  // Text the API itself would refuse: a NUL (PostgreSQL cannot store it; the write failed after the
  // episode was committed, a 500) or a lone surrogate (stored altered as U+FFFD). A tester's find.
  if (content.includes('\u0000') || !content.isWellFormed()) return undefined;
  if (!Number.isFinite(importance)) return undefined;
  return { category: v.category as MemoryCategory, key, content, importance: Math.min(1, Math.max(0, importance)) };
}

/** The valid facts of a list, the first of each key kept, at most {@link FACTS_PER_ENTRY}. */
function validFacts(values: readonly unknown[]): ExtractedFact[] {
  const seen = new Set<string>();
  const out: ExtractedFact[] = [];
  for (const value of values) {
    const fact = asFact(value);
    if (!fact || seen.has(`${fact.category}/${fact.key}`)) continue;
    seen.add(`${fact.category}/${fact.key}`);
    out.push(fact);
    if (out.length === FACTS_PER_ENTRY) break;
  }
  return out;
}

/**
 * Reads the model's answer in three levels (as seed 001 §1.2 reads importance):
 * 1. JSON: the object between the first `{` and the last `}`, its `facts` array (invalid items
 *    dropped: a category outside seed 002's, a key that is not snake_case, empty content) → `json`;
 * 2. text that is not valid JSON: every flat `{...}` in it that parses as a valid fact → `fragments`;
 * 3. `undefined`: nothing usable; the caller keeps the rule path's episode alone.
 *
 * An empty `facts` array is a valid answer (nothing to remember).
 */
export function parseLlmFacts(text: string): { facts: ExtractedFact[]; parse: FactsParse } | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const json = JSON.parse(text.slice(start, end + 1)) as { facts?: unknown };
      if (Array.isArray(json.facts)) return { facts: validFacts(json.facts), parse: 'json' };
    } catch {
      // not JSON: try the fragments
    }
  }
  const fragments: unknown[] = [];
  for (const m of text.matchAll(/\{[^{}]*\}/g)) {
    try {
      fragments.push(JSON.parse(m[0]));
    } catch {
      // a fragment that does not parse is skipped
    }
  }
  const facts = validFacts(fragments);
  return facts.length > 0 ? { facts, parse: 'fragments' } : undefined;
}
