import fc from 'fast-check';
import { GIST_MAX_CHARS, gistOf } from './tiers';

describe('gistOf (the gist a cold or archived memory keeps in the index)', () => {
  it('keeps a short text whole, whitespace collapsed', () => {
    expect(gistOf('  Caroline  went to\nthe LGBTQ support group. ')).toBe('Caroline went to the LGBTQ support group.');
  });

  it('keeps the first sentence of a long text', () => {
    const text = `Melanie painted a sunrise over the lake last summer. ${'She talks about it often and wants to paint more. '.repeat(6)}`;
    expect(gistOf(text)).toBe('Melanie painted a sunrise over the lake last summer.');
  });

  it('cuts a long text without a sentence end at a word boundary, marked with an ellipsis', () => {
    const gist = gistOf('word '.repeat(100));
    expect(gist.endsWith('word…')).toBe(true);
    expect(gist.length).toBeLessThanOrEqual(GIST_MAX_CHARS);
  });

  it('is never longer than the limit, never empty, never splits a surrogate pair, and is a prefix of the text (modulo whitespace)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 600 }).filter((s) => s.trim().length > 0), (content) => {
        const gist = gistOf(content);
        const text = content.replace(/\s+/g, ' ').trim();
        expect(gist.length).toBeGreaterThan(0);
        expect(gist.length).toBeLessThanOrEqual(GIST_MAX_CHARS);
        expect(gist.isWellFormed()).toBe(true);
        expect(text.startsWith(gist.replace(/…$/, '').trimEnd())).toBe(true);
      }),
    );
  });
});
