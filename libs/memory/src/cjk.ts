/**
 * Chinese and Japanese are written without spaces. A run of Han or kana characters is read as its
 * overlapping pairs of characters (bigrams, as Lucene's CJKBigramFilter does); the database's twin
 * is `engram_cjk_bigrams` (migration 20261207000000).
 */
export const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;

/** A text with each run of Han or kana characters replaced by its bigrams, spaced (a lone character stays). */
export function cjkBigrams(text: string): string {
  return text.replace(CJK_RUN, (run) => {
    const chars = [...run];
    return ` ${chars.length === 1 ? run : chars.slice(1).map((c, i) => `${chars[i] as string}${c}`).join(' ')} `;
  });
}
