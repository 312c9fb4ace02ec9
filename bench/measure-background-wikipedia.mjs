// The null of the Wikipedia packs on Wikipedia's own kind of text: how Wikipedia-style text that is in neither
// WikiExtractor pack hits them (src/datasets/background.ts, `engine.measureBackground`), beside the null they ship
// with (measured on natural English: bench/measure-background.mjs). Two sets: articles of another part of Wikipedia
// (WikiText-2's test articles, ../shared/data, detokenised; pack:wikipedia-wikitext holds them, the WikiExtractor
// packs do not name them: bench/results/eval-false-attribution-genres.json) and the invented articles of
// bench/data/invented-articles.mjs (tune part). Never written into packs/index.json: it shows how far the shipped
// null is from the style the packs hold.
//
//   node bench/measure-background-wikipedia.mjs   (needs dist/ and ../shared/data)
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inventedArticles } from './data/invented-articles.mjs';
import { hasSharedData, SHARED } from './natural-texts.mjs';

if (!hasSharedData()) {
  console.error('measure-background-wikipedia: no ../shared/data beside the checkout: nothing to measure on');
  process.exit(2);
}
const { createEngine } = await import('../dist/index.js');
const { detokenizeWikiText } = await import('../dist/packs.js');
const index = JSON.parse(readFileSync(fileURLToPath(new URL('../packs/index.json', import.meta.url)), 'utf8'));
const sets = {
  other_part: readFileSync(`${SHARED}wikitext-2-raw-test/articles.jsonl`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => detokenizeWikiText(JSON.parse(l).text)),
  invented_tune: inventedArticles()
    .filter((x) => x.part === 'tune')
    .map((x) => x.text),
};
const f = (b) =>
  `a ${b.run_start.toFixed(4)} c1 ${b.continue_first.toFixed(4)} ct ${b.continue_tail.toFixed(4)} rate ${b.hit_rate.toFixed(4)}`;
const report = { date: new Date().toISOString().slice(0, 10), packs: [] };
for (const id of ['pack:wikipedia-articles', 'pack:wikipedia-core']) {
  const entry = index.packs.find((p) => p.id === id);
  const row = { id, sha256: entry.sha256, shipped: entry.background };
  for (const [name, texts] of Object.entries(sets)) {
    const engine = await createEngine();
    await engine.importDataset(readFileSync(fileURLToPath(new URL(`../packs/${entry.file}`, import.meta.url))));
    row[name] = await engine.measureBackground(id, texts, { corpus: name, date: report.date });
    row[name].texts_count = texts.length;
    engine.dispose();
  }
  report.packs.push(row);
  console.log(
    `${id}: shipped ${f(entry.background)} | other part ${f(row.other_part)} | invented ${f(row.invented_tune)}`,
  );
}
writeFileSync(
  fileURLToPath(new URL('./results/measure-background-wikipedia.json', import.meta.url)),
  `${JSON.stringify(report, null, 2)}\n`,
);
