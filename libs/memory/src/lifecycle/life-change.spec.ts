import { newestFirstAmongVariants } from '../retrieval/variants';
import { lifeChange, replacedLine, withReplacedLine } from './life-change';

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
    expect(replacedLine(earlier, 'home', 'user')).toBe('user: Cool. We are living in Nice for the summer.');
    expect(replacedLine(earlier, 'home', 'Anna')).toBe('Anna: I moved to Rome.');
    expect(replacedLine(earlier, 'work', 'user')).toBe('user: I work at Acme.');
    expect(replacedLine(earlier.slice(3), 'work', 'user')).toBeNull();
    expect(withReplacedLine('user: I moved to Berlin.', 'user: I live in Paris.')).toBe('user: I moved to Berlin.\n(previously: user: I live in Paris.)');
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
