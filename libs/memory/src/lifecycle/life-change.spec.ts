import { newestFirstAmongVariants } from '../retrieval/variants';
import { lifeChange, replacedLines, withReplacedLines } from './life-change';

const at = (day: number) => new Date(Date.UTC(2026, 10, day));

describe('a change of home or work keeps the statement it replaces (libs/memory life-change.ts)', () => {
  it.each([
    ['I moved to Berlin last week.', 'home'],
    ['We just relocated to Madrid in June', 'home'],
    ['I live in Berlin now.', 'home'],
    ['이사했어요, 이제 부산에 살아요', 'home'],
    ['I just started a new job at Globex.', 'work'],
    ['I joined Globex as a designer', 'work'],
    ['I work at Initech now', 'work'],
    ['이직했어요, 이제 네이버에서 일해요', 'work'],
  ])('reads a change: %s', (text, topic) => {
    expect(lifeChange(text)?.topic).toBe(topic);
  });

  it.each([
    'I started working at Acme right after college, back in 2012.',
    'When I moved to Paris in 2010 for university, I did not speak any French.',
    'If I moved to Berlin, I would miss my friends.',
    'My first job was at Acme, I joined Acme in 2012.',
    'I moved to decaf coffee this month.',
    'I moved to the night shift at the hospital.',
    'I moved to part-time in January.',
    'I moved to Linux last year and I love it.',
    'I moved to a plant-based diet.',
    'I moved to the sofa because my back hurts.',
    'I joined Weight Watchers.',
    'I joined Netflix yesterday, the shows are great.',
  ])('not a change of home or work now (helper 35): %s', (text) => {
    expect(lifeChange(text)).toBeNull();
  });

  it.each([
    ["I've moved to Berlin.", 'home'],
    ['Just moved to Berlin!', 'home'],
    ['Our new home is in Berlin.', 'home'],
    ['I moved to a new apartment in Kreuzberg.', 'home'],
    ['I got hired at Globex.', 'work'],
    ["I've started a new job at Globex.", 'work'],
    ['I quit Acme and started at Globex on Monday.', 'work'],
    ['Globex hired me last week.', 'work'],
    ['Living in Berlin now.', 'home'],
    ['Ich bin nach Berlin gezogen.', 'home'],
    ['Je viens de déménager à Berlin.', 'home'],
    ['Me mudé a Valencia el mes pasado.', 'home'],
  ])('a change, however said (helper 35): %s', (text, topic) => {
    expect(lifeChange(text)?.topic).toBe(topic);
  });

  it.each(['I just moved to Globex, I work there now', 'I live in Paris with my wife.', 'I work at Acme as a software engineer.', 'My sister moved to Porto.', 'I joined a gym', 'I started running last year', 'We moved the meeting to Friday', 'I love my new job'])(
    'not a change of the speaker\'s home or work: %s',
    (text) => {
      expect(lifeChange(text)).toBeNull();
    },
  );

  it('replaces the latest line of the same speaker on the same topic, in a chunk too, never a quote', () => {
    const earlier = [
      { content: 'user: I live in Paris with my wife.', occurred_at: at(1) },
      { content: 'Anna: I live in Lyon.\nuser: Cool. We are living in Nice for the summer.', occurred_at: at(3) },
      { content: 'user: I work at Acme.', occurred_at: at(4) },
      { content: 'Anna: I moved to Rome.', occurred_at: at(5) },
      { content: 'user: Nice!\n(previously: user: I live in Oslo.)', occurred_at: at(6) },
    ];
    expect(replacedLines(earlier, 'home', 'user')).toEqual(['user: Cool. We are living in Nice for the summer.']);
    expect(replacedLines(earlier, 'home', 'Anna')).toEqual(['Anna: I moved to Rome.']);
    expect(replacedLines(earlier, 'work', 'user')).toEqual(['user: I work at Acme.']);
    expect(replacedLines(earlier.slice(3), 'work', 'user')).toEqual([]);
    expect(withReplacedLines('user: I moved to Berlin.', ['user: I live in Paris.'])).toBe('user: I moved to Berlin.\n(previously: user: I live in Paris.)');
  });

  // Helper 35's: the same change said again quoted itself; an answer and an agent's keyed fact were no statement of home.
  it('never the change itself; an answer to "where do you live" with its question; a fact saved about the user', () => {
    const earlier = [{ content: 'user: I moved to Berlin.', occurred_at: at(2) }, { content: 'user: I live in Paris.', occurred_at: at(1) }];
    expect(replacedLines(earlier, 'home', 'user', 'I moved to Berlin.')).toEqual(['user: I live in Paris.']);
    expect(replacedLines([{ content: 'assistant: Where do you live?\nuser: Paris.', occurred_at: at(1) }], 'home', 'user')).toEqual(['assistant: Where do you live?', 'user: Paris.']);
    expect(replacedLines([{ content: 'The user lives in Paris', occurred_at: at(1) }], 'home', 'user')).toEqual(['The user lives in Paris']);
    expect(replacedLines([{ content: 'The user lives in Paris', occurred_at: at(1) }], 'home', 'Anna')).toEqual([]);
  });

  it('ranks the change before what it replaces, wherever the ranking put them; other hits stay', () => {
    const hit = (key: string, content: string, day: number) => ({ category: 'note', key, content, occurred_at: at(day) });
    const ranked = [
      hit('a', 'user: I live in Paris with my wife.', 1),
      hit('b', 'user: My sister lives in Porto.', 2),
      hit('c', 'user: I moved to Berlin last week.\n(previously: user: I live in Paris with my wife.)', 3),
    ];
    expect(newestFirstAmongVariants(ranked).map((h) => h.key)).toEqual(['c', 'b', 'a']);
    // A quote cut with an ellipsis still names its line.
    const cut = [hit('a', `user: I live in Paris ${'and more '.repeat(50)}`, 1), hit('c', 'user: I moved.\n(previously: user: I live in Paris and more and…)', 3)];
    expect(newestFirstAmongVariants(cut).map((h) => h.key)).toEqual(['c', 'a']);
  });
});
