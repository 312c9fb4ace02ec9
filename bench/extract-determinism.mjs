// One answer whatever the concurrency: `trainprint extract` on the committed model byte-gpt-long-work (its work
// inserted 16 times, models/README.md), served black-box by `trainprint model serve --generations-only`, at
// --concurrency 1, 4, 8 and 16, --runs times each, while --burners CPU burners (busy loops in child processes) load
// the machine; then the same item as an HTTP extract job (`trainprint serve`); a finished run started again with its
// complete journal at concurrency 8 (new calls: calls − replayed); --kills runs killed (SIGKILL) after a random time
// and resumed with their journal at a random concurrency. Every one must report one nv_recall and one transcript
// digest. Numbers are the runs' own: nv_recall, calls, digest, wall seconds (on a loaded machine, for scale only).
//   node bench/extract-determinism.mjs [--runs 2] [--burners 2] [--kills 4] [--budget 2000]
//   (npm run build first; writes bench/results/extract-determinism.json)
import './help.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const RUNS = arg('runs', 2);
const BURNERS = arg('burners', 2);
const KILLS = arg('kills', 4);
const BUDGET = arg('budget', 2000);
const MODEL = 'byte-gpt-long-work';
const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'dist/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'trainprint-extract-determinism-'));
const t0 = performance.now();
const log = (...a) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s]`, ...a);
const manifest = JSON.parse(readFileSync(join(root, 'models', MODEL, 'manifest.json'), 'utf8'));
const work = manifest.inserted.find((d) => d.times === 16);
const workFile = join(dir, 'work.txt');
writeFileSync(workFile, work.text);

// a 32-bit LCG computed exactly: the kill times are the same on every run of the bench
let seed = 2026;
const next = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

const children = [];
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** A child that prints a line matching `re`; resolves with the match once it does. */
function startPrinting(args, re, what) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 120 s`)), 120_000);
    const read = (d) => {
      out += d;
      const m = re.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, m });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${out.slice(-500)}`)));
  });
}

/** `trainprint extract` at `concurrency`; resolves with its result, or null when killed after `killAfterMs`. */
function extract(concurrency, journal, killAfterMs) {
  const out = join(dir, `r-${Math.floor(next() * 1e9)}.json`);
  const args = [cli, 'extract', workFile, '--model-url', served, '--model', MODEL, '--chat'];
  args.push('--budget-calls', String(BUDGET), '--concurrency', String(concurrency), '--out', out);
  args.push('--allow-private-model-hosts', ...(journal ? ['--journal', journal] : []));
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const timer = killAfterMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === 'SIGKILL') return resolve(null);
      if (code !== 0) return reject(new Error(`extract exited ${code}: ${err.slice(-800)}`));
      const r = JSON.parse(readFileSync(out, 'utf8'));
      resolve({
        concurrency,
        nv_recall: r.nv_recall,
        blocks: r.blocks.length,
        calls: r.calls,
        replayed_calls: r.replayed_calls,
        new_calls: r.calls - r.replayed_calls,
        transcript_sha256: r.record.transcript_sha256,
        seconds: Math.round((performance.now() - started) / 100) / 10,
      });
    });
  });
}

const burners = Array.from({ length: BURNERS }, () => {
  const c = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
  children.push(c);
  return c;
});
const { m: servedMatch } = await startPrinting(
  [cli, 'model', 'serve', '--model', MODEL, '--generations-only', '--port', '0'],
  /at (http:\/\/\S+\/v1)/,
  'model serve',
);
const served = servedMatch[1];
log(`model at ${served}; ${BURNERS} CPU burners`);

const runs = [];
for (let k = 0; k < RUNS; k++)
  for (const c of [1, 4, 8, 16]) {
    const r = await extract(c);
    log(
      `concurrency ${c}: nv_recall ${r.nv_recall}, ${r.calls} calls, ${r.transcript_sha256.slice(0, 12)}, ${r.seconds} s`,
    );
    runs.push(r);
  }

// a finished run started again with its complete journal
const journal = join(dir, 'complete.journal');
const first = await extract(4, journal);
const replay = await extract(8, journal);
log(`replay: ${replay.new_calls} new calls, ${replay.transcript_sha256.slice(0, 12)}`);

// kills at random points, each resumed with its journal
const kills = [];
for (let k = 0; k < KILLS; k++) {
  const j = join(dir, `kill-${k}.journal`);
  const killAfterMs = Math.round(2000 + next() * 0.8 * 1000 * first.seconds);
  const c1 = [1, 4, 8, 16][Math.floor(next() * 4)];
  const c2 = [1, 4, 8, 16][Math.floor(next() * 4)];
  const killed = await extract(c1, j, killAfterMs);
  const resumed = await extract(c2, j);
  kills.push({ killed_after_ms: killAfterMs, killed: killed === null, concurrency: [c1, c2], ...resumed });
  log(
    `kill after ${killAfterMs} ms at ${c1}, resumed at ${c2}: ${resumed.replayed_calls} replayed, ${resumed.transcript_sha256.slice(0, 12)}`,
  );
}

// the HTTP extract job
const { m: serveMatch } = await startPrinting(
  [cli, 'serve', '--port', '0', '--packs', 'none', '--allow-private-model-hosts'],
  /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*development key [^\n]*: (tp_test_[A-Za-z0-9]{32})/,
  'serve',
);
const [, api, key] = serveMatch;
const call = async (method, path, body) => {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
};
const jobStart = performance.now();
const item = { text: work.text, model: { base_url: served, model: MODEL, api: 'chat' }, budget_calls: BUDGET };
const submitted = await call('POST', '/api/v1/jobs', { type: 'extract', items: [item] });
if (!submitted.status_url) throw new Error(`job refused: ${JSON.stringify(submitted)}`);
for (;;) {
  const s = await call('GET', submitted.status_url);
  if (['done', 'failed', 'cancelled'].includes(s.state)) break;
  await new Promise((r) => setTimeout(r, 1000));
}
const res = await fetch(`${api}${submitted.results_url}?limit=10`, { headers: { authorization: `Bearer ${key}` } });
const lines = (await res.text())
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const x = lines[0].result;
const job = {
  nv_recall: x.nv_recall,
  blocks: x.blocks.length,
  calls: x.calls,
  transcript_sha256: x.record.transcript_sha256,
  seconds: Math.round((performance.now() - jobStart) / 100) / 10,
};
log(`HTTP job: nv_recall ${job.nv_recall}, ${job.transcript_sha256.slice(0, 12)}`);

const all = [...runs, first, replay, ...kills, job];
const result = {
  model: MODEL,
  work: { id: work.id, times: work.times, words: work.text.split(/\s+/).filter(Boolean).length },
  budget_calls: BUDGET,
  burners: BURNERS,
  runs,
  replay_with_complete_journal: { first, replay },
  kills,
  http_job: job,
  distinct: {
    nv_recall: [...new Set(all.map((r) => r.nv_recall))],
    transcript_sha256: [...new Set(all.map((r) => r.transcript_sha256))],
  },
  replay_new_calls: replay.new_calls,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/extract-determinism.json'), `${JSON.stringify(result, null, 2)}\n`);
log('distinct', JSON.stringify(result.distinct));
for (const b of burners) b.kill('SIGKILL');
for (const c of children) c.kill('SIGKILL');
rmSync(dir, { recursive: true, force: true });
