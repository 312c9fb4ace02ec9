// Portrait dataset size targets on the dev corpora (../shared/data): Brown (250 samples), the WikiText-2 raw
// test articles, tinyshakespeare, the Gutenberg books and the PAN source documents, each indexed as one
// portrait dataset at windows 8 and 12. Target: ≤ 1.2 bytes per stored n-gram and ≤ 5 % of the corpus bytes.
// test/unit/portrait.test.ts checks the same targets on the committed fixtures; this runs them on more and
// larger real text. Prints a table, writes bench/results/eval-portrait.json, exits 1 when a target is missed.
//
//   node bench/eval-portrait.mjs            (needs dist/)
//   node bench/eval-portrait.mjs --check    (the same, without writing the results file)
import './help.mjs';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const shared = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const read = (p) => readFileSync(join(shared, p), 'utf8');
const jsonl = (p) =>
  read(p)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const dir = (p, ext) =>
  readdirSync(join(shared, p))
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => ({ id: f, text: read(join(p, f)) }));

const corpora = {
  'brown-corpus': jsonl('brown-corpus/documents.jsonl').map((d) => ({ id: d.id, text: d.text })),
  'wikitext-2-raw-test': jsonl('wikitext-2-raw-test/articles.jsonl').map((d) => ({ id: d.id, text: d.text })),
  tinyshakespeare: [{ id: 'input', text: read('tinyshakespeare/input.txt') }],
  'gutenberg-nltk': [...dir('gutenberg-nltk/texts', '.txt'), ...dir('gutenberg-nltk/texts-tokenized', '.txt')],
};
if (existsSync(join(shared, 'pan13-text-alignment/train-corpus/src'))) {
  corpora['pan13-src'] = dir('pan13-text-alignment/train-corpus/src', '.txt');
}

const { createEngine } = await import('../dist/index.js');
const engine = await createEngine();
const rows = [];
let missed = 0;
for (const [name, docs] of Object.entries(corpora)) {
  for (const window of [8, 12]) {
    const id = `${name}-w${window}`;
    const s = await engine.addDataset({ id, kind: 'portrait', window }, docs);
    const perNgram = s.index_bytes / s.fingerprints,
      ofCorpus = s.index_bytes / s.bytes;
    const ok = perNgram <= 1.2 && ofCorpus <= 0.05;
    if (!ok) missed++;
    rows.push({
      corpus: name,
      window,
      documents: s.documents,
      bytes: s.bytes,
      ngrams: s.fingerprints,
      index_bytes: s.index_bytes,
      bytes_per_ngram: Math.round(perNgram * 1e4) / 1e4,
      share_of_corpus: Math.round(ofCorpus * 1e5) / 1e5,
      ok,
    });
    console.log(
      `${ok ? 'ok  ' : 'MISS'} ${id.padEnd(28)} ${String(s.documents).padStart(5)} docs ` +
        `${String(s.bytes).padStart(9)} B  ${perNgram.toFixed(4)} B/n-gram  ${(100 * ofCorpus).toFixed(2)} % of corpus`,
    );
    engine.removeDataset(id);
  }
}
if (!process.argv.includes('--check')) {
  const out = new URL('./results/eval-portrait.json', import.meta.url);
  mkdirSync(new URL('.', out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        targets: { bytes_per_ngram: 1.2, share_of_corpus: 0.05 },
        rows,
        runtime: { node: process.version, date: new Date().toISOString().slice(0, 10), build: 'dist/' },
      },
      null,
      2,
    ) + '\n',
  );
  console.log('wrote bench/results/eval-portrait.json');
}
if (missed) console.log(`${missed} target(s) missed`);
process.exit(missed ? 1 : 0);
