import fc from 'fast-check';
import { quoteCjkRuns, quoteWordParts, typedAsAscii, websearchText, withoutExclusions } from './websearch';

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
        // Letters and digits are kept, in order; quotes too, and a pair may be added around a run
        // the database parts into words (quoteWordParts).
        const kept = (s: string) => s.replace(/[^\p{L}\p{N}"]/gu, '');
        expect(kept(out).replace(/"/g, '')).toBe(kept(q).replace(/"/g, ''));
        expect((out.match(/"/g) ?? []).length % 2).toBe((q.match(/"/g) ?? []).length % 2);
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

describe('quoteWordParts', () => {
  it('quotes an e-mail, a path, a name or an id outside quotes, so that its words are one phrase and `-` excludes it whole', () => {
    expect(quoteWordParts('email -bob@example.com')).toBe('email -"bob@example.com"');
    expect(quoteWordParts('ticket -JIRA-4821 node.js billing_utils.py')).toBe('ticket -"JIRA-4821" "node.js" "billing_utils.py"');
    // Parted by the database only where a letter meets a separator: dates, versions, decimals,
    // phone numbers and hyphenated words are left to the parser.
    expect(quoteWordParts('2024-05-01 1.2.3 3.5 555-123-4567 10:30 well-known U.S. e.g. J.K.')).toBe('2024-05-01 1.2.3 3.5 555-123-4567 10:30 well-known U.S. e.g. J.K.');
    expect(quoteWordParts('x.com artists/bands')).toBe('"x.com" "artists/bands"');
    // The whole word, its exclusion dashes before it (CI's property test: `-고양이x-2026`).
    expect(quoteWordParts('-고양이x-2026 (bob@example.com) --a.bc')).toBe('-"고양이x-2026" ("bob@example.com") --"a.bc"');
    expect(quoteWordParts('"see node.js docs" ab.c')).toBe('"see node.js docs" "ab.c"');
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

describe('withoutExclusions', () => {
  it('keeps what a query looks for: its words and phrases, not its exclusions', () => {
    expect(withoutExclusions('invoices -bob')).toBe('invoices');
    expect(withoutExclusions('-bob@example.com')).toBe('');
    expect(withoutExclusions('-"login bug" deploy')).toBe('deploy');
    expect(withoutExclusions('live or Rome －Paris')).toBe('live or Rome');
    expect(withoutExclusions('a "quoted -x" -y')).toBe('a "quoted -x"');
    expect(withoutExclusions('well-known e-mail -x-y')).toBe('well-known e-mail');
    // A double exclusion is the word (websearchText: a run of dashes counts by its parity).
    expect(withoutExclusions('--cat dog ---bird --"a phrase"')).toBe('--cat dog --"a phrase"');
  });
});

