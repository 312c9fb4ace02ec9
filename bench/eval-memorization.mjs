// The memorization operations measured on real neural models whose training data we know (models/README.md):
// byte-gpt-base (trained on the member passages) and byte-gpt-inserted (the same, plus works inserted 1, 4 or 16
// times and canaries), both run by the package (dist/, the WebAssembly forward pass).
//
// 1. Per passage (base model): loss, zlib ratio, Min-K% and Min-K%++ of every member and held-out passage, as the
//    probe computes them (its per-chunk values, one 128-word chunk a passage) → AUC and TPR at 1 % FPR. Reported as
//    measured: this is the per-passage membership inference the docs say not to rely on.
// 2. A blind baseline: a model-free classifier (multinomial naive Bayes over words, 10-fold cross-validation) on the
//    same passages. On an IID split it must be ≈ 0.5; if it is not, the split is not IID.
// 3. Dataset inference (the probe's verdict: one-sided pooled t-test of per-document means, Holm over the four
//    statistics): member passages vs held-out passages with 25, 50 and 100 on each side (20 draws each); held-out vs
//    held-out over 100 random splits of 50 + 50 → the false-positive rate at α = 0.01 and 0.05.
// 4. Extraction (inserted model): greedy continuations of each inserted and never-seen work, by how often it was
//    inserted (the longest exact continuation, the longest verbatim run).
// 5. Canaries: the trap test on the 16 inserted canaries against the 16 unused controls.
// 6. assess: the tier of each inserted and each never-seen work (extraction; the probe against the other never-seen
//    works, calibrated by the base model as reference model, and for comparison without it).
//   node bench/eval-memorization.mjs [--quick]
// Results: bench/results/eval-memorization.json
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createEngine } from '../dist/index.js';
import { loadByteGptModel, readByteGptWeights } from '../dist/models.js';
import { auc, blindScores, rng, shuffled, tprAt } from './memorization-measures.mjs';

