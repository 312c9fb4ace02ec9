// What the searches of `trainprint scan` cost, this build against a baseline dist, as whole processes alternating:
// the bench's scan (bench/fingerprint-whole.mjs: 10 MB of English as 9,943 JSON Lines outputs of about 1 kB against
// archiveOf's archive) split by what each output meets, so that the searches' share is measured rather than inferred:
//
//   all       every output (the bench's scan)
//   searched  only the outputs a scan searches (an index holds enough of their 5-grams): 148, of which 121 hit
//   nohit     only the searched outputs that hit nothing (27: copies of 12–46 words at an output's edge, chance runs)
//   one       the first output alone: a scan's fixed part (Node, the CLI, the dataset's import)
//   control   every output against the archive's Japanese documents alone: the lookups of all, no search
//
//   npm run build && node bench/scan-searches.mjs --baseline OTHER/dist [--rounds 5] [--write]
//
// GNU time's user + system CPU of each process, medians over the rounds; each build scans an archive of its own
// making; the hit lines of every input are compared byte for byte between the builds (a difference stops the run).
// Results: bench/results/scan-searches.json (--write).
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { archiveOf, CORPORA, outputsOf } from './fingerprint-whole.mjs';
import { median } from './stats.mjs';

const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 5);
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
if (!TIME) throw new Error('needs GNU time at /usr/bin/time');
const builds = [['this', new URL('../dist', import.meta.url).pathname]];
if (opt('--baseline')) builds.push(['baseline', opt('--baseline')]);

const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-scan-searches-'));
try {
  const text = CORPORA.en(10_000_000);
  const items = outputsOf(text);
  const docs = archiveOf(text);
  const write = (name, list) => {
    writeFileSync(join(dir, `${name}.jsonl`), `${list.map((x) => JSON.stringify(x)).join('\n')}\n`);
  };
  // each build's archives; the outputs a search meets, told by the first build's engine (scanItem and the lookups)
  const tpds = {};
  let searched = null;
  for (const [name, dist] of builds) {
    const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
    const engine = await createEngine();
    await engine.addDataset({ id: 'archive' }, docs);
    await engine.addDataset(
      { id: 'control' },
      docs.filter((d) => d.id.startsWith('ja')),
    );
    tpds[name] = { archive: join(dir, `archive-${name}.tpds`), control: join(dir, `control-${name}.tpds`) };
    writeFileSync(tpds[name].archive, engine.exportDataset('archive'));
    writeFileSync(tpds[name].control, engine.exportDataset('control'));
    if (searched === null) {
      searched = [];
      for (const item of items) {
        // the scan's own test (src/services/scan/scan.ts): 4 hits at 50 words, or runs that could hold 50 words
        const pre = engine.corpus.exactShinglesFound(item.text, ['archive'], 50);
        if (pre === null || pre.words < 50 || pre.found === 0) continue;
        const hits = await engine.scanItem(item, { datasets: ['archive'] });
        if (pre.found >= 4 || hits.length > 0) searched.push({ item, hits: hits.length });
      }
    }
    engine.dispose();
  }
  write('all', items);
  write(
    'searched',
    searched.map((s) => s.item),
  );
  write(
    'nohit',
    searched.filter((s) => s.hits === 0).map((s) => s.item),
  );
  write('one', items.slice(0, 1));
  const inputs = {
    all: ['all', 'archive'],
    searched: ['searched', 'archive'],
    nohit: ['nohit', 'archive'],
    one: ['one', 'archive'],
    control: ['all', 'control'],
  };
  const cpu = {};
  for (const [name] of builds) cpu[name] = Object.fromEntries(Object.keys(inputs).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [input, [file, set]] of Object.entries(inputs)) {
      const order = r % 2 ? [...builds].reverse() : builds;
      for (const [name, dist] of order) {
        const out = join(dir, `hits-${input}-${name}.jsonl`),
          timed = join(dir, 'time.txt');
        const args = ['scan', '--dataset', tpds[name][set], join(dir, `${file}.jsonl`), '--out', out, '--quiet'];
        execFileSync(TIME, ['-f', '%U %S', '-o', timed, process.execPath, join(dist, 'cli.js'), ...args], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        const [u, s] = readFileSync(timed, 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
        cpu[name][input].push(Math.round((u + s) * 100) / 100);
      }
      if (
        builds.length > 1 &&
        !readFileSync(join(dir, `hits-${input}-this.jsonl`)).equals(
          readFileSync(join(dir, `hits-${input}-baseline.jsonl`)),
        )
      )
        throw new Error(`${input}: the builds' hit lines differ`);
    }
  }
  const table = {};
  for (const [name] of builds)
    table[name] = Object.fromEntries(
      Object.entries(cpu[name]).map(([k, xs]) => [k, { cpu_s: median(xs), rounds: xs }]),
    );
  const record = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    load_average: loadavg().map((x) => Math.round(x * 10) / 10),
    options: process.argv.slice(2),
    builds,
    outputs: { all: items.length, searched: searched.length, nohit: searched.filter((s) => s.hits === 0).length },
    method:
      'GNU time user + system CPU of trainprint scan processes, the builds alternating in every round, medians; hit lines byte-identical between the builds for every input',
    cpu_s: table,
  };
  for (const [name] of builds)
    console.log(
      name,
      Object.entries(table[name])
        .map(([k, v]) => `${k} ${v.cpu_s} s`)
        .join(', '),
    );
  if (process.argv.includes('--write'))
    writeFileSync(new URL('./results/scan-searches.json', import.meta.url), `${JSON.stringify(record, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
