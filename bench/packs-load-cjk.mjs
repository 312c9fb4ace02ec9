// What the Japanese and Chinese packs add to the default packs' cost, as ratios within one run: a fresh Node process
// per load (loadDefaultPacks from trainprint/node, as createEngine({ packs: 'default' }) does: SHA-256, CRC, import)
// with a packs folder listing the English default packs only, then one
// listing them and pack:aozora and pack:chinese-classics, alternating), and analyze p50 with each set loaded, on
// 100-word English passages (Persuasion: in the Gutenberg pack) and 160-character Japanese and Chinese ones (the
// fixtures of test/fixtures/texts/cjk/). The budget: ≤ 1.5 × the English packs' load and analyze time.
//
//   node bench/packs-load-cjk.mjs [--runs N]   (needs dist/). Writes bench/results/packs-load-cjk.json.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { upperMedian, round } from './stats.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const CJK = ['pack:aozora', 'pack:chinese-classics'];

// two packs folders: the default packs without and with the CJK ones (files linked by copy, index rewritten)
const index = JSON.parse(readFileSync(join(root, 'packs/index.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'trainprint-cjk-load-'));
const folders = {};
for (const [name, keep] of [
  ['english', (p) => p.default && !CJK.includes(p.id)],
  ['with_cjk', (p) => p.default],
]) {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const packs = index.packs.filter(keep);
  for (const p of packs) copyFileSync(join(root, 'packs', p.file), join(dir, p.file));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ ...index, packs }));
  folders[name] = { dir, bytes: packs.reduce((a, p) => a + p.bytes, 0), packs: packs.map((p) => p.id) };
}

const lib = pathToFileURL(join(root, 'dist/index.js')).href;
const nodeLib = pathToFileURL(join(root, 'dist/node.js')).href;
const cjk = (f) => readFileSync(join(root, 'test/fixtures/texts/cjk', f), 'utf8').replace(/\s+/g, '');
const persuasion = readFileSync(join(root, 'test/fixtures/texts/gutenberg/austen-persuasion.txt'), 'utf8').split(/\s+/);
const PASSAGES = {
  english: Array.from({ length: 30 }, (_, i) => persuasion.slice(1000 + i * 400, 1100 + i * 400).join(' ')),
  japanese: Array.from({ length: 30 }, (_, i) =>
    [...cjk('akutagawa-rashomon.txt')].slice(i * 160, i * 160 + 160).join(''),
  ),
  chinese: Array.from({ length: 30 }, (_, i) => [...cjk('daodejing.txt')].slice(i * 160, i * 160 + 160).join('')),
};
const script = (dir) => `
  const t0 = performance.now();
  const { createEngine } = await import(${JSON.stringify(lib)});
  const { loadDefaultPacks } = await import(${JSON.stringify(nodeLib)});
  const engine = await createEngine();
  await loadDefaultPacks(engine, { dir: ${JSON.stringify(dir)} });
  const load_ms = performance.now() - t0;
  const passages = ${JSON.stringify(PASSAGES)};
  const p50 = {};
  for (const [k, list] of Object.entries(passages)) {
    for (const content of list.slice(0, 5)) await engine.analyze({ content, content_type: 'text' });
    const ms = [];
    for (const content of [...list, ...list]) {
      const t = performance.now();
      await engine.analyze({ content, content_type: 'text' });
      ms.push(performance.now() - t);
    }
    p50[k] = ms.sort((a, b) => a - b)[ms.length >> 1];
  }
  console.log(JSON.stringify({ load_ms, p50, datasets: engine.datasets().length, rss: process.memoryUsage().rss }));
`;
const runs = { english: [], with_cjk: [] };
for (let i = 0; i < RUNS; i++) {
  for (const name of i % 2 === 0 ? ['english', 'with_cjk'] : ['with_cjk', 'english']) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(folders[name].dir)], {
      encoding: 'utf8',
    });
    runs[name].push(JSON.parse(out));
  }
}
rmSync(tmp, { recursive: true, force: true });
const summary = (rs) => ({
  load_ms: round(upperMedian(rs.map((r) => r.load_ms)), 0),
  rss_mb: round(upperMedian(rs.map((r) => r.rss)) / 1e6, 0),
  analyze_p50_ms: Object.fromEntries(
    Object.keys(PASSAGES).map((k) => [k, round(upperMedian(rs.map((r) => r.p50[k])), 3)]),
  ),
});
const english = summary(runs.english);
const withCjk = summary(runs.with_cjk);
const result = {
  date: new Date().toISOString().slice(0, 10),
  runs: RUNS,
  english: { ...english, packs: folders.english.packs, bytes: folders.english.bytes },
  with_cjk: { ...withCjk, packs: folders.with_cjk.packs, bytes: folders.with_cjk.bytes },
  ratios: {
    bytes: round(folders.with_cjk.bytes / folders.english.bytes, 3),
    load: round(withCjk.load_ms / english.load_ms, 2),
    rss: round(withCjk.rss_mb / english.rss_mb, 2),
    analyze: Object.fromEntries(
      Object.keys(PASSAGES).map((k) => [k, round(withCjk.analyze_p50_ms[k] / english.analyze_p50_ms[k], 2)]),
    ),
  },
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(join(root, 'bench/results/packs-load-cjk.json'), `${JSON.stringify(result, null, 2)}\n`);