const QUICK = process.argv.includes('--quick');
const root = new URL('../', import.meta.url);
const t0 = performance.now();
const log = (...a) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s]`, ...a);

async function model(name) {
  const manifest = JSON.parse(readFileSync(new URL(`models/${name}/manifest.json`, root), 'utf8'));
  const weights = readByteGptWeights(
    readFileSync(new URL(`models/${name}/${manifest.weights}`, root)),
    manifest.config,
  );
  const m = await loadByteGptModel(weights, { id: name });
  // the probe scores the same chunks again in every draw: remember each text's answer
  const memo = new Map();
  const logprobs = (text) => {
    let p = memo.get(text);
    if (p === undefined) {
      p = m.logprobs(text);
      memo.set(text, p);
    }
    return p;
  };
  return { manifest, model: { id: m.id, access: m.access, logprobs, generate: m.generate } };
}

const STATS = [
  { name: 'loss', sign: -1 },
  { name: 'zlib_ratio', sign: -1 },
  { name: 'min_k', sign: 1 },
  { name: 'min_k_plus_plus', sign: 1 },
];

const engine = await createEngine();
const mem = engine.memorization;
const out = { models: {}, quick: QUICK };

// ------------------------------------------------------------------ 1, 2: per passage, blind baseline
const base = await model('byte-gpt-base');
const members = base.manifest.members.map((d) => d.text);
const heldOut = base.manifest.held_out.map((d) => d.text);
out.models['byte-gpt-base'] = { parameters: base.manifest.parameters, sha256: base.manifest.sha256 };
out.split = { members: members.length, held_out: heldOut.length };
log(`scoring ${members.length} member and ${heldOut.length} held-out passages`);
const all = await mem.probe({
  model: base.model,
  texts: members,
  reference: { texts: heldOut },
  chunk_tokens: 128,
  min_chunks: 5,
  concurrency: 1,
});
const perPassage = {};
for (const { name, sign } of STATS) {
  const pos = all.chunks.suspect.map((c) => sign * c[name]);
  const neg = all.chunks.reference.map((c) => sign * c[name]);
  perPassage[name] = {
    auc: Number(auc(pos, neg).toFixed(3)),
    tpr_at_1pct_fpr: Number(tprAt(pos, neg, 0.01).toFixed(3)),
  };
}
out.per_passage = { chunks: all.n_chunks, statistics: perPassage };
log('per passage', JSON.stringify(perPassage));
const blind = blindScores(members, heldOut, 10, rng(11));
out.blind_baseline = {
  classifier: 'multinomial naive Bayes over lower-cased words, add-one smoothing, 10-fold cross-validation',
  auc: Number(auc(blind.pos, blind.neg).toFixed(3)),
};
log('blind baseline', out.blind_baseline.auc);

// ------------------------------------------------------------------ 3: dataset inference
const draws = QUICK ? 5 : 20;
const di = {};
for (const n of [25, 50, 100]) {
  const r = rng(100 + n);
  const ps = [];
  let significant = 0;
  for (let d = 0; d < draws; d++) {
    const p = await mem.probe({
      model: base.model,
      texts: shuffled(members, r).slice(0, n),
      reference: { texts: shuffled(heldOut, r).slice(0, n) },
      chunk_tokens: 128,
      min_chunks: Math.min(20, n),
      alpha: 0.01,
      concurrency: 1,
    });
    const loss = p.statistics.find((s) => s.name === 'loss');
    ps.push(loss?.document_test?.p_value ?? 1);
    if (p.verdict === 'significant') significant++;
  }
  ps.sort((a, b) => a - b);
  di[n] = { draws, median_p_loss: ps[ps.length >> 1], max_p_loss: ps[ps.length - 1], significant_at_001: significant };
  log(`dataset inference, ${n} + ${n}`, JSON.stringify(di[n]));
}
const splits = QUICK ? 20 : 100;
const fp = { splits, size: 50, significant_at_001: 0, significant_at_005: 0 };
const rf = rng(7);
for (let s = 0; s < splits; s++) {
  const h = shuffled(heldOut, rf);
  for (const alpha of [0.01, 0.05]) {
    const p = await mem.probe({
      model: base.model,
      texts: h.slice(0, 50),
      reference: { texts: h.slice(50, 100) },
      chunk_tokens: 128,
      alpha,
      concurrency: 1,
    });
    if (p.verdict === 'significant') fp[alpha === 0.01 ? 'significant_at_001' : 'significant_at_005']++;
  }
}
fp.fpr_at_001 = fp.significant_at_001 / splits;
fp.fpr_at_005 = fp.significant_at_005 / splits;
out.dataset_inference = { members_vs_held_out: di, held_out_vs_held_out: fp };
log('false positives', JSON.stringify(fp));

// ------------------------------------------------------------------ 4, 5, 6: the inserted model
const ins = await model('byte-gpt-inserted');
out.models['byte-gpt-inserted'] = { parameters: ins.manifest.parameters, sha256: ins.manifest.sha256 };
const works = ins.manifest.inserted.filter((d) => d.id.startsWith('work:'));
const never = ins.manifest.never_seen;
const extraction = {};
for (const group of [
  ...[1, 4, 16].map((times) => ({ key: `inserted_${times}x`, docs: works.filter((w) => w.times === times) })),
  { key: 'never_seen', docs: QUICK ? never.slice(0, 4) : never },
]) {
  const rows = [];
  for (const w of group.docs) {
    const e = await mem.extract({
      model: ins.model,
      text: w.text,
      prefix_tokens: 20,
      continuation_tokens: 50,
      prefixes: 3,
      // bytes: 50 words of this prose are about 300
      max_tokens: 400,
    });
    rows.push({
      id: w.id,
      longest_exact_continuation: Math.max(...e.attempts.map((a) => a.exact_continuation_tokens)),
      longest_verbatim_run: e.summary.longest_match_tokens,
      verified: e.summary.verified,
    });
  }
  extraction[group.key] = {
    works: rows.length,
    with_50_word_continuation: rows.filter((r) => r.longest_exact_continuation >= 50).length,
    median_longest_exact: rows.map((r) => r.longest_exact_continuation).sort((a, b) => a - b)[rows.length >> 1],
    rows,
  };
  log(`extraction ${group.key}`, extraction[group.key].with_50_word_continuation, '/', rows.length);
}
out.extraction = extraction;

const canaries = ins.manifest.inserted.filter((d) => d.id.startsWith('canary:'));
const controls = ins.manifest.canary_controls;
const lossOf = async (t) => {
  const lp = await ins.model.logprobs(t);
  return -lp.logprobs.reduce((a, b) => a + b, 0) / lp.logprobs.length;
};
const cLoss = await Promise.all(canaries.map((c) => lossOf(c.text)));
const kLoss = await Promise.all(controls.map((c) => lossOf(c.text)));
const maxControl = Math.min(...kLoss);
out.canaries = {
  inserted: canaries.length,
  controls: controls.length,
  inserted_below_every_control: cLoss.filter((l) => l < maxControl).length,
  auc: Number(
    auc(
      cLoss.map((l) => -l),
      kLoss.map((l) => -l),
    ).toFixed(3),
  ),
};
log('canaries', JSON.stringify(out.canaries));

// The probe's reference for a work is the never-seen works: data.py assigned the set-apart works to inserted or
// never-seen at random, so that is a randomized split of one pool (a never-seen work is left out of its own
// reference). A work is ~170 words, so chunks of 16 words and a verdict from 5. The base model is the reference
// model: it trained on the same member passages and none of the inserted works, so what any model of these
// addresses finds predictable (formulaic openings, a president's stock phrases) cancels out. Run both with and
// without it, to show what calibration changes.
const neverSets = [];
for (const [i, w] of never.entries()) {
  const texts = never.filter((x) => x.id !== w.id).map((x) => x.text);
  neverSets.push((await mem.addReferenceSet({ id: `never-seen-but-${i}`, texts, basis: 'randomized_split' })).id);
}
const allNever = await mem.addReferenceSet({
  id: 'never-seen',
  texts: never.map((x) => x.text),
  basis: 'randomized_split',
});
const tracked = new Map();
const track = async (w) => {
  if (!tracked.has(w.id))
    tracked.set(w.id, (await mem.registerWork({ work: { content: w.text, owner: 'eval', title: w.id } })).work_id);
  return tracked.get(w.id);
};
const tiers = {};
for (const variant of ['calibrated', 'uncalibrated']) {
  tiers[variant] = {};
  for (const group of [
    ...[1, 4, 16].map((times) => ({ key: `inserted_${times}x`, docs: works.filter((w) => w.times === times) })),
    { key: 'never_seen', docs: QUICK ? never.slice(0, 4) : never },
  ]) {
    const counts = {};
    const rows = [];
    for (const w of group.docs) {
      const i = never.indexOf(w);
      const a = await mem.assess({
        work_id: await track(w),
        model: ins.model,
        extract: { prefix_tokens: 20, continuation_tokens: 50, prefixes: 3, max_tokens: 400 },
        probe: {
          reference: { reference_set: i < 0 ? allNever.id : neverSets[i] },
          chunk_tokens: 16,
          min_chunks: 5,
          ...(variant === 'calibrated' ? { reference_model: base.model } : {}),
        },
      });
      counts[a.evidence_tier] = (counts[a.evidence_tier] ?? 0) + 1;
      const tested = a.probe.statistics.filter((x) => x.in_verdict && x.document_test);
      rows.push({
        id: w.id,
        tier: a.evidence_tier,
        probe: a.probe.verdict,
        probe_p: tested.length ? Math.min(...tested.map((x) => x.document_test.p_holm)) : null,
        extraction_verified: a.extraction.summary.verified,
      });
    }
    tiers[variant][group.key] = {
      works: rows.length,
      tiers: counts,
      strong_or_confirmed: rows.filter((r) => r.tier === 'strong' || r.tier === 'confirmed').length,
      rows,
    };
    log(`assess ${variant} ${group.key}`, JSON.stringify(counts));
  }
}
out.assess = tiers;
out.seconds = Math.round((performance.now() - t0) / 1000);
engine.dispose();
if (!QUICK) {
  mkdirSync(new URL('bench/results/', root), { recursive: true });
  writeFileSync(new URL('bench/results/eval-memorization.json', root), `${JSON.stringify(out, null, 2)}\n`);
}
console.log(JSON.stringify(out, (k, v) => (k === 'rows' ? undefined : v), 2));
