/** The apostrophes phones, word processors and models type for `'` (right and left single quotes, the modifier letter, the full-width one). */
const APOSTROPHES = /[\u2019\u02bc\u2018\uff07]/g;

/** A text with every apostrophe written as the straight one: "I’m vegetarian" reads as "I'm vegetarian". */
export function straightApostrophes(text: string): string {
  return text.replace(APOSTROPHES, "'");
}
