#!/usr/bin/env node
/**
 * A hostile soak against one real `trainprint serve` (the built CLI, dist/cli.js): what no client can do to the
 * service — hold it with slow bodies, long job bodies, bombs, hostile model hosts or floods — measured beside honest
 * accounts doing ordinary work. Three parts, in one run:
 *
 * 1. **Slow bodies beside a large analyze**: another account's 2 MB analyze alone (3 runs), then beside four bodies
 *    that declare 2 MiB and send a byte a second from one Scale account, then from two Free accounts (2 each): the
 *    medians and their ratio to alone.
 * 2. **A Free key's million-line job**: 10⁶ lines of JSON lines streamed without a declared length to
 *    `POST /api/v1/jobs?type=scan` (time to the 413, the server's RSS growth, peak over before), and the same
 *    declared as 35 MB.
 * 3. **The soak** (`--duration-s`, 600 by default): 4 attacking accounts (Free, Pro, Scale, Enterprise) send slow
 *    bodies of every size (64 KiB to 8 MiB declared, a byte a second), chunked slowloris bodies, bombs (a 1 GiB
 *    flate-bomb PDF, a 500 × 1 MiB spine EPUB), million-line jobs, extract calls to hostile model hosts (one that
 *    hangs, one that answers 500, one that drips, one that answers 4 MiB of text, a closed port) and floods of small
 *    requests; meanwhile 4 honest accounts (Free, Pro, Scale, Enterprise) analyze texts and PDF/EPUB files and
 *    submit small scan jobs polled to their end. The attackers also send the attacks of bench/hostile-attackers.mjs:
 *    2 MB bodies a byte a chunk, 20 bodies at once just under the 1 MiB line, extract jobs against a model padding
 *    its answers to the cap, and (the Scale attacker, once) a catalogue audit of 100,000 works. Reported: the honest calls' latencies (p50/p99/max) and statuses
 *    (their own 429s apart), every 5xx of anyone, the server's RSS at the start of the soak, its peak, and 15 s after
 *    the attack stopped, and the 500 lines of its log.
 *
 *   npm run build && nice node bench/hostile-soak.mjs [--duration-s 600] [--warmup-s 30] [--parts all|soak]
 *     [--out bench/results/hostile-soak.json] [--memory-trace FILE [--heap-snapshots DIR]] [--cli DIST/cli.js]
 *   SERVE_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" nice node bench/hostile-soak.mjs …   (the server profiled)
 *
 * Who sends what, in which process: each attacker runs in a child process of its own (this file with `--role
 * attacker`), with its own hostile model hosts, and the honest accounts with the probes (`/healthz` and `/status`
 * every 250 ms) in another (`--role honest`); this process starts the server and them and reads the server's RSS. A
 * process that makes 2 MB bodies, 1 MB strings and zip files stalls its own event loop (up to 2.9 s measured when
 * all shared one), and a timer on that loop counts the stall as the server's latency. Each process's event-loop delay
 * is reported (`event_loop_ms`), so that a reader can tell the server's time from the client's. `--parts soak` runs
 * part 3 alone.
 *
 * Every analysis answered 200 is kept 30 days with its text (docs/analyze.md), in the server's memory on its file
 * store: read from the store once the server has exited, the soak's analyses and their bytes are reported, and the
 * RSS 45 s after less those bytes (`soak.kept`). `--memory-trace FILE` preloads bench/memory-probe.cjs into the
 * server: its process.memoryUsage() a line a second, and a line after a full collection at the start of the soak and
 * after the 45 s (with `--heap-snapshots DIR`, a heap snapshot there too: 20 s each, outside the measured times).
 *
 * The soak's RSS is taken at its start after a warm-up of the same mix (`--warmup-s`, not measured: the WebAssembly
 * core keeps the memory it grew to, pdf.js stays loaded on a document thread), at its end, and 15 s and 45 s after
 * (an idle document thread, and an idle thread of the worker pool, end after 30 s); the fresh server's RSS before
 * the warm-up is reported beside it. The attackers' extract calls to their own hostile model hosts answer 502/504 by
 * design (a model service's failure is passed on to the account that named it): those are counted apart, by host,
 * not as the service's 5xx.
 *
 * Linux only (RSS from /proc). The server runs `--allow-private-model-hosts` so that the hostile model hosts on
 * 127.0.0.1 are called (under the default policy they are refused 422 before any call).
 */
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { strToU8, zipSync } from 'fflate';
import { attackers as roundAttackers, attackModels, chunkedBody, madeUpText } from './hostile-attackers.mjs';
import { pct } from './hostile-client.mjs';
import { latin1, onePage, streamOf, threeWords, zlibRepeated } from './hostile-pdf.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench/results/hostile-soak.json' },
    'duration-s': { type: 'string', default: '600' },
    'warmup-s': { type: 'string', default: '30' },
    cli: { type: 'string', default: resolve(ROOT, 'dist/cli.js') },
    // the server's memory by kind, a line a second (bench/memory-probe.cjs), and a line after a full collection at
    // the start of the soak and 45 s after; heap snapshots there too with --heap-snapshots DIR
    'memory-trace': { type: 'string' },
    'heap-snapshots': { type: 'string' },
    // the service's store: a directory (the default, a fresh one) or a PostgreSQL URL (postgres://…), where the
    // analyses every 200 answer keeps by contract live in the database, not in the server's memory
    store: { type: 'string' },
    // 'all' (parts 1, 2 and 3) or 'soak' (part 3 alone)
    parts: { type: 'string', default: 'all' },
    // a child process of the soak (see the file's comment): 'attacker' or 'honest', with its `job` as JSON
    role: { type: 'string' },
    job: { type: 'string' },
  },
});
const CLI = resolve(values.cli);
const DURATION_MS = Number(values['duration-s']) * 1000;
const WARMUP_MS = Number(values['warmup-s']) * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => pct(xs, 50);
const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

