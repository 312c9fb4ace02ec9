// The web app with a book or document in headless Chromium: the page (built by build/web.mjs) and the API on one
// origin, as `trainprint serve` serves them, with the starter dataset. In the browser mode, a DOCX and a PDF quoting
// the MIT licence, dropped on the drop zone, are read and analysed in the page (the readers build/web.mjs bundles
// with fflate and pdf.js, loaded when the first file of their format arrives; nothing goes to the API) and shown:
// the extraction (format, words, sections, pages) and the extracted text with the MIT grant highlighted; when the
// page cannot download its readers, a dropped file is answered with a message. In the served mode, the DOCX —
// dropped, then picked with the file button — is uploaded as a background analysis, polled, and shown likewise.
// A file of another kind is refused with a message.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { startJobRunner, type JobRunner } from '../../src/library.js';
import { serve, type Server } from '../../src/node/serve.js';
import { serveStatic } from '../../src/node/static.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import { MIT_GRANT } from '../fixtures/client/server.js';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';
import { buildDocx } from '../fixtures/documents.js';
import { buildPdf } from '../fixtures/pdf.js';
import { buildWebApp } from '../fixtures/web-build.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const output = join(root, 'test/output');
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const TERMS = buildDocx([
  { title: 'Licence', text: `Our project is free software.\n\n${MIT_GRANT}\n\nSee the documentation for details.` },
]);
/** The grant as lines of at most 80 characters, as a PDF sets a paragraph. */
const GRANT_LINES = MIT_GRANT.split(' ').reduce<string[]>((lines, word) => {
  const last = lines.length - 1;
  if (last >= 0 && lines[last].length + 1 + word.length <= 80) lines[last] += ` ${word}`;
  else lines.push(word);
  return lines;
}, []);
const TERMS_PDF = buildPdf(
  [{ lines: ['Our project is free software.', '', ...GRANT_LINES] }, { lines: ['See the documentation for details.'] }],
  {
    outline: [
      { title: 'Licence', page: 0 },
      { title: 'Details', page: 1 },
    ],
  },
);
/** The passage every analysis here must highlight (line breaks of the PDF's text read as spaces). */
const GRANTED = 'to deal in the Software without restriction';

let tmp: string;
let engine: Engine;
let server: Server;
let base: string;
let key: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];
/** Method and path of every request the page made to the API. */
const calls: string[] = [];
/** Every script the page and its worker asked for, by path ('app.js', 'readers/pdf-….js'). */
const scripts: string[] = [];
let runner: JobRunner | undefined;

beforeAll(async () => {
  requireChromium();
  let out: string;
  ({ tmp, out } = await buildWebApp('web-files', ['index.js', 'starter.js']));
  engine = await createEngine();
  await loadStarterDataset(engine);
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'press', plan: 'pro', mode: 'test', name: 'web files test' })).key;
  // the background analyses are jobs: the runner beside the handler runs them, as `serve` does
  runner = startJobRunner(engine, { pollMs: 50 });
  const api = createHandler(engine, { keys, onJobSubmitted: () => runner?.wake() });
  const files = serveStatic(out);
  server = await serve(async (req) => (await files(req)) ?? api(req), { port: 0, host: '127.0.0.1' });
  base = `${server.url}/`;
  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 900 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/api/')) calls.push(`${r.method()} ${path}`);
  });
  // the context's requests include the worker's, which loads the engine and the readers
  context.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.js')) scripts.push(path.slice(1));
  });
});

afterAll(async () => {
  await runner?.stop();
  await context?.close();
  await server?.close();
  engine?.dispose();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Drops a file with these bytes on `selector`, as a file dragged from the desktop is dropped. */
async function dropFile(selector: string, name: string, type: string, bytes: Uint8Array): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ b64, name, type }) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([data], name, { type }));
      return dt;
    },
    { b64: Buffer.from(bytes).toString('base64'), name, type },
  );
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

const status = () => page.locator('#analyze-status').textContent();

/** Presses Analyze and waits until the chosen file's analysis is shown, or an error. */
async function analyzeChosen(): Promise<void> {
  await page.click('#analyze-run');
  await page.waitForFunction(
    () =>
      /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? '') ||
      (document.getElementById('analyze-error')?.textContent ?? '') !== '',
    null,
    { timeout: 60_000 },
  );
}

