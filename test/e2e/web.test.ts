// The web app in headless Chromium (playwright-core + Debian's /usr/bin/chromium), built from the
// current dist/ by build/web.mjs and served by serveStatic over node:http, as `npm start` will.
// Covers: analysis of a starter passage (highlight, source passage, screenshot in test/output/),
// compare, an index file built here, declarations, error messages, keyboard use, and the time
// from page load to the first analysis (logged, not asserted).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStatic } from '../../src/node/static.js';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The built package to test (TRAINPRINT_DIST: another build, e.g. an unpacked tarball's dist/). */
const dist = process.env.TRAINPRINT_DIST ?? join(root, 'dist');
const output = join(root, 'test/output');
const licences = createRequire(import.meta.url)('spdx-license-list/spdx-full.json') as Record<
  string,
  { licenseText: string }
>;
/** The MIT licence's grant paragraph, as a user would paste it (one line). */
const MIT_GRANT = licences.MIT.licenseText.split(/\n\s*\n/)[2].replace(/\s+/g, ' ');

let tmp: string;
let server: Server;
let base: string;
let context: BrowserContext;
let page: Page;
let canDeclare: boolean;
const problems: string[] = [];
const files = { index: '', corrupt: '', garbage: '', oversize: '', long: '' };
let corpusQuery = '';

/** Words no licence uses, so the test corpus shares nothing with the starter dataset. */
function corpus(): { id: string; text: string }[] {
  let seed = 12345;
  const rnd = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const syl = ['ka', 'lo', 'mi', 'ven', 'tar', 'qu', 'zo', 'rel', 'ish', 'ne', 'bru', 'fa'];
  const word = (): string => Array.from({ length: 2 + rnd(3) }, () => syl[rnd(syl.length)]).join('');
  return ['doc-1', 'doc-2', 'doc-3'].map((id) => ({ id, text: Array.from({ length: 400 }, word).join(' ') + '.' }));
}

beforeAll(async () => {
  if (!existsSync(join(dist, 'index.js')) || !existsSync(join(dist, 'starter.js'))) {
    throw new Error('dist/index.js or dist/starter.js is missing: run `npm run build` before the web tests');
  }
  requireChromium();
  await promisify(execFile)(process.execPath, [join(root, 'build/web.mjs'), '--dist', dist], {
    cwd: root,
    timeout: 60_000,
  });

  // An index file made with the built engine, as `trainprint index build` writes it.
  tmp = mkdtempSync(join(tmpdir(), 'trainprint-web-'));
  const lib = (await import(pathToFileURL(join(dist, 'index.js')).href)) as typeof import('../../src/index.js');
  const engine = await lib.createEngine();
  const docs = corpus();
  await engine.addDataset({ id: 'test-corpus', name: 'Test corpus' }, docs);
  const bytes = engine.exportDataset('test-corpus');
  canDeclare = typeof engine.declareDataset === 'function';
  engine.dispose();
  corpusQuery = docs[1].text.split(' ').slice(100, 160).join(' ');
  files.index = join(tmp, 'test-corpus.tpds');
  writeFileSync(files.index, bytes);
  const corrupt = bytes.slice();
  corrupt[Math.floor(corrupt.length / 2)] ^= 0x5a;
  files.corrupt = join(tmp, 'corrupt.tpds');
  writeFileSync(files.corrupt, corrupt);
  files.garbage = join(tmp, 'notes.tpds');
  writeFileSync(files.garbage, 'this is not an index\n');
  const filler = (n: number): string => Array.from({ length: n }, (_, i) => docs[i % 3].text).join('\n\n');
  files.long = join(tmp, 'long.txt');
  writeFileSync(files.long, `${filler(600)}\n\n${MIT_GRANT}\n\n${filler(600)}`); // ≈ 3 MB, the grant in the middle
  files.oversize = join(tmp, 'huge.txt');
  writeFileSync(files.oversize, 'lorem ipsum '.repeat(Math.ceil((10 * 1024 * 1024 + 1) / 12)));

  const handler = serveStatic(join(dist, 'web'));
  server = createServer(async (req, res) => {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const response =
      (await handler(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers }))) ??
      new Response('not found', { status: 404 });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;

  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 900 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  mkdirSync(output, { recursive: true });
});

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function analyze(text: string): Promise<void> {
  await page.fill('#analyze-text', text);
  await page.click('#analyze-run');
  await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
}

