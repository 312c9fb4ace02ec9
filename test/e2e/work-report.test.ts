/**
 * The work report in headless Chromium: a book (four chapters of *Persuasion* as an EPUB) of which a dataset holds
 * chapter 2 and two passages of chapter 4. The page loads nothing from elsewhere, its coverage strips are drawn (a
 * bounding box, on screen and in print), and printing it gives a PDF of several pages. Its coverage section is the
 * screenshot of docs/works.md (docs/images/work-report.png: no id, date or hash in it, so the image is the same on
 * every run).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderWorkReport } from '../../src/services/report/index.js';
import { launchChromium } from '../fixtures/chromium.js';
import { analyseWork, reportEngine } from '../fixtures/work-report.js';

const IMAGE = fileURLToPath(new URL('../../docs/images/work-report.png', import.meta.url));

let dir: string;
let context: BrowserContext;
let page: Page;
let marks = 0;
const requests: string[] = [];

beforeAll(async () => {
  const engine = await reportEngine();
  const analysed = await analyseWork(engine);
  marks = analysed.matches.length;
  // a fixed id and date: the screenshot shows them, and should not change from run to run
  const result = {
    ...analysed,
    analysis_id: 'an_5cdad85862c4a0c20fecf8bb9ed03485',
    created_at: '2026-01-15T09:30:00.000Z',
  };
  dir = mkdtempSync(join(tmpdir(), 'tp-work-report-'));
  const file = join(dir, 'report.html');
  writeFileSync(file, await renderWorkReport({ result, text: result.extraction!.text! }));
  ({ context, page } = await launchChromium(join(dir, 'profile'), { width: 1200, height: 900 }));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
});

afterAll(async () => {
  await context?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the work report in Chromium', () => {
  it('draws the coverage strips, one mark per passage, and loads nothing else', async () => {
    const strip = page.locator('figure.strip svg').first();
    const box = await strip.boundingBox();
    expect(box?.width).toBeGreaterThan(600);
    expect(box?.height).toBeGreaterThan(20);
    const markBoxes = await strip
      .locator('rect.mark')
      .evaluateAll((els) => els.map((e) => (e as SVGGraphicsElement).getBoundingClientRect().width));
    expect(markBoxes).toHaveLength(marks);
    for (const w of markBoxes) expect(w).toBeGreaterThan(0);
    // the page itself, nothing more: no image, style sheet, font or script from anywhere
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    mkdirSync(join(IMAGE, '..'), { recursive: true });
    await page.locator('section').first().screenshot({ path: IMAGE });
  });

  it('prints to a PDF with the strips drawn and the passages whole', async () => {
    await page.emulateMedia({ media: 'print' });
    const box = await page.locator('figure.strip svg').first().boundingBox();
    expect(box?.width).toBeGreaterThan(400);
    expect(box?.height).toBeGreaterThan(10);
    // a passage's figure is never split across pages
    const avoid = await page
      .locator('figure.passage')
      .first()
      .evaluate((e) => getComputedStyle(e).breakInside);
    expect(avoid).toBe('avoid');
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    await page.emulateMedia({ media: 'screen' });
    expect(pdf.length).toBeGreaterThan(10_000);
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const pages =
      Buffer.from(pdf)
        .toString('latin1')
        .match(/\/Type\s*\/Page(?![s\w])/g) ?? [];
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });
});
