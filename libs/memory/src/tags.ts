/**
 * Tags as stored: trimmed, lower-cased, composed (Unicode NFC), duplicates dropped, first
 * occurrence order kept (seed 002 "태그": lower case for consistency; tags match
 * case-insensitively). NFC, ours: "résumé" typed precomposed or decomposed looks the same and is
 * one tag (migration 20261210000000 composed the tags stored before).
 */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const t = normalizeTag(tag);
    if (t) seen.add(t);
  }
  return [...seen];
}

/** A tag used as a filter, normalised the same way as stored tags. */
export function normalizeTag(tag: string): string {
  return tag.trim().toLowerCase().normalize('NFC');
}