// ------------------------------------------------------------------------------------------------ the server
const dir = values.role ? null : mkdtempSync(join(tmpdir(), 'hostile-soak-'));
const store = values.store ?? join(dir, 'store');
const storeIsPostgres = /^postgres(ql)?:\/\//.test(store);
const cliRun = (args) =>
  new Promise((res, rej) =>
    execFile(process.execPath, [CLI, ...args], (err, stdout, stderr) => (err ? rej(new Error(stderr)) : res(stdout))),
  );
const createKey = async (account, plan) =>
  JSON.parse(await cliRun(['keys', 'create', '--store', store, '--account', account, '--plan', plan])).key;

/**
 * `trainprint serve` started: its process, URL, port and log. Node's own flags for it from `SERVE_NODE_ARGS` (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS does not take), as in bench/hostile-attackers.mjs.
 */
function startServe() {
  const trace = values['memory-trace'] ? ['--expose-gc', '--require', resolve(ROOT, 'bench/memory-probe.cjs')] : [];
  trace.push(...(process.env.SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean));
  const env = {
    ...process.env,
    ...(values['memory-trace'] ? { TRAINPRINT_MEMORY_TRACE: resolve(values['memory-trace']) } : {}),
    ...(values['heap-snapshots'] ? { TRAINPRINT_HEAP_SNAPSHOT_DIR: resolve(values['heap-snapshots']) } : {}),
  };
  const child = spawn(
    process.execPath,
    [
      ...trace,
      CLI,
      'serve',
      '--port',
      '0',
      '--packs',
      'none',
      '--store',
      store,
      '--allow-private-model-hosts',
      // one process on PostgreSQL too (its default is one a core under a primary): the RSS read is the serving one's
      ...(storeIsPostgres ? ['--workers', '1'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let out = '';
  const log = { text: '' };
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start:\n${out}`)), 120_000);
    const look = () => {
      const u = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (u && out.includes('(Ctrl-C stops)')) {
        clearTimeout(timer);
        res({ child, url: u, port: Number(new URL(u).port), log });
      }
    };
    child.stdout.on('data', (d) => ((out += d), look()));
    // stderr is the server's log: its 500 lines are counted
    child.stderr.on('data', (d) => ((out += d), (log.text += d)));
    child.once('exit', (code) => rej(new Error(`serve exited ${code}:\n${out}`)));
  });
}

// ------------------------------------------------------------------------------------------------ hostile model hosts
/** Model services that misbehave, by the first path segment: hang, 500, drip, huge, and a closed port. */
async function hostileModels() {
  const sockets = new Set();
  const server = createServer((req, res) => {
    const mode = req.url.split('/')[1];
    req.resume();
    if (mode === 'hang') return; // never answers: the call waits for the model timeout
    if (mode === 'fail') return res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>down</h1>');
    if (mode === 'drip') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 1000);
      return;
    }
    // huge: a completion of 4 MiB of text
    const text = 'lorem ipsum '.repeat((4 << 20) / 12);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ text, message: { content: text }, finish_reason: 'stop' }], model: 'm' }));
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const closed = createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const closedPort = closed.address().port;
  await new Promise((r) => closed.close(r));
  const port = server.address().port;
  return {
    urls: [
      ...['hang', 'fail', 'drip', 'huge'].map((m) => `http://127.0.0.1:${port}/${m}/v1`),
      `http://127.0.0.1:${closedPort}/v1`,
    ],
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

// ------------------------------------------------------------------------------------------------ requests
/** Every answer of the run by who sent it: status counts, and each honest call's time. */
const tally = { attack: {}, honest: {}, honestMs: [], honestByKind: {}, models: {} };
/** The 5xx answers' bodies (the first 20, 300 characters each): which error code a 5xx was, where one comes. */
const fivexxSeen = [];
const count = (side, status, what, text) => {
  if (status >= 500 && fivexxSeen.length < 20)
    fivexxSeen.push({ side, status, what, body: String(text ?? '').slice(0, 300) });
  tally[side][status] = (tally[side][status] ?? 0) + 1;
};

/** A fetch timed to its whole body; status 0 for a failure of the connection (counted, never thrown). */
async function timed(url, init = {}, limitMs = 120_000) {
  const t = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
    const text = await res.text();
    return { ms: performance.now() - t, status: res.status, text };
  } catch (e) {
    return { ms: performance.now() - t, status: 0, text: String(e) };
  }
}

const auth = (key, type = 'application/json') => ({ authorization: `Bearer ${key}`, 'content-type': type });

/**
 * A body that declares `declared` bytes (or is chunked) and then sends a byte a second over a raw socket, until the
 * server answers or closes, or `stop()`; resolves to the status the server answered (0 for none).
 */
function slowBody(port, key, { declared, chunked = false, path = '/api/v1/attribution/analyze' }) {
  const socket = connect(port, '127.0.0.1');
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (c) => (got += c));
  socket.on('error', () => undefined);
  const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`;
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${length}\r\n\r\n`,
  );
  socket.write(chunked ? '1\r\n{\r\n' : '{');
  const drip = setInterval(() => {
    if (socket.destroyed || !socket.writable) return clearInterval(drip);
    socket.write(chunked ? '1\r\na\r\n' : 'a');
  }, 1000);
  const ended = new Promise((r) =>
    socket.on('close', () => {
      clearInterval(drip);
      r(Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0));
    }),
  );
  return {
    ended,
    answered: () => got !== '',
    stop: () => {
      clearInterval(drip);
      socket.destroy();
    },
  };
}

