// The cost of the field background (src/corpus/alignment.ts fieldBackground): LLM paraphrases of arXiv passages
// analysed on their own (a query that is all passage, aligned with several papers of its field: each reworded passage
// is weighed against the other aligned documents), this build against a baseline build in the same process. Data:
// arXivTection's developer half (bench/eval-paraphrase.mjs), the first fold's twelve papers as one exact dataset and
// the first --queries paraphrases of their passages. Each round analyses the whole batch once with each build, the
// order alternating; the report gives each build's median batch time, this build's over the baseline's, and the
// work each build counts against the alignment budget (aligned_chars summed over the batch: this build counts the
// characters of the other documents it reads for the field, once per search).
//   node bench/field-background.mjs --baseline DIR [--dist DIR] [--queries 300] [--rounds 7]
//        (DIR: a build of the package, e.g. dist/ of the commit before; writes bench/results/field-background.json)
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { halves, loadPapers } from './eval-paraphrase.mjs';
import { median, round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const QUERIES = Number(arg('queries', '300'));
const ROUNDS = Number(arg('rounds', '7'));

if (!arg('baseline')) {
  console.error('usage: node bench/field-background.mjs --baseline DIR [--dist DIR] [--queries N] [--rounds N]');
  process.exit(2);
}
const file = fileURLToPath(new URL('../../shared/data/arxivtection/passages.jsonl', import.meta.url));
const [indexed] = halves(loadPapers(file));
const docs = indexed.map((p) => ({ id: p.id, text: p.passages.map((r) => r.verbatim).join('\n\n') }));
const queries = indexed.flatMap((p) => p.passages.flatMap((r) => r.paraphrases)).slice(0, QUERIES);

const builds = [];
for (const [name, dir] of [
  ['this', resolve(arg('dist', fileURLToPath(new URL('../dist', import.meta.url))))],
  ['baseline', resolve(arg('baseline'))],
]) {
  const { createEngine } = await import(pathToFileURL(join(dir, 'index.js')).href);
  const engine = await createEngine();
  await engine.addDataset({ id: 'arxiv-fold-0' }, docs);
  let work = 0,
    found = 0;
  for (const q of queries) {
    const r = engine.search(q);
    work += r.alignment.aligned_chars;
    if (r.matches.some((m) => m.kind === 'exact')) found++;
  }
  builds.push({ name, dir, engine, work, found, times: [] });
}
const batch = async (engine) => {
  const t0 = performance.now();
  for (const content of queries) await engine.analyze({ content, content_type: 'text' });
  return performance.now() - t0;
};
for (const b of builds) await batch(b.engine); // warm-up, not counted
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? builds.slice().reverse() : builds;
  for (const b of order) b.times.push(await batch(b.engine));
}
const [self, base] = builds;
const report = {
  what: 'analyze of LLM paraphrases analysed on their own (field backgrounds), this build against a baseline',
  data: { papers: docs.length, queries: queries.length, rounds: ROUNDS },
  builds: Object.fromEntries(
    builds.map((b) => [
      b.name,
      {
        build: b.dir,
        batch_ms_median: round(median(b.times), 1),
        batch_ms: b.times.map((t) => round(t, 1)),
        per_query_ms: round(median(b.times) / queries.length, 3),
        aligned_chars: b.work,
        with_exact_match: b.found,
      },
    ]),
  ),
  ratio_this_over_baseline: round(median(self.times) / median(base.times), 3),
  runtime: { node: process.version, date: new Date().toISOString().slice(0, 10) },
};
for (const b of builds) b.engine.dispose();
console.log(JSON.stringify(report.builds, null, 1), 'ratio', report.ratio_this_over_baseline);
const out = resolve(arg('out', fileURLToPath(new URL('./results/field-background.json', import.meta.url))));
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${out}`);
