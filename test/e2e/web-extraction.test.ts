// The web app's jobs view with an extract job, in headless Chromium, served mode: a JSON-lines file of one extract
// item (a work and the fixture chat model on 127.0.0.1 that memorised a stretch of it) is submitted from the view; its
// result row shows the strip of what the model wrote out — a mark per block, placed where the work report's strip
// places it (the same geometry, stripGeometry), faint under 100 words — and a click on a mark shows the block's
// generated text beside the work's own text of its span; an analysis of the same text shows it below its result (the
// account's extractions, read with GET …/analyses/{analysis_id}/extractions). With TRAINPRINT_SCREENSHOTS=1 it also writes
// docs/images/web-extraction.png. Built into a temporary folder, so it can run beside the other web tests.
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeldJobModels } from '../../src/library.js';
import { extractionStrip, stripGeometry } from '../../src/services/report/index.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';
import { startWebJobsApp, useServedApi, type WebJobsApp } from '../fixtures/web-jobs-app.js';

const { text, words } = syntheticWork(3, 400, 5);
/** The three chapters, each from its heading to the next one's. */
const starts = [...text.matchAll(/Chapter \d+/g)].map((m) => m.index);
const sections = starts.map((start, i) => ({ start, end: starts[i + 1] ?? text.length, title: `Chapter ${i + 1}` }));
let model: MemorisedServer;
let app: WebJobsApp;
let page: Page;
let base: string;
let problems: string[];

beforeAll(async () => {
  model = await startMemorisedServer({ words, held: [100, 600] });
  const jobModels = createHeldJobModels();
  app = await startWebJobsApp({
    name: 'web-extraction',
    needs: ['index.js', 'evidence.js'],
    keyName: 'web extraction test',
    runner: { jobModels },
    handler: (runner) => ({ jobModels, allowPrivateModelHosts: true, onJobSubmitted: () => runner.wake() }),
  });
  ({ page, base, problems } = app);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await model?.close();
});

describe('web app, an extract job (headless Chromium)', () => {
  it('draws the strip of the blocks the model wrote out, shows a block on a click, and below an analysis of the text', async () => {
    await useServedApi(app);
    await page.goto(`${base}#jobs`);
    const item = {
      text,
      sections,
      model: { base_url: model.baseUrl, model: 'fixture-memo-1', api: 'chat' },
      budget_calls: 60,
      prompt_variants: 1,
      concurrency: 2,
    };
    await page.selectOption('#jobs-type', 'extract');
    await page.setInputFiles('#jobs-file', {
      name: 'work.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${JSON.stringify(item)}\n`),
    });
    await page.click('#jobs-submit');
    await expect.poll(() => page.locator('#jobs-results tr').count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => page.locator('#jobs-status').textContent()).toMatch(/: done, 1 of 1 items done/);
    const results = await page
      .locator('#jobs-download')
      .evaluate(async (a) => (await fetch((a as HTMLAnchorElement).href)).text());
    const line = JSON.parse(results.trim());
    expect(line.success).toBe(true);
    const x = line.result;
    expect(x.nv_recall).toBeGreaterThan(0);
    expect(x.blocks.length).toBeGreaterThan(0);
    const row = page.locator('#jobs-results tr').nth(0);
    expect(await row.locator('.job-found').textContent()).toBe(
      `nv-recall ${Math.round(x.nv_recall * 1000) / 10} %, ${x.blocks.length} block${x.blocks.length === 1 ? '' : 's'}, ${x.calls} calls`,
    );
    // a mark per block, where the report's strip puts it: the same geometry over the same text and sections
    const g = stripGeometry(extractionStrip(x, text.length));
    const marks = row.locator('svg.extraction-strip rect.mark');
    await expect.poll(() => marks.count()).toBe(x.blocks.length);
    for (let k = 0; k < x.blocks.length; k++) {
      const [bx, bw, faint] = await marks
        .nth(k)
        .evaluate((r) => [Number(r.getAttribute('x')), Number(r.getAttribute('width')), r.classList.contains('short')]);
      expect(bx).toBeCloseTo(g.marks[k].x, 3);
      expect(bw).toBeCloseTo(g.marks[k].width, 3);
      expect(faint).toBe(x.blocks[k].words < 100);
    }
    // the sections' boundaries (three chapters: two lines)
    expect(await row.locator('svg.extraction-strip line.edge').count()).toBe(x.sections.length - 1);
    // a block's panel: hidden until a mark is chosen; then the generated text and the work's span
    const panel = row.locator('.extraction-block');
    expect(await panel.isHidden()).toBe(true);
    const last = x.blocks.length - 1;
    await marks.nth(last).click();
    expect(await panel.isVisible()).toBe(true);
    expect(await panel.locator('blockquote.generated').textContent()).toBe(x.blocks[last].generated);
    expect(await panel.locator('blockquote.passage').textContent()).toBe(
      text.slice(x.blocks[last].start, x.blocks[last].end),
    );
    expect(await marks.nth(last).getAttribute('aria-pressed')).toBe('true');
    expect(await row.locator('figure.extraction code').textContent()).toBe(x.record.transcript_sha256);
    // the analysis of the same text shows the account's extraction of it below the result, read with the
    // extractions route: no evidence bundle is asked for (nor built and signed) to draw it
    const paths: string[] = [];
    page.on('request', (r) => paths.push(new URL(r.url()).pathname));
    await page.goto(`${base}#analyze`);
    await page.fill('#analyze-text', text);
    await page.click('#analyze-run');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    const below = page.locator('#analysis-extractions');
    await expect.poll(() => below.locator('svg.extraction-strip rect.mark').count()).toBe(x.blocks.length);
    expect(await below.locator('figure.extraction code').textContent()).toBe(x.record.transcript_sha256);
    expect(
      paths.filter((p) => /^\/api\/v1\/attribution\/analyses\/an_[0-9a-f]{32}\/extractions$/.test(p)),
    ).toHaveLength(1);
    expect(paths.filter((p) => p.endsWith('/bundle'))).toEqual([]);
    await below.locator('rect.mark').nth(0).click();
    expect(await below.locator('blockquote.generated').textContent()).toBe(x.blocks[0].generated);
    if (process.env.TRAINPRINT_SCREENSHOTS === '1')
      await below.screenshot({
        path: fileURLToPath(new URL('../../docs/images/web-extraction.png', import.meta.url)),
      });
    expect(problems).toEqual([]);
  }, 120_000);
});
