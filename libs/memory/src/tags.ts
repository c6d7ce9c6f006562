/**
 * Tags as stored: trimmed, lower-cased, duplicates dropped, first occurrence order kept
 * (seed 002 "태그": lower case for consistency; tags match case-insensitively).
 */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const t = tag.trim().toLowerCase();
    if (t) seen.add(t);
  }
  return [...seen];
}

/** A tag used as a filter, normalised the same way as stored tags. */
export function normalizeTag(tag: string): string {
  return tag.trim().toLowerCase();
}
