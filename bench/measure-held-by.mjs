// What `held_by` and `common_hits` say on text the packs hold as their own: seeded 200-word excerpts of the
// Gutenberg pack's books and of the two WikiExtractor packs' files, analysed with the default packs loaded. For each
// pack: how many excerpts' matches carry common hits, the largest `held_by` of each excerpt (a histogram), and the
// share of a match's fingerprints that are common (median, 90th percentile, largest). A rule that reads a match as
// "widely reproduced" must not fire on these.
//
//   node bench/measure-held-by.mjs --texts DIR   (DIR holds gutenberg/, wikipedia-articles/, wikipedia-core/ as
//                                                 build/packs-prepare.mjs writes them; needs dist/)
// Writes bench/results/measure-held-by.json.
import './help.mjs';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { round } from './stats.mjs';

const { values: args } = parseArgs({ options: { texts: { type: 'string' } } });
if (!args.texts) throw new Error('--texts DIR is required');
const root = fileURLToPath(new URL('../', import.meta.url));
const { createEngine } = await import('../dist/index.js');
const { loadDefaultPacks } = await import('../dist/node.js');
const engine = await createEngine();
await loadDefaultPacks(engine);

const EXCERPTS = { gutenberg: 120, 'wikipedia-articles': 60, 'wikipedia-core': 60 };
const WORDS = 200;
const result = { date: new Date().toISOString(), node: process.version, words: WORDS, packs: {} };
let seed = 20261127;
const rnd = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const quantile = (xs, q) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(xs.length * q))] : null);

for (const [pack, n] of Object.entries(EXCERPTS)) {
  const dir = join(args.texts, pack);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort();
  const largest = {};
  const shares = [];
  let withCommon = 0;
  for (let i = 0; i < n; i++) {
    // WikiExtractor's <doc> lines are markup, not text
    const words = readFileSync(join(dir, files[Math.floor(rnd() * files.length)]), 'utf8')
      .replace(/<[^>]*>/g, ' ')
      .split(/\s+/)
      .filter(Boolean);
    const at = Math.floor(rnd() * Math.max(1, words.length - WORDS));
    const r = await engine.analyze({ content: words.slice(at, at + WORDS).join(' '), content_type: 'text' });
    const ms = (r.matches ?? []).filter((m) => m.dataset_id === `pack:${pack}`);
    const most = Math.max(0, ...ms.map((m) => m.held_by ?? 0));
    if (most > 0) withCommon++;
    largest[most] = (largest[most] ?? 0) + 1;
    for (const m of ms) shares.push((m.common_hits ?? 0) / m.fingerprints);
  }
  shares.sort((a, b) => a - b);
  const roundOrNull = (x) => (x === null ? null : round(x, 3));
  result.packs[`pack:${pack}`] = {
    excerpts: n,
    with_common_hits: withCommon,
    largest_held_by: largest,
    matches: shares.length,
    common_share: {
      median: roundOrNull(quantile(shares, 0.5)),
      p90: roundOrNull(quantile(shares, 0.9)),
      max: roundOrNull(shares.at(-1) ?? null),
    },
  };
  console.log(`pack:${pack}`, JSON.stringify(result.packs[`pack:${pack}`]));
}
writeFileSync(join(root, 'bench/results/measure-held-by.json'), `${JSON.stringify(result, null, 1)}\n`);
