// Which "negatives" hold text of a packed document, checked by text, not by the engine: a natural text that quotes a
// packed work for K consecutive words (K characters in scripts without spaces) is a true match, and a benchmark must
// count it apart from the false positives (bench/eval-languages.mjs). Units are compared after case folding with
// punctuation dropped (a word's letters and digits; a character that is a letter or digit), so a quotation re-typed
// with other quotation marks or commas is still found.
//
// Every K-unit window of the negatives goes into a map by a 53-bit rolling hash (two 32-bit polynomial hashes); the
// packed texts are streamed past it once, and every hash hit is confirmed unit by unit.
import './help.mjs';

const B1 = 0x01000193;
const B2 = 0x5bd1e995;
const pow = (b, k) => {
  let p = 1;
  for (let i = 0; i < k; i++) p = Math.imul(p, b) >>> 0;
  return p;
};

/** The comparable units of a text: case-folded words (letters and digits only) or letter/digit characters. */
export function foldedUnits(text, unit) {
  if (unit === 'chars') return [...text.toLowerCase()].filter((c) => /[\p{L}\p{N}]/u.test(c));
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}]+/gu, ''))
    .filter(Boolean);
}

/** A 32-bit code for each unit (FNV-1a over its UTF-16 code units). */
function codes(units) {
  return units.map((u) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < u.length; i++) h = Math.imul(h ^ u.charCodeAt(i), 0x01000193) >>> 0;
    return h;
  });
}

/** Calls `each(key, start)` for every window of `k` codes. */
function windows(c, k, each) {
  if (c.length < k) return;
  const t1 = pow(B1, k - 1);
  const t2 = pow(B2, k - 1);
  let h1 = 0;
  let h2 = 0;
  for (let i = 0; i < c.length; i++) {
    if (i >= k) {
      h1 = (h1 - Math.imul(c[i - k], t1)) >>> 0;
      h2 = (h2 - Math.imul(c[i - k], t2)) >>> 0;
    }
    h1 = (Math.imul(h1, B1) + c[i]) >>> 0;
    h2 = (Math.imul(h2, B2) + c[i]) >>> 0;
    if (i >= k - 1) each(h1 * 0x200000 + (h2 & 0x1fffff), i - k + 1);
  }
}

/**
 * For each of `texts`, the first window of `k` units it shares with one of `works` ([{ document, text }]), or null:
 * { document, at } with `at` the unit offset in the text (folded units) and `words` the shared units joined.
 * @example sharedRuns(['… Nel mezzo del cammin di nostra vita …'], [{ document: 'pg1012', text }], 'words', 24)
 */
export function sharedRuns(texts, works, unit, k) {
  const folded = texts.map((t) => foldedUnits(t, unit));
  const byKey = new Map();
  for (const [ti, u] of folded.entries()) {
    windows(codes(u), k, (key, at) => {
      const list = byKey.get(key);
      if (list) list.push([ti, at]);
      else byKey.set(key, [[ti, at]]);
    });
  }
  const found = texts.map(() => null);
  for (const w of works) {
    const wu = foldedUnits(w.text, unit);
    windows(codes(wu), k, (key, at) => {
      const list = byKey.get(key);
      if (!list) return;
      for (const [ti, tat] of list) {
        if (found[ti]) continue;
        let same = true;
        for (let i = 0; i < k && same; i++) same = folded[ti][tat + i] === wu[at + i];
        if (same)
          found[ti] = {
            document: w.document,
            at: tat,
            words: folded[ti].slice(tat, tat + k).join(unit === 'chars' ? '' : ' '),
          };
      }
    });
  }
  return found;
}
