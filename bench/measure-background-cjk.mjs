// The null of the Japanese and Chinese packs (pack:aozora, pack:chinese-classics): how natural text of the same
// language in no pack hits them, measured with `engine.measureBackground` on the works build/packs-prepare-cjk.mjs
// keeps out (pack-texts/<pack>-held-out/), cut into passages of about 1,200 characters (bench/languages/cjk-texts.mjs).
// Alternate passages make the `tune` half (written with --write) and the `test` half (reported beside it, never
// written): the English null of the other packs says nothing about character n-grams of another language.
//
//   node bench/measure-background-cjk.mjs [--write]   (needs dist/ and the prepared texts)
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { heldOutPassages } from './languages/cjk-texts.mjs';

const WRITE = process.argv.includes('--write');
const DATE = new Date().toISOString().slice(0, 10);
const indexFile = fileURLToPath(new URL('../packs/index.json', import.meta.url));
const { createEngine } = await import('../dist/index.js');

const PACKS = [
  { pack: 'aozora', id: 'pack:aozora', what: 'Japanese fiction and essays of 1890–1948 in no pack' },
  {
    pack: 'chinese-classics',
    id: 'pack:chinese-classics',
    what: 'classical Chinese prose in no pack (dynastic histories, 鶡冠子)',
  },
];
const index = JSON.parse(readFileSync(indexFile, 'utf8'));
const report = { date: DATE, packs: [] };
for (const { pack, id, what } of PACKS) {
  const entry = index.packs.find((p) => p.id === id);
  const passages = heldOutPassages(pack, what, { perWork: 1000 });
  const works = new Set(passages.map((p) => p.source)).size;
  const row = { id, sha256: entry.sha256 };
  for (const [part, parity] of [
    ['tune', 0],
    ['test', 1],
  ]) {
    const texts = passages.filter((_, i) => i % 2 === parity).map((p) => p.text);
    const chars = texts.reduce((a, t) => a + t.length, 0);
    const corpus = `${what[0].toUpperCase()}${what.slice(1)}: the ${part} half (alternate passages of about 1,200 characters, ${Math.round(chars / 1000)}k characters) of ${works} works build/packs-prepare-cjk.mjs keeps out of the pack (bench/measure-background-cjk.mjs).`;
    const engine = await createEngine();
    await engine.importDataset(readFileSync(fileURLToPath(new URL(`../packs/${entry.file}`, import.meta.url))));
    row[part] = await engine.measureBackground(id, texts, { corpus, date: DATE });
    engine.dispose();
  }
  report.packs.push(row);
  const line = (b) =>
    ['run_start', 'continue_first', 'continue_tail', 'hit_rate', 'dispersion'].map((k) => `${k} ${b[k].toFixed(4)}`);
  console.log(`${id}\n  tune ${line(row.tune).join(', ')}\n  test ${line(row.test).join(', ')}`);
  if (WRITE) entry.background = row.tune;
}
const resultFile = fileURLToPath(new URL('./results/measure-background-cjk.json', import.meta.url));
writeFileSync(resultFile, `${JSON.stringify(report, null, 2)}\n`);
// the English packs' entries are kept as they are (their backgrounds come from bench/measure-background.mjs)
if (WRITE) writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
