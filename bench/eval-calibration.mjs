// Calibration of the dataset-level confidence of `analyze` (src/services/analyze/calibration.ts), fitted on natural
// negatives and on positives of every length (bench/attribution-cases.mjs), as docs/analyze.md states:
//
//   pairs        (text, dataset): a positive with the dataset that holds its text; a negative with every dataset of
//                its engine (bench/attribution-cases.mjs `pairedWith`). Portrait kind: the four default packs; exact
//                kind: the four exact development datasets. The strength is the one the confidence may rest on: 0
//                without a checkable match (src/services/policy).
//   weights      per length bucket (70 … 2,000 words; the 5,000–100,000-word concatenations count with 2,000), the
//                two classes weigh the same: the fit is made at a 50 % prior, as `prior` assumes
//   two parts    with no checkable evidence (strength 0) the confidence is the floor: the share of positives that
//                show none at that length (per bucket, non-increasing in length, Wilson interval), a step per bucket
//                (up to the geometric mean of two buckets' lengths); with evidence, σ(a + b·min(strength, cap)) — a weighted logistic fit by Firth's penalised
//                likelihood (finite where the classes separate), its 95 % interval from the fit's covariance — never
//                below the floor (more evidence never lowers a confidence)
//   halves       fitted on the `tune` half (bench/natural-texts.mjs; positives by the half of their source), measured
//                on the `test` half: ECE over 10 equal-width bins (classes weighted equally) per length bucket
//
//   node bench/eval-calibration.mjs [--write] [--quick]   (needs dist/; --write regenerates
//                                                         src/services/analyze/calibration.generated.ts)
import './help.mjs';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { analyse, buildCases, caseEngine, LENGTHS, pairedWith } from './attribution-cases.mjs';
import { hasSharedData } from './natural-texts.mjs';
import { round } from './stats.mjs';

if (!hasSharedData()) {
  console.log('eval-calibration: no ../shared/data beside the checkout: skipped');
  process.exit(0);
}
const WRITE = process.argv.includes('--write');
const QUICK = process.argv.includes('--quick');
const STRENGTH_CAP = 30;
const log = (s) => console.error(s);
const sigmoid = (z) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/**
 * Weighted σ(a + b·x) by Firth's penalised likelihood (Firth 1993, Biometrika 80:27–38; Heinze & Schemper 2002,
 * Statistics in Medicine 21:2409–2419): the score gains h_i(½ − p_i), h_i the hat values, so a fit stays finite when
 * the feature separates the classes — the portraits' reported runs are never a negative's in the tuning half, and
 * plain maximum likelihood would then say 1 − 10⁻¹⁶. Newton steps; the covariance is the inverse information.
 */
