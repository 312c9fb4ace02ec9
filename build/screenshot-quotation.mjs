/**
 * The screenshot of docs/analyze.md#quotations (docs/images/web-quotation.png): what `npm start` serves — `node
 * dist/cli.js serve --starter` with the default packs — and its web app in served mode with the development key the
 * server prints, analysing an invented family story that quotes the Constitution's preamble in quotation marks
 * (test/fixtures/quotations/essay-quoting-the-constitution.txt). The result shows the preamble apart, as a quotation
 * naming the book of the Gutenberg pack that reprints it (Trollope's North America), and a confidence of 0: the
 * number is about the story's own text.
 *
 * Needs `npm run build` and Chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`). Everything stays on 127.0.0.1.
 *   node build/screenshot-quotation.mjs
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../', import.meta.url));
const IMAGE = join(root, 'docs/images/web-quotation.png');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const START_MS = 60_000;
const ANALYZE_MS = 60_000;
const ESSAY = readFileSync(join(root, 'test/fixtures/quotations/essay-quoting-the-constitution.txt'), 'utf8');

/** `serve --starter --port 0`; resolves with its URL and development key once its start-up is printed. */
function startServe() {
  const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'serve', '--starter', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`serve did not start within ${START_MS} ms:\n${out}`));
    }, START_MS);
    child.stdout.on('data', (d) => {
      out += d;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      const key = /development key [^\n]*: (tp_test_[A-Za-z0-9]{32})/.exec(out)?.[1];
      if (!url || !key || !out.includes('(Ctrl-C stops)')) return;
      clearTimeout(timer);
      resolve({ child, url, key });
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}):\n${out}`));
    });
  });
}

/** Stops the server and waits for it to exit (SIGKILL after 20 s). */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const server = await startServe();
const profile = mkdtempSync(join(tmpdir(), 'tp-quotation-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 900 },
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
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/`);
  await page.locator('#mode summary').click();
  await page.check('#mode-http');
  await page.fill('#mode-api-key', server.key);
  await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
  await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state !== 'loading');
  const state = await page.locator('#engine-status').getAttribute('data-state');
  if (state !== 'ready')
    throw new Error(`the page is not ready: ${await page.locator('#engine-status').textContent()}`);

  await page.fill('#analyze-text', ESSAY);
  await page.click('#analyze-run');
  await page.waitForFunction(
    () => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''),
    null,
    { timeout: ANALYZE_MS },
  );
  const list = page.locator('#quotation-list li').first();
  await list.waitFor();
  const quoted = await list.textContent();
  console.log(`quotation: ${quoted}`);
  if (!/^quoted: .*more perfect Union.* — in North America/.test(quoted ?? ''))
    throw new Error(`the result does not show the preamble as a quotation: ${quoted}`);
  const confidence = await page.locator('#analyze-result dl.summary dd').first().textContent();
  console.log(`confidence: ${confidence}`);

  // the result from its headline down to the two panes (the story with the quotation underlined, the source)
  const { y, bottom } = await page.evaluate(() => {
    const at = (id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { top: r.top + window.scrollY, bottom: r.bottom + window.scrollY };
    };
    return {
      y: Math.max(0, Math.floor(at('analyze-result').top - 4)),
      bottom: Math.ceil(at('source-view').bottom + 16),
    };
  });
  mkdirSync(join(IMAGE, '..'), { recursive: true });
  await page.screenshot({ path: IMAGE, fullPage: true, clip: { x: 0, y, width: 1200, height: bottom - y } });
  console.log(`wrote ${IMAGE}`);
} finally {
  await context?.close();
  await stop(server.child);
  rmSync(profile, { recursive: true, force: true });
}
