#!/usr/bin/env node
/**
 * Hostile document files against a real `trainprint serve` (the built CLI, dist/cli.js, memory of its own process):
 * for each attack file — a quadratic XML attribute (DOCX, EPUB), an EPUB spine naming a 1 MiB chapter 500 times, a
 * PDF content stream inflating to 1 GiB, a font inflating to 512 MiB, a page of a million text items, a page
 * referenced a million times, a page tree claiming 10⁹ pages, a DOCTYPE internal subset — sent alone as a multipart
 * upload with a Free key, it measures the time to the answer and its status, the latency of `GET /api/v1/status`
 * polled every 50 ms meanwhile (p99 and max), the server's resident memory (peak while it ran, and 3 s after),
 * beside a baseline in the same run: /status polled the same way with nothing else running. Then 20 copies of each
 * file at once from Free keys while another account sends small text analyses one after another: their latency (p99).
 *
 *   npm run build && node bench/hostile-files.mjs [--out bench/results/hostile-files.json] [--concurrent 20]
 *     [--cli DIR/cli.js]   (another build's CLI, e.g. a copy of dist/ from an earlier commit, measured the same way)
 *     [--only page-references.pdf,spine-repeat.epub]   (those files only; give --out another file to keep the full run's;
 *       ordinary.pdf, a control, runs only when named here)
 *     [--serve-node-arg --cpu-prof …]   (node options of the server only, e.g. to profile it)
 *
 * Linux only (the server's memory is read from /proc). Bounded: each request has a 120 s client limit; a few minutes
 * in all. The files are made in code (translations of the generators of a published attack report).
 */
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { measuringClient, pct, timed } from './hostile-client.mjs';
import { HELVETICA, latin1, onePage, pagesDag, pdfOf, streamOf, threeWords, zlibRepeated } from './hostile-pdf.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench/results/hostile-files.json' },
    concurrent: { type: 'string', default: '20' },
    cli: { type: 'string', default: resolve(ROOT, 'dist/cli.js') },
    only: { type: 'string' },
    'serve-node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const CLI = resolve(values.cli);
const CONCURRENT = Number(values.concurrent);

// ------------------------------------------------------------------------------------------------ the files
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const CONTAINER =
  '<container><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>';
const epubOf = (opf, chapter) =>
  zipSync(
    {
      'META-INF/container.xml': strToU8(CONTAINER),
      'OEBPS/content.opf': strToU8(opf),
      'OEBPS/c1.xhtml': strToU8(chapter),
    },
    { level: 9 },
  );
const opfOf = (spine, attributes = '') =>
  `<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"${attributes}/></manifest><spine>${spine}</spine></package>`;

const FILES = {
  'quadratic-attribute.docx': () =>
    zipSync(
      {
        'word/document.xml': strToU8(
          `<w:document xmlns:w="${W}"><w:body><w:p><w:pPr><w:pStyle w:val${'a'.repeat(100_000)}/></w:pPr><w:r><w:t>hello world</w:t></w:r></w:p></w:body></w:document>`,
        ),
      },
      { level: 9 },
    ),
  'quadratic-attribute.epub': () =>
    epubOf(opfOf('<itemref idref="c1"/>', ` x${'a'.repeat(40_000)}`), '<html><body><p>hello world</p></body></html>'),
  'spine-repeat.epub': () =>
    epubOf(
      opfOf('<itemref idref="c1"/>'.repeat(500)),
      `<html><body><p>${'lorem ipsum dolor sit amet '.repeat(40_000).slice(0, 1_048_536)}</p></body></html>`.slice(
        0,
        1 << 20,
      ),
    ),
  'flate-bomb.pdf': () => onePage(streamOf('/Filter/FlateDecode', zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 1024))),
  'font-bomb.pdf': () =>
    onePage(streamOf('/Filter/FlateDecode', threeWords()), {
      5: '<</Type/Font/Subtype/TrueType/BaseFont/Bomb/FirstChar 32/LastChar 126/FontDescriptor 7 0 R>>',
      6: streamOf('/Filter/FlateDecode/Length1 536870912', zlibRepeated('\0', 512)),
      7: '<</Type/FontDescriptor/FontName/Bomb/Flags 32/FontBBox [0 0 1000 1000]/ItalicAngle 0/Ascent 800/Descent -200/CapHeight 700/StemV 80/FontFile2 6 0 R>>',
    }),
  'million-items.pdf': () =>
    onePage(
      streamOf(
        '/Filter/FlateDecode',
        deflateSync(latin1(`BT /F1 1 Tf 72 720 Td ${'(a) Tj T*\n'.repeat(1_000_000)} ET`)),
      ),
    ),
  'page-references.pdf': () =>
    pdfOf({
      1: '<</Type/Catalog/Pages 2 0 R>>',
      2: `<</Type/Pages/Count 1000000/Kids [${'3 0 R '.repeat(1_000_000)}]>>`,
      3: '<</Type/Page/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
      4: streamOf('/Filter/FlateDecode', threeWords()),
      5: HELVETICA,
    }),
  'pages-dag.pdf': pagesDag,
  'doctype.epub': () =>
    epubOf(
      opfOf('<itemref idref="c1"/>'),
      '<?xml version="1.0"?><!DOCTYPE html [<!ENTITY lol "lol"><!ENTITY lol9 "&lol;&lol;&lol;"><!ENTITY xxe SYSTEM "file:///etc/passwd">]><html><body><p>a &lol9; b &xxe; c</p></body></html>',
    ),
};

