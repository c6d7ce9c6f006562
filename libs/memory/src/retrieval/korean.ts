/**
 * Korean words in full text (ours; a newcomer's report: `q=서울` found nothing in "저는 서울에
 * 살아요"). PostgreSQL's `english` configuration keeps a Hangul word whole, particle and all
 * (서울에, 서울은, 서울에서), so a noun is not a lexeme of its own. A query's Hangul word is
 * therefore matched as a prefix (tsquery `서울:*`), after its own particle is taken off when
 * what is left still has two syllables or more (서울에 → 서울; 의사 stays).
 */

/** Particles (조사) that end a noun, longest first so that 에서 goes before 에. */
const PARTICLES = ['에게서', '으로부터', '에서는', '으로는', '이랑', '에게', '한테', '에서', '으로', '까지', '부터', '보다', '처럼', '하고', '은', '는', '이', '가', '을', '를', '에', '의', '도', '로', '와', '과', '랑', '만', '께'];
const HANGUL_WORD = /^\p{Script=Hangul}+$/u;

/**
 * The prefix a query lexeme matches on, or null for one matched whole: a Hangul word of at least
 * two syllables, its trailing particle removed when at least two syllables remain.
 */
export function hangulPrefix(lexeme: string): string | null {
  const word = lexeme.normalize('NFC');
  if (!HANGUL_WORD.test(word) || [...word].length < 2) return null;
  for (const p of PARTICLES) {
    if (word.endsWith(p) && [...word].length - [...p].length >= 2) return word.slice(0, word.length - p.length);
  }
  return word;
}
