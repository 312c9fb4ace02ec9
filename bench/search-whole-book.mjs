// Searching a whole packed book against pack:gutenberg: this build against baselines (other builds, each with its own
// packs folder), alternating, medians. The time a whole-book `search` takes, its coverage and its matches.
//
//   node bench/search-whole-book.mjs --texts DIR [--base NAME=DIST:PACKS]… [--runs N]
//     --texts: the Gutenberg pack's texts (node build/packs-prepare.mjs gutenberg …)
//     --base:  a baseline: its dist/ and the packs/ folder its engine reads, e.g.
//              --base before=/tmp/prev/dist:/tmp/prev/packs (a worktree of an earlier commit, built)
// Writes bench/results/search-whole-book.json: per book and build, the median search time and its ratio to this
// build's, the coverage and the matches.
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { upperMedian } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    texts: { type: 'string' },
    base: { type: 'string', multiple: true, default: [] },
    runs: { type: 'string', default: '5' },
    books: { type: 'string', default: 'pg2701,pg105' },
  },
});
if (!args.texts) {
  console.error('search-whole-book: --texts DIR (the Gutenberg pack texts) is needed');
  process.exit(2);
}
const root = fileURLToPath(new URL('../', import.meta.url));
const builds = [{ name: 'this', dist: join(root, 'dist'), packs: join(root, 'packs') }];
for (const b of args.base) {
  const [name, rest] = b.split('=');
  const [dist, packs] = rest.split(':');
  builds.push({ name, dist, packs });
}
for (const b of builds) {
  const { createEngine } = await import(pathToFileURL(join(b.dist, 'index.js')).href);
  b.engine = await createEngine();
  await b.engine.importDataset(readFileSync(join(b.packs, 'gutenberg.tpk')));
}
const manifest = JSON.parse(readFileSync(join(root, 'packs/gutenberg/manifest.json'), 'utf8'));
const result = { date: new Date().toISOString(), node: process.version, runs: Number(args.runs), books: [] };
for (const id of args.books.split(',')) {
  const doc = manifest.documents.find((d) => d.id === id);
  const text = readFileSync(join(args.texts, doc.file), 'utf8');
  const times = Object.fromEntries(builds.map((b) => [b.name, []]));
  const last = {};
  for (let i = 0; i < Number(args.runs); i++) {
    // alternate the order each round, so that neither build always runs after the other
    for (const b of i % 2 ? [...builds].reverse() : builds) {
      const s = performance.now();
      const r = await b.engine.search(text, { datasets: ['pack:gutenberg'] });
      times[b.name].push(performance.now() - s);
      last[b.name] = r;
    }
  }
  const row = { id, title: doc.title, words: text.split(/\s+/).filter(Boolean).length, builds: {} };
  for (const b of builds) {
    const r = last[b.name];
    row.builds[b.name] = {
      median_ms: Math.round(upperMedian(times[b.name])),
      ratio_to_this: Math.round((upperMedian(times[b.name]) / upperMedian(times.this)) * 100) / 100,
      coverage: Math.round(r.coverage['pack:gutenberg'].share * 1e5) / 1e5,
      matches: r.matches.length,
      documents_named: [...new Set(r.matches.map((m) => m.document_id).filter(Boolean))],
    };
  }
  result.books.push(row);
  console.log(JSON.stringify(row));
}
result.builds = builds.map(({ name, dist, packs }) => ({ name, dist, packs }));
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/search-whole-book.json'), `${JSON.stringify(result, null, 2)}\n`);
