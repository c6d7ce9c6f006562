const LETTERS: Record<string, string> = { ø: 'o', Ø: 'O', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE' };

/**
 * A text as search reads it whatever its accents: the combining diacritical marks (U+0300-U+036F)
 * taken off after compatibility decomposition (full-width "Ｐｙｔｈｏｎ" reads as "Python"), the
 * rest composed again (Hangul and kana come back whole), and ß, æ, œ, ø, ł, đ written as people
 * type them without accents. The database's twin is `engram_fold_accents` (migration
 * 20261209000000), applied to the search document and to every query: "cafe muller" finds
 * "Café Müller".
 */
export function foldAccents(text: string): string {
  if (!/[^\u0000-\u007f]/.test(text)) return text;
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .replace(/[øØłŁđĐßẞæÆœŒ]/g, (c) => LETTERS[c] ?? c);
}
