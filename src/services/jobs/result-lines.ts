/**
 * The words a job type's `summarize` writes its result's line with (./job-type.ts), and the line of a type without
 * one: what the web app's job table, `trainprint jobs status` and the documentation show of an item's result.
 */

/**
 * `n` and its noun, the plural when `n` is not 1 (`plural` when it is not the noun and an `s`).
 * @example counted(2, 'match', 'matches') // '2 matches'
 */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * A share (0–1) as a percentage with one decimal, or '—' for what is not a number.
 * @example percent(0.1234) // '12.3 %'
 */
export function percent(x: unknown): string {
  return typeof x === 'number' ? `${Math.round(x * 1000) / 10} %` : '—';
}

/** The length of an array field of a result, 0 for anything else. */
export const lengthOf = (x: unknown): number => (Array.isArray(x) ? x.length : 0);

/**
 * The line of a result whose type has no `summarize` (a host's own type): its fields' names, or the value itself,
 * cut to 80 characters. Neutral: it claims nothing a type did not say (the web app once showed any such result as a
 * score).
 * @example neutralSummary({ text: 'ABC' }) // 'a result with text'
 */
export function neutralSummary(result: unknown): string {
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
    const keys = Object.keys(result);
    const shown = keys.slice(0, 6).join(', ');
    return keys.length === 0 ? 'an empty result' : `a result with ${shown}${keys.length > 6 ? ', …' : ''}`;
  }
  const text = JSON.stringify(result) ?? String(result);
  return `a result: ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`;
}
