/**
 * Inert separators: common non-ASCII characters that act exactly like an ASCII separator when an
 * ASCII character (or the end) follows them. Their NFKC_Casefold is non-empty and has no token
 * character, they have combining class 0 and are no canonical composition's second character, so
 * they neither change their predecessor nor are changed by an ASCII successor
 * (test/unit/words.test.ts checks every one against the Unicode tables). Real English is full of
 * them — no-break spaces, curly quotes, dashes, bullets, C1 controls from mis-decoded cp1252 —
 * and the core skips them without calling the normaliser (assembly/regions.ts).
 */
export const INERT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x80, 0xa7],
  [0xa9, 0xa9],
  [0xab, 0xac],
  [0xae, 0xae],
  [0xb0, 0xb1],
  [0xb6, 0xb7],
  [0xbb, 0xbb],
  [0xbf, 0xbf],
  [0xd7, 0xd7],
  [0xf7, 0xf7],
  [0x2000, 0x200a],
  [0x2010, 0x2016],
  [0x2018, 0x2027],
  [0x202f, 0x2032],
  [0x2035, 0x2035],
  [0x2039, 0x203a],
  [0x2212, 0x2212],
  [0x3000, 0x3003],
  [0x300c, 0x300f],
];

/** Every inert code point, expanded. */
export function inertCodePoints(): number[] {
  const out: number[] = [];
  for (const [lo, hi] of INERT_RANGES) for (let c = lo; c <= hi; c++) out.push(c);
  return out;
}
