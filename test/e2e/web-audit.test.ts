// The web app's jobs view with an audit job, in headless Chromium, served mode: a JSON-lines file of one audit item
// (a catalogue of three works and the fixture chat model on 127.0.0.1 that memorised the first) is submitted from the
// view; its result row gives the catalogue's share with its interval and the calls, and a table of the works with
// their verdicts, nv-recall, probes (hits), calls and miss chance — the audit record the results download holds.
// With TRAINPRINT_SCREENSHOTS=1 it also writes docs/images/web-audit.png. Built into a temporary folder, so it can run
// beside the other web tests.
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeldJobModels } from '../../src/library.js';
import { closedPort } from '../fixtures/closed-port.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';
import { startWebJobsApp, useServedApi, type WebJobsApp } from '../fixtures/web-jobs-app.js';

const { words } = syntheticWork(3, 300, 17);
const works = [
  { id: 'held.txt', text: words.slice(0, 300).join(' ') },
  { id: 'unseen-1.txt', text: words.slice(300, 600).join(' ') },
  { id: 'unseen-2.txt', text: words.slice(600, 900).join(' ') },
];
let model: MemorisedServer;
let app: WebJobsApp;
let page: Page;
let base: string;
let problems: string[];

beforeAll(async () => {
  model = await startMemorisedServer({ words, held: [0, 300] });
  const jobModels = createHeldJobModels();
  app = await startWebJobsApp({
    name: 'web-audit',
    needs: ['index.js', 'evidence.js'],
    keyName: 'web audit test',
    runner: { jobModels },
    handler: (runner) => ({ jobModels, allowPrivateModelHosts: true, onJobSubmitted: () => runner.wake() }),
  });
  ({ page, base, problems } = app);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await model?.close();
});

describe('web app, an audit job (headless Chromium)', () => {
  it("shows the catalogue's share and a table of the works with their verdicts", async () => {
    await useServedApi(app);
    await page.goto(`${base}#jobs`);
    const item = {
      works,
      model: { base_url: model.baseUrl, model: 'fixture-memo-1', api: 'chat' },
      budget_calls: 120,
      prompt_variants: 1,
      concurrency: 2,
    };
    await page.selectOption('#jobs-type', 'audit');
    await page.setInputFiles('#jobs-file', {
      name: 'catalogue.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${JSON.stringify(item)}\n`),
    });
    await page.click('#jobs-submit');
    await expect.poll(() => page.locator('#jobs-results > tr').count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => page.locator('#jobs-status').textContent()).toMatch(/: done, 1 of 1 items done/);
    const results = await page
      .locator('#jobs-download')
      .evaluate(async (a) => (await fetch((a as HTMLAnchorElement).href)).text());
    const line = JSON.parse(results.trim());
    expect(line.success).toBe(true);
    const audit = line.result;
    expect(audit.catalogue).toMatchObject({ works: 3, measured: 3, reproduced: 1 });
    const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
    const row = page.locator('#jobs-results > tr').nth(0);
    expect(await row.locator('.job-found').textContent()).toBe(
      `1 of 3 works reproduced, share ${pct(audit.catalogue.share)} [${pct(audit.catalogue.ci_95[0])}, ` +
        `${pct(audit.catalogue.ci_95[1])}], ${audit.calls} calls${audit.stopped === 'budget' ? '; the budget ended first' : ''}`,
    );
    const cells = await row
      .locator('table.job-audit tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(cells).toEqual(
      audit.works.map((w: Record<string, any>) => [
        w.id,
        w.verdict.replace('_', ' '),
        w.verdict === 'reproduced' ? pct(w.nv_recall) : '—',
        `${w.probes} (${w.hits})`,
        String(w.calls),
        w.miss_probability === undefined ? '—' : String(w.miss_probability),
      ]),
    );
    expect(cells.map((c: unknown[]) => c[1])).toEqual(['reproduced', 'not found', 'not found']);
    if (process.env.TRAINPRINT_SCREENSHOTS === '1')
      await row.screenshot({ path: fileURLToPath(new URL('../../docs/images/web-audit.png', import.meta.url)) });
    expect(problems).toEqual([]);
  }, 120_000);

  it('an audit whose model is never reached: the failed item with its reason, the list says it failed, the cost in units', async () => {
    await useServedApi(app);
    await page.goto(`${base}#jobs`);
    expect(await page.locator('#view-jobs .hint').first().textContent()).toContain(
      'an extract or audit item one unit per 100 calls of its budget_calls (20 units at the default 2,000)',
    );
    const port = await closedPort();
    const item = {
      works,
      model: { base_url: `http://127.0.0.1:${port}/v1`, model: 'm', api: 'chat' },
      budget_calls: 30,
    };
    await page.selectOption('#jobs-type', 'audit');
    await page.setInputFiles('#jobs-file', {
      name: 'closed.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${JSON.stringify(item)}\n`),
    });
    await page.click('#jobs-submit');
    await expect
      .poll(() => page.locator('#jobs-status').textContent(), { timeout: 60_000 })
      .toMatch(/: done, 1 of 1 items done \(1 failed\)/);
    const row = page.locator('#jobs-results > tr').nth(0);
    expect(await row.getAttribute('data-success')).toBe('false');
    expect(await row.locator('.job-found').textContent()).toMatch(
      new RegExp(`^UPSTREAM_UNREACHABLE: .*the model answered none of the audit's \\d+ calls.*127\\.0\\.0\\.1:${port}`),
    );
    // the list of the key's jobs is read again once the job ends: its line is the job as it ended, failed said
    const line = page.locator('#jobs-earlier li').first().locator('button');
    await expect.poll(() => line.textContent()).toBe('audit · done · 1 of 1, 1 failed');
    expect(problems).toEqual([]);
  }, 120_000);
});
