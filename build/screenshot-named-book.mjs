/**
 * The screenshot of docs/web-app.md and docs/packs.md (docs/images/web-named-book.png): what `npm start` serves —
 * `node dist/cli.js serve --starter` with the default packs — and its web app in served mode with the development
 * key the server prints, analysing the opening of *Moby-Dick*. The result names the book the reference pack's
 * hits agree on: title, author, Project Gutenberg ebook number, its link, and the word range.
 *
 * With `--article`, docs/images/web-named-article.png: 100 words of the Wikipedia article "Jarred Shaw"
 * (test/fixtures/texts/wikipedia-passages.json), which the result names as the article (title, page-id link, words in
 * it) inside the extractor file of the Wikipedia pack that holds it.
 *
 * Needs `npm run build` and Chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`). Everything stays on 127.0.0.1.
 *   node build/screenshot-named-book.mjs [--article]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../', import.meta.url));
const ARTICLE = process.argv.includes('--article');
const IMAGE = join(root, ARTICLE ? 'docs/images/web-named-article.png' : 'docs/images/web-named-book.png');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const START_MS = 60_000;
const ANALYZE_MS = 60_000;

/** The opening of *Moby-Dick* (Project Gutenberg #2701), or 100 words of a Wikipedia article of the articles pack. */
const PASSAGE = ARTICLE
  ? JSON.parse(readFileSync(join(root, 'test/fixtures/texts/wikipedia-passages.json'), 'utf8')).passages.find(
      (p) => p.title === 'Jarred Shaw',
    ).passage
  : 'Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse, and ' +
    'nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of ' +
    'the world.';

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
const profile = mkdtempSync(join(tmpdir(), 'tp-named-book-'));
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

  // served mode with the printed key (docs/web-app.md, "Served mode"): the page reloads and asks the API
  await page.locator('#mode summary').click();
  await page.check('#mode-http');
  await page.fill('#mode-api-key', server.key);
  await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
  await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state !== 'loading');
  const state = await page.locator('#engine-status').getAttribute('data-state');
  if (state !== 'ready')
    throw new Error(`the page is not ready: ${await page.locator('#engine-status').textContent()}`);

  await page.fill('#analyze-text', PASSAGE);
  await page.click('#analyze-run');
  await page.waitForFunction(
    () => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''),
    null,
    { timeout: ANALYZE_MS },
  );

  // the source box of the first match: it names the book when a pack locates the passage
  const head = page.locator('#analyze-result .source-head').first();
  await head.waitFor();
  const named = await head.textContent();
  console.log(`status: ${await page.locator('#analyze-status').textContent()}`);
  console.log(`source: ${named}`);
  const expect = ARTICLE ? /^Jarred Shaw \(article \d+ of / : /Project Gutenberg #\d+/;
  if (!expect.test(named ?? ''))
    throw new Error(`the result does not name the ${ARTICLE ? 'article' : 'book'}: ${named}`);
  const href = await head.locator('a').first().getAttribute('href');
  console.log(`link: ${href}`);
  const link = ARTICLE ? /^https:\/\/en\.wikipedia\.org\/wiki\?curid=\d+$/ : /^https:\/\//;
  if (!link.test(href ?? '')) throw new Error(`the named ${ARTICLE ? 'article' : 'book'} has no link: ${href}`);

  // the result down to the named book: the highlighted passage beside it (not the status line above the result,
  // whose time differs from run to run)
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
  await page.screenshot({
    path: IMAGE,
    fullPage: true,
    clip: { x: 0, y, width: 1200, height: bottom - y },
  });
  console.log(`wrote ${IMAGE}`);
} finally {
  await context?.close();
  await stop(server.child);
  rmSync(profile, { recursive: true, force: true });
}
