import { hashingTokens } from '@engram/embeddings';
import { DistinctCorpus, normalized, repeatedTexts, type CorpusSource } from './corpus';
import { prng } from './support';

/** A small synthetic source (not LoCoMo): two conversations of 40 turns, with names, places, numbers and dates. */
function source(): CorpusSource {
  const places = ['Paris', 'Oslo', 'Lima', 'Kyoto'];
  const speakers = [['Ada', 'Bo'], ['Cy', 'Di']];
  const turns = speakers.flatMap((pair, conversation) =>
    Array.from({ length: 40 }, (_, i) => ({
      conversation,
      speaker: pair[i % 2] as string,
      text: `Hi ${pair[(i + 1) % 2]}, I went to ${places[i % 4]} on Friday with ${i + 2} friends. It was great and I am happy ${i}. We plan a trip in May, 2023!`,
    })),
  );
  return { turns, questions: ['Where did Ada go?', 'When is the trip?', 'Who went to Oslo?'], dates: ['8 May, 2023', '2 June, 2022'] };
}

describe('bench corpus', () => {
  it('makes the same distinct texts from the same source and seed, and others from another seed', () => {
    const a = new DistinctCorpus(source(), { seed: 7, speakers: true });
    const b = new DistinctCorpus(source(), { seed: 7, speakers: true });
    const c = new DistinctCorpus(source(), { seed: 8, speakers: true });
    const xs = Array.from({ length: 1500 }, () => a.next());
    expect(Array.from({ length: 1500 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 1500 }, () => c.next())).not.toEqual(xs);
    // No text repeats, not even up to case, punctuation and stop words (the embedder's tokens).
    expect(new Set(xs.map(normalized)).size).toBe(xs.length);
    expect(new Set(xs.map((x) => hashingTokens(x).join(' '))).size).toBe(xs.length);
    expect(a.stats().texts).toBe(1500);
    expect(xs.every((x) => /^(Ada|Bo|Cy|Di): \S/.test(x))).toBe(true);
  });

  it('holds queries out of the memories, the same ones whatever was made before', () => {
    const a = new DistinctCorpus(source(), { seed: 7, speakers: false });
    const memories = new Set(Array.from({ length: 2000 }, () => normalized(a.next())));
    const queries = a.queries(10);
    expect(queries).toEqual(new DistinctCorpus(source(), { seed: 7, speakers: false }).queries(10));
    expect(queries.map((q) => q.kind)).toEqual(['question', 'held-out', 'question', 'held-out', 'question', 'held-out', 'held-out', 'held-out', 'held-out', 'held-out']);
    expect(queries.filter((q) => q.kind === 'held-out' && memories.has(normalized(q.text)))).toEqual([]);
  });

  it('fails rather than repeat when the source cannot make that many distinct texts', () => {
    const tiny: CorpusSource = { turns: Array.from({ length: 20 }, (_, i) => ({ conversation: 0, speaker: 'Ada', text: `Hello number ${i % 2}.` })), questions: [], dates: [] };
    const corpus = new DistinctCorpus(tiny, { seed: 1, speakers: false });
    expect(() => {
      for (let i = 0; i < 100; i++) corpus.next();
    }).toThrow(/no new distinct memory/);
  });

  it('keeps the repeated corpus as issue 7 drew it', () => {
    const next = repeatedTexts(['a', 'b', 'c'], prng(3));
    const xs = Array.from({ length: 50 }, next);
    expect(xs.every((x) => ['a', 'b', 'c', 'a\nb', 'b\nc'].includes(x))).toBe(true);
    expect(new Set(xs).size).toBeLessThan(xs.length);
  });
});
