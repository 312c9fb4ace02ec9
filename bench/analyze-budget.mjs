// analyze's latency budget at scale, this build against a baseline build in the same run: an exact dataset of
// --scale copies of the 10 MB English corpus in 10 kB documents (bench/corpus.mjs; 135 copies ≈ 52 M fingerprints),
// and two analyze requests:
//   no reuse        10,000 shuffled corpus words (as bench/exact-scale.mjs): nothing to align; on the dataset built
//                   with keep_text: false, as bench/exact-scale.mjs measures it (the retrieval path), and beside it
//                   on the dataset that keeps its texts (the content-word candidates are looked up too)
//   five passages   five passages of 150 words from five documents of the dataset, each with one word in ten
//                   replaced, a blank line between them: five passages to align (the dataset keeps its texts)
// Each build is measured in fresh processes (one per dataset: built, the first search made, then tinybench), the two
// builds alternating for --pairs pairs; the report gives each build's medians and this build's over the
// baseline's. Targets: no reuse ≤ 2 ms, five passages ≤ 10 ms (this build's medians).
//   node --expose-gc bench/analyze-budget.mjs --baseline DIR [--dist DIR] [--scale 135] [--pairs 2] [--iterations 40]
//        (DIR: a build of the package, e.g. a copy of dist/ from the commit before; writes
//        bench/results/analyze-budget[-x<N>].json)
//   node --expose-gc bench/analyze-budget.mjs --child DIR --scale N --iterations K [--keep-text]   (one process, JSON line)
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { copyDocuments, english, scaledDocuments } from './corpus.mjs';
import { median } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SCALE = Number(arg('scale', '135'));
const ITERATIONS = Number(arg('iterations', '40'));
const TARGETS = { no_reuse_ms: 2, five_passages_ms: 10 };

/** A seeded generator (an LCG: the same queries in every process). */
function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

async function child(dist, keepText) {
  const { createEngine } = await import(pathToFileURL(join(resolve(dist), 'index.js')).href);
  const en = english(10_000_000);
  const engine = await createEngine();
  const t0 = performance.now();
  const built = await engine.addDataset({ id: 'bench', keep_text: keepText }, scaledDocuments(en, SCALE, 10_000));
  const buildMs = performance.now() - t0;
  const words = en.slice(0, 2_000_000).split(/\s+/);
  const rnd = lcg(12345);
  const shuffled = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
  const noReuse = shuffled(10_000);
  // five passages of documents of the middle copy, one word in ten replaced
  const docs = [...copyDocuments(en, SCALE >> 1, 10_000)];
  const parts = [];
  const sources = [];
  for (let k = 0; k < 5; k++) {
    const d = docs[Math.floor(((k + 0.5) * docs.length) / 5)];
    const w = d.text.split(/\s+/).slice(200, 350);
    for (let i = 5; i < w.length; i += 10) w[i] = words[Math.floor(rnd() * words.length)];
    parts.push(w.join(' '));
    sources.push(d.id);
  }
  const fivePassages = parts.join('\n\n');
  const request = (content) => ({ content, content_type: 'text' });
  const t1 = performance.now();
  engine.search('the first search sorts the index and builds the content-word index');
  const firstSearchMs = performance.now() - t1;
  const aligned = (await engine.analyze(request(fivePassages))).matches.filter(
    (m) => m.kind === 'exact' && m.aligned && sources.includes(m.document_id),
  );
  const noReuseMatches = (await engine.analyze(request(noReuse))).matches.length;
  const timed = async (content) => {
    const b = new Bench({ iterations: ITERATIONS, time: 0, warmupIterations: 5, warmupTime: 0 });
    b.add('analyze', async () => {
      await engine.analyze(request(content));
    });
    await b.run();
    const l = b.tasks[0].result.latency;
    return { p50: l.p50, p99: l.p99, min: l.min };
  };
  const a = await timed(noReuse);
  const b = keepText ? await timed(fivePassages) : null;
  return {
    keep_text: keepText,
    fingerprints: built.fingerprints,
    documents: built.documents,
    bytes: built.bytes,
    build_ms: buildMs,
    first_search_ms: firstSearchMs,
    no_reuse: { matches: noReuseMatches, analyze_ms: a },
    five_passages: keepText
      ? { aligned_documents: new Set(aligned.map((m) => m.document_id)).size, analyze_ms: b }
      : null,
  };
}