/**
 * Controls, run only when named in --only: an ordinary one-page PDF, what a first PDF of any kind leaves in a fresh
 * server (pdf.js loaded and compiled on a document thread) beside what a hostile one leaves.
 */
const CONTROLS = {
  'ordinary.pdf': () => onePage(streamOf('/Filter/FlateDecode', threeWords())),
};

if (values.only !== undefined) {
  const wanted = new Set(values.only.split(','));
  for (const name of wanted) if (Object.hasOwn(CONTROLS, name)) FILES[name] = CONTROLS[name];
  for (const name of wanted) if (!Object.hasOwn(FILES, name)) throw new Error(`--only: no file ${name}`);
  for (const name of Object.keys(FILES)) if (!wanted.has(name)) delete FILES[name];
}

// ------------------------------------------------------------------------------------------------ the server
const dir = mkdtempSync(join(tmpdir(), 'hostile-files-'));
const store = join(dir, 'store');
const run = (args) =>
  new Promise((res, rej) =>
    execFile(process.execPath, [CLI, ...args], (err, stdout, stderr) => (err ? rej(new Error(stderr)) : res(stdout))),
  );
const createKey = async (account, plan) =>
  JSON.parse(await run(['keys', 'create', '--store', store, '--account', account, '--plan', plan])).key;

function startServe() {
  const child = spawn(
    process.execPath,
    [...values['serve-node-arg'], CLI, 'serve', '--port', '0', '--packs', 'none', '--store', store],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start:\n${out}`)), 120_000);
    const look = () => {
      const u = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (u && out.includes('(Ctrl-C stops)')) {
        clearTimeout(timer);
        res({ child, url: u });
      }
    };
    child.stdout.on('data', (d) => ((out += d), look()));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => rej(new Error(`serve exited ${code}:\n${out}`)));
  });
}

const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The multipart form of one upload, encoded once (the file and `include_text=false`): the twenty copies send the same
 * bytes, so the sending thread neither copies nor encodes 6 MB per request while the server is measured.
 */
function multipartOf(name, bytes) {
  const boundary = `----hostile${'0'.repeat(16)}`;
  const head = latin1(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  const tail = latin1(
    `\r\n--${boundary}\r\ncontent-disposition: form-data; name="include_text"\r\n\r\nfalse\r\n--${boundary}--\r\n`,
  );
  const body = new Uint8Array(head.length + bytes.length + tail.length);
  body.set(head, 0);
  body.set(bytes, head.length);
  body.set(tail, head.length + bytes.length);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const upload = (url, key, form) =>
  timed(`${url}/api/v1/attribution/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': form.type },
    body: form.body,
  });

