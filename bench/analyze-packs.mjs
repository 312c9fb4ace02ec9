// analyze with the default reference packs loaded, this build against a baseline build, as ratios measured in
// the same run: what reading a portrait's runs against its measured background (src/datasets/background.ts) costs
// over the hit-count test it replaced. Texts of 100, 2,000, 20,000 and 200,000 words of natural text the packs do
// not hold (the committed fixtures: Julius Caesar in First Folio spelling, Blake's poems, the unpublished essay),
// and a 2,000-word text with a 100-word passage of a packed book in it. Each build runs in its own fresh process,
// the two alternating, RUNS times; each process times ITER analyses of every text after a warm-up one (tinybench's
// shape: a median per text); the figure is the median over runs of new / baseline.
//
//   node bench/analyze-packs.mjs --baseline DIR [--runs 5]   (DIR: a checkout of the baseline, built)
// Writes bench/results/analyze-packs.json.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { upperMedian, round } from './stats.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: { baseline: { type: 'string' }, runs: { type: 'string', default: '5' }, child: { type: 'string' } },
});
const ITER = 5;

/** The texts, from committed fixtures only. */
function texts() {
  const read = (p) => readFileSync(join(root, p), 'utf8');
  const natural = [
    read('test/fixtures/texts/gutenberg/shakespeare-caesar.txt'),
    read('test/fixtures/texts/gutenberg/blake-poems.txt'),
    read('test/fixtures/texts/unpublished-essay.txt'),
  ]
    .join('\n\n')
    .split(/\s+/)
    .filter(Boolean);
  const words = (n) => {
    const out = [];
    for (let i = 0; out.length < n; i++) out.push(natural[i % natural.length]);
    return out.join(' ');
  };
  const famous = JSON.parse(read('test/fixtures/texts/famous-passages.json')).passages[0].passage;
  return {
    'natural-100': words(100),
    'natural-2000': words(2000),
    'natural-20000': words(20_000),
    'natural-200000': words(200_000),
    'quoted-2000': `${words(950)} ${famous} ${words(950)}`,
  };
}

if (values.child) {
  const { createEngine } = await import(pathToFileURL(join(values.child, 'dist/index.js')).href);
  const engine = await createEngine({ packs: 'default' });
  const out = {};
  for (const [name, text] of Object.entries(texts())) {
    await engine.analyze({ content: text, content_type: 'text' });
    const ms = [];
    for (let i = 0; i < ITER; i++) {
      const t0 = performance.now();
      const r = await engine.analyze({ content: text, content_type: 'text' });
      ms.push(performance.now() - t0);
      if (name.startsWith('natural') && r.confidence >= 50 && values.child === root)
        throw new Error(`${name}: ${r.confidence}`);
    }
    out[name] = upperMedian(ms);
  }
  console.log(JSON.stringify(out));
  process.exit(0);
}

if (!values.baseline) {
  console.error('analyze-packs: --baseline DIR (a built checkout of the build to compare with) is required');
  process.exit(2);
}
const base = resolve(values.baseline);
const run = (dir) =>
  JSON.parse(
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop(),
  );
const samples = {};
for (let r = 0; r < Number(values.runs); r++) {
  const order = r % 2 === 0 ? [root, base] : [base, root];
  const got = Object.fromEntries(order.map((d) => [d, run(d)]));
  for (const name of Object.keys(got[root])) {
    const s = (samples[name] ??= { current: [], baseline: [], ratio: [] });
    s.current.push(got[root][name]);
    s.baseline.push(got[base][name]);
    s.ratio.push(got[root][name] / got[base][name]);
  }
  console.error(`run ${r + 1}/${values.runs}`);
}
const rows = Object.fromEntries(
  Object.entries(samples).map(([name, s]) => [
    name,
    {
      current_ms: round(upperMedian(s.current), 2),
      baseline_ms: round(upperMedian(s.baseline), 2),
      ratio: round(upperMedian(s.ratio), 3),
    },
  ]),
);
console.table(rows);
writeFileSync(
  join(root, 'bench/results/analyze-packs.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs: Number(values.runs), iterations: ITER, baseline: base, rows }, null, 2)}\n`,
);