/** POST a JSON lines job of `lines` lines, streamed as fast as the socket takes them without a declared length. */
function millionLineJob(url, key, lines = 1_000_000) {
  const line = latin1('{"id":"x","text":"A line of a catalogue to scan, long enough to count."}\n');
  return new Promise((resolveAnswer) => {
    const t = performance.now();
    let sent = 0;
    let done = false;
    const req = request(
      `${url}/api/v1/jobs?type=scan`,
      { method: 'POST', headers: auth(key, 'application/x-ndjson') },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          done = true;
          req.destroy();
          resolveAnswer({ ms: performance.now() - t, status: res.statusCode, text, sent });
        });
      },
    );
    req.on('error', () => {
      if (!done) resolveAnswer({ ms: performance.now() - t, status: 0, text: 'connection closed', sent });
      done = true;
    });
    const block = Buffer.concat(Array.from({ length: 1000 }, () => line));
    const pump = () => {
      while (!done && sent < lines) {
        sent += 1000;
        if (!req.write(block)) return void req.once('drain', pump);
      }
      if (!done) req.end();
    };
    pump();
  });
}

// ------------------------------------------------------------------------------------------------ what is sent
const WORDS = 'the keeper counted herons over the estuary at dawn while ferries crossed the grey water '.split(' ');
const text = (n, seed) => Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length]).join(' ');
/**
 * The other account's large analyze: 2 MB of words drawn by a fixed generator (an ordinary text's cost; the
 * attack report's one licence sentence repeated 34,000 times costs seconds more against the SPDX texts, which hold
 * it hundreds of times, and would measure that search rather than the wait for a place).
 */