const result = {
  bench: 'hostile-files',
  cli: relative(ROOT, CLI),
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  ...(values.only === undefined ? {} : { only: Object.keys(FILES) }),
  load_average_at_start: loadavg()[0],
  files: {},
  concurrent: {},
};
const { child, url } = await (async () => {
  const keys = {};
  for (const name of Object.keys(FILES)) keys[name] = await createKey(`free-${name}`, 'free');
  // one other account per file, so that no run of small analyses meets a plan's daily limit (a 429 is not an answer
  // to measure), each paced as /status is
  for (const name of Object.keys(FILES)) keys[`victim-${name}`] = await createKey(`victim-${name}`, 'pro');
  keys['victim-baseline'] = await createKey('victim-baseline', 'pro');
  result.keys = keys;
  return startServe();
})();
const keys = result.keys;
delete result.keys;
// the /status polls and the other account's calls run on a thread of their own (bench/hostile-client.mjs), so the
// work of sending the uploads on this one is not counted as the server's latency
const client = measuringClient(url, child.pid);
try {
  await timed(`${url}/api/v1/status`);
  // baseline: /status with nothing else running, polled the same way for 3 s; then for 3 s more beside another
  // account's small analyses alone (their p99 with no attack: what the machine's load leaves, the yardstick of the
  // concurrent runs' other_account_p99_ms)
  const baselineProbe = client.start('probe');
  await sleep(3000);
  result.baseline = { ...(await baselineProbe()), rss_mb: Math.round(rssMB(child.pid)) };
  const alone = client.start('analyses', keys['victim-baseline']);
  await sleep(3000);
  const { calls: aloneCalls } = await alone();
  result.baseline.other_account_calls = aloneCalls.length;
  result.baseline.other_account_p99_ms = pct(
    aloneCalls.map((v) => v.ms),
    99,
  );
  console.log('baseline', result.baseline);

  for (const [name, make] of Object.entries(FILES)) {
    const bytes = make();
    const form = multipartOf(name, bytes);
    const before = rssMB(child.pid);
    const stop = client.start('probe');
    const r = await upload(url, keys[name], form);
    const probed = await stop();
    await sleep(3000);
    const after = rssMB(child.pid);
    let answer = null;
    try {
      const j = JSON.parse(r.text);
      answer = j.success === false ? `${j.error.code}: ${j.error.message}` : `${j.extraction?.characters} characters`;
    } catch {
      answer = r.text.slice(0, 200);
    }
    result.files[name] = {
      bytes: bytes.length,
      status: r.status,
      answer_ms: Math.round(r.ms),
      answer,
      ...probed,
      rss_before_mb: Math.round(before),
      peak_growth_mb: Math.round(probed.peak_rss_mb - before),
      rss_after_3s_mb: Math.round(after),
      rss_after_over_before: Math.round((after / before) * 100) / 100,
      status_p99_over_baseline:
        Math.round((probed.status_p99_ms / Math.max(1, result.baseline.status_p99_ms)) * 10) / 10,
    };
    console.log(name, result.files[name]);
  }

  // CONCURRENT copies of each file at once from a Free key, while another account sends small texts one by one
  for (const [name, make] of Object.entries(FILES)) {
    const form = multipartOf(name, make());
    const before = rssMB(child.pid);
    const stop = client.start('probe');
    const victimLoop = client.start('analyses', keys[`victim-${name}`]);
    // this thread's own delay while it sends the uploads: what the timers here would have added to the figures
    const sending = monitorEventLoopDelay({ resolution: 10 });
    sending.enable();
    const t = performance.now();
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => upload(url, keys[name], form)));
    const wall = performance.now() - t;
    sending.disable();
    const { calls: victim, client_event_loop_max_ms } = await victimLoop();
    const probed = await stop();
    await sleep(3000);
    const statuses = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    result.concurrent[name] = {
      copies: CONCURRENT,
      statuses,
      all_answered_ms: Math.round(wall),
      other_account_calls: victim.length,
      other_account_ok: victim.filter((v) => v.status === 200).length,
      other_account_p50_ms: pct(
        victim.map((v) => v.ms),
        50,
      ),
      other_account_p99_ms: pct(
        victim.map((v) => v.ms),
        99,
      ),
      // the three slowest, each with its start after the other account's first call (ms): where the tail lies
      other_account_slowest: [...victim]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 3)
        .map((v) => ({ start_ms: v.start_ms, ms: Math.round(v.ms) })),
      other_account_client_loop_max_ms: client_event_loop_max_ms,
      uploading_client_loop_max_ms: Math.round(sending.max / 1e6),
      ...probed,
      peak_growth_mb: Math.round(probed.peak_rss_mb - before),
      rss_after_3s_mb: Math.round(rssMB(child.pid)),
    };
    console.log(`${CONCURRENT} × ${name}`, result.concurrent[name]);
  }
  result.load_average_at_end = loadavg()[0];
} finally {
  await client.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(dirname(resolve(ROOT, values.out)), { recursive: true });
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${values.out}`);
