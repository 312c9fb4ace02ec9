// The measures of bench/eval-memorization.mjs, as plain JS so that the eval and the tests share one implementation
// (test/unit/memorization-measures.test.ts checks them on cases with known answers).
import './help.mjs';

/** A deterministic generator (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const shuffled = (xs, r) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

/** Rank AUC of scores (higher = member) of positives against negatives, ties half. */
export function auc(pos, neg) {
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length);
}

/** TPR at the largest threshold whose FPR is at most `fpr`. */
export function tprAt(pos, neg, fpr) {
  const sorted = [...neg].sort((a, b) => b - a);
  const allowed = Math.floor(fpr * neg.length);
  // scores strictly above the (allowed+1)-th highest negative
  const threshold = sorted[allowed] ?? -Infinity;
  return pos.filter((p) => p > threshold).length / pos.length;
}

const words = (t) => t.toLowerCase().match(/[a-z']+/g) ?? [];

/** Out-of-fold scores of a multinomial naive Bayes (add-one smoothing) over words, k folds. */
export function blindScores(members, heldOut, folds, r) {
  const items = shuffled(
    [...members.map((t) => ({ t, y: 1 })), ...heldOut.map((t) => ({ t, y: 0 }))].map((x, i) => ({ ...x, i })),
    r,
  );
  const scores = new Map();
  for (let f = 0; f < folds; f++) {
    const test = items.filter((_, j) => j % folds === f);
    const train = items.filter((_, j) => j % folds !== f);
    const counts = [new Map(), new Map()];
    const totals = [0, 0];
    const docs = [0, 0];
    for (const { t, y } of train) {
      docs[y]++;
      for (const w of words(t)) {
        counts[y].set(w, (counts[y].get(w) ?? 0) + 1);
        totals[y]++;
      }
    }
    const vocab = new Set([...counts[0].keys(), ...counts[1].keys()]).size + 1;
    for (const { t, i } of test) {
      let s = Math.log(docs[1] / docs[0]);
      for (const w of words(t)) {
        s += Math.log(((counts[1].get(w) ?? 0) + 1) / (totals[1] + vocab));
        s -= Math.log(((counts[0].get(w) ?? 0) + 1) / (totals[0] + vocab));
      }
      scores.set(i, s);
    }
  }
  const pos = [],
    neg = [];
  for (const { i, y } of items) (y ? pos : neg).push(scores.get(i));
  return { pos, neg };
}
