/**
 * `FormTable` (the lexicon's open-addressing table of token forms, characters pooled) against a `Map` of
 * strings: the same id for the same form, ids in order of first sight, through table growth, pool growth
 * and `clear`, for forms cut out of a longer text and forms given whole.
 */
import { describe, expect, it } from 'vitest';
import { FormTable } from '../../../src/align/tokens.js';
import { prng } from '../../reference/core.js';

const ALPHABET = 'abcdeéfghijklmnopqrstuvwxyz0123456789ß中文';

/** `n` seeded random forms of 1–12 characters, many repeated, some prefixes of others. */
function forms(seed: number, n: number): string[] {
  const rnd = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (out.length > 0 && rnd() < 0.3) {
      const f = out[(rnd() * out.length) | 0];
      out.push(rnd() < 0.5 ? f : f.slice(0, 1 + ((rnd() * f.length) | 0)));
      continue;
    }
    let f = '';
    for (let k = 1 + ((rnd() * 12) | 0); k > 0; k--) f += ALPHABET[(rnd() * ALPHABET.length) | 0];
    out.push(f);
  }
  return out;
}

describe('FormTable = a Map of forms', () => {
  for (const seed of [1, 2, 3]) {
    it(`gives the ids a Map gives, through growth (seed ${seed})`, () => {
      const table = new FormTable();
      const reference = new Map<string, number>();
      const list = forms(seed, 60_000); // the table starts at 2,048 slots and the pool at 8,192 units: both grow
      const text = list.join(' ');
      let at = 0;
      for (const f of list) {
        const expected = reference.get(f) ?? reference.size;
        const id = seed === 1 ? table.intern(f, 0, f.length) : table.intern(text, at, at + f.length);
        expect(id).toBe(expected);
        expect(table.added).toBe(!reference.has(f));
        reference.set(f, expected);
        at += f.length + 1;
      }
      expect(table.size).toBe(reference.size);
      for (const [f, id] of reference) {
        expect(table.form(id)).toBe(f);
        expect(table.intern(`(${f})`, 1, f.length + 1)).toBe(id);
        expect(table.added).toBe(false);
      }
    });
  }

  it('starts afresh after clear', () => {
    const table = new FormTable();
    for (const f of forms(4, 5_000)) table.intern(f, 0, f.length);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.intern('cats', 0, 4)).toBe(0);
    expect(table.added).toBe(true);
    expect(table.intern('two cats', 4, 8)).toBe(0);
    expect(table.added).toBe(false);
  });
});
