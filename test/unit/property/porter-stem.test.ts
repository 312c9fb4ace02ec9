/**
 * The Porter stemmer (src/align/stem.ts) against its rule-by-rule oracle (test/reference/porter-stem.ts): the same
 * stem for every lemma of the synonym table, every word of the test fixtures' books, and random words over a few
 * letters (which hit the suffixes of every step, and words of 1–3 letters).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stemOnce } from '../../../src/align/stem.js';
import { LEMMAS } from '../../../src/align/synonyms.generated.js';
import { prng } from '../../reference/core.js';
import { stemOnceRef } from '../../reference/porter-stem.js';

/** The words where the stems differ, at most 10 (empty: the same everywhere). */
const differing = (words: Iterable<string>): string[] => {
  const out: string[] = [];
  for (const w of words) if (out.length < 10 && stemOnce(w) !== stemOnceRef(w)) out.push(w);
  return out;
};

describe('stemOnce', () => {
  it('stems every lemma of the synonym table as the oracle does', () => {
    const lemmas: string[] = [];
    let prev = '';
    for (const entry of LEMMAS.split(' ')) {
      prev = prev.slice(0, Number.parseInt(entry[0], 36)) + entry.slice(1);
      lemmas.push(prev);
    }
    expect(lemmas.length).toBeGreaterThan(50_000);
    expect(differing(lemmas)).toEqual([]);
  });

  it('stems every word of the fixture books as the oracle does', () => {
    const dir = join(import.meta.dirname, '../../fixtures/texts/gutenberg');
    const words = new Set<string>();
    for (const f of readdirSync(dir))
      for (const w of readFileSync(join(dir, f), 'utf8')
        .toLowerCase()
        .split(/[^a-z]+/))
        words.add(w);
    expect(words.size).toBeGreaterThan(5_000);
    expect(differing(words)).toEqual([]);
  });

  it('stems random words over the suffixes’ letters, and words that are not a–z, as the oracle does', () => {
    const rnd = prng(58);
    const letters = 'aeiouylstnrcbgmdzx';
    const words: string[] = ['', 'a', 'y', 'ys', 'ies', 'sses', 'Running', 'naïve', 'x-ray', 'ays', 'ayed', 'oying'];
    for (let k = 0; k < 100_000; k++) {
      let w = '';
      for (let n = 1 + Math.floor(rnd() * 12); n > 0; n--) w += letters[Math.floor(rnd() * letters.length)];
      words.push(w);
    }
    expect(differing(words)).toEqual([]);
  });
});
