import fc from 'fast-check';
import { cutUnits } from '../visible-text';
import { compressEpisode } from './episodic';
import { episodeKey, episodeMemory, fitContent } from './episode-memory';
import type { SourcedStmEntry } from './stm-step';

const T0 = new Date('2026-04-01T09:00:00.000Z');
const entry = (over: Partial<SourcedStmEntry> = {}): SourcedStmEntry => ({
  id: '0190a000-0000-7000-8000-000000000042',
  content: 'Caroline: I love hiking in the Alps every summer',
  speaker: 'Caroline',
  message_ids: ['m1'],
  importance: 0.8,
  importance_source: 'llm',
  emotion: 0.5,
  association: 0.1,
  utility: 0.3,
  mentions: 1,
  rehearsal_count: 0,
  decay_factor: 0.85,
  entered_at: T0,
  last_rehearsed_at: T0,
  chunk: null,
  ...over,
});
const ctx = { mindId: 'mind', conversationId: 'c1', writer: 'agent' as const, trigger: 'importance' as const, score: 0.7, similar: ['a', 'b', 'c', 'd'], now: T0 };

describe('the episode an STM entry consolidates into (seed 000)', () => {
  it('is an episodic memory of its speaker, keyed by the entry, on the entry\'s time, strengthened synaptically', () => {
    const m = episodeMemory(entry(), ctx);
    expect(m).toMatchObject({ key: episodeKey(entry().id), category: 'preference', memoryType: 'episodic', tags: ['Caroline'], occurredAt: T0, synaptic: true, importance: { score: 0.8, path: 'llm' } });
    expect((m.payload as { associations: { similar_events: string[] } }).associations.similar_events).toEqual(['a', 'b', 'c']);
  });

  // Helper 36's: a user's answer chunked with an assistant's line was untagged, so `tag=user` missed it.
  it('of several messages is tagged with each of their speakers, a long name cut', () => {
    const chunk = entry({ speaker: null, message_ids: ['m1', 'm2', 'm3'], content: 'assistant: Any allergies?\nuser: Penicillin.\nassistant: Thanks, noted.' });
    expect(episodeMemory(chunk, ctx).tags).toEqual([]);
    expect(episodeMemory(chunk, { ...ctx, speakers: ['assistant', 'user', 'x'.repeat(70)] }).tags).toEqual(['assistant', 'user', 'x'.repeat(64)]);
  });

  it('is restated when its entry was rehearsed: the repetition is its latest statement', () => {
    expect(episodeMemory(entry(), ctx).restatedAt).toBeNull();
    const later = new Date(T0.getTime() + 600_000);
    expect(episodeMemory(entry({ rehearsal_count: 1, last_rehearsed_at: later }), ctx).restatedAt).toEqual(later);
  });

  it("an assistant's self-description is a note, not the user's identity or taste", () => {
    expect(episodeMemory(entry({ content: 'assistant: I am an AI assistant and I love helping you', speaker: 'assistant' }), ctx).category).toBe('note');
    expect(episodeMemory(entry({ content: 'user: I am a nurse in Lyon', speaker: 'user' }), ctx).category).toBe('identity');
    expect(episodeMemory(entry({ content: 'user: From now on, reply in German', speaker: 'user' }), ctx).category).toBe('preference');
  });

  it('keeps the newest 100 message ids: a memory\'s source_refs limit', () => {
    const ids = Array.from({ length: 195 }, (_, i) => `m${i}`);
    const m = episodeMemory(entry({ message_ids: ids }), ctx);
    expect(m.sourceRefs).toEqual(ids.slice(-100));
  });

  it('fits an over-long text to 32 KiB of UTF-8, on a character boundary', () => {
    const fitted = fitContent('é'.repeat(20_000));
    expect(Buffer.byteLength(fitted, 'utf8')).toBeLessThanOrEqual(32 * 1024);
    expect(fitted.endsWith('…')).toBe(true);
  });
});

describe('no text of an episode holds half an emoji (helper 32: a cut gist failed the consolidation for good)', () => {
  const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  it('the gist is cut between characters, wherever the emoji fall (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 260 }), fc.nat({ max: 30 }), fc.string({ unit: 'grapheme', maxLength: 60 }), (before, emoji, after) => {
        const text = `${'a'.repeat(before)}${'😀'.repeat(emoji)} ${after}`;
        expect(LONE.test(compressEpisode(text).gist)).toBe(false);
      }),
      { numRuns: 500 },
    );
    expect(compressEpisode(`${'a'.repeat(228)}${'😀'.repeat(12)} and more words`).gist).toMatch(/😀…$/);
  });

  it('a cut is never inside a surrogate pair', () => {
    expect(cutUnits('ab😀', 3)).toBe('ab');
    expect(cutUnits('ab😀', 4)).toBe('ab😀');
    expect(cutUnits('abc', 10)).toBe('abc');
  });
});