function fitLogistic(x, y, w) {
  let a = 0,
    b = 0,
    i00 = 0,
    i01 = 0,
    i11 = 0;
  for (let iter = 0; iter < 500; iter++) {
    i00 = i01 = i11 = 0;
    const p = x.map((xi) => sigmoid(a + b * xi));
    for (let i = 0; i < x.length; i++) {
      const v = w[i] * p[i] * (1 - p[i]);
      i00 += v;
      i01 += v * x[i];
      i11 += v * x[i] * x[i];
    }
    const det = i00 * i11 - i01 * i01;
    if (!(det > 0)) break;
    let g0 = 0,
      g1 = 0;
    for (let i = 0; i < x.length; i++) {
      const v = w[i] * p[i] * (1 - p[i]);
      const h = (v * (i11 - 2 * x[i] * i01 + x[i] * x[i] * i00)) / det; // hat value: v · x̃ᵀ I⁻¹ x̃
      const r = w[i] * (y[i] - p[i]) + h * (0.5 - p[i]);
      g0 += r;
      g1 += r * x[i];
    }
    let da = (i11 * g0 - i01 * g1) / det,
      db = (i00 * g1 - i01 * g0) / det;
    const step = Math.max(Math.abs(da), Math.abs(db));
    if (step > 5) {
      da *= 5 / step;
      db *= 5 / step;
    }
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  const det = i00 * i11 - i01 * i01;
  return {
    a: round(a, 6),
    b: round(b, 6),
    cov: [i11 / det, -i01 / det, i00 / det].map((v) => Number(v.toPrecision(6))),
  };
}

/** The length bucket of a pair: its nominal length, the concatenations counted with 2,000. */
const bucket = (words) => Math.min(2000, words);
/** Weights: per bucket, each class half of the bucket's weight; weights sum to the number of pairs. */
function weights(pairs) {
  const per = new Map();
  for (const p of pairs) {
    const k = `${bucket(p.words)}:${p.y}`;
    per.set(k, (per.get(k) ?? 0) + 1);
  }
  const raw = pairs.map((p) => {
    const b = bucket(p.words);
    const n = (per.get(`${b}:0`) ?? 0) + (per.get(`${b}:1`) ?? 0);
    const own = per.get(`${b}:${p.y}`);
    // a bucket with one class only (the long concatenations' without positives): its pairs weigh as negatives of 2000
    const other = per.get(`${b}:${1 - p.y}`) ?? 0;
    return other === 0 ? 0.5 / Math.max(1, per.get(`2000:${p.y}`) ?? own) : (0.5 * n) / own / n;
  });
  const total = raw.reduce((a, x) => a + x, 0);
  return raw.map((x) => (x * pairs.length) / total);
}

/**
 * The floor: per length bucket, the weighted share of positives among the pairs without checkable evidence, made
 * non-increasing in length by pooling adjacent violators (Barlow et al. 1972) — a longer text never gets a higher
 * floor — each with a Wilson 95 % interval over the bucket's effective sample size (Kish).
 */
function fitFloor(pairs, w) {
  const rows = LENGTHS.map((L) => {
    let pos = 0,
      all = 0,
      sq = 0;
    pairs.forEach((p, i) => {
      if (p.s > 0 || bucket(p.words) !== L) return;
      all += w[i];
      sq += w[i] * w[i];
      if (p.y) pos += w[i];
    });
    return { words: [L], weight: all, share: all > 0 ? pos / all : 0, neff: all > 0 ? (all * all) / sq : 0 };
  });
  // pool adjacent violators of "non-increasing"
  const blocks = [];
  for (const r of rows) {
    blocks.push({ ...r });
    while (blocks.length > 1 && blocks.at(-2).share < blocks.at(-1).share) {
      const b = blocks.pop(),
        a = blocks.pop();
      const weight = a.weight + b.weight;
      blocks.push({
        words: [...a.words, ...b.words],
        weight,
        share: (a.share * a.weight + b.share * b.weight) / weight,
        neff: a.neff + b.neff,
      });
    }
  }
  const z = 1.959964;
  const out = [];
  for (const b of blocks) {
    const n = Math.max(1, b.neff),
      p = b.share;
    const d = 1 + (z * z) / n,
      c = (p + (z * z) / (2 * n)) / d,
      h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
    for (const L of b.words)
      out.push({ words: L, p: round(p, 6), lo: round(Math.max(0, c - h), 6), hi: round(Math.min(1, c + h), 6) });
  }
  // each bucket's step runs up to the geometric mean of its length and the next one's
  return out.map((f, i) => ({
    ...f,
    below: i + 1 < out.length ? Math.round(Math.sqrt(f.words * out[i + 1].words)) : null,
  }));
}

function fitKind(pairs) {
  const w = weights(pairs);
  const some = [];
  pairs.forEach((p, i) => {
    if (p.s > 0) some.push(i);
  });
  const evidence = fitLogistic(
    some.map((i) => Math.min(pairs[i].s, STRENGTH_CAP)),
    some.map((i) => pairs[i].y),
    some.map((i) => w[i]),
  );
  return { floor: fitFloor(pairs, w), evidence };
}
/** The floor at `words` (as src/services/analyze/calibration.ts): the step of the bucket it falls in. */
function floorAt(floor, words) {
  for (const f of floor) if (f.below === null || words < f.below) return f.p;
  return floor.at(-1).p;
}
const confidence = (fit, s, words) => {
  const f = floorAt(fit.floor, words);
  return s > 0 ? Math.max(f, sigmoid(fit.evidence.a + fit.evidence.b * Math.min(s, STRENGTH_CAP))) : f;
};
function ece(ps, ys, ws) {
  const bins = Array.from({ length: 10 }, () => ({ w: 0, c: 0, a: 0 }));
  let total = 0;
  ps.forEach((p, i) => {
    const b = bins[Math.min(9, Math.floor(p * 10))];
    b.w += ws[i];
    b.c += ws[i] * p;
    b.a += ws[i] * ys[i];
    total += ws[i];
  });
  return bins.reduce((e, b) => e + Math.abs(b.a - b.c) / total, 0);
}

// ------------------------------------------------------------------ the pairs
const { createEngine } = await import('../dist/index.js');
const { negatives, long, positives } = buildCases({ quick: QUICK });
const pairs = { portrait: [], exact: [] };
for (const kind of ['portrait', 'exact']) {
  const engine = await caseEngine(kind, createEngine);
  const ids = engine.datasets().map((d) => d.id);
  for (const n of [...negatives, ...long]) {
    const r = await analyse(engine, n.text);
    for (const id of pairedWith(n, ids))
      pairs[kind].push({ y: 0, words: n.words, part: n.part, s: r.datasets[id].strength });
  }
  for (const p of positives(kind)) {
    const r = await analyse(engine, p.text, false, 'count');
    pairs[kind].push({ y: 1, words: p.words, part: p.part, s: r.datasets[p.dataset].strength, t: p.transform });
  }
  engine.dispose();
  log(`${kind}: ${pairs[kind].length} pairs`);
}

// ------------------------------------------------------------------ fit and measure
const fits = {};
const report = { kinds: {} };
for (const kind of ['portrait', 'exact']) {
  const tune = pairs[kind].filter((p) => p.part === 'tune');
  const test = pairs[kind].filter((p) => p.part === 'test');
  const fit = fitKind(tune);
  fits[kind] = fit;
  const measure = (set) => {
    const out = {};
    for (const L of [...LENGTHS, 'all']) {
      const sel = L === 'all' ? set : set.filter((p) => bucket(p.words) === L && p.words <= 2000);
      const w = weights(sel);
      const ps = sel.map((p) => confidence(fit, p.s, p.words));
      out[L] = {
        n: sel.length,
        positives: sel.filter((p) => p.y).length,
        negatives: sel.filter((p) => !p.y).length,
        ece: round(
          ece(
            ps,
            sel.map((p) => p.y),
            w,
          ),
          4,
        ),
        floor: round(confidence(fit, 0, L === 'all' ? 400 : L), 4),
      };
    }
    return out;
  };
  report.kinds[kind] = {
    floor: fit.floor,
    evidence: fit.evidence,
    tune: measure(tune),
    test: measure(test),
    confidence_at: Object.fromEntries([1, 2, 3, 4, 6, 8, 12].map((s) => [s, round(confidence(fit, s, 400), 4)])),
  };
  const t = report.kinds[kind].test;
  log(
    `${kind}: floor ${fit.floor.map((f) => `${f.words}:${f.p.toFixed(3)}`).join(' ')}, evidence σ(${fit.evidence.a} + ${fit.evidence.b}·s); ` +
      `test ECE ${LENGTHS.map((L) => `${L}:${t[L].ece}`).join(' ')}; floors ${LENGTHS.map((L) => t[L].floor).join(' ')}; ` +
      `p(s) ${JSON.stringify(report.kinds[kind].confidence_at)}`,
  );
}

const date = new Date().toISOString().slice(0, 10);
const provenance = {
  code: 'bench/eval-calibration.mjs',
  data:
    "bench/attribution-cases.mjs on this project's development data: natural negatives (Brown Corpus, arXiv passages, " +
    'PAN 2013 essays without reuse, student short answers) of 70 to 100,000 words; positives of the same lengths ' +
    '(verbatim, 5 % and 10 % word edits, an older edition, 40-word quotations in natural text; for exact datasets also ' +
    'LLM paraphrases and PAN 2013 reuse) of Gutenberg books and WikiText articles (portrait kind: the default reference ' +
    'packs; exact kind: four development datasets)',
  protocol:
    'pairs (text, dataset); per length bucket the two classes weigh the same (prior 0.5); no checkable evidence: ' +
    'the floor, the share of positives per length bucket (non-increasing in length, one step per bucket); ' +
    "evidence: σ(a + b·min(strength, cap)) by Firth's penalised likelihood, at least the floor; fitted on the tune " +
    'half, measured on the test half; ECE over 10 equal-width bins per length bucket',
  date,
  strength_cap: STRENGTH_CAP,
  estimator: 'Firth penalised likelihood',
  n_fit: pairs.portrait.filter((p) => p.part === 'tune').length + pairs.exact.filter((p) => p.part === 'tune').length,
  n_test: pairs.portrait.filter((p) => p.part === 'test').length + pairs.exact.filter((p) => p.part === 'test').length,
};
const metrics = Object.fromEntries(
  Object.entries(report.kinds).map(([k, r]) => [
    k,
    { ece_max: Math.max(...LENGTHS.map((L) => r.test[L].ece)), ece: r.test.all.ece },
  ]),
);
const body = JSON.stringify({ kinds: fits, strength_cap: STRENGTH_CAP, provenance, metrics });
const id = `cal-${date}-${createHash('sha256').update(body).digest('hex').slice(0, 8)}`;
Object.assign(report, {
  what: 'calibration of the dataset-level confidence of analyze',
  id,
  provenance,
  node: process.version,
});
if (!QUICK)
  writeFileSync(
    fileURLToPath(new URL('./results/eval-calibration.json', import.meta.url)),
    `${JSON.stringify(report, null, 2)}\n`,
  );
if (WRITE) {
  const ts = `// Generated by bench/eval-calibration.mjs --write on ${date}; do not edit. Protocol and measures:
// bench/results/eval-calibration.json and docs/analyze.md ("Confidence and calibration").
import type { LogisticFit } from '../../stats/logistic.js';

/** The confidence without a checkable match for texts of one length bucket, with its 95 % interval. */
export interface FloorPoint {
  /** The bucket's length (words). */
  readonly words: number;
  /** The step holds for texts of fewer words than this (and at least the previous step's); null: any longer text. */
  readonly below: number | null;
  readonly p: number;
  readonly lo: number;
  readonly hi: number;
}

/** One kind's calibration: the floor without checkable evidence (by length) and the curve with it (by strength). */
export interface KindCalibration {
  /** By length, non-increasing: one step per length bucket. */
  readonly floor: readonly FloorPoint[];
  /** σ(a + b·min(strength, strength_cap)), never below the floor. */
  readonly evidence: LogisticFit;
}

/** Calibration of the dataset-level confidence, with its provenance. */
export const CALIBRATION: {
  readonly id: string;
  readonly kinds: { readonly exact: KindCalibration; readonly portrait: KindCalibration };
  readonly strength_cap: number;
  readonly provenance: Readonly<Record<string, string | number>>;
  readonly metrics: Readonly<Record<'exact' | 'portrait', { readonly ece_max: number; readonly ece: number }>>;
} = ${JSON.stringify({ id, kinds: fits, strength_cap: STRENGTH_CAP, provenance, metrics }, null, 2)};
`;
  writeFileSync(fileURLToPath(new URL('../src/services/analyze/calibration.generated.ts', import.meta.url)), ts);
  log('wrote src/services/analyze/calibration.generated.ts (rebuild to use it)');
}
