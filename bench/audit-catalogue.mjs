// The catalogue audit validated on a model whose training data is known (models/README.md): byte-gpt-inserted, its
// 64 works inserted 16 times (24: 8 speeches and 16 sixteen-word canaries), 4 times (8), once (8) and never (24),
// measured by the built package's auditCatalogue under one budget for all of them (the model in this process,
// greedy, the completions interface). Reported: the verdicts and nv_recall by times seen (memorisation grows with
// duplication, Carlini et al. 2023, arXiv 2202.07646), the calls, the catalogue's share with its 95 % interval, and
// the share that a full extractWork of every work finds (its own budget per work), which the interval should cover.
// The audit runs twice, at concurrency 1 and 8: one audit digest. The canaries (16 words) are short works, probed in
// splits (a hit writes out all the rest verbatim, a rest that counts holds ≥ 20 words or a 10-digit number); two sets
// of controls outside the 64 check that rule: the 16 canaries never inserted (the same sentence, other numbers) and
// the first 40 words of each address as a short work (no number: rests of ≥ 20 words), never-seen and seen 16 times.
//   node bench/audit-catalogue.mjs [--budget 2000] [--first 3]
//   (npm run build first; writes bench/results/audit-catalogue.json)
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../dist/index.js';
import { auditCatalogue } from '../dist/memorization.js';
import { loadByteGptModel } from '../dist/models.js';
import { readModelDirectory } from '../dist/node.js';
import { medianOrNull } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const BUDGET = arg('budget', 2000);
const FIRST = arg('first', 3);
const root = fileURLToPath(new URL('../', import.meta.url));
const read = await readModelDirectory(join(root, 'models/byte-gpt-inserted'));
const manifest = read.manifest;
const model = await loadByteGptModel(read.weights, { id: manifest.name });
const works = [...manifest.inserted, ...manifest.never_seen].map((d) => ({
  id: d.id,
  times: d.times ?? 0,
  text: d.text,
}));
const engine = await createEngine();
const t0 = performance.now();
const audit = (concurrency) =>
  auditCatalogue(engine.store, {
    model,
    works: works.map(({ id, text }) => ({ id, text })),
    budget_calls: BUDGET,
    first_probes: FIRST,
    max_tokens: 128,
    concurrency,
  });
const r = await audit(8);
const seconds = Math.round((performance.now() - t0) / 100) / 10;
const again = await audit(1);

const byTimes = {};
for (const times of [16, 4, 1, 0]) {
  const mine = r.works.filter((_, k) => works[k].times === times);
  const measured = mine.filter((w) => w.verdict === 'reproduced' || w.verdict === 'not_found');
  byTimes[times] = {
    works: mine.length,
    measured: measured.length,
    too_short: mine.filter((w) => w.verdict === 'too_short').length,
    reproduced: measured.filter((w) => w.verdict === 'reproduced').length,
    median_nv_recall: medianOrNull(measured.map((w) => w.nv_recall)),
    calls: mine.reduce((t, w) => t + w.calls, 0),
  };
}

// the full per-work runs: every measurable work extracted on its own (prefix as the audit sets it, 200 calls each;
// a short work every split)
let fullReproduced = 0,
  fullMeasured = 0,
  fullCalls = 0;
for (const [k, w] of r.works.entries()) {
  if (w.verdict !== 'reproduced' && w.verdict !== 'not_found') continue;
  const prefix = Math.max(8, Math.min(50, w.words - 30));
  const x = await engine.memorization.extractWork({
    text: works[k].text,
    model,
    prefix_words: prefix,
    ...(w.short_work ? {} : { probes: Math.max(FIRST, Math.ceil(w.words / 20)) }),
    budget_calls: 200,
    max_tokens: 128,
    concurrency: 8,
  });
  fullMeasured++;
  fullCalls += x.calls;
  if (x.nv_recall_50 > 0) fullReproduced++;
}
const fullShare = Math.round((fullReproduced / fullMeasured) * 10_000) / 10_000;

// the short-work rule's controls: each work extracted on its own, a canary every split (a short work's default), an
// address's first 40 words its first splits (as the audit's first pass asks them)
const shortControl = async (texts, maxTokens, probes) => {
  let reproduced = 0,
    calls = 0;
  const recalls = [];
  for (const text of texts) {
    const x = await engine.memorization.extractWork({
      text,
      model,
      budget_calls: 200,
      max_tokens: maxTokens,
      concurrency: 8,
      ...(probes ? { probes } : {}),
    });
    if (!x.short_work) throw new Error('a control is not a short work');
    calls += x.calls;
    recalls.push(x.nv_recall);
    if (x.nv_recall > 0) reproduced++;
  }
  return { works: texts.length, reproduced, median_nv_recall: medianOrNull(recalls), calls };
};
const opening = (text) => text.split(/\s+/).filter(Boolean).slice(0, 40).join(' ');
const controls = {
  canaries_never_inserted: await shortControl(
    manifest.canary_controls.map((c) => c.text),
    128,
  ),
  first_40_words_never_seen: await shortControl(
    manifest.never_seen.map((d) => opening(d.text)),
    256,
    FIRST,
  ),
  first_40_words_seen_16: await shortControl(
    manifest.inserted.filter((d) => d.times === 16 && d.id.startsWith('work:')).map((d) => opening(d.text)),
    256,
    FIRST,
  ),
};
const order = [16, 4, 1, 0].map((t) => byTimes[t].median_nv_recall);
const targets = {
  seen_16_reproduced_share: Math.round((byTimes[16].reproduced / byTimes[16].works) * 10_000) / 10_000,
  seen_16_at_least_90_percent: byTimes[16].reproduced >= 0.9 * byTimes[16].works,
  never_seen_reproduced: byTimes[0].reproduced,
  median_not_rising_as_times_fall: order.every((m, i) => i === 0 || m <= order[i - 1]),
  calls_within_budget: r.calls <= BUDGET,
};

const result = {
  model: manifest.name,
  budget_calls: BUDGET,
  first_probes: FIRST,
  calls: r.calls,
  stopped: r.stopped,
  seconds,
  catalogue: r.catalogue,
  by_times_seen: byTimes,
  full_runs: { measured: fullMeasured, reproduced: fullReproduced, share: fullShare, calls: fullCalls },
  interval_covers_full_share: r.catalogue.ci_95[0] <= fullShare && fullShare <= r.catalogue.ci_95[1],
  targets,
  short_work_controls: controls,
  audit_sha256: r.audit_sha256,
  same_at_concurrency_1: again.audit_sha256 === r.audit_sha256,
  works: r.works.map((w, k) => ({
    id: w.id,
    times: works[k].times,
    verdict: w.verdict,
    nv_recall: w.nv_recall,
    calls: w.calls,
    ...(w.short_work ? { short_work: true } : {}),
    ...(w.miss_probability !== undefined ? { miss_probability: w.miss_probability } : {}),
  })),
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/audit-catalogue.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify({ ...result, works: undefined }, null, 2));
engine.dispose();
