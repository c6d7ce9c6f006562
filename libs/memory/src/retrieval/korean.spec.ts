import fc from 'fast-check';
import { hangulPrefix } from './korean';

describe('hangulPrefix (a Korean query word matches its forms with particles)', () => {
  it('takes a trailing particle off when two syllables or more remain', () => {
    expect(hangulPrefix('서울에')).toBe('서울');
    expect(hangulPrefix('서울에서')).toBe('서울');
    expect(hangulPrefix('데이터베이스를')).toBe('데이터베이스');
    expect(hangulPrefix('아내는')).toBe('아내');
    expect(hangulPrefix('서울')).toBe('서울');
    // Too short to strip: 의사 is a noun, not 의 + 사.
    expect(hangulPrefix('의사')).toBe('의사');
  });

  it('leaves other words, and one-syllable Hangul, to exact matching', () => {
    expect(hangulPrefix('budget')).toBeNull();
    expect(hangulPrefix('집')).toBeNull();
    expect(hangulPrefix('서울2024')).toBeNull();
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{1,12}$/), (w) => {
        expect(hangulPrefix(w)).toBeNull();
      }),
    );
  });

  it('a prefix is always a prefix of the word, of two syllables or more', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0xac00, max: 0xd7a3 }), { minLength: 2, maxLength: 8 }), (codes) => {
        const word = String.fromCodePoint(...codes);
        const p = hangulPrefix(word) as string;
        expect(word.startsWith(p)).toBe(true);
        expect([...p].length).toBeGreaterThanOrEqual(2);
      }),
    );
  });
});
