// The null of every reference pack: how unrelated natural text hits it (src/datasets/background.ts), measured with
// `engine.measureBackground` on the `tune` half of the natural texts (bench/natural-texts.mjs: Brown Corpus, arXiv
// passages, PAN essays without reuse, short answers — English in no pack), whole documents. The `test` half is
// measured too and reported beside it, never written: it shows how well the tuned null holds on text it did not see.
//
//   node bench/measure-background.mjs [--write] [--only ID,ID]   (needs dist/; --write records each pack's
//        `background` in packs/index.json, bound to the pack's SHA-256; --only measures those packs alone, e.g. the
//        English ones, whose null this English text is: the other languages' packs have writers of their own)
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasSharedData, naturalDocuments } from './natural-texts.mjs';

if (!hasSharedData()) {
  console.error('measure-background: no ../shared/data beside the checkout: nothing to measure on');
  process.exit(2);
}
const WRITE = process.argv.includes('--write');
const at = process.argv.indexOf('--only');
const ONLY = at > 0 ? new Set(process.argv[at + 1].split(',')) : null;
const DATE = new Date().toISOString().slice(0, 10);
const indexFile = fileURLToPath(new URL('../packs/index.json', import.meta.url));
const { createEngine } = await import('../dist/index.js');

const docs = naturalDocuments();
const words = (t) => t.split(/\s+/).filter(Boolean).length;
const describe = (part) => {
  const sel = docs.filter((d) => d.part === part);
  const n = (s) => sel.filter((d) => d.source === s).length;
  const w = sel.reduce((a, d) => a + words(d.text), 0);
  return (
    `Natural English in no pack (the ${part} half of this project's development data, whole documents, ` +
    `${Math.round(w / 1000)}k words): ${n('brown')} Brown Corpus samples (1961, 15 genres), ${n('arxiv')} arXiv ` +
    `papers' passages (2020–2023), ${n('pan')} PAN 2013 essays without reuse, ${n('answers')} student short answers ` +
    '(bench/natural-texts.mjs, bench/measure-background.mjs).'
  );
};

const index = JSON.parse(readFileSync(indexFile, 'utf8'));
const report = { date: DATE, packs: [] };
for (const entry of index.packs) {
  if (ONLY && !ONLY.has(entry.id)) continue;
  const row = { id: entry.id, sha256: entry.sha256 };
  for (const part of ['tune', 'test']) {
    // a fresh engine per measurement: measureBackground sets the dataset's background
    const engine = await createEngine();
    await engine.importDataset(readFileSync(fileURLToPath(new URL(`../packs/${entry.file}`, import.meta.url))));
    const texts = docs.filter((d) => d.part === part).map((d) => d.text);
    row[part] = await engine.measureBackground(entry.id, texts, { corpus: describe(part), date: DATE });
    engine.dispose();
  }
  report.packs.push(row);
  const f = (b) =>
    `a ${b.run_start.toFixed(4)} c1 ${b.continue_first.toFixed(4)} ct ${b.continue_tail.toFixed(4)} rate ${b.hit_rate.toFixed(4)} ρ ${b.dispersion.toFixed(4)}`;
  console.log(`${entry.id}: tune ${f(row.tune)} | test ${f(row.test)}`);
  if (WRITE) entry.background = row.tune;
}
writeFileSync(
  fileURLToPath(new URL('./results/measure-background.json', import.meta.url)),
  `${JSON.stringify(report, null, 2)}\n`,
);
if (WRITE) {
  writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
  console.log(`wrote the tune half's backgrounds into ${indexFile}`);
}
