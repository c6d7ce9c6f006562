import fc from 'fast-check';
import { websearchText } from './websearch';

describe('websearchText', () => {
  it('reduces a run of exclusions to its parity, leaving everything else as it was', () => {
    expect(websearchText('--cat')).toBe(' cat');
    expect(websearchText('---cat')).toBe('-cat');
    expect(websearchText('dog - -cat')).toBe('dog  cat');
    expect(websearchText('(-(-(-cat')).toBe('(-cat');
    expect(websearchText('dog -cat "a-b" x---y well-known')).toBe('dog -cat "a-b" x---y well-known');
    expect(websearchText('-'.repeat(33) + 'deployment')).toBe('-deployment');
  });

  it('never leaves two exclusions in a row at a word start, and only ever removes dashes and separators', () => {
    const alphabet = fc.constantFrom('-', ' ', '(', '!', '"', 'a', 'or', '한', '1', ')');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }).map((a) => a.join('')), (q) => {
        const out = websearchText(q);
        expect(out.match(/(?<![\p{L}\p{N}-])-(?:[^\p{L}\p{N}"-]*-)+/gu)).toBeNull();
        // Letters, digits and quotes are kept, in order.
        const kept = (s: string) => s.replace(/[^\p{L}\p{N}"]/gu, '');
        expect(kept(out)).toBe(kept(q));
        expect(websearchText(out)).toBe(out);
      }),
    );
  });
});
