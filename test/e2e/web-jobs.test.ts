// The web app's jobs view in headless Chromium, served mode: the page (built by build/web.mjs) and the API on one
// origin. A JSON-lines file of scan items is submitted from the view; the progress bar fills as the job is polled
// and the results table shows every item in order (the one with the MIT grant with its hits, their spans and
// passages); the results and the hits download as JSON lines. In the in-browser mode the view says jobs need a
// served API. Built into a temporary folder, so it can run beside the other web tests.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobService } from '../../src/library.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import { MIT_GRANT } from '../fixtures/client/server.js';
import { startWebJobsApp, useServedApi, type WebJobsApp } from '../fixtures/web-jobs-app.js';

let app: WebJobsApp;
let page: Page;
let base: string;
let problems: string[];

beforeAll(async () => {
  app = await startWebJobsApp({
    name: 'web-jobs',
    needs: ['index.js', 'starter.js'],
    keyName: 'web jobs test',
    prepare: (engine) => loadStarterDataset(engine),
    jobs: { chunkItems: 2 },
  });
  ({ page, base, problems } = app);
}, 180_000);

afterAll(() => app?.close());

describe('web app, jobs view (headless Chromium)', () => {
  it('in the in-browser mode, says jobs need a served API', async () => {
    await page.goto(`${base}#jobs`);
    await expect.poll(() => page.locator('#jobs-status').textContent()).toContain('served trainprint API');
    expect(await page.locator('#jobs-form').isHidden()).toBe(true);
    // the results and the lists of jobs are the served API's: not shown, nor a button that would do nothing
    expect(await page.locator('#jobs-served').isHidden()).toBe(true);
  });

  it('submits a JSON-lines file, fills the progress bar and shows every result in order', async () => {
    // what the served page loads from its own document on: showing the results loads the job types' descriptions (a
    // file with no import), never the library (1.3 MB, which the page's jobs view once loaded for the results' lines)
    const loaded: string[] = [];
    const record = (r: Request) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) loaded.length = 0;
      else loaded.push(new URL(r.url()).pathname);
    };
    page.on('request', record);
    await useServedApi(app);
    await page.goto(`${base}#jobs`);
    const lines = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify({ id: `out-${i}`, text: i === 2 ? MIT_GRANT : `plain words ${i}` }),
    );
    await page.selectOption('#jobs-type', 'scan');
    await page.setInputFiles('#jobs-file', {
      name: 'outputs.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${lines.join('\n')}\n`),
    });
    await page.click('#jobs-submit');
    await expect.poll(() => page.locator('#jobs-results tr').count(), { timeout: 30_000 }).toBe(6);
    await expect.poll(() => page.locator('#jobs-status').textContent()).toMatch(/: done, 6 of 6 items done/);
    expect(
      await page
        .locator('#jobs-progress')
        .evaluate((p) => [(p as HTMLProgressElement).value, (p as HTMLProgressElement).max]),
    ).toEqual([6, 6]);
    const cells = await page.locator('#jobs-results tr td:nth-child(3)').allTextContents();
    expect(cells).toEqual(['out-0', 'out-1', 'out-2', 'out-3', 'out-4', 'out-5']);
    const found = await page.locator('#jobs-results tr td:nth-child(4) .job-found').allTextContents();
    expect(found[2]).toMatch(/^[1-9]\d* hits?$/);
    expect(found[0]).toBe('0 hits');
    expect(await page.locator('#jobs-results tr').nth(0).locator('.job-hit').count()).toBe(0);
    // the results and the hits as downloads: the lines as they came, the hits as trainprint scan's hit lines
    const fetched = (id: string) =>
      page
        .locator(id)
        .evaluate(async (a) => [a.getAttribute('download'), await (await fetch((a as HTMLAnchorElement).href)).text()]);
    const [resultsName, results] = await fetched('#jobs-download');
    expect(resultsName).toMatch(/^job-.+-results\.jsonl$/);
    expect(
      results!
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).index),
    ).toEqual([0, 1, 2, 3, 4, 5]);
    const [hitsName, hitsText] = await fetched('#jobs-download-hits');
    expect(hitsName).toMatch(/^job-.+-hits\.jsonl$/);
    const hits = hitsText!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(hits.length).toBe(Number(found[2].split(' ')[0]));
    expect(Object.keys(hits[0])).toEqual([
      'id',
      'dataset_id',
      'document_id',
      'query_start',
      'query_end',
      'source_start',
      'source_end',
      'words',
      'kind',
    ]);
    // each hit of item 2 with its spans and its passage, the item's text between the hit's offsets
    const shown = page.locator('#jobs-results tr').nth(2).locator('.job-hit');
    expect(await shown.count()).toBe(hits.length);
    for (let k = 0; k < hits.length; k++) {
      const hit = hits[k];
      expect(hit.id).toBe('out-2');
      expect(await shown.nth(k).locator('.job-hit-spans').textContent()).toBe(
        `characters ${hit.query_start}–${hit.query_end} of the item · ${hit.document_id} (dataset ${hit.dataset_id}), ` +
          `characters ${hit.source_start}–${hit.source_end} · ${hit.words} words, ${hit.kind}`,
      );
      const passage = MIT_GRANT.slice(hit.query_start, hit.query_end);
      const quoted = (await shown.nth(k).locator('blockquote').textContent()) ?? '';
      if (passage.length <= 600) expect(quoted).toBe(passage);
      else expect(quoted.startsWith(passage.slice(0, 300)) && quoted.endsWith(passage.slice(-300))).toBe(true);
    }
    page.off('request', record);
    expect(loaded.filter((p) => /\/(library|index|jobs)\.js$/.test(p))).toEqual([]);
    expect(loaded.filter((p) => p.endsWith('/job-descriptions.js'))).toHaveLength(1);
    expect(problems).toEqual([]);
  }, 60_000);

  it("lists the key's jobs after a reload (GET /api/v1/jobs) and reads one's results again", async () => {
    await page.goto(`${base}#jobs`);
    await page.reload();
    await expect.poll(() => page.locator('#jobs-earlier li').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const first = page.locator('#jobs-earlier li').first();
    expect(await first.textContent()).toMatch(/^scan · done · 6 of 6 job_[0-9a-f]{32}, \d{4}-/);
    expect(await page.locator('#jobs-results tr').count()).toBe(0);
    await first.locator('button').click();
    await expect.poll(() => page.locator('#jobs-results tr').count(), { timeout: 30_000 }).toBe(6);
    await expect.poll(() => page.locator('#jobs-status').textContent()).toMatch(/: done, 6 of 6 items done/);
    expect(problems).toEqual([]);
  });

  it('one double-click on Submit submits (and charges) one job', async () => {
    await page.goto(`${base}#jobs`);
    await expect.poll(() => page.locator('#jobs-earlier li').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await page.locator('#jobs-earlier li').count();
    await page.selectOption('#jobs-type', 'scan');
    await page.setInputFiles('#jobs-file', {
      name: 'two.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from('{"id":"a","text":"one text"}\n{"id":"b","text":"another text"}\n'),
    });
    await page.dblclick('#jobs-submit');
    await expect
      .poll(() => page.locator('#jobs-status').textContent(), { timeout: 30_000 })
      .toMatch(/: done, 2 of 2 items done/);
    await expect.poll(() => page.locator('#jobs-earlier li').count(), { timeout: 30_000 }).toBe(before + 1);
    expect(problems).toEqual([]);
  });

  it("lists the operator's jobs to a key with the admin scope only, and reads one's results", async () => {
    // a job of the operator, as `trainprint scan --queue` submits one (no account), run by the app's runner
    const job = await createJobService({ store: app.engine.store }).submit({
      account: '',
      type: 'scan',
      items: [
        { id: 'op-0', text: 'plain words of the operator' },
        { id: 'op-1', text: MIT_GRANT },
      ],
    });
    // the Pro key of the account `web` has no admin scope: asked on request only, its 403 is said, no list
    await page.goto(`${base}#jobs`);
    await page.reload();
    await expect.poll(() => page.locator('#jobs-earlier li').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const asked = page.waitForResponse((r) => r.url().includes('owner=operator'));
    await page.click('#jobs-operator-show');
    expect((await asked).status()).toBe(403);
    await expect.poll(() => page.locator('#jobs-operator-note').textContent()).toContain('no admin scope');
    expect(await page.locator('#jobs-operator-list').isHidden()).toBe(true);
    const { key } = await app.keys.createKey({ account: 'ops', plan: 'pro', scopes: ['analyze', 'admin'] });
    await useServedApi({ ...app, key });
    await page.goto(`${base}#jobs`);
    await page.click('#jobs-operator-show');
    await expect.poll(() => page.locator('#jobs-operator-list li').count(), { timeout: 30_000 }).toBe(1);
    expect(await page.locator('#jobs-operator-list').isVisible()).toBe(true);
    // the admin's own account has no jobs: the operator's are not listed as its own
    expect(await page.locator('#jobs-earlier li').count()).toBe(0);
    const line = page.locator('#jobs-operator-list li').first();
    expect(await line.getAttribute('data-job')).toBe(job.id);
    await line.locator('button').click();
    await expect.poll(() => page.locator('#jobs-results tr').count(), { timeout: 30_000 }).toBe(2);
    await expect.poll(() => page.locator('#jobs-status').textContent()).toMatch(/: done, 2 of 2 items done/);
    const found = await page.locator('#jobs-results tr td:nth-child(4) .job-found').allTextContents();
    expect(found[1]).toMatch(/^[1-9]\d* hits?$/);
    expect(problems).toEqual([]);
  });
});
