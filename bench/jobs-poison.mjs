#!/usr/bin/env node
/**
 * A poison catalogue job against `trainprint serve` (the built CLI, dist/cli.js, memory store, default job options):
 * how long another account's 1-item job takes beside it, how soon a cancel frees the runner, how soon SIGTERM ends
 * the process.
 *
 *   npm run build && node bench/jobs-poison.mjs [--rounds 3] [--latency-ms 8000] [--out bench/results/jobs-poison.json]
 *
 * The poison is what a Free account may submit and every file limit lets through: an `analyze` job of 99 items
 * (its daily quota less the one item it runs after the cancel), each a 2,000-word text searched against a remote
 * corpus (`search_remote`) whose engine answers every call correctly but only after `--latency-ms` (under the
 * client's 10 s call timeout): each item runs until its search's deadline (measured first: one such item alone, start
 * to end), so the job would hold a runner loop for the items times that. The engine is the infini-gram fixture (test/fixtures/infini-gram) over the fixture books, in
 * this process. Each round, with a fresh Free account: the victim — account carol's 1-item `scan` job — alone (the
 * baseline, measured in the same run), then the poison, 3 s to start, the victim again (seconds from its submission
 * to done); then `DELETE` of the poison and a 1-item job of the poison's own account, which can run only once the
 * runner let go of the poison's item (one account holds at most `concurrency − 1` loops): the seconds from the
 * `DELETE` to that job's end, and the engine calls that arrived after it. Last, a new poison and SIGTERM while it
 * runs: the time to the exit and its code. Medians over the rounds; the victim's time beside the poison as a ratio to
 * its time alone. Polls every 50 ms, so times under that are resolution. Not part of CI.
 */
import './help.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildTokenIndex, fixtureCorpus, startInfiniGramServer } from '../test/fixtures/infini-gram/index.mjs';
import { upperMedian, round } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = resolve(ROOT, 'dist/cli.js');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    'latency-ms': { type: 'string', default: '8000' },
    out: { type: 'string', default: 'bench/results/jobs-poison.json' },
  },
});
const ROUNDS = Number(values.rounds);
const LATENCY_MS = Number(values['latency-ms']);
const POISON_ITEMS = 99;

const { documents } = fixtureCorpus();
const engine = await startInfiniGramServer({
  kind: 'infini-gram',
  indexes: { v4_piletrain_llama: buildTokenIndex({ documents, tokenizer: 'llama' }) },
  latencyMs: LATENCY_MS,
});
/** 2,000 words of the indexed books: every n-gram is found, so the search samples and fetches documents. */
const poisonText = documents
  .map((d) => d.text)
  .join(' ')
  .split(/\s+/)
  .slice(0, 2000)
  .join(' ');
/** Requests the engine has received (its `calls` lists only the answered ones). */
let engineRequests = 0;
engine.setFault(() => {
  engineRequests++;
  return undefined;
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const child = spawn(
  process.execPath,
  [
    ...[CLI, 'serve', '--packs', 'none', '--port', '0', '--admin-key', '--starter'],
    ...['--infini-gram', 'v4_piletrain_llama', '--infini-gram-endpoint', engine.url],
  ],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
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
const keyOf = async (account, plan) =>
  (await call(admin, 'POST', '/api/v1/admin/keys', { account, plan, scopes: ['analyze'] })).key;
const carol = await keyOf('carol', 'scale');
const poisonItem = { content: poisonText, content_type: 'text', search_remote: true };
const submit = async (key, body) => {
  const j = await call(key, 'POST', '/api/v1/jobs', body);
  if (!j.job_id) throw new Error(`job refused: ${JSON.stringify(j)}`);
  return j;
};
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

// One poison item alone, start to end: what each of the poison's items holds a runner loop for.
const probeKey = await keyOf('probe', 'free');
const probe = await submit(probeKey, { type: 'analyze', items: [poisonItem] });
const poisonItemAloneS = await finishedIn(probeKey, probe.job_id);

const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const dave = await keyOf(`dave-${r}`, 'free');
  const alone = await victim();
  const poison = await submit(dave, { type: 'analyze', items: Array(POISON_ITEMS).fill(poisonItem) });
  await sleep(3000);
  const requestsBefore = engineRequests;
  const beside = await victim();
  const then = await call(dave, 'GET', `/api/v1/jobs/${poison.job_id}`);
  const t = performance.now();
  await call(dave, 'DELETE', `/api/v1/jobs/${poison.job_id}`);
  const atCancel = engineRequests;
  const inFlightAtCancel = engineRequests - engine.calls.length;
  const own = await submit(dave, { type: 'scan', items: [{ id: 'after-cancel', text: 'a short text to scan' }] });
  await finishedIn(dave, own.job_id);
  const free = (performance.now() - t) / 1000;
  const atFree = engineRequests;
  await sleep(2000);
  rounds.push({
    victim_alone_s: round(alone, 3),
    victim_beside_poison_s: round(beside, 3),
    poison_then: { state: then.state, done: then.done, items: then.total ?? then.items ?? POISON_ITEMS },
    engine_requests_while_victim_ran: atCancel - requestsBefore,
    engine_requests_unanswered_at_cancel: inFlightAtCancel,
    cancel_to_runner_free_s: round(free, 3),
    engine_requests_after_cancel_until_free: atFree - atCancel,
    engine_requests_in_2_s_after_free: engineRequests - atFree,
  });
}
const lastKey = await keyOf('dave-last', 'free');
const last = await submit(lastKey, {
  type: 'analyze',
  items: Array(POISON_ITEMS).fill(poisonItem),
});
await sleep(3000);
const poisonAtSigterm = (await call(lastKey, 'GET', `/api/v1/jobs/${last.job_id}`)).state;
const exited = new Promise((r) => child.once('exit', (code) => r(code)));
const t = performance.now();
child.kill('SIGTERM');
const code = await exited;
const sigtermS = (performance.now() - t) / 1000;
await engine.close();

const alone = upperMedian(rounds.map((x) => x.victim_alone_s));
const beside = upperMedian(rounds.map((x) => x.victim_beside_poison_s));
const result = {
  bench: 'jobs-poison',
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    load_average_1m: round(loadavg()[0], 3),
    node: process.version,
  },
  poison: {
    plan: 'free',
    items: POISON_ITEMS,
    words_per_item: 2000,
    remote_engine_latency_ms: LATENCY_MS,
    one_item_alone_s: round(poisonItemAloneS, 3),
    engine_requests_total: engineRequests,
  },
  rounds,
  victim_alone_median_s: alone,
  victim_beside_poison_median_s: beside,
  victim_beside_poison_ratio_to_alone: round(beside / alone, 3),
  victim_beside_poison_max_s: Math.max(...rounds.map((x) => x.victim_beside_poison_s)),
  cancel_to_runner_free_median_s: upperMedian(rounds.map((x) => x.cancel_to_runner_free_s)),
  cancel_to_runner_free_max_s: Math.max(...rounds.map((x) => x.cancel_to_runner_free_s)),
  sigterm: { poison_state: poisonAtSigterm, exit_code: code, exit_s: round(sigtermS, 3) },
};
mkdirSync(dirname(resolve(ROOT, values.out)), { recursive: true });
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
