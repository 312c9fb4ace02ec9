/** Types of ./synonym-tables.mjs (a plain script, run without a build), for test/unit/property/synonyms.test.ts. */
export const DIGITS: string;
export function varint(n: number): string;
export function stemSetsOf(
  table: { readonly LEMMAS: string; readonly SYNSETS: string; readonly SYNSET_COUNT: number },
  stemmer: { readonly stemOnce: (word: string) => string; readonly STOP_WORDS: ReadonlySet<string> },
): Map<string, number[]>;
