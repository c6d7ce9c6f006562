/**
 * What text shows and how it breaks lines: the rules the API's fields and the lifecycle settings
 * share (apps/api zod-fields re-exports them), so that a tag and an importance keyword refuse the
 * same characters; and the cuts and patterns of text every part of the lifecycle uses.
 */

/**
 * What breaks a one-line value: control characters, the Unicode line and paragraph separators
 * (U+2028, U+2029: a line break to anything that renders Unicode, e.g. a recall read by a
 * model) and the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069: text that displays in another order than it reads, "Trojan Source").
 */
export const NOT_ONE_LINE = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;

/**
 * The characters that show nothing, as a regex character class (written with `\uXXXX` escapes
 * so that a JSON Schema pattern can carry it too): white space, controls, the format characters
 * of the Basic Multilingual Plane (zero-width space and joiners, bidirectional marks, U+FEFF),
 * the Hangul fillers, the blank Braille pattern, the combining grapheme joiner and the variation
 * selectors. Content of these alone was stored and shown as a blank entry (a newcomer's reports:
 * `"\u200b\u200b"`, then `"\u3164"`).
 */
export const INVISIBLE_CHARACTERS =
  '\\s\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u115f\\u1160\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\u2800\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff9-\\ufffb';
// Beyond the class: a combining mark has no letter of its own to show ("\u0301" alone), and the
// format characters outside the Basic Multilingual Plane (the tag characters U+E0020-U+E007F) show
// nothing either (a newcomer's report). `\p{}` needs the `u` flag a JSON Schema pattern may lack,
// so the MCP tools' advertised pattern keeps the class alone; their handlers check with this.
const VISIBLE = new RegExp(`[^${INVISIBLE_CHARACTERS}\\p{M}\\p{Cf}]`, 'u');

/** Whether a text has anything to read: a character outside {@link INVISIBLE_CHARACTERS}, not a combining mark nor a format character. */
export const hasVisibleText = (s: string): boolean => VISIBLE.test(s);

/** Characters that show as nothing inside a word. */
export const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/;

/**
 * `text` cut to at most `max` UTF-16 units without splitting a surrogate pair: a lone half is
 * invalid in PostgreSQL's text and JSON ("Unicode low surrogate must follow a high surrogate"), and
 * an emoji cut in two at a conversation's gist failed its consolidation for good (helper 32's).
 */
export function cutUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** `s` as a regular expression that matches it literally. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * At most `max` UTF-16 units of `line` around the offset `at`, cut at words and marked with an
 * ellipsis where cut, never splitting a surrogate pair: what a memory quotes of another line (the
 * statement a correction corrects, the question a short answer answers). `at` = the line's length
 * keeps its end.
 */
export function quoteAround(line: string, at: number, max: number): string {
  if (line.length <= max) return line;
  let start = Math.max(0, Math.min(at - max / 2, line.length - max));
  if (start > 0) start = line.indexOf(' ', start) + 1 || start;
  // A start inside a surrogate pair would leave its low half alone.
  if (/[\uDC00-\uDFFF]/.test(line[start] ?? '')) start += 1;
  const rest = line.slice(start);
  let quote = cutUnits(rest, max);
  if (quote.length < rest.length) {
    const space = quote.lastIndexOf(' ');
    if (space >= max / 2) quote = quote.slice(0, space);
    quote = `${quote}…`;
  }
  return start > 0 ? `…${quote}` : quote;
}
