// Loading the default reference packs, as ratios to a baseline measured in the same run:
//
//   Node      time to a ready engine in a fresh process: createEngine() (baseline) vs
//             createEngine({ packs: 'default' }) (read packs/ from disk, verify SHA-256 + CRC, import);
//             analyze of a 100-word passage with and without the packs (the lookup cost they add)
//   Chromium  fresh browser context each run, files served over 127.0.0.1 from dist/ and dist/web:
//             createEngine() alone (baseline); the starter as it shipped before (the 11.4 MB base64 module
//             dist/starter.js); createEngine({ packs: 'default' }) fetching packs/; and the web app
//             (dist/web: worker, starter.tpds + packs/ fetched after first paint) to its 'trainprint:ready' mark,
//             with the bytes each run transferred (sizes of the files served)
//
// Reads only dist/, packs/ and the committed test fixtures. Writes bench/results/packs-load.json.
//
//   node bench/packs-load.mjs [--runs N]      (needs dist/ and dist/web: npm run build; /usr/bin/chromium)
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { upperMedian, round } from './stats.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const index = JSON.parse(readFileSync(join(root, 'packs/index.json'), 'utf8'));
const defaults = index.packs.filter((p) => p.default);
const packBytes = defaults.reduce((a, p) => a + p.bytes, 0);

