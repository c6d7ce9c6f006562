/**
 * The association graph's rules (issue 19; seed 000 `associations` {causes, effects,
 * similar_events, semantic_links} of an episodic memory and `relations` of a semantic one;
 * docs/design.md §6.8). Pure: the job and search apply them in SQL.
 */

/**
 * What a link's target is to its memory: `similar_to` (seed 000 similar_events / similar_to),
 * `precedes` / `follows` (it came before / after in the same conversation), `shares_entity` (it
 * names the same person, place or project), `causes` / `effects` (seed 000; only where a source
 * states them, never by the rule path). Generalisation links (`generalises`, `generalised_into`)
 * are kept in `association_graph` by the consolidation, not here.
 */
export const ASSOCIATION_RELATIONS = ['similar_to', 'precedes', 'follows', 'shares_entity', 'causes', 'effects'] as const;
export type AssociationRelation = (typeof ASSOCIATION_RELATIONS)[number];

/**
 * The generalisation links of `association_graph` (docs/design.md §4.4) as relations, in the
 * same sense (what the other memory is to this one): `generalises` (the other memory is the
 * semantic memory this episode was generalised into), `generalised_into` (the other memory is
 * one of the episodes this semantic memory generalises). Weight 1. Not rows of
 * `memory_associations`: the API shows them beside its links.
 */
export const GENERALISATION_RELATIONS = ['generalises', 'generalised_into'] as const;
export type GeneralisationRelation = (typeof GENERALISATION_RELATIONS)[number];

/** Every relation a memory's links are shown with (`GET /v1/memory/:id/associations`). */
export const LINK_RELATIONS = [...ASSOCIATION_RELATIONS, ...GENERALISATION_RELATIONS] as const;
export type LinkRelation = (typeof LINK_RELATIONS)[number];

/** The relation as seen from the link's target (A precedes B ⇔ B follows A). */
export function inverseRelation(r: AssociationRelation): AssociationRelation {
  switch (r) {
    case 'precedes':
      return 'follows';
    case 'follows':
      return 'precedes';
    case 'causes':
      return 'effects';
    case 'effects':
      return 'causes';
    default:
      return r;
  }
}

/** A UUID in text (what association_graph's ids are when the consolidation wrote them). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One generalisation link of a memory: the other memory and what it is to this one. */
export interface GeneralisationLink {
  memory_id: string;
  relation: GeneralisationRelation;
}

/**
 * The generalisation links a memory's `association_graph` holds (docs/design.md §4.4): each id of
 * `generalises` (episodes this semantic memory generalises: `generalised_into` seen from here)
 * and `generalised_into` (the semantic memory of this episode: `generalises`). Anything else in
 * the object, and values that are not ids (an import may bring any JSON object), are left out;
 * ids lower-cased, each once, this memory's own id never; `[]` for a graph that is not an object.
 */
export function generalisationLinks(graph: unknown, selfId?: string): GeneralisationLink[] {
  if (typeof graph !== 'object' || graph === null || Array.isArray(graph)) return [];
  const fields = graph as Readonly<Record<string, unknown>>;
  const out = new Map<string, GeneralisationLink>();
  const add = (value: unknown, relation: GeneralisationRelation) => {
    if (typeof value !== 'string' || !UUID.test(value)) return;
    const id = value.toLowerCase();
    if (id !== selfId?.toLowerCase() && !out.has(`${relation} ${id}`)) out.set(`${relation} ${id}`, { memory_id: id, relation });
  };
  const episodes = fields['generalises'];
  if (Array.isArray(episodes)) for (const id of episodes) add(id, 'generalised_into');
  add(fields['generalised_into'], 'generalises');
  return [...out.values()];
}

/** Words that start sentences or address people without naming a thing (checked lower-cased). */
const NOT_NAMES = new Set(
  ('i im ive id ill a an the and or but if then so to of in on at by for with from as is are was were be been am you he she it we they me him her us them ' +
    'my your his its our their this that these those do does did have has had not no yes just very really too also can could will would should ' +
    'what which who whom when where why how all any some there here about oh ok okay yeah yes hey hi hello thanks thank wow great awesome cool nice sure well ' +
    'sounds good that thats it its what whats love glad sorry haha lol omg congrats congratulations definitely absolutely totally maybe ' +
    'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december today tomorrow yesterday').split(' '),
);

/**
 * The named things of a memory (ours): its tags, and the words of its text written with a
 * capital letter (runs of them as one name: "New York"), lower-cased, without words that merely
 * start a sentence or greet ({@link NOT_NAMES}: pronouns, fillers, weekdays, months). A
 * leading `Speaker:` label is not a thing the memory names. Whether a name is rare enough to
 * link by is the mind's to say (`associations.entity_max_share`), not this function's.
 *
 * @returns distinct names, at most 20, in order of appearance
 */
export function namedThings(content: string, tags: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const t of tags) {
    const tag = t.trim().toLowerCase();
    if (tag.length >= 2 && tag.length <= 100) out.add(tag);
  }
  const text = content.replace(/^\s*[\p{L}\p{N} ._-]{1,40}:\s+/u, '');
  for (const match of text.matchAll(/\p{Lu}[\p{L}\p{N}'’-]*(?:\s+\p{Lu}[\p{L}\p{N}'’-]*)*/gu)) {
    const words = match[0]
      .replace(/['’]s$/u, '')
      .split(/\s+/)
      .filter((w) => !NOT_NAMES.has(w.toLowerCase().replace(/['’-]/g, '')));
    const name = words.join(' ').toLowerCase();
    if (name.length >= 2 && name.length <= 100) out.add(name);
  }
  return [...out].slice(0, 20);
}

/**
 * How rare a named thing is in its mind, 0..1 (the weight of a `shares_entity` link): its idf
 * `ln(n / df)` over the largest possible, `ln(n)`. 1 for a name two memories share in a large
 * mind; 0 when every memory has it.
 *
 * @param df memories of the mind that name it (≥ 1)
 * @param n memories of the mind (≥ df)
 */
export function entityWeight(df: number, n: number): number {
  if (n <= 1 || df <= 0) return 0;
  return Math.max(0, Math.min(1, Math.log(n / Math.min(df, n)) / Math.log(n)));
}

/** The weight of a link to the nearest memory before or after in a conversation, `gap` positions away (≥ 1): 1 / gap. */
export function temporalWeight(gap: number): number {
  return gap >= 1 ? 1 / gap : 0;
}

/**
 * A memory's association strength, 0..1 (seed 000's consolidation score weighs it 0.15): the
 * mean of its three strongest links' weights, missing links counting 0, so that one strong link
 * is not a well-connected memory (ours).
 */
export function associationStrength(weights: readonly number[]): number {
  const top = [...weights].sort((a, b) => b - a).slice(0, 3);
  return top.reduce((s, w) => s + Math.max(0, Math.min(1, w)), 0) / 3;
}
