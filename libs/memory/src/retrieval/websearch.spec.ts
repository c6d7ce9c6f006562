import fc from 'fast-check';
import { quoteCjkRuns, typedAsAscii, websearchText } from './websearch';

describe('websearchText', () => {
  it('reduces a run of exclusions to its parity, leaving everything else as it was', () => {
    expect(websearchText('--cat')).toBe('--cat');
    expect(websearchText('----cat')).toBe('--cat');
    expect(websearchText('---cat')).toBe('-cat');
    expect(websearchText('dog - - - -cat')).toBe('dog - -cat');
    expect(websearchText('-cat --or "cat')).toBe('-cat --or "cat');
    expect(websearchText('(-(-(-cat')).toBe('(-cat');
    expect(websearchText('dog -cat "a-b" x---y well-known')).toBe('dog -cat "a-b" x---y well-known');
    expect(websearchText('-'.repeat(33) + 'deployment')).toBe('-deployment');
  });

  it('never leaves three exclusions in a row at a word start, and only ever removes dashes and separators', () => {
    const alphabet = fc.constantFrom('-', ' ', '(', '!', '"', 'a', 'or', '한', '1', ')');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }).map((a) => a.join('')), (q) => {
        const out = websearchText(q);
        expect(out.match(/(?<![\p{L}\p{N}-])-(?:[^\p{L}\p{N}"-]*-){2,}/gu)).toBeNull();
        // Letters, digits and quotes are kept, in order.
        const kept = (s: string) => s.replace(/[^\p{L}\p{N}"]/gu, '');
        expect(kept(out)).toBe(kept(q));
        expect(websearchText(out)).toBe(out);
      }),
    );
  });
});

describe('quoteCjkRuns', () => {
  it('quotes each run of Han or kana outside quotes, so the database reads its bigrams as one phrase', () => {
    expect(quoteCjkRuns('北京谷歌 -東京 Tokyo')).toBe('"北京谷歌" -"東京" Tokyo');
    expect(quoteCjkRuns('"我住在 北京" 谷歌')).toBe('"我住在 北京" "谷歌"');
    expect(quoteCjkRuns('plain words, 서울에')).toBe('plain words, 서울에');
    // An unclosed quote runs to the end: its runs are already in a phrase.
    expect(quoteCjkRuns('a "北京 谷歌')).toBe('a "北京 谷歌');
  });

  it('changes nothing but the quotes around runs', () => {
    fc.assert(fc.property(fc.string(), (q) => expect(quoteCjkRuns(q).replace(/"/g, '')).toBe(q.replace(/"/g, ''))));
  });
});

describe('typedAsAscii', () => {
  it("reads an input method's spaces, dashes and quotes as web-search syntax", () => {
    expect(typedAsAscii('住在　-北京')).toBe('住在 -北京');
    expect(typedAsAscii('住在 －「北京」')).toBe('住在 -"北京"');
    expect(typedAsAscii('live,-paris “new york”')).toBe('live, -paris "new york"');
    expect(typedAsAscii('plain -words "as typed"')).toBe('plain -words "as typed"');
  });
});
