import fc from 'fast-check';
import { FACTS_PER_ENTRY, factsPrompt, parseLlmFacts } from './facts-llm';

describe('parseLlmFacts (three levels, as seed 001 §1.2 reads importance)', () => {
  const good = { category: 'fact', key: 'employer', content: 'The user works at Globex', importance: 0.8 };

  it('level 1: the JSON object, invalid items dropped, keys normalised, importance clamped', () => {
    const text = `Sure: ${JSON.stringify({ facts: [good, { ...good, key: 'Home_City', content: 'Busan', importance: 7 }, { ...good, category: 'colour' }, { ...good, key: 'has space' }, { ...good, key: 'x2', content: '  ' }, { ...good, key: 'episode_1' }] })}`;
    expect(parseLlmFacts(text)).toEqual({
      parse: 'json',
      facts: [good, { category: 'fact', key: 'home_city', content: 'Busan', importance: 1 }],
    });
  });

  it('an empty list is an answer: nothing to remember', () => {
    expect(parseLlmFacts('{"facts": []}')).toEqual({ parse: 'json', facts: [] });
  });

  it('level 2: the fact objects inside text that is not JSON', () => {
    expect(parseLlmFacts(`[${JSON.stringify(good)}, {"category": "fact", "key": "k", "content": "trailing`)).toEqual({ parse: 'fragments', facts: [good] });
  });

  it('level 3: nothing usable is undefined (the rule path alone)', () => {
    expect(parseLlmFacts('I cannot help with that.')).toBeUndefined();
    expect(parseLlmFacts('{"facts": "none"} and {"key": 1}')).toBeUndefined();
  });

  it('never throws, and never returns more than the cap or a duplicate key', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.array(fc.constant(good), { maxLength: 40 }).map((facts) => JSON.stringify({ facts }))), (text) => {
        const parsed = parseLlmFacts(text);
        if (!parsed) return;
        expect(parsed.facts.length).toBeLessThanOrEqual(FACTS_PER_ENTRY);
        expect(new Set(parsed.facts.map((x) => `${x.category}/${x.key}`)).size).toBe(parsed.facts.length);
      }),
    );
  });

  it('the prompt shows the existing keys and when it was said', () => {
    const [, user] = factsPrompt('user: I moved to Globex', new Date('2026-05-04T09:00:00Z'), ['fact/employer']);
    expect(user?.content).toContain('Keys the assistant already has: fact/employer');
    expect(user?.content).toContain('Said on 2026-05-04T09:00:00.000Z:\nuser: I moved to Globex');
  });
});
