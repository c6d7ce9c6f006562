import { emotionalEncoding, type EmotionalEncoding } from './emotion';
import { utilitySignal } from './consolidation';
import { cutUnits } from '../visible-text';

/** Seed 000 episode compression: the gist and what to keep of the rest. */
export interface CompressedEpisode {
  gist: string;
  key_moments: string[];
  emotional_peaks: string[];
  causal_chain: string[];
}

/** The payload of an episodic memory, in seed 000's shape. */
export interface EpisodicPayload {
  type: 'episodic';
  what: string;
  when: string;
  where: string | null;
  who: string[];
  emotion: string;
  significance: number;
  context: {
    conversation_id: string;
    spatial: { location: string | null };
    temporal: { absolute_time: string; sequence_position: number | null };
    social: { participants: string[] };
  };
  emotional_encoding: Omit<EmotionalEncoding, 'weight'>;
  associations: { similar_events: string[]; semantic_links: string[] };
  compressed: CompressedEpisode;
  metadata: { importance: number; consolidation_state: 'consolidated'; consolidation_trigger: string };
}

const GIST_MAX = 240;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Seed 000 `compress_episodic`: the gist (the most informative sentence, at most 240 characters),
 * key moments (sentences with times, plans or numbers), emotional peaks (the most charged
 * sentences) and the causal chain (sentences that give a reason or a consequence).
 */
export function compressEpisode(text: string): CompressedEpisode {
  const all = sentences(text);
  const ranked = [...all].sort((a, b) => utilitySignal(b) + b.length / 1000 - (utilitySignal(a) + a.length / 1000));
  const gistSource = ranked[0] ?? text;
  const gist = gistSource.length > GIST_MAX ? `${cutUnits(gistSource, GIST_MAX - 1)}…` : gistSource;
  const key_moments = all.filter((s) => utilitySignal(s) >= 0.3).slice(0, 5);
  const emotional_peaks = all
    .map((s) => ({ s, w: emotionalEncoding(s).weight }))
    .filter((x) => x.w >= 0.4)
    .sort((a, b) => b.w - a.w)
    .slice(0, 3)
    .map((x) => x.s);
  const causal_chain = all.filter((s) => /\b(because|so that|therefore|since|as a result|so)\b|때문에|그래서|따라서/i.test(s)).slice(0, 5);
  return { gist, key_moments, emotional_peaks, causal_chain };
}

/** A place named in the text ("in Berlin", "at the Louvre", "회의실 B에서"), if any. */
export function extractLocation(text: string): string | null {
  const en = /\b(?:in|at|to|from|near)\s+((?:the\s+)?[A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+){0,3})/u.exec(text);
  if (en?.[1] && !/^(The|I|I'm|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)$/.test(en[1])) {
    return en[1];
  }
  const ko = /([\p{L}\p{N}]+(?:\s[\p{L}\p{N}]+)?)에서/u.exec(text);
  return ko?.[1] ?? null;
}

/**
 * People in an episode: its speakers and capitalised names that are not at a sentence start and
 * not part of the place it names.
 */
export function extractPeople(text: string, speakers: readonly string[], place: string | null = null): string[] {
  const names = new Set(speakers.filter(Boolean));
  const placeWords = new Set((place ?? '').split(/\s+/));
  for (const m of text.matchAll(/(?<=[a-z,;]\s)([A-Z][a-z]{2,})(?=[\s,.!?]|$)/g)) {
    const name = m[1] as string;
    if (!placeWords.has(name)) names.add(name);
  }
  return [...names];
}

/** Builds the payload of the episodic memory an STM entry consolidates into (seed 000). */
export function episodicPayload(input: {
  content: string;
  occurredAt: Date;
  conversationId: string;
  speakers: string[];
  importance: number;
  sequencePosition: number | null;
  trigger: string;
  similarEvents: string[];
  semanticLinks: string[];
}): EpisodicPayload {
  const encoding = emotionalEncoding(input.content);
  const compressed = compressEpisode(input.content);
  const location = extractLocation(input.content);
  const who = extractPeople(input.content, input.speakers, location);
  const { weight: _weight, ...emotional_encoding } = encoding;
  return {
    type: 'episodic',
    what: compressed.gist,
    when: input.occurredAt.toISOString(),
    where: location,
    who,
    emotion: encoding.discrete_emotions[0] ?? (encoding.valence > 0.3 ? 'positive' : encoding.valence < -0.3 ? 'negative' : 'neutral'),
    significance: input.importance,
    context: {
      conversation_id: input.conversationId,
      spatial: { location },
      temporal: { absolute_time: input.occurredAt.toISOString(), sequence_position: input.sequencePosition },
      social: { participants: who },
    },
    emotional_encoding,
    associations: { similar_events: input.similarEvents, semantic_links: input.semanticLinks },
    compressed,
    metadata: { importance: input.importance, consolidation_state: 'consolidated', consolidation_trigger: input.trigger },
  };
}
