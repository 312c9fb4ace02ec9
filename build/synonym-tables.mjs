// What the scripts that write the synonym tables share (build/wordnet.mjs, build/synonym-stems.mjs), and a unit test
// with them: the tables' base64url varints, and the WordNet table's sets gathered by stem — each lemma of the
// front-coded LEMMAS stemmed once (stop words left out), then each set of SYNSETS added to the sets of its lemmas'
// stems, in ascending order, once per stem.

/** The varints' digits: base64url, 5 bits of the value a digit, bit 5 set on every digit but a value's last. */
export const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `n` (an integer below 2^32) as a varint of {@link DIGITS}, the low 5 bits first.
 * @param {number} n
 * @returns {string}
 * @example varint(40) // 'oB'
 */
export const varint = (n) => {
  let s = '';
  do {
    const low = n & 31;
    n >>>= 5;
    s += DIGITS[low | (n > 0 ? 32 : 0)];
  } while (n > 0);
  return s;
};

/**
 * The synonym set numbers of each stem of the WordNet table (src/align/synonyms.generated.ts), with the stemmer given.
 * @param {{ LEMMAS: string, SYNSETS: string, SYNSET_COUNT: number }} table
 * @param {{ stemOnce: (word: string) => string, STOP_WORDS: ReadonlySet<string> }} stemmer
 * @returns {Map<string, number[]>}
 * @example stemSetsOf(wordNetTable, { stemOnce, STOP_WORDS }).get('coupon') // [ … ]
 */
export function stemSetsOf({ LEMMAS, SYNSETS, SYNSET_COUNT }, { stemOnce, STOP_WORDS }) {
  const stems = [];
  let prev = '';
  for (const entry of LEMMAS.split(' ')) {
    prev = prev.slice(0, Number.parseInt(entry[0], 36)) + entry.slice(1);
    stems.push(STOP_WORDS.has(prev) ? null : stemOnce(prev));
  }
  let at = 0;
  const next = () => {
    let n = 0;
    for (let shift = 0; ; shift += 5) {
      const d = DIGITS.indexOf(SYNSETS[at++]);
      if (d < 0) throw new Error(`the WordNet table has a character outside base64url at ${at - 1}`);
      n += (d & 31) * 2 ** shift;
      if (d < 32) return n;
    }
  };
  const sets = new Map();
  for (let s = 0; s < SYNSET_COUNT; s++) {
    const count = next() + 2;
    let lemma = 0;
    for (let k = 0; k < count; k++) {
      lemma = k === 0 ? next() : lemma + next();
      const stem = stems[lemma];
      if (stem === null) continue;
      const list = sets.get(stem);
      if (!list) sets.set(stem, [s]);
      else if (list[list.length - 1] !== s) list.push(s); // two lemmas of one set with one stem: once
    }
  }
  if (at !== SYNSETS.length) throw new Error('the WordNet table has characters past its last set');
  return sets;
}
