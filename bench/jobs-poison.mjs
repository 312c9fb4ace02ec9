#!/usr/bin/env node
/**
 * A poison catalogue job against `trainprint serve` (the built CLI, dist/cli.js, memory store, default job options):
 * how long another account's 1-item job takes beside it, how soon a cancel frees the runner, how soon SIGTERM ends
 * the process.
 *
 *   npm run build && node bench/jobs-poison.mjs [--rounds 3] [--out bench/results/jobs-poison.json]
 *
 * The poison is an `analyze` job of 11 items (two chunks), each a 2 KB PDF whose page tree shares its nodes and
 * claims 10^9 pages (generated here). Each round: the victim — account carol's 1-item `scan` job — alone (the
 * baseline, measured in the same run), then the poison of account dave, 3 s to start, the victim again; then
 * `DELETE` of the poison and a 1-item job of dave's own, which can run only once the runner let go of the poison
 * (one account holds at most `concurrency − 1` loops). Last, a new poison job and SIGTERM while it runs: the time to
 * the exit and its code. Medians over the rounds; the victim's time beside the poison as a ratio to its time alone.
 * Polls every 50 ms, so times under that are resolution. Not part of CI.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = resolve(ROOT, 'dist/cli.js');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/results/jobs-poison.json' },
  },
});
const ROUNDS = Number(values.rounds);

/** The 2 KB PDF: 9 levels of /Pages nodes, each listing the same child 10 times (/Count 10^9). */
function pagesDag() {
  const content = deflateSync(Buffer.from('BT /F1 11 Tf 72 720 Td (three words here) Tj ET'));
  const objs = new Map([
    [1, Buffer.from('<</Type/Catalog/Pages 10 0 R>>')],
    [
      4,
      Buffer.concat([
        Buffer.from(`<</Length ${content.length}/Filter/FlateDecode>>\nstream\n`),
        content,
        Buffer.from('\nendstream'),
      ]),
    ],
    [5, Buffer.from('<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>')],
    [19, Buffer.from('<</Type/Page/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>')],
  ]);
  for (let lvl = 0; lvl < 9; lvl++) {
    const kids = Array(10)
      .fill(`${11 + lvl} 0 R`)
      .join(' ');
    objs.set(10 + lvl, Buffer.from(`<</Type/Pages/Count ${10 ** (9 - lvl)}/Kids [${kids}]>>`));
  }
  let out = Buffer.from('%PDF-1.7\n');
  const offs = new Map();
  for (const n of [...objs.keys()].sort((a, b) => a - b)) {
    offs.set(n, out.length);
    out = Buffer.concat([out, Buffer.from(`${n} 0 obj\n`), objs.get(n), Buffer.from('\nendobj\n')]);
  }
  const xrefAt = out.length;
  let xref = 'xref\n0 20\n0000000000 65535 f \n';
  for (let n = 1; n < 20; n++)
    xref += offs.has(n) ? `${String(offs.get(n)).padStart(10, '0')} 00000 n \n` : '0000000000 65535 f \n';
  return Buffer.concat([out, Buffer.from(`${xref}trailer\n<</Size 20/Root 1 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`)]);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round3 = (x) => Math.round(x * 1000) / 1000;

const child = spawn(process.execPath, [CLI, 'serve', '--packs', 'none', '--port', '0', '--admin-key', '--starter'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let log = '';
child.stdout.on('data', (d) => (log += d));
child.stderr.on('data', (d) => (log += d));
for (let i = 0; i < 1200 && !log.includes('(Ctrl-C stops)'); i++) await sleep(100);
const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
const admin = /admin key [^\n]*: (tp_live_[A-Za-z0-9]{32})/.exec(log)?.[1];
if (!base || !admin) throw new Error(`serve did not start:\n${log}`);
const call = async (key, method, path, body) => {
  const r = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return r.json();
};
const keyOf = async (account) =>
  (await call(admin, 'POST', '/api/v1/admin/keys', { account, plan: 'scale', scopes: ['analyze'] })).key;
const dave = await keyOf('dave');
const carol = await keyOf('carol');
const poisonItem = {
  content: pagesDag().toString('base64'),
  content_encoding: 'base64',
  content_type: 'pdf',
  search_remote: false,
};
const submit = (key, body) => call(key, 'POST', '/api/v1/jobs', body);
/** Seconds from now until the job is finished (polled every 50 ms, at most 10 minutes). */
async function finishedIn(key, id) {
  const t = performance.now();
  for (let i = 0; i < 12_000; i++) {
    const j = await call(key, 'GET', `/api/v1/jobs/${id}`);
    if (['done', 'failed', 'cancelled'].includes(j.state)) return (performance.now() - t) / 1000;
    await sleep(50);
  }
  throw new Error(`job ${id} did not finish`);
}
const victim = async () => {
  const j = await submit(carol, { type: 'scan', items: [{ id: 'victim', text: 'a short text to scan' }] });
  return finishedIn(carol, j.job_id);
};

const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const alone = await victim();
  const poison = await submit(dave, { type: 'analyze', items: Array(11).fill(poisonItem) });
  await sleep(3000);
  const beside = await victim();
  const state = (await call(dave, 'GET', `/api/v1/jobs/${poison.job_id}`)).state;
  const t = performance.now();
  await call(dave, 'DELETE', `/api/v1/jobs/${poison.job_id}`);
  const own = await submit(dave, { type: 'scan', items: [{ id: 'after-cancel', text: 'a short text to scan' }] });
  await finishedIn(dave, own.job_id);
  rounds.push({
    victim_alone_s: round3(alone),
    victim_beside_poison_s: round3(beside),
    poison_state_then: state,
    cancel_to_runner_free_s: round3((performance.now() - t) / 1000),
  });
}
const last = await submit(dave, { type: 'analyze', items: Array(11).fill(poisonItem) });
await sleep(3000);
const poisonAtSigterm = (await call(dave, 'GET', `/api/v1/jobs/${last.job_id}`)).state;
const exited = new Promise((r) => child.once('exit', (code) => r(code)));
const t = performance.now();
child.kill('SIGTERM');
const code = await exited;
const sigtermS = (performance.now() - t) / 1000;

const alone = median(rounds.map((x) => x.victim_alone_s));
const beside = median(rounds.map((x) => x.victim_beside_poison_s));
const result = {
  bench: 'jobs-poison',
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    load_average_1m: round3(loadavg()[0]),
    node: process.version,
  },
  rounds,
  victim_alone_median_s: alone,
  victim_beside_poison_median_s: beside,
  victim_beside_poison_ratio_to_alone: round3(beside / alone),
  cancel_to_runner_free_median_s: median(rounds.map((x) => x.cancel_to_runner_free_s)),
  sigterm: { poison_state: poisonAtSigterm, exit_code: code, exit_s: round3(sigtermS) },
};
mkdirSync(dirname(resolve(ROOT, values.out)), { recursive: true });
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