if (process.argv.includes('--child')) {
  console.log(JSON.stringify(await child(arg('child'), process.argv.includes('--keep-text'))));
  process.exit(0);
}

const baseline = arg('baseline');
if (!baseline) {
  console.error('--baseline DIR is required (a build of the package to compare with)');
  process.exit(2);
}
const current = arg('dist', fileURLToPath(new URL('../dist', import.meta.url)));
const PAIRS = Number(arg('pairs', '2'));
const measure = (dist, keepText) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--expose-gc',
        '--max-old-space-size=12000',
        fileURLToPath(import.meta.url),
        '--child',
        dist,
        '--scale',
        String(SCALE),
        '--iterations',
        String(ITERATIONS),
        ...(keepText ? ['--keep-text'] : []),
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    )
      .trim()
      .split('\n')
      .pop(),
  );
const runs = { current: [], baseline: [] };
for (let p = 0; p < PAIRS; p++) {
  const order = p % 2 === 0 ? ['baseline', 'current'] : ['current', 'baseline'];
  for (const which of order) {
    const dist = which === 'current' ? current : baseline;
    const plain = measure(dist, false),
      text = measure(dist, true);
    runs[which].push({ without_text: plain, with_text: text });
    console.log(
      `pair ${p + 1} ${which}: ${plain.fingerprints} fingerprints; no reuse p50 ${plain.no_reuse.analyze_ms.p50.toFixed(2)} ms ` +
        `(with texts kept ${text.no_reuse.analyze_ms.p50.toFixed(2)} ms); five passages p50 ` +
        `${text.five_passages.analyze_ms.p50.toFixed(2)} ms (${text.five_passages.aligned_documents} documents aligned)`,
    );
  }
}
const summary = (rs) => ({
  no_reuse_p50_ms: median(rs.map((r) => r.without_text.no_reuse.analyze_ms.p50)),
  no_reuse_texts_kept_p50_ms: median(rs.map((r) => r.with_text.no_reuse.analyze_ms.p50)),
  five_passages_p50_ms: median(rs.map((r) => r.with_text.five_passages.analyze_ms.p50)),
  five_passages_aligned_documents: rs.map((r) => r.with_text.five_passages.aligned_documents),
});
const cur = summary(runs.current),
  base = summary(runs.baseline);
const report = {
  bench: 'analyze-budget',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  scale: SCALE,
  fingerprints: runs.current[0].without_text.fingerprints,
  method:
    '--scale copies of the 10 MB corpus in 10 kB documents; analyze of a 10,000-word query with no reuse (dataset ' +
    'built with keep_text: false, and beside it with texts kept) and of five edited 150-word passages of five ' +
    'documents (texts kept); tinybench p50 per process, medians over the processes; this build and the baseline ' +
    'alternate, each dataset in a fresh process',
  targets: TARGETS,
  current: { build: current, ...cur },
  baseline: { build: baseline, ...base },
  ratios: {
    no_reuse: cur.no_reuse_p50_ms / base.no_reuse_p50_ms,
    no_reuse_texts_kept: cur.no_reuse_texts_kept_p50_ms / base.no_reuse_texts_kept_p50_ms,
    five_passages: cur.five_passages_p50_ms / base.five_passages_p50_ms,
  },
  meets_targets: cur.no_reuse_p50_ms <= TARGETS.no_reuse_ms && cur.five_passages_p50_ms <= TARGETS.five_passages_ms,
  runs,
};
const out = new URL(`./results/analyze-budget${SCALE === 135 ? '' : `-x${SCALE}`}.json`, import.meta.url);
mkdirSync(new URL('.', out), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
console.log(
  `this build: no reuse ${cur.no_reuse_p50_ms.toFixed(2)} ms (target ≤ ${TARGETS.no_reuse_ms}), five passages ` +
    `${cur.five_passages_p50_ms.toFixed(2)} ms (target ≤ ${TARGETS.five_passages_ms}); over the baseline ` +
    `${report.ratios.no_reuse.toFixed(2)}× and ${report.ratios.five_passages.toFixed(2)}×; wrote ${fileURLToPath(out)}`,
);