describe('web app (headless Chromium)', () => {
  it('analyzes a pasted starter passage: highlighted span, MIT source passage, screenshot', async () => {
    await page.goto(base);
    // Paste and analyze at once: the click waits for the engine, the starter dataset and the packs.
    await analyze(`Our project is free software.\n\n${MIT_GRANT}\n\nSee the documentation for details.`);
    const ms = await page.evaluate(() => performance.getEntriesByName('trainprint:first-analysis')[0]?.startTime ?? -1);
    const ready = await page.evaluate(() => performance.getEntriesByName('trainprint:ready')[0]?.startTime ?? -1);
    console.log(
      `web: engine, starter and packs ready ${ready.toFixed(0)} ms, first analysis shown ${ms.toFixed(0)} ms ` +
        'after navigation start',
    );

    const marks = await page.locator('#query-text mark.hit').allTextContents();
    expect(marks.join('')).toContain('to deal in the Software without restriction');
    await page.locator('#match-table button', { hasText: /^MIT$/ }).click();
    await expect.poll(() => page.locator('#source-view .doc-id').textContent()).toBe('MIT');
    const passage = page.locator('#source-passage mark');
    await passage.waitFor();
    expect(await passage.textContent()).toContain('to deal in the Software without restriction');
    expect(await page.locator('#source-passage').textContent()).toContain('MIT License');
    expect(await page.locator('#query-text mark.current').count()).toBeGreaterThan(0);

    // The rest of the result: summary, empty attribution (the starter links no model), risk, revenue, chart.
    expect(await page.locator('#no-sources').textContent()).toContain('No attribution sources');
    expect(await page.locator('#risk-level').textContent()).toMatch(/Level (none|low|medium|high|critical)/);
    expect(await page.locator('#revenue-basis').textContent()).toContain('per word');
    // one row per dataset searched: the starter and the default packs the page loads from packs/
    const packIndex = JSON.parse(readFileSync(join(dist, 'web/packs/index.json'), 'utf8')) as {
      packs: { default: boolean }[];
    };
    const defaultPacks = packIndex.packs.filter((p) => p.default).length;
    expect(await page.locator('#coverage-chart tbody tr').count()).toBe(1 + defaultPacks);
    expect(await page.locator('#coverage-chart').textContent()).toContain('spdx-licenses');
    await page.screenshot({ path: join(output, 'web-analyze.png'), fullPage: true });
  });

  it('analyzes a long file (kept aside, previewed) and shows its matched passage in context', async () => {
    await page.setInputFiles('#analyze-file', files.long);
    await page.waitForFunction(() =>
      /whole file is analyzed/.test(document.getElementById('analyze-status')?.textContent ?? ''),
    );
    expect(await page.locator('#analyze-text').evaluate((t) => (t as HTMLTextAreaElement).readOnly)).toBe(true);
    await page.click('#analyze-run');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    expect((await page.locator('#query-text mark.hit').allTextContents()).join('')).toContain(
      'to deal in the Software without restriction',
    );
    expect(await page.locator('#query-text .gap').count()).toBeGreaterThan(0); // context windows, not 3 MB of DOM
    await page.click('#analyze-clear');
    expect(await page.locator('#analyze-text').evaluate((t) => (t as HTMLTextAreaElement).readOnly)).toBe(false);
  });

  it('inserts text as text, never as markup', async () => {
    await analyze(`<img src=x onerror="window.__pwned = 1"><b>bold</b> ${MIT_GRANT}`);
    expect(await page.locator('#analyze-result img, #analyze-result b').count()).toBe(0);
    expect(await page.locator('#query-text').textContent()).toContain('<img src=x onerror=');
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('compares two texts with aligned spans on both sides', async () => {
    // From the analysis: the selected source document against the analysed text.
    await page.locator('#source-view button', { hasText: 'Compare your text with' }).click();
    await page.waitForSelector('#view-compare:not([hidden]) #aligned-list li');
    expect(await page.locator('#compare-b').inputValue()).toContain('Permission is hereby granted');

    const source = licences.MIT.licenseText;
    await page.fill('#compare-a', `A README.\n\n${MIT_GRANT}\n\nThanks for reading.`);
    await page.fill('#compare-b', source);
    await page.evaluate(() => document.getElementById('compare-result')!.replaceChildren());
    await page.click('#compare-run');
    await page.waitForSelector('#aligned-list li');
    const a = await page
      .locator('#compare-a-text mark.pair')
      .evaluateAll((ms) => ms.map((m) => (m as HTMLElement).dataset.span));
    const b = await page
      .locator('#compare-b-text mark.pair')
      .evaluateAll((ms) => ms.map((m) => (m as HTMLElement).dataset.span));
    expect(a.length).toBeGreaterThan(0);
    expect(new Set(a)).toEqual(new Set(b));
    expect(await page.locator('#cmp-a-0').textContent()).toContain('deal in the Software');
    expect(await page.locator('#cmp-b-0').textContent()).toContain('deal in the Software');
    await page.screenshot({ path: join(output, 'web-compare.png'), fullPage: true });
  });

  it('loads an exported index; analysis finds its document and shows its source passage', async () => {
    await page.click('#nav-datasets');
    await page.setInputFiles('#index-file', files.index);
    await page.waitForFunction(() =>
      /^Loaded test-corpus/.test(document.getElementById('index-status')?.textContent ?? ''),
    );
    expect(await page.locator('#datasets-table tr[data-id="test-corpus"]').textContent()).toContain('Test corpus');
    await page.click('#nav-analyze');
    await analyze(`An introduction. ${corpusQuery} A conclusion.`);
    expect(await page.locator('#match-table').textContent()).toContain('doc-2');
    expect(await page.locator('#source-view .doc-id').textContent()).toBe('doc-2');
    // the index keeps its texts (exact datasets do by default), so the page shows the passage from it
    await page.locator('#source-passage mark').waitFor();
    expect(await page.locator('#source-passage mark').first().textContent()).toContain(
      corpusQuery.split(' ').slice(0, 4).join(' '),
    );
    expect(await page.locator('#coverage-chart').textContent()).toContain('test-corpus');
  });

  it('declares what the loaded dataset samples; attributions are labelled declared', async () => {
    await page.click('#nav-datasets');
    await page.selectOption('#declare-dataset', 'test-corpus');
    await page.selectOption('#declare-kb', 'the-pile');
    await page.click('#declare-run');
    expect(canDeclare).toBe(true);
    await page.waitForFunction(() =>
      /declared a sample of/.test(document.getElementById('declare-status')?.textContent ?? ''),
    );
    expect(await page.locator('#datasets-table tr[data-id="test-corpus"]').textContent()).toContain('the-pile');
    await page.click('#nav-analyze');
    await analyze(corpusQuery);
    const rows = page.locator('#sources-table tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await rows.first().locator('.badge.declared').textContent()).toBe('declared');
    // loaded here, by the person running the page: the operator's, not a reference pack
    expect(await rows.first().locator('.badge.supplied-operator').textContent()).toBe('operator');
    expect(await page.locator('#sources-table').textContent()).toContain('The Pile');
    await page.locator('#sources-table').screenshot({ path: join(output, 'web-declared.png') });
  });

  it('shows error messages: empty input, oversize text and file, corrupt index', async () => {
    await page.click('#nav-analyze');
    await page.fill('#analyze-text', '   \n ');
    await page.click('#analyze-run');
    await page.waitForSelector('#analyze-error[data-code="EMPTY_INPUT"]');
    expect(await page.locator('#analyze-error').textContent()).toContain('is empty');

    await page.setInputFiles('#analyze-file', files.oversize);
    await page.waitForSelector('#analyze-error[data-code="FILE_TOO_LARGE"]');
    expect(await page.locator('#analyze-error').textContent()).toContain('at most 10 MiB');

    // 10.3 MiB pasted. Chromium takes seconds to lay out a text area that size, so the form is
    // submitted directly instead of clicking (which waits for layout).
    await page.evaluate(() => {
      (document.getElementById('analyze-text') as HTMLTextAreaElement).value = 'lorem ipsum '.repeat(900_000);
      (document.getElementById('analyze-form') as HTMLFormElement).requestSubmit();
    });
    await page.waitForSelector('#analyze-error[data-code="PAYLOAD_TOO_LARGE"]');
    expect(await page.locator('#analyze-error').textContent()).toMatch(/too large.*limit is 10 MiB/s);
    await page.evaluate(() => {
      (document.getElementById('analyze-text') as HTMLTextAreaElement).value = '';
    });

    await page.click('#nav-compare');
    await page.fill('#compare-a', '');
    await page.click('#compare-run');
    await page.waitForSelector('#compare-error[data-code="EMPTY_INPUT"]');

    await page.click('#nav-datasets');
    for (const f of [files.corrupt, files.garbage]) {
      await page.evaluate(() => {
        document.getElementById('index-error')!.removeAttribute('data-code');
      });
      await page.setInputFiles('#index-file', f);
      await page.waitForSelector('#index-error[data-code="SNAPSHOT_INCOMPATIBLE"]');
      expect(await page.locator('#index-error').textContent()).toContain('not a usable trainprint index');
    }
    await page.setInputFiles('#index-file', files.index);
    await page.waitForSelector('#index-error[data-code="ALREADY_EXISTS"]');
  });

  it('works from the keyboard: Tab reaches the main actions, Enter activates them', async () => {
    const tabTo = async (selector: string): Promise<void> => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    const fresh = async (): Promise<void> => {
      await page.goto(base);
      await page.waitForSelector('#engine-status[data-state="ready"]');
    };

    await fresh();
    await tabTo('#analyze-example');
    await page.keyboard.press('Enter'); // inserts the example and focuses the text area
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('analyze-text');
    await tabTo('#analyze-run');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    await tabTo('#match-table button');
    await page.keyboard.press('Enter');
    await page.locator('#source-passage mark').waitFor();

    await fresh();
    await tabTo('#nav-compare');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#view-compare:not([hidden])');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('compare-title');
    await tabTo('#compare-example');
    await page.keyboard.press('Enter');
    await tabTo('#compare-run');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#aligned-list li');
    // the example reuses two passages: the edited one and the sentence copied word for word (a 12-word run)
    expect(await page.locator('#aligned-list li').count()).toBe(2);

    await fresh();
    await tabTo('#nav-datasets');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#view-datasets:not([hidden])');
    await tabTo('#index-file');
    await tabTo('#declare-dataset');
    await tabTo('#declare-run');
    expect(problems).toEqual([]);
  });
});
