const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A window like `30m`, `12h`, `7d` or `2w` (minutes, hours, days, weeks). */
export const DURATION_PATTERN = /^([1-9]\d{0,5})(m|h|d|w)$/;

/**
 * Milliseconds in a window such as `7d` (seed 002 `/memory/expiring?within=7d`).
 *
 * @returns the length in ms, or `undefined` when the text is not `<positive int><m|h|d|w>`.
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