const LARGE = (() => {
  const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${(i * 2654435761) % 1000003}`.slice(0, 3 + (i % 7)));
  let x = 72;
  const words = [];
  for (let n = 0; n < 2_000_000; ) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const w = vocabulary[x % vocabulary.length];
    words.push(w);
    n += w.length + 1;
  }
  return JSON.stringify({ content: words.join(' '), content_type: 'text', search_remote: false });
})();

function multipart(name, bytes) {
  const boundary = '----soak0000000000000000';
  const head = latin1(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  const tail = latin1(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, bytes, tail]), type: `multipart/form-data; boundary=${boundary}` };
}
const CONTAINER =
  '<container><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>';
const epub = (spine, chapter) =>
  zipSync(
    {
      'META-INF/container.xml': strToU8(CONTAINER),
      'OEBPS/content.opf': strToU8(
        `<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine>${spine}</spine></package>`,
      ),
      'OEBPS/c1.xhtml': strToU8(chapter),
    },
    { level: 9 },
  );
const FILES = {
  honestPdf: multipart('paper.pdf', onePage(streamOf('/Filter/FlateDecode', threeWords()))),
  honestEpub: multipart('book.epub', epub('<itemref idref="c1"/>', `<html><body><p>${text(400, 3)}</p></body></html>`)),
  flateBomb: multipart(
    'bomb.pdf',
    onePage(streamOf('/Filter/FlateDecode', zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 1024))),
  ),
  spineRepeat: multipart(
    'spine.epub',
    epub(
      '<itemref idref="c1"/>'.repeat(500),
      `<html><body><p>${'lorem ipsum dolor sit amet '.repeat(40_000).slice(0, 1_048_536)}</p></body></html>`.slice(
        0,
        1 << 20,
      ),
    ),
  ),
};

// ------------------------------------------------------------------------------------------------ part 1 and 2
async function slowBesideLarge(srv, keys) {
  const victim = () =>
    timed(`${srv.url}/api/v1/attribution/analyze`, { method: 'POST', headers: auth(keys.victim), body: LARGE });
  const runs = async (senders) => {
    const ms = [];
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const slow = senders.flatMap(([key, n]) =>
        Array.from({ length: n }, () => slowBody(srv.port, key, { declared: 2 << 20 })),
      );
      await sleep(slow.length ? 2000 : 0); // the slow bodies are in before the victim starts
      const r = await victim();
      ms.push(Math.round(r.ms));
      statuses.push(r.status);
      for (const s of slow) s.stop();
      await sleep(500);
    }
    return { ms, statuses, median_ms: median(ms) };
  };
  await victim(); // the first large analyze grows the core's memory: not measured
  const alone = await runs([]);
  const scale = await runs([[keys.slowScale, 4]]);
  const free = await runs([
    [keys.slowFree1, 2],
    [keys.slowFree2, 2],
  ]);
  const ratio = (x) => Math.round((x.median_ms / alone.median_ms) * 100) / 100;
  return {
    alone,
    beside_four_slow_from_one_scale: { ...scale, over_alone: ratio(scale) },
    beside_two_slow_each_from_two_free: { ...free, over_alone: ratio(free) },
    target: 'beside four slow 2 MiB bodies, the 2 MB analyze in ≤ 2× its time alone',
  };
}

async function millionLines(srv, keys) {
  const out = {};
  for (const [name, run] of [
    ['streamed', () => millionLineJob(srv.url, keys.jobsFree)],
    [
      'declared_35_mb',
      () =>
        timed(`${srv.url}/api/v1/jobs?type=scan`, {
          method: 'POST',
          headers: { ...auth(keys.jobsFree, 'application/x-ndjson'), 'content-length': String(35 << 20) },
          body: new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1 << 16)) }, { highWaterMark: 0 }),
          duplex: 'half',
        }),
    ],
  ]) {
    await sleep(1000);
    const before = rssMB(srv.child.pid);
    let peak = before;
    const poll = setInterval(() => (peak = Math.max(peak, rssMB(srv.child.pid))), 10);
    const r = await run();
    await sleep(1000);
    clearInterval(poll);
    const after = rssMB(srv.child.pid);
    out[name] = {
      status: r.status,
      ms: Math.round(r.ms),
      lines_sent_when_answered: r.sent,
      answer: r.text.slice(0, 160),
      rss_before_mb: Math.round(before),
      rss_peak_growth_mb: Math.round(peak - before),
      rss_growth_after_1s_mb: Math.round(after - before),
    };
  }
  out.target = "a Free key's million-line job: 413 in ≤ 100 ms, RSS growth ≤ 20 MB";
  return out;
}

// ------------------------------------------------------------------------------------------------ part 3: the soak
/** An attacker: every kind of attack, in turn, until `until`; a few slow bodies kept open at once. */
async function attacker(srv, key, models, until, index) {
  const sizes = [64 << 10, 1 << 20, 2 << 20, 8 << 20];
  const open = new Set();
  const keepSlow = () => {
    while (open.size < 3) {
      const s = slowBody(srv.port, key, {
        declared: sizes[(open.size + index) % sizes.length],
        chunked: open.size === 2,
      });
      open.add(s);
      s.ended.then((status) => {
        open.delete(s);
        count('attack', status, 'slow body');
      });
    }
  };
  const kinds = [
    async () => {
      const r = await timed(`${srv.url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: auth(key, FILES.flateBomb.type),
        body: FILES.flateBomb.body,
      });
      count('attack', r.status, 'flate-bomb PDF', r.text);
    },
    async () => {
      const r = await timed(`${srv.url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: auth(key, FILES.spineRepeat.type),
        body: FILES.spineRepeat.body,
      });
      count('attack', r.status, 'spine EPUB', r.text);
    },
    async () => count('attack', (await millionLineJob(srv.url, key)).status, 'million-line job'),
    async () => {
      const base = models.urls[Math.floor(Math.random() * models.urls.length)];
      // the client gives up after 20 s (the server sees it go: 499); the hanging host would hold it 60 s
      const r = await timed(
        `${srv.url}/api/v1/memorization/extract`,
        {
          method: 'POST',
          headers: auth(key),
          body: JSON.stringify({
            text: text(60, index),
            model: { base_url: base, model: 'm' },
            prefixes: 2,
            prefix_tokens: 8,
            continuation_tokens: 16,
          }),
        },
        20_000,
      );
      // the attacker's own model service's failures are passed on to it (502, 504) by design: counted apart
      const mode = /127\.0\.0\.1:\d+\/(\w+)\/v1/.exec(base)?.[1] ?? 'closed-port';
      const m = (tally.models[mode] ??= {});
      m[r.status] = (m[r.status] ?? 0) + 1;
      if (r.status !== 502 && r.status !== 504) count('attack', r.status, `model host ${mode}`, r.text);
    },
    async () => {
      // a flood: 60 small requests at once
      const rs = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          i % 2
            ? timed(`${srv.url}/api/v1/status`)
            : timed(`${srv.url}/api/v1/attribution/analyze`, {
                method: 'POST',
                headers: auth(key),
                body: JSON.stringify({ content: text(50, i), content_type: 'text', search_remote: false }),
              }),
        ),
      );
      for (const r of rs) count('attack', r.status, 'flood', r.text);
    },
  ];
  kinds.push(
    // a 2 MB body a byte a chunk (refused past its pieces)
    async () => count('attack', await chunkedBody(srv.port, key, 2_000_000, 1), '1-byte chunks'),
    // 20 bodies at once just under the 1 MiB large-request line
    async () => {
      const body = JSON.stringify({ content: madeUpText(200_000, index).slice(0, 1_029_960), content_type: 'text' });
      const rs = await Promise.all(
        Array.from({ length: 20 }, () =>
          timed(`${srv.url}/api/v1/attribution/analyze`, { method: 'POST', headers: auth(key), body }),
        ),
      );
      for (const r of rs) count('attack', r.status, 'sub-line flood', r.text);
    },
    // an extract job against a model padding every answer to the cap, deleted once it ends
    async () => {
      const r = await roundAttackers.padded({ ...roundCtx(srv, key), keys: { free4: key } }, () => Date.now() > until);
      count('attack', r.state === 'done' ? 200 : 0, 'padded model job', JSON.stringify(r));
    },
  );
  // the Scale attacker's catalogue audit of 100,000 works, once, beside the rest
  const audit =
    index === 2 && measuring && !auditSent
      ? ((auditSent = true),
        roundAttackers
          .audit({ ...roundCtx(srv, key), keys: { scale: key }, auditWorks: 100_000 })
          .then((r) => ((tally.audit = r), count('attack', r.state === 'done' ? 200 : 0, 'audit 100,000 works'))))
      : null;
  for (let k = index; Date.now() < until; k++) {
    keepSlow();
    await kinds[k % kinds.length]();
    await sleep(250);
  }
  for (const s of open) s.stop();
  await audit;
}
let auditSent = false;
/** Set once the warm-up is over: the audit is sent in the measured soak only. */
let measuring = false;
/** What the round's attackers (bench/hostile-attackers.mjs) need of the server. */
const roundCtx = (srv, key) => ({ url: srv.url, port: srv.port, models: roundModels, storeDir: store, key });
/** The padding model host of bench/hostile-attackers.mjs, started in each attacker's process. */
let roundModels;

/** An honest account: text analyses, a PDF or EPUB file, a small scan job polled to its end, in turn. */
async function honest(srv, key, until, index) {
  const record = (kind, r) => {
    count('honest', r.status, kind, r.text);
    if (r.status === 429) return; // the account's own plan: not the service's failure
    tally.honestMs.push(r.ms);
    (tally.honestByKind[kind] ??= []).push(r.ms);
  };
  // each call names its kind in a header the service ignores, for a server-side trace (bench/soak-waits.cjs)
  const post = (path, body, kind, type = 'application/json') =>
    timed(`${srv.url}${path}`, { method: 'POST', headers: { ...auth(key, type), 'x-soak-kind': kind }, body });
  for (let k = index; Date.now() < until; k++) {
    const step = k % 4;
    if (step === 0 || step === 1) {
      const words = step === 0 ? 800 : 12_000;
      const body = JSON.stringify({ content: text(words, k), content_type: 'text', search_remote: false });
      const kind = step === 0 ? 'analyze_text_5kb' : 'analyze_text_80kb';
      record(kind, await post('/api/v1/attribution/analyze', body, kind));
    } else if (step === 2) {
      const f = k % 8 < 4 ? FILES.honestPdf : FILES.honestEpub;
      record('analyze_file', await post('/api/v1/attribution/analyze', f.body, 'analyze_file', f.type));
    } else {
      const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `d${i}`, text: text(200, k + i) }));
      const r = await post('/api/v1/jobs?type=scan', lines.join('\n'), 'submit_job', 'application/x-ndjson');
      record('submit_job', r);
      if (r.status === 202) {
        const id = JSON.parse(r.text).job_id;
        for (let i = 0; i < 120 && Date.now() < until + 30_000; i++) {
          const s = await timed(`${srv.url}/api/v1/jobs/${id}`, {
            headers: { ...auth(key), 'x-soak-kind': 'poll_job' },
          });
          record('poll_job', s);
          if (s.status !== 200 || ['done', 'failed', 'cancelled'].includes(JSON.parse(s.text).state)) break;
          await sleep(500);
        }
      }
    }
    await sleep(200);
  }
}

/** With --memory-trace: the server collects its garbage and writes its memory (and a heap snapshot) now. */
async function markMemory(srv) {
  if (!values['memory-trace']) return;
  srv.child.kill('SIGUSR2');
  await sleep(values['heap-snapshots'] ? 20_000 : 2000);
}

/** An event loop's delay as this file reports it: max and p99 in ms, from a `monitorEventLoopDelay` histogram. */
const loopFigures = (h) => ({
  max_ms: Math.round(h.max / 1e6),
  p99_ms: Math.round(h.percentile(99) / 1e6),
  mean_ms: Math.round(h.mean / 1e5) / 10,
});

/** This file again as a child process in `role` with `job`; resolves to the JSON line it ends with. */
function runChild(role, job) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), '--role', role, '--job', JSON.stringify(job), '--store', store, '--cli', CLI],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  // 'close', not 'exit': a child's last line can still be in the pipe when it exits (a 200 kB tally was cut)
  return new Promise((res, rej) =>
    child.once('close', (code) =>
      code === 0 ? res(JSON.parse(out.trim().split('\n').pop())) : rej(new Error(`${role} exited ${code}`)),
    ),
  );
}

/**
 * One phase of the soak until `until`: each attacker in its own process, the honest accounts and the probes in
 * another; their tallies merged into this process's.
 */
async function phase(srv, keys, until, measured) {
  const target = { url: srv.url, port: srv.port, until };
  const [honestPart, ...attackParts] = await Promise.all([
    runChild('honest', { ...target, keys: keys.honest }),
    ...keys.attackers.map((key, index) => runChild('attacker', { ...target, key, index, measuring: measured })),
  ]);
  for (const part of [honestPart, ...attackParts]) {
    for (const side of ['attack', 'honest'])
      for (const [status, n] of Object.entries(part.tally[side] ?? {}))
        tally[side][status] = (tally[side][status] ?? 0) + n;
    for (const [mode, statuses] of Object.entries(part.tally.models ?? {})) {
      const m = (tally.models[mode] ??= {});
      for (const [status, n] of Object.entries(statuses)) m[status] = (m[status] ?? 0) + n;
    }
    if (part.tally.audit) tally.audit = part.tally.audit;
    fivexxSeen.push(...part.fivexx_seen);
  }
  tally.honestMs.push(...honestPart.tally.honestMs);
  for (const [kind, ms] of Object.entries(honestPart.tally.honestByKind)) (tally.honestByKind[kind] ??= []).push(...ms);
  return {
    probes: honestPart.probes,
    event_loop_ms: {
      honest_and_probes: honestPart.event_loop,
      attackers: attackParts.map((p, i) => ({ plan: plans[i], ...p.event_loop })),
    },
  };
}

async function soak(srv, keys) {
  const loop = monitorEventLoopDelay({ resolution: 20 });
  const fresh = rssMB(srv.child.pid);
  // a warm-up of the same mix, not measured: what any server holds once it has served such work (the WebAssembly
  // core's memory grown to its largest analysis, pdf.js loaded on a document thread, the allocator's arenas)
  await phase(srv, keys, Date.now() + WARMUP_MS, false);
  for (const side of ['attack', 'honest', 'honestByKind', 'models']) tally[side] = {};
  tally.honestMs = [];
  tally.audit = undefined;
  fivexxSeen.length = 0;
  await sleep(3000);
  const startedAt = new Date().toISOString();
  const start = rssMB(srv.child.pid);
  await markMemory(srv);
  let peak = start;
  const poll = setInterval(() => (peak = Math.max(peak, rssMB(srv.child.pid))), 500);
  const until = Date.now() + DURATION_MS;
  loop.enable();
  const measured = await phase(srv, keys, until, true);
  const stopped = rssMB(srv.child.pid);
  await sleep(15_000);
  const after15 = rssMB(srv.child.pid);
  // an idle document thread and an idle thread of the worker pool end after 30 s, giving their heaps back
  await sleep(30_000);
  clearInterval(poll);
  const after = rssMB(srv.child.pid);
  await markMemory(srv);
  const fivexx = (side) =>
    Object.entries(tally[side])
      .filter(([s]) => Number(s) >= 500)
      .reduce((n, [, c]) => n + c, 0);
  const honestErrors = Object.entries(tally.honest)
    .filter(([s]) => !['200', '201', '202', '429'].includes(s))
    .reduce((n, [, c]) => n + c, 0);
  const byKind = Object.fromEntries(
    Object.entries(tally.honestByKind).map(([k, ms]) => [
      k,
      { n: ms.length, p50_ms: pct(ms, 50), p99_ms: pct(ms, 99) },
    ]),
  );
  return {
    duration_s: DURATION_MS / 1000,
    warmup_s: WARMUP_MS / 1000,
    started_at: startedAt,
    honest: {
      statuses: tally.honest,
      calls_measured: tally.honestMs.length,
      p50_ms: pct(tally.honestMs, 50),
      p99_ms: pct(tally.honestMs, 99),
      max_ms: pct(tally.honestMs, 100),
      errors_other_than_own_429: honestErrors,
      by_kind: byKind,
    },
    attack: { statuses: tally.attack, answers_5xx: fivexx('attack') },
    answers_5xx: fivexx('attack') + fivexx('honest'),
    answers_5xx_seen: fivexxSeen,
    server_log_500_lines: (srv.log.text.match(/"msg":"request failed: 500"/g) ?? []).length,
    hostile_model_hosts: tally.models,
    audit_100k_works: tally.audit ?? null,
    rss_mb: {
      fresh_before_the_warm_up: Math.round(fresh),
      at_start: Math.round(start),
      peak: Math.round(peak),
      when_the_attack_stopped: Math.round(stopped),
      after_15s: Math.round(after15),
      after_45s: Math.round(after),
      after_45s_over_start: Math.round((after / start) * 100) / 100,
      after_45s_over_fresh: Math.round((after / fresh) * 100) / 100,
    },
    probes: measured.probes,
    // each client process's event-loop delay over the measured soak: a stall there is inside the times it measured
    event_loop_ms: { ...measured.event_loop_ms, main_rss_reader: loopFigures(loop) },
    targets: 'honest p99 ≤ 2 s, 0 errors but their own 429s, RSS back within 1.2× of the start, 0 × 5xx',
  };
}

/**
 * What the soak's calls left in the store by contract, read from the store once the server has exited: every
 * analysis answered 200 is kept 30 days with its text (docs/analyze.md) — on a file store, in the server's memory.
 * Counted: the analyses made after the soak started, their results (as JSON) and kept texts and transcripts; the
 * RSS 45 s after, less those bytes, over the RSS at the start: what the process holds beyond its data.
 */
async function keptBySoak(soakResult) {
  const { openFileStore } = await import(resolve(dirname(CLI), 'node.js'));
  const kept = await openFileStore(store);
  try {
    let analyses = 0;
    let bytes = 0;
    let before = 0;
    for (const [key, result] of await kept.scan('analysis/')) {
      if (result.created_at < soakResult.started_at) {
        before++;
        continue;
      }
      const record = await kept.get(`analysis-record/${key.slice('analysis/'.length)}`);
      analyses++;
      bytes += Buffer.byteLength(JSON.stringify(result)) + (record?.utf8?.byteLength ?? 0);
      for (const calls of Object.values(record?.transcripts ?? {}))
        for (const c of calls) bytes += c.request.length + c.answer.length;
    }
    const mb = bytes / 1048576;
    const { at_start, after_45s } = soakResult.rss_mb;
    return {
      analyses_made_in_the_soak: analyses,
      analyses_made_before: before,
      their_results_and_texts_mb: Math.round(mb),
      rss_after_45s_less_them_mb: Math.round(after_45s - mb),
      rss_after_45s_less_them_over_start: Math.round(((after_45s - mb) / at_start) * 100) / 100,
    };
  } finally {
    await kept.close();
  }
}

// ------------------------------------------------------------------------------------------------ child processes
/** `/healthz` and `/status` in turn every 250 ms until `until`: each one's time (120 s for an answer not 200). */
async function probeUntil(url, until) {
  const out = { healthz: [], status: [] };
  while (Date.now() < until) {
    for (const [name, path] of [
      ['healthz', '/healthz'],
      ['status', '/api/v1/status'],
    ]) {
      const r = await timed(`${url}${path}`, {}, 120_000);
      out[name].push(r.status === 200 ? r.ms : 120_000);
    }
    await sleep(250);
  }
  const figures = (xs) => ({ n: xs.length, p50_ms: pct(xs, 50), p99_ms: pct(xs, 99), max_ms: pct(xs, 100) });
  return { healthz: figures(out.healthz), status: figures(out.status) };
}

/** A child process's work (`--role`): an attacker, or the honest accounts with the probes; one JSON line out. */
async function child(role, job) {
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const srv = { url: job.url, port: job.port };
  const out = {};
  if (role === 'attacker') {
    roundModels = await attackModels();
    const models = await hostileModels();
    measuring = job.measuring;
    await attacker(srv, job.key, models, job.until, job.index);
    models.close();
    roundModels.close();
  } else {
    const [probes] = await Promise.all([
      probeUntil(job.url, job.until),
      ...job.keys.map((k, i) => honest(srv, k, job.until, i)),
    ]);
    out.probes = probes;
  }
  loop.disable();
  const { attack, honest: honestStatuses, honestMs, honestByKind, models: byHost, audit } = tally;
  out.tally = { attack, honest: honestStatuses, honestMs, honestByKind, models: byHost, audit };
  out.fivexx_seen = fivexxSeen;
  out.event_loop = loopFigures(loop);
  // written before the exit that follows: a line of 200 kB (every honest call's time) is more than a pipe takes at once,
  // and process.exit() drops what is still queued
  await new Promise((r) => process.stdout.write(`${JSON.stringify(out)}\n`, r));
}

// ------------------------------------------------------------------------------------------------ the run
const plans = ['free', 'pro', 'scale', 'enterprise'];
if (values.role) {
  await child(values.role, JSON.parse(values.job));
  process.exit(0);
}
const keys = {
  victim: await createKey('victim', 'pro'),
  slowScale: await createKey('slow-scale', 'scale'),
  slowFree1: await createKey('slow-free-1', 'free'),
  slowFree2: await createKey('slow-free-2', 'free'),
  jobsFree: await createKey('jobs-free', 'free'),
  attackers: [],
  honest: [],
};
for (const p of plans) keys.attackers.push(await createKey(`attacker-${p}`, p));
for (const p of plans) keys.honest.push(await createKey(`honest-${p}`, p));
const srv = await startServe();
const result = {
  bench: 'hostile-soak',
  cli: relative(ROOT, CLI),
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  load_average_at_start: loadavg()[0],
};
try {
  if (values.parts === 'all') {
    result.slow_bodies_beside_a_large_analyze = await slowBesideLarge(srv, keys);
    console.log('slow bodies', JSON.stringify(result.slow_bodies_beside_a_large_analyze));
    result.million_line_job = await millionLines(srv, keys);
    console.log('million lines', JSON.stringify(result.million_line_job));
  }
  result.soak = await soak(srv, keys);
  console.log('soak', JSON.stringify(result.soak));
  result.load_average_at_end = loadavg()[0];
} finally {
  srv.child.kill('SIGTERM');
  await new Promise((r) => srv.child.once('exit', r));
  result.store = storeIsPostgres ? 'postgres' : 'file';
  if (result.soak && !storeIsPostgres)
    result.soak.kept = await keptBySoak(result.soak).catch((e) => ({ error: String(e?.stack ?? e) }));
  rmSync(dir, { recursive: true, force: true });
}
const out = resolve(ROOT, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${relative(ROOT, out)}`);