// ---------------------------------------------------------------- Node: a fresh process per run
const lib = pathToFileURL(join(dist, 'index.js')).href;
const nodeRun = (packs) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
  const t0 = performance.now();
  const { createEngine } = await import(${JSON.stringify(lib)});
  const engine = await createEngine(${packs ? "{ packs: 'default' }" : ''});
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, datasets: engine.datasets().length, rss: process.memoryUsage().rss }));
`,
      ],
      { encoding: 'utf8' },
    ),
  );
const node = { baseline: [], packs: [] };
for (let i = 0; i < RUNS; i++) {
  node.baseline.push(nodeRun(false));
  node.packs.push(nodeRun(true));
}
const nodeReady = {
  baseline_ms: upperMedian(node.baseline.map((r) => r.ms)),
  packs_ms: upperMedian(node.packs.map((r) => r.ms)),
};
console.log(
  `Node: ready ${nodeReady.baseline_ms.toFixed(0)} ms without packs, ` +
    `${nodeReady.packs_ms.toFixed(0)} ms with the default packs (${(packBytes / 1e6).toFixed(1)} MB read)`,
);

// lookup cost: analyze p50 of 100-word passages with and without the packs, in this process
const { createEngine } = await import(lib);
// Persuasion is in the Gutenberg pack (every passage matches it); Julius Caesar is not (none does)
const words = (name) => readFileSync(join(root, `test/fixtures/texts/gutenberg/${name}.txt`), 'utf8').split(/\s+/);
const passagesOf = (w) => Array.from({ length: 40 }, (_, i) => w.slice(1000 + i * 400, 1100 + i * 400).join(' '));
async function analyzeP50(engine, passages) {
  for (const content of passages.slice(0, 10)) await engine.analyze({ content, content_type: 'text' }); // warm-up
  const ms = [];
  for (const content of [...passages, ...passages, ...passages]) {
    const t = performance.now();
    await engine.analyze({ content, content_type: 'text' });
    ms.push(performance.now() - t);
  }
  return upperMedian(ms);
}
const plain = await createEngine();
const withPacks = await createEngine({ packs: 'default' });
const lookup = {};
for (const [kind, book] of [
  ['in_pack', 'austen-persuasion'],
  ['not_in_pack', 'shakespeare-caesar'],
]) {
  const passages = passagesOf(words(book));
  const [without, withThem] = [await analyzeP50(plain, passages), await analyzeP50(withPacks, passages)];
  lookup[kind] = {
    book,
    baseline_p50_ms: round(without, 3),
    packs_p50_ms: round(withThem, 3),
    ratio: round(withThem / without, 2),
  };
  console.log(
    `Node: analyze of a 100-word passage (${book}) p50 ${without.toFixed(2)} ms without packs, ` +
      `${withThem.toFixed(2)} ms with them`,
  );
}
plain.dispose();
withPacks.dispose();

// ---------------------------------------------------------------- Chromium
const { serveStatic } = await import(pathToFileURL(join(dist, 'node.js')).href);
const mounts = [
  ['/lib/', dist, serveStatic(dist)],
  ['/packs/', join(root, 'packs'), serveStatic(join(root, 'packs'))],
  ['/web/', join(dist, 'web'), serveStatic(join(dist, 'web'))],
];
/** Bytes served per run: the size of each file sent. */
let served = 0;
const PAGES = {
  '/engine.html': "const lib = await import('/lib/index.js'); await lib.createEngine();",
  '/starter-module.html':
    "const [lib, s] = await Promise.all([import('/lib/index.js'), import('/lib/starter.js')]); " +
    'await s.loadStarterDataset(await lib.createEngine());',
  '/packs.html': "const lib = await import('/lib/index.js'); await lib.createEngine({ packs: 'default' });",
};
const server = createServer(async (req, res) => {
  const path = req.url ?? '/';
  if (PAGES[path]) {
    const html = `<!doctype html><script type="module">${PAGES[path]} performance.mark('trainprint:ready');</script>`;
    served += html.length;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html);
    return;
  }
  const m = mounts.find(([prefix]) => path.startsWith(prefix));
  const rel = m ? path.slice(m[0].length).split('?')[0] || 'index.html' : '';
  const r = m ? await m[2](new Request(`http://127.0.0.1/${rel}`)) : null;
  const response = r ?? new Response('not found', { status: 404 });
  if (response.status === 200) served += statSync(join(m[1], decodeURIComponent(rel))).size;
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking'],
});
async function browserRun(path) {
  const context = await browser.newContext(); // a fresh cache each run
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  served = 0;
  await page.goto(`${base}${path}`);
  const ready = () => performance.getEntriesByName('trainprint:ready').length > 0;
  await page.waitForFunction(ready, null, { timeout: 120_000 });
  const ms = await page.evaluate(() => performance.getEntriesByName('trainprint:ready')[0].startTime);
  const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
  await context.close();
  if (errors.length) throw new Error(`${path}: ${errors.join('; ')}`);
  return { ms, bytes: served, first_paint_ms: paint };
}
const chromiumRuns = {};
for (const [name, path] of [
  ['engine', '/engine.html'],
  ['starter_module_before', '/starter-module.html'],
  ['packs', '/packs.html'],
  ['web_app', '/web/'],
]) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await browserRun(path));
  chromiumRuns[name] = {
    ready_ms: upperMedian(runs.map((r) => r.ms)),
    bytes: runs[0].bytes,
    first_paint_ms: upperMedian(runs.map((r) => r.first_paint_ms ?? NaN)),
    runs: runs.map((r) => round(r.ms, 1)),
  };
  console.log(
    `Chromium ${name}: ready ${chromiumRuns[name].ready_ms.toFixed(0)} ms, ` +
      `${(chromiumRuns[name].bytes / 1e6).toFixed(1)} MB transferred`,
  );
}
await browser.close();
server.close();

const b = chromiumRuns.engine.ready_ms;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  runs: RUNS,
  default_packs: defaults.map((p) => ({ id: p.id, bytes: p.bytes, ngrams: p.ngrams, documents: p.documents })),
  default_pack_bytes: packBytes,
  node_ready: {
    baseline_ms: round(nodeReady.baseline_ms, 1),
    packs_ms: round(nodeReady.packs_ms, 1),
    ratio: round(nodeReady.packs_ms / nodeReady.baseline_ms, 2),
    packs_rss_mb: round(upperMedian(node.packs.map((r) => r.rss)) / 1e6, 1),
  },
  node_analyze_100_words: lookup,
  chromium: Object.fromEntries(
    Object.entries(chromiumRuns).map(([k, v]) => [
      k,
      {
        ...v,
        ready_ms: round(v.ready_ms, 1),
        first_paint_ms: round(v.first_paint_ms, 1),
        ratio_to_engine: round(v.ready_ms / b, 2),
      },
    ]),
  ),
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/packs-load.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log('→ bench/results/packs-load.json');
