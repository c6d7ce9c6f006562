import fc from 'fast-check';
import { contentWords } from '../lifecycle/similarity';
import { isVariant, newValue, newestFirstAmongVariants, otherSubject, statedAt } from './variants';

const hit = (id: string, content: string, day: number, key = id) => ({ id, category: 'note', key, content, occurred_at: new Date(Date.UTC(2026, 0, day)) });

describe('the newest fact wins (search order)', () => {
  it('a value changed is a variant; other statements are not', () => {
    const v = (a: string, b: string) => isVariant(contentWords(a), contentWords(b));
    expect(v('The user works at Acme', 'The user works at Globex')).toBe(true);
    expect(v('Caroline lives in Boston with her dog', 'Caroline lives in Denver with her dog')).toBe(true);
    expect(v('The user works at Acme', 'The user works at Acme')).toBe(false);
    expect(v('The user works at Acme', 'Melanie painted a sunset last weekend')).toBe(false);
    expect(v('The user works at Acme', 'The user loves jazz and hiking in the Alps')).toBe(false);
  });

  it('statements that differ before their verb are about another subject, not another value', () => {
    const o = (a: string, b: string) => otherSubject(contentWords(a), contentWords(b));
    expect(o("Tom's sister lives in Porto", "Tom's boss lives in Porto")).toBe(true);
    expect(o('Caroline: I went to the support group yesterday', 'Melanie: I went to the support group yesterday')).toBe(true);
    expect(o('The user works at Acme', 'The user works at Globex')).toBe(false);
    expect(o('I drive a Volvo to work every day', 'I drive a Tesla to work every day')).toBe(false);
    expect(o('Blood pressure medication is amlodipine 5mg', 'Blood pressure medication is amlodipine 10mg')).toBe(false);
    expect(o('Dentist appointment is on 10 March 2027 at 3pm', 'Dentist appointment moved to 12 March 2027 at 3pm')).toBe(false);
    // Asked about either, the one asked about stays where the ranking put it (graphiti #1728).
    const sister = hit('sister', "Tom's sister lives in Porto", 1);
    const boss = hit('boss', "Tom's boss lives in Porto", 9);
    expect(newestFirstAmongVariants([sister, boss]).map((h) => h.id)).toEqual(['sister', 'boss']);
  });

  // Values of more than one word share too few words for isVariant (a tester's, after mem0 #4536).
  it('a value of several words changed is a new value of the same subject; two things of a kind are not', () => {
    expect(newValue('My favourite drink is green tea.', 'My favourite drink is black coffee.')).toBe(true);
    expect(newValue('I live in New York', 'I live in San Francisco now')).toBe(true);
    expect(newValue("I'm a nurse at the Mercy hospital", 'I am a software engineer')).toBe(true);
    expect(newValue('I work at Acme Corp as an engineer', 'I work at Globex')).toBe(true);
    expect(newValue('I have a dog named Rex', 'I have a cat named Tom')).toBe(false);
    expect(newValue('I like tea', 'I like coffee')).toBe(false);
    expect(newValue('I went to Paris last summer', 'I went to Rome in May')).toBe(false);
    expect(newValue('I live in New York', 'I live in New York')).toBe(false);
    expect(newValue('I live in Paris', 'I live in Paris with Sam')).toBe(false);
    expect(newValue('My sister is a teacher in Lyon', 'My sister is a teacher in Lyon and loves her job a lot more than before')).toBe(false);
    // What is said "now" is the same statement; a relation said (a, in, at, on) is part of it.
    expect(newValue('I am a teacher.', 'I am now a nurse.')).toBe(true);
    expect(newValue('My sister is a doctor.', 'My sister is now a lawyer.')).toBe(true);
    expect(newValue('My favourite drink is green tea.', 'Now my favourite drink is black coffee.')).toBe(true);
    expect(newValue('The meeting is on Monday', 'The meeting is on Friday afternoon')).toBe(true);
    expect(newValue('My dog is called Rex', 'My dog is called Max')).toBe(true);
    expect(newValue('I live in New York City', 'I live in New Jersey')).toBe(true);
    // Two attributes of one subject, not two values (a second tester's finds).
    for (const [older, newer] of [
      ['The meeting is on Monday.', 'The meeting is about budgets.'],
      ['My sister is a doctor', 'My sister is in Paris'],
      ['I work at Google', 'I work from home on Fridays'],
      ['My dog is called Rex', 'My dog is sick'],
      ['I live with my parents', 'I live near the beach'],
      ['Our office is in Berlin', 'Our office is closed on Sundays'],
      ['My brother is a lawyer', 'My brother is getting married in June'],
      ['I am allergic to peanuts', 'I am vegetarian'],
      ['I work at Google as an engineer', 'I work at Google on weekends'],
    ])
      expect({ older, newer, same: newValue(older as string, newer as string) }).toEqual({ older, newer, same: false });
    const jan = hit('jan', 'user: My favourite drink is green tea.', 10);
    const feb = hit('feb', 'user: My favourite drink is black coffee.', 50);
    const other = hit('other', 'user: I drink water at the gym', 60);
    expect(newestFirstAmongVariants([jan, other, feb]).map((h) => h.id)).toEqual(['feb', 'other', 'jan']);
  });

  it('puts variants newest first in the places they had, and moves nothing else', () => {
    const ranked = [hit('a', 'The user works at Acme', 1), hit('x', 'Melanie painted a sunset', 5), hit('g', 'The user works at Globex', 9)];
    expect(newestFirstAmongVariants(ranked).map((h) => h.id)).toEqual(['g', 'x', 'a']);
  });

  it('the same key counts as the same thing whatever the wording', () => {
    const ranked = [hit('old', 'Acme', 1, 'employer'), hit('new', 'Globex since March', 3, 'employer')];
    expect(newestFirstAmongVariants(ranked).map((h) => h.id)).toEqual(['new', 'old']);
  });

  it('a statement dated in the future counts as said when it was written', () => {
    const day = (d: number) => new Date(Date.UTC(2026, 11, d));
    const booked = { ...hit('booked', 'Dentist appointment is on 10 March 2027 at 3pm', 1), occurred_at: new Date(Date.UTC(2027, 2, 10)), created_at: day(1), updated_at: day(1) };
    const moved = { ...hit('moved', 'Dentist appointment moved to 12 March 2027 at 3pm', 2), occurred_at: day(2), created_at: day(2), updated_at: day(2) };
    expect(newestFirstAmongVariants([booked, moved]).map((h) => h.id)).toEqual(['moved', 'booked']);
    // Its tags or priority edited later: still said on day 1.
    expect(newestFirstAmongVariants([{ ...booked, updated_at: day(5) }, moved]).map((h) => h.id)).toEqual(['moved', 'booked']);
    // A past event keeps its date, however late it was written (an import of old conversations).
    const told = { ...hit('told', 'The user works at Acme', 1), created_at: day(30), updated_at: day(30) };
    const changed = { ...hit('changed', 'The user works at Globex', 9), created_at: day(29), updated_at: day(29) };
    expect(newestFirstAmongVariants([told, changed]).map((h) => h.id)).toEqual(['changed', 'told']);
  });

  it('a statement said again counts from the repetition: "Paris", "Berlin", then "Paris" again is current', () => {
    const paris = hit('paris', 'The user lives in Paris with Sam', 1);
    const berlin = hit('berlin', 'The user lives in Berlin with Sam', 5);
    expect(newestFirstAmongVariants([paris, berlin]).map((h) => h.id)).toEqual(['berlin', 'paris']);
    expect(newestFirstAmongVariants([berlin, { ...paris, restated_at: new Date(Date.UTC(2026, 0, 9)) }]).map((h) => h.id)).toEqual(['paris', 'berlin']);
    // Said again before the change: the change is still the newer statement.
    expect(newestFirstAmongVariants([berlin, { ...paris, restated_at: new Date(Date.UTC(2026, 0, 3)) }]).map((h) => h.id)).toEqual(['berlin', 'paris']);
    expect(statedAt({ ...paris, restated_at: null })).toBe(paris.occurred_at.getTime());
  });

  it('statements of one instant (a whole session posted at once) are ordered by their place in the conversation', () => {
    const at = (id: string, content: string, context: string | null, position: number | null) => ({ ...hit(id, content, 4), temporal_context: context, temporal_position: position });
    const five = at('five', 'Blood pressure medication is amlodipine 5mg', 'c1', 0);
    const ten = at('ten', 'Blood pressure medication is amlodipine 10mg', 'c1', 4);
    expect(newestFirstAmongVariants([five, ten]).map((h) => h.id)).toEqual(['ten', 'five']);
    // Another conversation's, or a keyed write's, place says nothing: the ranking's order stands for it,
    // whatever order the hits come in.
    const keyed = at('keyed', 'Blood pressure medication is amlodipine 2mg', null, null);
    const other = at('other', 'Blood pressure medication is amlodipine 7mg', 'c2', 9);
    for (const ranked of [[five, keyed, ten, other], [keyed, ten, other, five], [other, five, keyed, ten]]) {
      const out = newestFirstAmongVariants(ranked).map((h) => h.id);
      expect(out.indexOf('ten')).toBeLessThan(out.indexOf('five'));
      expect(out.indexOf('keyed')).toBe(ranked.indexOf(keyed));
      expect(out.indexOf('other')).toBe(ranked.indexOf(other));
    }
  });

  it('is a permutation, and leaves a list without variants as it was', () => {
    const words = ['acme', 'globex', 'user', 'works', 'lives', 'boston', 'denver', 'paints', 'sunset', 'dog'];
    const arb = fc.array(fc.record({ w: fc.subarray(words, { minLength: 1, maxLength: 5 }), day: fc.integer({ min: 1, max: 28 }) }), { maxLength: 12 });
    fc.assert(
      fc.property(arb, (items) => {
        const hits = items.map((x, i) => hit(`h${i}`, x.w.join(' '), x.day));
        const out = newestFirstAmongVariants(hits);
        expect(out.map((h) => h.id).sort()).toEqual(hits.map((h) => h.id).sort());
        const anyVariant = hits.some((a, i) => hits.some((b, j) => i < j && (isVariant(contentWords(a.content), contentWords(b.content)) || newValue(a.content, b.content))));
        if (!anyVariant) expect(out).toEqual(hits);
      }),
    );
  });
});
