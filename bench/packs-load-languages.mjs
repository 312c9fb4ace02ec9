// What the book packs of other languages cost the default set: the default packs as they were (the English ones, the
// baseline) against every default pack now, in the same run, alternating, medians over fresh processes:
//
//   load      createEngine({ packs: 'default' }) to a ready engine (read, SHA-256 + CRC checks, import)
//   first     createEngine({ packs: 'default' }) to the end of the process's first analyze (a passage of a packed
//             book, not one of the timed ones): what a fresh process costs before it answers, with whatever a pack
//             does only when first searched
//   memory    the process's resident set, V8 heap and array buffers once the engine is ready, and again after that
//             first analyze
//   package   the bytes of the packs and of the package (`npm pack --dry-run`: the tarball and unpacked), the
//             baseline's package being this one less the files of the packs it does not load by default (their
//             gzip size taken off the tarball: an estimate, the tar format adds a few hundred bytes a file)
//   analyze   an analyze of a 200-word English passage in no pack, and of a 200-word passage of a packed book
//             (Persuasion): the median of 101 calls on 101 different passages, after 30 warm-up calls on 30 others;
//             and the process's CPU time over those 101 calls, a call's mean (`…_cpu_ms`): on a loaded machine a
//             call's wall time is mostly the time the process waited for a core, its CPU time what the call cost
//
// The baseline is a packs folder in the system's temporary directory whose index.json is packs/index.json with every
// pack not default that was not a default pack of the index at --baseline-rev (61d16a6, the commit measured before
// the packs of other languages: its four English packs), its files links to packs/.
//
//   node bench/packs-load-languages.mjs [--runs N] [--base-dist DIR] [--baseline-rev REV]   (needs dist/: npm run build)
//
// With --base-dist (another build's dist/, e.g. the commit before a change), that engine is measured too, in the same
// alternating rounds, on the same two pack sets: `before` and `before_ratio` in the report, so a change to the
// engine is read before → after in one run.
//
// Writes bench/results/packs-load-languages.json.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { upperMedian, round } from './stats.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    'base-dist': { type: 'string' },
    'baseline-rev': { type: 'string', default: '61d16a6' },
  },
});
const RUNS = Number(values.runs);
// the default set before other languages, as the index of that commit lists it (the English packs)
const ENGLISH = new Set(
  JSON.parse(
    execFileSync('git', ['show', `${values['baseline-rev']}:packs/index.json`], { cwd: root, encoding: 'utf8' }),
  )
    .packs.filter((p) => p.default)
    .map((p) => p.id),
);
const isBooks = (p) => !ENGLISH.has(p.id);

const index = JSON.parse(readFileSync(join(root, 'packs/index.json'), 'utf8'));
const base = mkdtempSync(join(tmpdir(), 'packs-en-'));
mkdirSync(base, { recursive: true });
for (const p of index.packs) symlinkSync(join(root, 'packs', p.file), join(base, p.file));
const baseIndex = { ...index, packs: index.packs.map((p) => (isBooks(p) ? { ...p, default: false } : p)) };
writeFileSync(join(base, 'index.json'), JSON.stringify(baseIndex));

const fixtures = join(root, 'test/fixtures/texts/gutenberg');
const novel = readFileSync(join(fixtures, 'austen-persuasion.txt'), 'utf8').split(/\s+/).filter(Boolean);
const essay = readFileSync(join(root, 'test/fixtures/texts/unpublished-essay.txt'), 'utf8')
  .split(/\s+/)
  .filter(Boolean);
// 131 different passages of each kind (200 words, 10 apart): the engine may reuse the work of a text it has just
// analysed, and a few dozen calls leave the JIT still warming up
const passages = (ws, from) =>
  Array.from({ length: 131 }, (_, i) => ws.slice(from + i * 10, from + i * 10 + 200).join(' '));
const PACKED = passages(novel, 20_000);
const UNPACKED = passages(essay, 0);
// the first analyze of a process: another packed passage, far from the timed ones
const FIRST = novel.slice(60_000, 60_200).join(' ');

const scriptOf = (dist) => `
const { createEngine } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});
const t0 = performance.now();
const engine = await createEngine({ packs: 'default', packsUrl: process.argv[1] });
const load = performance.now() - t0;
const mem = process.memoryUsage();
const passages = JSON.parse((await import('node:fs')).readFileSync(0, 'utf8'));
await engine.analyze({ content: passages.first, content_type: 'text' });
const first = performance.now() - t0;
const after = process.memoryUsage();
const time = async (contents) => {
  let r;
  for (const content of contents.slice(0, 30)) r = await engine.analyze({ content, content_type: 'text' });
  const ts = [];
  const cpu0 = process.cpuUsage();
  for (const content of contents.slice(30)) {
    const t = performance.now();
    await engine.analyze({ content, content_type: 'text' });
    ts.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  return [ts.sort((a, b) => a - b)[50], r.confidence, (cpu.user + cpu.system) / 1000 / ts.length];
};
const [unpacked, c0, cpu_unpacked] = await time(passages.unpacked);
const [packed, c1, cpu_packed] = await time(passages.packed);
console.log(JSON.stringify({
  load, first, unpacked, packed, cpu_unpacked, cpu_packed, c0, c1, datasets: engine.datasets().length,
  rss: mem.rss, heap: mem.heapUsed, buffers: mem.arrayBuffers,
  rss_first: after.rss, heap_first: after.heapUsed, buffers_first: after.arrayBuffers,
}));
engine.dispose();
`;
const run = (url, dist) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', scriptOf(dist), url],
      // the passages on stdin: as arguments they pass the system's limit
      { encoding: 'utf8', input: JSON.stringify({ first: FIRST, unpacked: UNPACKED, packed: PACKED }) },
    ).trim(),
  );