/** The titles of the extraction's sections table. */
async function sectionTitles(): Promise<string[]> {
  await page
    .locator('#extraction-sections')
    .evaluate((t) => ((t.closest('details') as HTMLDetailsElement).open = true));
  return page.locator('#extraction-sections tbody th').allTextContents();
}

/** The highlighted passages of the shown text, joined, with any run of white space read as one space. */
async function highlighted(): Promise<string> {
  return (await page.locator('#query-text mark.hit').allTextContents()).join('').replace(/\s+/g, ' ');
}

describe('web app with a book or document (headless Chromium)', () => {
  it('in the browser: a dropped DOCX is read and analysed in the page: its extraction, and the match highlighted', async () => {
    await page.goto(base);
    await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state === 'ready', null, {
      timeout: 90_000,
    });
    // the readers and their libraries are not part of the page's start: they load when a file arrives
    expect(scripts.some((f) => f === 'formats.js' || f.startsWith('readers/'))).toBe(false);
    // the picker is a labelled control of the drop zone
    expect(await page.getByLabel('Choose a file').getAttribute('type')).toBe('file');
    await dropFile('#analyze-drop', 'terms.docx', DOCX_TYPE, TERMS);
    await expect.poll(status).toMatch(/^Opened terms\.docx \(DOCX, [\d.]+ KiB\)/);
    expect(await page.locator('#analyze-text').evaluate((t) => (t as HTMLTextAreaElement).readOnly)).toBe(true);
    await analyzeChosen();
    expect(await page.locator('#analyze-error').textContent()).toBe('');
    expect(await page.locator('#extraction-summary').textContent()).toMatch(
      /^DOCX file, [\d.]+ KiB: \d+ words \(\d[\d,]* characters\) in 2 sections\./,
    );
    expect(await sectionTitles()).toEqual(['Persuasion', 'Licence']);
    expect(await page.locator('#query-title').textContent()).toBe("The file's text");
    expect(await highlighted()).toContain(GRANTED);
    expect(await page.locator('#query-text').textContent()).toContain('Our project is free software.');
    // the readers came, pdf.js did not
    expect(scripts).toContain('formats.js');
    expect(scripts.some((f) => f.startsWith('readers/pdf'))).toBe(false);
    expect(calls).toEqual([]);
  });

  it('in the browser: a dropped PDF is read by pdf.js in the page: its pages and outline, and the match', async () => {
    await page.click('#analyze-clear');
    await dropFile('#analyze-drop', 'terms.pdf', 'application/pdf', TERMS_PDF);
    await expect.poll(status).toMatch(/^Opened terms\.pdf \(PDF, [\d.]+ KiB\)/);
    await analyzeChosen();
    expect(await page.locator('#analyze-error').textContent()).toBe('');
    expect(await page.locator('#extraction-summary').textContent()).toMatch(
      /^PDF file, [\d.]+ KiB: \d+ words \(\d[\d,]* characters\) in 2 sections, 2 pages\./,
    );
    expect(await sectionTitles()).toEqual(['Licence', 'Details']);
    expect(await highlighted()).toContain(GRANTED);
    expect(await page.locator('#query-text').textContent()).toContain('See the documentation for details.');
    expect(scripts.filter((f) => f.startsWith('readers/pdf'))).toHaveLength(2); // pdf.js and its worker module
    expect(calls).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('in the browser: a page that cannot download its readers answers a dropped file with a message', async () => {
    const blocked = (route: Route) => route.abort();
    await context.route(/\/(formats\.js|readers\/.*)$/, blocked);
    try {
      await page.reload();
      await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state === 'ready', null, {
        timeout: 90_000,
      });
      await dropFile('#analyze-drop', 'terms.docx', DOCX_TYPE, TERMS);
      const error = page.locator('#analyze-error');
      await expect.poll(() => error.getAttribute('data-code'), { timeout: 30_000 }).toBe('UNSUPPORTED');
      expect(await error.textContent()).toContain('This page could not load its DOCX reader');
      expect(await page.locator('#analyze-document').isHidden()).toBe(true);
      expect(await page.locator('#analyze-text').evaluate((t) => (t as HTMLTextAreaElement).readOnly)).toBe(false);
    } finally {
      await context.unroute(/\/(formats\.js|readers\/.*)$/, blocked);
    }
    expect(calls).toEqual([]);
  });

  it('served: a dropped DOCX is analysed in the background: its extraction, and the match highlighted', async () => {
    await page.locator('#mode summary').click();
    await page.check('#mode-http');
    await page.fill('#mode-api-key', key);
    await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
    await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state === 'ready');

    await dropFile('#analyze-drop', 'terms.docx', DOCX_TYPE, TERMS);
    await expect.poll(status).toMatch(/^Opened terms\.docx \(DOCX, [\d.]+ KiB\)/);
    expect(await page.locator('#analyze-document-name').textContent()).toMatch(/^terms\.docx — DOCX/);
    expect(await page.locator('#analyze-text').evaluate((t) => (t as HTMLTextAreaElement).readOnly)).toBe(true);
    expect(await page.locator('#analyze-type').isDisabled()).toBe(true);

    calls.length = 0;
    await page.click('#analyze-run');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    expect(calls[0]).toBe('POST /api/v1/attribution/analyze');
    expect(calls.some((c) => c.startsWith('GET /api/v1/jobs/job_'))).toBe(true);
    expect(calls.some((c) => /^GET \/api\/v1\/jobs\/job_[0-9a-f]{32}\/results$/.test(c))).toBe(true);
    expect(await page.locator('#analyze-progress').isHidden()).toBe(true);

    expect(await page.locator('#extraction-summary').textContent()).toMatch(
      /^DOCX file, [\d.]+ KiB: \d+ words \(\d[\d,]* characters\) in 2 sections\./,
    );
    await page
      .locator('#extraction-sections')
      .evaluate((t) => ((t.closest('details') as HTMLDetailsElement).open = true));
    expect(await page.locator('#extraction-sections tbody th').allTextContents()).toEqual(['Persuasion', 'Licence']);
    expect(await page.locator('#query-title').textContent()).toBe("The file's text");
    const marks = await page.locator('#query-text mark.hit').allTextContents();
    expect(marks.join('')).toContain('to deal in the Software without restriction');
    expect(await page.locator('#query-text').textContent()).toContain('Our project is free software.');
    mkdirSync(output, { recursive: true });
    await page.locator('#result-title').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(output, 'web-files.png'), fullPage: false });
  });

  it('served: the file button takes a DOCX too; a file of another kind is refused with a message', async () => {
    await page.click('#analyze-clear');
    expect(await page.locator('#analyze-document').isHidden()).toBe(true);
    await page.setInputFiles('#analyze-file', {
      name: 'terms-again.docx',
      mimeType: DOCX_TYPE,
      buffer: Buffer.from(TERMS),
    });
    await expect.poll(status).toMatch(/^Opened terms-again\.docx/);
    await page.click('#analyze-run');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    expect((await page.locator('#query-text mark.hit').allTextContents()).join('')).toContain(
      'to deal in the Software without restriction',
    );

    await page.click('#analyze-document-remove');
    expect(await page.locator('#analyze-text').evaluate((t) => (t as HTMLTextAreaElement).readOnly)).toBe(false);
    await page.setInputFiles('#analyze-file', {
      name: 'terms.doc',
      mimeType: 'application/msword',
      buffer: Buffer.from('not read'),
    });
    await page.waitForSelector('#analyze-error[data-code="UNSUPPORTED_FILE"]');
    expect(await page.locator('#analyze-error').textContent()).toContain('save it as .docx');

    // a text file that is not UTF-8 is refused, as the API refuses it: not analysed as replacement characters
    await page.click('#analyze-clear');
    await page.setInputFiles('#analyze-file', {
      name: 'latin1.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Caf\xe9 cr\xe8me', 'latin1'),
    });
    await page.waitForSelector('#analyze-error[data-code="UNSUPPORTED_FILE"]');
    expect(await page.locator('#analyze-error').textContent()).toContain('is not UTF-8 text');
    expect(await page.inputValue('#analyze-text')).toBe('');
    // a failed analysis clears the line that said it was under way and hides the result of the text before
    await page.fill('#analyze-text', `Our project is free software.\n\n${MIT_GRANT}`);
    await page.click('#analyze-run');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    await page.fill('#analyze-text', '   ');
    await page.click('#analyze-run');
    await page.waitForSelector('#analyze-error[data-code="EMPTY_INPUT"]');
    expect([await status(), await page.locator('#analyze-result').isHidden()]).toEqual(['', true]);
    expect(problems).toEqual([]);
  });
});
