/** Types of ./synonym-stems-of.mjs (a plain script, run without a build), for test/unit/property/synonyms.test.ts. */
export function stemSetsOf(
  table: { readonly LEMMAS: string; readonly SYNSETS: string; readonly SYNSET_COUNT: number },
  stemmer: { readonly stemOnce: (word: string) => string; readonly STOP_WORDS: ReadonlySet<string> },
): Map<string, number[]>;
