#!/usr/bin/env node
/**
 * Four attackers a client can be, each beside another account's 2 MB analyze, against one real `trainprint serve`
 * (the built CLI, dist/cli.js, a file store, `--packs none`, `--allow-private-model-hosts` for the hostile model on
 * 127.0.0.1):
 *
 * - **audit**: a Scale account's audit job of `--audit-works` works (100,000 by default, 60 made-up words each: a
 *   body of about 45 MB) against a model that answers at once; the job's time to done, and its result read back.
 * - **chunks**: two Free accounts send two 2 MB analyze bodies each, a byte a chunk (12 bytes on the wire a body
 *   byte), again and again.
 * - **subline**: one Free account's 40 analyses at once of bodies just under the 1 MiB large-request line, again and
 *   again.
 * - **padded**: a Free account's extract job (a 3,000-word work, so that the job's own writes stay small beside the
 *   journal's) against a model that pads every answer with 400 KB of random text (to
 *   just under what `max_tokens: 4096` can produce); the store's growth per call.
 *
 * For each: the victim's analyze alone (median of 3), then beside the attacker (median of what ran while it did, at
 * least 3), `/healthz` and `/api/v1/status` polled every 50 ms from a thread of their own (p99, max), the server's RSS
 * before, at its peak and 45 s after the attacker stopped.
 *
 *   npm run build && nice node bench/hostile-attackers.mjs [--only audit,chunks,subline,padded]
 *     [--audit-works 100000] [--attack-s 60] [--after-s 45] [--cli dist/cli.js]
 *     [--out bench/results/hostile-attackers.json]
 *
 * Each attacker runs in a child process of its own (this file with `--attack NAME`, its own model host), so that the
 * victim's calls, timed here, never wait on the attacker's body making (a 40 MB catalogue stringified, 1 MB strings
 * encoded a call); the probes run on a thread of their own here (the audit asks for them while its body is
 * submitted). Both processes' event-loop delay is reported beside each attacker (`event_loop_ms`).
 *
 * `attackers` (below) is what bench/hostile-soak.mjs sends too, in its soak's mix. Linux only (RSS from /proc).
 */
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { optionsOrUsage } from './cli-args.mjs';
import { measuringClient, pct } from './hostile-client.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMB = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
const auth = (key, type = 'application/json') => ({ authorization: `Bearer ${key}`, 'content-type': type });

/** Made-up words, the same for a seed: texts no pack holds. */
export function madeUpText(words, seed = 1) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tas', 'vu', 'zel', 'po', 'quin', 'dar', 'sel', 'ny', 'bor', 'fe'];
  const out = [];
  for (let i = 0; i < words; i++) {
    const n = 1 + (next() % 3);
    let w = '';
    for (let j = 0; j < n; j++) w += syllables[next() % syllables.length];
    out.push(i % 12 === 11 ? `${w}.` : w);
  }
  return out.join(' ');
}

/** A fetch timed to its whole body; status 0 for a failure (never thrown). */
export async function timed(url, init = {}, limitMs = 600_000) {
  const t = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
    const text = await res.text();
    return { ms: performance.now() - t, status: res.status, text, headers: res.headers };
  } catch (e) {
    return { ms: performance.now() - t, status: 0, text: String(e) };
  }
}

