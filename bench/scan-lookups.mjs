// What a scan's lookups of every output cost (`corpus.exactShinglesFoundOfMany`: each output's words counted, its
// 5-grams hashed and looked up in the exact index), this build against a baseline build in the same run: the bench's
// 10 MB of English as about 1 kB outputs (bench/fingerprint-whole.mjs) in the scan's batches (64 outputs, 64 Ki
// UTF-16 units) against the archive made of the same text. A fresh process per round and build, with the CLI's
// one-shot interrupt budget (src/cli/tiering.ts), so the code runs cold as in `trainprint scan`; the builds' order
// flips each round. Per process: the process CPU (`process.cpuUsage()`, user + system) of the first pass over all
// outputs and of a second pass (warm), and a digest of every answer (found, byte length, words, runs), which must be
// the same for both builds in every round. Medians and the median of the per-round ratios.
//
//   npm run build && node bench/scan-lookups.mjs --baseline OTHER/dist [--rounds 9] [--copies 1] [--out scan-lookups.json]
//
// --copies N: the outputs N times over (as bench/cli-cpu.mjs's --copies). Results: bench/results/OUT.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { archiveFilesOf, CORPORA, outputsOf } from './fingerprint-whole.mjs';
import { oneShotFlags } from './one-shot-flags.mjs';
import { median, medianRatio, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
// the scan's batches (src/services/scan/scan.ts: BATCH_ITEMS, BATCH_UNITS)
const BATCH_ITEMS = 64;
const BATCH_UNITS = 1 << 16;
const MIN_WORDS = 50;

/** The outputs' texts in the scan's batches. */
function batchesOf(texts) {
  const out = [];
  let batch = [];
  let units = 0;
  for (const text of texts) {
    if (batch.length > 0 && (batch.length === BATCH_ITEMS || units + text.length > BATCH_UNITS)) {
      out.push(batch);
      batch = [];
      units = 0;
    }
    batch.push(text);
    units += text.length;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

// the child: the lookups of every batch with the given build, twice, the CPU of each pass and the answers' digest
if (process.argv[2] === '--child') {
  const [, , , dist, tpdsPath, textsPath] = process.argv;
  setFlagsFromString(oneShotFlags().join(' ')); // as the CLI's one-shot commands run
  const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const engine = await createEngine();
  await engine.importDataset(readFileSync(tpdsPath), { id: 'archive' });
  const batches = batchesOf(JSON.parse(readFileSync(textsPath, 'utf8')));
  const s = (u) => (u.user + u.system) / 1e6;
  const pass = () => {
    let digest = 0;
    const t0 = process.cpuUsage();
    for (const batch of batches) {
      const answers = engine.corpus.exactShinglesFoundOfMany(batch, ['archive'], MIN_WORDS);
      for (const a of answers) {
        digest = (digest * 31 + a.found * 7 + a.byteLength * 3 + a.words) >>> 0;
        for (const [start, end] of a.runs) digest = (digest * 31 + start * 5 + end) >>> 0;
      }
    }
    return { cpu_s: s(process.cpuUsage(t0)), digest };
  };
  const first = pass();
  const second = pass();
  console.log(JSON.stringify({ first_s: first.cpu_s, second_s: second.cpu_s, digest: first.digest }));
  process.exit(0);
}

const ROUNDS = Number(opt('--rounds') ?? 9);
const COPIES = Number(opt('--copies') ?? 1);
const OUT = opt('--out') ?? 'scan-lookups.json';
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);

const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-scan-lookups-'));
try {
  const text = CORPORA.en(10_000_000);
  const texts = outputsOf(text).map((x) => x.text);
  const textsPath = join(dir, 'texts.json');
  writeFileSync(textsPath, JSON.stringify(Array.from({ length: COPIES }, () => texts).flat()));
  // each build looks up in an archive of its own making (a build with another normaliser id refuses the other's)
  const tpdsOf = await archiveFilesOf(builds, text, dir);
  const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
  const loads = [];
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(loadNow());
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const [name, dist] of order) {
      const args = [fileURLToPath(import.meta.url), '--child', dist, tpdsOf[name], textsPath];
      runs[name].push(JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }).trim()));
    }
    const digests = new Set(builds.map(([name]) => runs[name][r].digest));
    if (digests.size > 1) throw new Error(`round ${r}: the builds' answers differ`);
    const line = builds.map(
      ([name]) => `${name} ${runs[name][r].first_s.toFixed(3)}/${runs[name][r].second_s.toFixed(3)}`,
    );
    console.error(`round ${r + 1}/${ROUNDS}: ${line.join(', ')} s (first/second pass)`);
  }
  const summary = {};
  for (const [name] of builds) {
    summary[name] = {
      first_s: round(median(runs[name].map((x) => x.first_s)), 4),
      second_s: round(median(runs[name].map((x) => x.second_s)), 4),
    };
  }
  if (runs.baseline) {
    for (const key of ['first_s', 'second_s']) {
      summary[`ratio_${key}`] = round(medianRatio(runs.this, runs.baseline, key), 3);
    }
  }
  const record = {
    ...recordHeader('scan-lookups'),
    rounds: ROUNDS,
    copies: COPIES,
    outputs: texts.length * COPIES,
    builds: Object.fromEntries(builds),
    load: loadSpread(loads),
    summary,
    runs,
  };
  console.log(JSON.stringify(summary, null, 2));
  console.log(`wrote ${writeRecord(join('bench/results', OUT), record)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