const sets = { baseline: pathToFileURL(`${base}/`).href, with_books: pathToFileURL(join(root, 'packs/')).href };
const dists = { now: join(root, 'dist'), ...(values['base-dist'] ? { before: values['base-dist'] } : {}) };
const runs = { baseline: [], with_books: [] };
const before = { baseline: [], with_books: [] };
for (let i = 0; i < RUNS; i++) {
  // alternate which goes first: the machine is shared and noisy
  const order = i % 2 === 0 ? ['baseline', 'with_books'] : ['with_books', 'baseline'];
  const engines = i % 2 === 0 ? Object.keys(dists) : Object.keys(dists).reverse();
  for (const k of order) {
    for (const e of engines) (e === 'now' ? runs : before)[k].push(run(sets[k], dists[e]));
  }
}
rmSync(base, { recursive: true, force: true });

/** The package's tarball and unpacked bytes now, and the baseline's: less the packs it does not load by default. */
function packageSize() {
  const [pack] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  );
  const languages = index.packs.filter((p) => p.default && isBooks(p));
  const files = new Set(languages.flatMap((p) => [`packs/${p.file}`, `packs/${p.manifest}`]));
  const left = pack.files.filter((f) => files.has(f.path));
  const unpacked = left.reduce((a, f) => a + f.size, 0);
  const gz = left.reduce((a, f) => a + gzipSync(readFileSync(join(root, f.path))).length, 0);
  const tarball = { now: pack.size, baseline: pack.size - gz };
  const unpackedBytes = { now: pack.unpackedSize, baseline: pack.unpackedSize - unpacked };
  return {
    tarball_bytes: { ...tarball, ratio: round(tarball.now / tarball.baseline, 2) },
    unpacked_bytes: { ...unpackedBytes, ratio: round(unpackedBytes.now / unpackedBytes.baseline, 2) },
    language_files: left.length,
  };
}

const summarise = (runs) => {
  const summary = {};
  for (const k of Object.keys(runs)) {
    const rs = runs[k];
    summary[k] = {
      datasets: rs[0].datasets,
      bytes: index.packs
        .filter((p) => p.default && (k === 'with_books' || !isBooks(p)))
        .reduce((a, p) => a + p.bytes, 0),
      load_ms: round(upperMedian(rs.map((r) => r.load)), 0),
      first_analyze_ms: round(upperMedian(rs.map((r) => r.first)), 0),
      rss_mb: round(upperMedian(rs.map((r) => r.rss)) / 1e6, 1),
      heap_mb: round(upperMedian(rs.map((r) => r.heap)) / 1e6, 1),
      buffers_mb: round(upperMedian(rs.map((r) => r.buffers)) / 1e6, 1),
      rss_first_mb: round(upperMedian(rs.map((r) => r.rss_first)) / 1e6, 1),
      heap_first_mb: round(upperMedian(rs.map((r) => r.heap_first)) / 1e6, 1),
      buffers_first_mb: round(upperMedian(rs.map((r) => r.buffers_first)) / 1e6, 1),
      analyze_unpacked_ms: round(upperMedian(rs.map((r) => r.unpacked)), 2),
      analyze_packed_ms: round(upperMedian(rs.map((r) => r.packed)), 2),
      analyze_unpacked_cpu_ms: round(upperMedian(rs.map((r) => r.cpu_unpacked)), 3),
      analyze_packed_cpu_ms: round(upperMedian(rs.map((r) => r.cpu_packed)), 3),
      confidence: [rs[0].c0, rs[0].c1],
    };
  }
  const ratio = (f) => round(summary.with_books[f] / summary.baseline[f], 2);
  const paired = (f) => round(upperMedian(runs.with_books.map((r, i) => r[f] / runs.baseline[i][f])), 2);
  return {
    summary,
    ratio: {
      bytes: ratio('bytes'),
      load: ratio('load_ms'),
      load_paired: paired('load'),
      first_analyze: ratio('first_analyze_ms'),
      first_analyze_paired: paired('first'),
      rss: ratio('rss_mb'),
      heap: ratio('heap_mb'),
      rss_first: ratio('rss_first_mb'),
      heap_first: ratio('heap_first_mb'),
      analyze_unpacked: ratio('analyze_unpacked_ms'),
      analyze_unpacked_paired: paired('unpacked'),
      analyze_packed: ratio('analyze_packed_ms'),
      analyze_packed_paired: paired('packed'),
      analyze_unpacked_cpu: ratio('analyze_unpacked_cpu_ms'),
      analyze_unpacked_cpu_paired: paired('cpu_unpacked'),
      analyze_packed_cpu: ratio('analyze_packed_cpu_ms'),
      analyze_packed_cpu_paired: paired('cpu_packed'),
    },
  };
};
const now = summarise(runs);
const report = {
  date: new Date().toISOString(),
  node: process.version,
  runs: RUNS,
  baseline_packs: [...ENGLISH],
  package: packageSize(),
  ...now.summary,
  ratio: now.ratio,
  ...(dists.before ? { before: summarise(before).summary, before_ratio: summarise(before).ratio } : {}),
};
writeFileSync(join(root, 'bench/results/packs-load-languages.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