/** Model services of the attacks, by the first path segment: `none` answers a few words at once, `padded` pads. */
export async function attackModels() {
  const server = createServer((req, res) => {
    const mode = req.url.split('/')[1];
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const answer = {
        id: 'x',
        object: 'chat.completion',
        model: 'm',
        // both shapes: a completions answer's text, a chat answer's message
        choices: [
          {
            index: 0,
            text: 'nothing of the kind',
            message: { role: 'assistant', content: 'nothing of the kind' },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
        // incompressible, to just under what max_tokens 4096 can produce (458,752 bytes)
        ...(mode === 'padded' ? { padding: randomBytes(200_000).toString('hex') } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: (mode) => `http://127.0.0.1:${port}/${mode}/v1`, close: () => server.close() };
}

/** The analyze body of about `bytes` bytes, made once (the sender's own work stays off the measured machine's CPU). */
const bodies = new Map();
const bodyOf = (bytes) => {
  if (!bodies.has(bytes))
    bodies.set(
      bytes,
      Buffer.from(JSON.stringify({ content: madeUpText(Math.ceil(bytes / 6), 7), content_type: 'text' })),
    );
  return bodies.get(bytes);
};

/** A chunked analyze body of `bytes` sent `size` bytes a chunk; resolves to the status answered (0 for none). */
export function chunkedBody(port, key, bytes, size = 1) {
  return new Promise((resolveStatus) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (c) => (got += c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolveStatus(Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0)));
    socket.write(
      `POST /api/v1/attribution/analyze HTTP/1.1\r\nHost: x\r\n${`Authorization: Bearer ${key}`}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
    );
    const body = bodyOf(bytes);
    let at = 0;
    const pump = () => {
      while (at < body.length && socket.writable) {
        let wire = '';
        for (let n = 0; n < 4096 && at < body.length; n++, at += size) {
          const piece = body.subarray(at, at + size);
          wire += `${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`;
        }
        if (at >= body.length) wire += '0\r\n\r\n';
        if (!socket.write(wire, 'latin1')) return socket.once('drain', pump);
      }
    };
    pump();
  });
}

/**
 * The attackers, each `(ctx, stopped) => Promise<figures>`: runs until `stopped()` (the audit: until its job is
 * done), resolves to what it measured. `ctx`: { url, port, keys, models, storeDir, auditWorks, client? (the measuring
 * client: the audit probes the server while its body is submitted) }.
 */
export const attackers = {
  async audit(ctx) {
    const works = Array.from({ length: ctx.auditWorks }, (_, i) => ({ id: `w${i}`, text: madeUpText(60, i + 1) }));
    const body = JSON.stringify({
      type: 'audit',
      items: [{ works, model: { base_url: ctx.models.url('none'), model: 'm' }, budget_calls: 2000 }],
    });
    // the probes while the body is read, parsed, checked and stored: what the submission alone held
    const submitting = ctx.client?.start('probe');
    const sub = await timed(`${ctx.url}/api/v1/jobs`, { method: 'POST', headers: auth(ctx.keys.scale), body });
    const probesSubmitting = await submitting?.();
    if (sub.status !== 202) return { submitted: sub.status, error: sub.text.slice(0, 300) };
    const id = JSON.parse(sub.text).job_id;
    const t0 = performance.now();
    let state = 'queued';
    while (!['done', 'failed', 'cancelled'].includes(state)) {
      await sleep(1000);
      const s = await timed(`${ctx.url}/api/v1/jobs/${id}`, { headers: auth(ctx.keys.scale) });
      if (s.status === 200) state = JSON.parse(s.text).state;
    }
    const doneS = (performance.now() - t0) / 1000;
    // the item's result line (the audit with its first works), then the rest of its works page by page
    const r = await timed(`${ctx.url}/api/v1/jobs/${id}/results`, { headers: auth(ctx.keys.scale) });
    const line = r.status === 200 && r.text.trim() ? JSON.parse(r.text.trim().split('\n')[0]) : null;
    const pageMs = [];
    let worksRead = line?.result?.works?.length ?? 0;
    for (let after = line?.result?.works_next ?? null; after !== null && after !== undefined; ) {
      const page = await timed(`${ctx.url}/api/v1/jobs/${id}/results/0/works?after=${after}&limit=1000`, {
        headers: auth(ctx.keys.scale),
      });
      pageMs.push(Math.round(page.ms));
      if (page.status !== 200) break;
      const body = JSON.parse(page.text);
      worksRead += body.works.length;
      after = body.next;
    }
    return {
      works: ctx.auditWorks,
      body_mb: Math.round(body.length / 1e5) / 10,
      submit_s: Math.round(sub.ms / 100) / 10,
      probes_while_submitting: probesSubmitting,
      state,
      done_s: Math.round(doneS * 10) / 10,
      calls: line?.result?.calls ?? null,
      works_in_result: line?.result?.works?.length ?? null,
      result_mb: Math.round(r.text.length / 1e5) / 10,
      result_read_ms: Math.round(r.ms),
      works_read_by_pages: worksRead,
      pages: pageMs.length,
      page_ms_median: pct(pageMs, 50),
      page_ms_max: pageMs.length ? Math.max(...pageMs) : null,
      item_error: line?.success === false ? line.error : undefined,
    };
  },

  async chunks(ctx, stopped) {
    const statuses = {};
    const one = async (key) => {
      while (!stopped()) {
        const s = await chunkedBody(ctx.port, key, 2_000_000, 1);
        statuses[s] = (statuses[s] ?? 0) + 1;
      }
    };
    await Promise.all([ctx.keys.free1, ctx.keys.free1, ctx.keys.free2, ctx.keys.free2].map(one));
    return { bodies: statuses };
  },

  async subline(ctx, stopped) {
    const statuses = {};
    // a body of 1,030,000 bytes: under the 1 MiB line
    const content = madeUpText(200_000, 11).slice(0, 1_029_960);
    const body = JSON.stringify({ content, content_type: 'text' });
    while (!stopped()) {
      const rs = await Promise.all(
        Array.from({ length: 40 }, () =>
          timed(`${ctx.url}/api/v1/attribution/analyze`, { method: 'POST', headers: auth(ctx.keys.free3), body }),
        ),
      );
      for (const r of rs) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
    return { body_bytes: body.length, answers: statuses };
  },

  async padded(ctx, stopped) {
    const before = dirBytes(ctx.storeDir);
    const body = JSON.stringify({
      type: 'extract',
      items: [
        {
          text: madeUpText(3_000, 5),
          model: { base_url: ctx.models.url('padded'), model: 'm' },
          budget_calls: 300,
          max_tokens: 4096,
        },
      ],
    });
    const sub = await timed(`${ctx.url}/api/v1/jobs`, { method: 'POST', headers: auth(ctx.keys.free4), body });
    if (sub.status !== 202) return { submitted: sub.status, error: sub.text.slice(0, 300) };
    const id = JSON.parse(sub.text).job_id;
    let state = 'queued';
    while (!['done', 'failed', 'cancelled'].includes(state) && !stopped()) {
      await sleep(1000);
      const s = await timed(`${ctx.url}/api/v1/jobs/${id}`, { headers: auth(ctx.keys.free4) });
      if (s.status === 200) state = JSON.parse(s.text).state;
    }
    const r = await timed(`${ctx.url}/api/v1/jobs/${id}/results`, { headers: auth(ctx.keys.free4) });
    const line = r.status === 200 && r.text.trim() ? JSON.parse(r.text.trim().split('\n')[0]) : null;
    const calls = line?.result?.record?.calls?.length ?? line?.result?.calls ?? null;
    const grown = dirBytes(ctx.storeDir) - before;
    const del = await timed(`${ctx.url}/api/v1/jobs/${id}`, { method: 'DELETE', headers: auth(ctx.keys.free4) });
    if (state !== 'done' && del.status === 200)
      await timed(`${ctx.url}/api/v1/jobs/${id}`, { method: 'DELETE', headers: auth(ctx.keys.free4) });
    return {
      state,
      calls,
      store_growth_mb: Math.round(grown / 1e4) / 100,
      store_bytes_per_call: calls ? Math.round(grown / calls) : null,
      result_bytes: r.text.length,
      item: line?.success === false ? line.error : undefined,
      stopped: line?.result?.stopped,
      first_error: line?.result?.error,
    };
  },
};

/** Bytes of the files under `dir` (0 for a store that is not a folder: PostgreSQL). */
function dirBytes(dir) {
  let n = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

/** A key of `account` on `plan` in the store `store`, made by the CLI. */
export const cliKey = (cli, store, account, plan) =>
  new Promise((res, rej) =>
    execFile(
      process.execPath,
      [cli, 'keys', 'create', '--store', store, '--account', account, '--plan', plan],
      (err, out, errText) => (err ? rej(new Error(errText)) : res(JSON.parse(out).key)),
    ),
  );

/**
 * `trainprint serve --port 0 --packs none …args` started: its process, URL, port and log so far. Node's own flags for
 * it from `SERVE_NODE_ARGS` (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS does not take).
 */
export async function serveCli(cli, args) {
  const nodeArgs = (process.env.SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0', '--packs', 'none', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise((res, rej) => {
    const look = (d) => {
      log += d;
      const u = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
      if (u && log.includes('(Ctrl-C stops)')) res(u);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => rej(new Error(`serve exited ${code}:\n${log}`)));
  });
  return { child, url, port: Number(new URL(url).port), log: () => log };
}

/**
 * The server's RSS once it has collected its garbage: bench/memory-probe.cjs (preloaded, with --expose-gc) collects
 * and writes a line marked `gc` on SIGUSR2; read 2 s later, the collection's freed pages given back by then.
 */
async function collectedRss(child) {
  child.kill('SIGUSR2');
  await sleep(2000);
  return rssMB(child.pid);
}

/**
 * What the run's calls left in the store by contract, read once the server has exited (a file store holds every value
 * in the server's memory): every analysis answered 200, kept 30 days with its text (docs/analyze.md) — the victim's
 * 2 MB analyses among them — and an audit's records (its text index, pages of works, journal). Their bytes as stored
 * (results as JSON, texts as UTF-8; other records as JSON) and their keys' characters (the index holds each key), in
 * `kept_mb`: the data, not what the process's heap spends holding it (a string's header, an object a value).
 */
async function keptInStore(cli, storeDir) {
  const { openFileStore } = await import(resolve(dirname(cli), 'node.js'));
  const store = await openFileStore(storeDir);
  try {
    const by = {};
    let bytes = 0;
    for (const [key, value] of await store.scan('')) {
      const kind = key.split('/')[0];
      const size =
        kind === 'analysis-record'
          ? (value?.utf8?.byteLength ?? 0) + Buffer.byteLength(JSON.stringify({ ...value, utf8: null }))
          : Buffer.byteLength(JSON.stringify(value));
      by[kind] ??= { records: 0, mb: 0, key_chars: 0 };
      by[kind].records++;
      by[kind].mb += size / 1048576;
      by[kind].key_chars += key.length;
      bytes += size + key.length;
    }
    for (const k of Object.values(by)) k.mb = Math.round(k.mb * 10) / 10;
    return { kept_mb: Math.round(bytes / 1048576), by_prefix: by };
  } finally {
    await store.close();
  }
}

// ------------------------------------------------------------------------------------------------ the run
/** An event loop's delay over a run, in ms. */
const loopFigures = (h) => ({ max_ms: Math.round(h.max / 1e6), p99_ms: Math.round(h.percentile(99) / 1e6) });

/**
 * Attacker `name` in a child process until `stopped()`: resolves to its figures and its event loop's delay. The
 * child asks this process's measuring client for probes (`client.start('probe')`) over IPC.
 */
function attackInChild(name, job, client, stopped) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), '--attack', name, '--job', JSON.stringify(job)],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  let probe;
  const stopTicker = setInterval(() => stopped() && child.connected && child.send({ op: 'stop' }), 200);
  return new Promise((res, rej) => {
    let done;
    child.on('message', async (m) => {
      if (m.op === 'probe-start') probe = client.start('probe');
      else if (m.op === 'probe-stop') child.send({ op: 'probe-result', result: await probe() });
      else if (m.op === 'done') done = m;
    });
    child.once('exit', (code) => {
      clearInterval(stopTicker);
      if (code === 0 && done) res(done);
      else rej(new Error(`attacker ${name} exited ${code}`));
    });
  });
}

/** The child's side of {@link attackInChild}: one attacker against the server in `job`, its own model host. */
async function attackerChild(name, job) {
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const models = await attackModels();
  let stop = false;
  let answer;
  process.on('message', (m) => {
    if (m.op === 'stop') stop = true;
    else if (m.op === 'probe-result') answer?.(m.result);
  });
  const client = {
    start() {
      process.send({ op: 'probe-start' });
      return () => new Promise((r) => ((answer = r), process.send({ op: 'probe-stop' })));
    },
  };
  const figures = await attackers[name]({ ...job, models, client }, () => stop || Date.now() > job.until);
  models.close();
  loop.disable();
  process.send({ op: 'done', figures, event_loop: loopFigures(loop) }, () => process.exit(0));
}

const OPTIONS = {
  // a child process of this bench: the attacker to run, and its `job` as JSON (see attackInChild)
  attack: { type: 'string' },
  job: { type: 'string' },
  out: { type: 'string', default: 'bench/results/hostile-attackers.json' },
  only: { type: 'string', default: 'audit,chunks,subline,padded' },
  'audit-works': { type: 'string', default: '100000' },
  'attack-s': { type: 'string', default: '60' },
  'after-s': { type: 'string', default: '45' },
  cli: { type: 'string', default: resolve(ROOT, 'dist/cli.js') },
};

const USAGE = `usage: nice node bench/hostile-attackers.mjs [--only audit,chunks,subline,padded] [--audit-works 100000]
  [--attack-s 60] [--after-s 45] [--cli dist/cli.js] [--out bench/results/hostile-attackers.json]
(npm run build first: it runs the built CLI, or the one --cli names, e.g. a baseline build's dist/cli.js)`;

async function main() {
  const values = optionsOrUsage(OPTIONS, USAGE);
  if (values.attack) return attackerChild(values.attack, JSON.parse(values.job));
  const cli = resolve(values.cli);
  const dir = mkdtempSync(join(tmpdir(), 'hostile-attackers-'));
  const storeDir = join(dir, 'store');
  const key = (account, plan) => cliKey(cli, storeDir, account, plan);
  const keys = {
    victim: await key('victim', 'pro'),
    scale: await key('dave', 'scale'),
    free1: await key('gus', 'free'),
    free2: await key('hal', 'free'),
    free3: await key('fran', 'free'),
    free4: await key('ivy', 'free'),
  };
  const served = await serveCli(cli, ['--store', storeDir, '--allow-private-model-hosts']);
  const { child, url } = served;
  const port = Number(new URL(url).port);
  const victimBody = JSON.stringify({ content: madeUpText(330_000, 3).slice(0, 2_000_000), content_type: 'text' });
  const victim = async () => {
    const r = await timed(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: auth(keys.victim),
      body: victimBody,
    });
    return { ms: Math.round(r.ms), status: r.status };
  };
  const client = measuringClient(url, child.pid);
  const result = {
    bench: 'hostile-attackers',
    cli: relative(ROOT, cli),
    node: process.version,
    cpus: cpus().length,
    load_average_at_start: loadavg()[0],
    attackers: {},
  };
  const job = { url, port, keys, storeDir, auditWorks: Number(values['audit-works']) };
  try {
    await victim(); // warm: the core grown to a 2 MB analysis
    for (const name of values.only.split(',')) {
      const aloneProbe = client.start('probe');
      const alone = [await victim(), await victim(), await victim()];
      const probeAlone = await aloneProbe();
      const rssBefore = rssMB(child.pid);
      let stop = false;
      const until = Date.now() + Number(values['attack-s']) * 1000;
      const probe = client.start('probe');
      const loop = monitorEventLoopDelay({ resolution: 20 });
      loop.enable();
      const attack = attackInChild(name, { ...job, until }, client, () => stop);
      let finished = false;
      attack.finally(() => (finished = true));
      await sleep(2000);
      const during = [];
      while ((!finished && Date.now() < until) || during.length < 3) during.push(await victim());
      stop = true;
      const { figures, event_loop: attackerLoop } = await attack;
      loop.disable();
      const probeDuring = await probe();
      await sleep(Number(values['after-s']) * 1000);
      const rssAfter = rssMB(child.pid);
      // with bench/memory-probe.cjs preloaded (SERVE_NODE_ARGS, TRAINPRINT_MEMORY_TRACE): what a collection frees now
      const rssCollected = process.env.TRAINPRINT_MEMORY_TRACE ? await collectedRss(child) : undefined;
      const med = (xs) =>
        pct(
          xs.filter((x) => x.status === 200).map((x) => x.ms),
          50,
        );
      result.attackers[name] = {
        attacker: figures,
        victim_alone_ms: alone.map((x) => x.ms),
        victim_during_ms: during.map((x) => x.ms),
        victim_during_statuses: during.map((x) => x.status),
        victim_ratio: Math.round((med(during) / med(alone)) * 100) / 100,
        probes_alone: probeAlone,
        probes_during: probeDuring,
        rss_before_mb: rssBefore,
        rss_peak_mb: probeDuring.peak_rss_mb,
        rss_after_mb: rssAfter,
        rss_after_ratio: Math.round((rssAfter / rssBefore) * 100) / 100,
        ...(rssCollected === undefined ? {} : { rss_after_collected_mb: rssCollected }),
        load_average: loadavg()[0],
        // the victim's calls are timed on this process's main thread, the probes on its measuring thread
        event_loop_ms: { victim: loopFigures(loop), attacker_process: attackerLoop },
      };
      console.log(name, JSON.stringify(result.attackers[name]));
    }
    result.five_hundreds_in_log = (served.log().match(/"request failed: 500"/g) ?? []).length;
    result.load_average_at_end = loadavg()[0];
  } finally {
    await client.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    result.kept = await keptInStore(cli, storeDir).catch((e) => ({ error: String(e?.stack ?? e) }));
    rmSync(dir, { recursive: true, force: true });
  }
  // one attacker alone: its RSS 45 s after less what the store keeps by contract. A build before the file store kept
  // large values on disk held all of it in memory; from then on the store holds its keys and small values only, so
  // this figure subtracts more than it holds and the whole ratio is the one to read
  const names = Object.keys(result.attackers);
  if (names.length === 1 && result.kept.kept_mb !== undefined) {
    const a = result.attackers[names[0]];
    a.rss_after_less_kept_mb = Math.round(a.rss_after_mb - result.kept.kept_mb);
    a.rss_after_less_kept_ratio = Math.round((a.rss_after_less_kept_mb / a.rss_before_mb) * 100) / 100;
  }
  const out = resolve(ROOT, values.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${relative(ROOT, out)}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
