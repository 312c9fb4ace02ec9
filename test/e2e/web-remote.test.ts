// The web app asks before a text leaves the server. A server with a remote corpus (the fixture infini-gram engine on
// 127.0.0.1, as `serve --infini-gram … --infini-gram-endpoint …` configures it) and the page in served mode: the
// consent box names where the text would go and is off; analyzing then sends `search_remote: false` and the engine
// gets no call. Ticked, the planted corpus passage is found in the remote corpus, its source passage comes from the
// engine's document window, and the result lists the corpus consulted. The status report shows the corpus's health.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/serve.js';
import { serveStatic } from '../../src/node/static.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import {
  buildTokenIndex,
  fixtureCorpus,
  plantedCases,
  startInfiniGramServer,
  type InfiniGramServer,
  type PlantedCase,
} from '../fixtures/infini-gram/index.mjs';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';
import { buildWebApp } from '../fixtures/web-build.js';

let tmp: string;
let infini: InfiniGramServer;
let engine: Engine;
let server: Server;
let key: string;
let context: BrowserContext;
let page: Page;
let planted: PlantedCase;
const problems: string[] = [];
/** Bodies the page posted to analyze. */
const analyzeBodies: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  requireChromium();
  let out: string;
  ({ tmp, out } = await buildWebApp('web-remote'));

  const { documents } = fixtureCorpus();
  infini = await startInfiniGramServer({
    kind: 'infini-gram',
    indexes: { v4_piletrain_llama: buildTokenIndex({ documents }) },
  });
  planted = plantedCases({ seed: 4242, count: 1, words: 600 })[0];
  engine = await createEngine({
    remoteCorpora: [
      { id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: infini.url, name: 'The Pile (train)' },
    ],
  });
  await loadStarterDataset(engine);
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'web', plan: 'pro', mode: 'test', name: 'web remote test' })).key;
  const api = createHandler(engine, { keys });
  const files = serveStatic(out);
  server = await serve(async (req) => (await files(req)) ?? api(req), { port: 0, host: '127.0.0.1' });

  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 900 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    if (r.url().endsWith('/api/v1/attribution/analyze')) analyzeBodies.push(JSON.parse(r.postData() ?? '{}'));
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  engine?.dispose();
  await infini?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function analyze(): Promise<void> {
  await page.fill('#analyze-text', planted.text);
  await page.click('#analyze-run');
  await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
}

describe('web app with a remote corpus (served mode, headless Chromium)', () => {
  it('asks before sending: off by default, the text stays on the server', async () => {
    await page.goto(`${server.url}/`);
    await page.locator('#mode summary').click();
    await page.check('#mode-http');
    await page.fill('#mode-api-key', key);
    await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
    await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state === 'ready');

    expect(await page.locator('#analyze-remote-field').isVisible()).toBe(true);
    expect(await page.isChecked('#analyze-remote')).toBe(false);
    // the API keeps a self-hosted engine's URL to the operator: the box names the service's own engine
    const where = await page.locator('#analyze-remote-where').textContent();
    expect(where).toContain("the service's own engine (The Pile (train))");
    expect(where).not.toContain(infini.url);

    infini.resetCalls();
    await analyze();
    expect(analyzeBodies.at(-1)?.search_remote).toBe(false);
    expect(infini.calls.length).toBe(0);
    expect(await page.locator('#remote-corpora').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('ticked: the passage is found in the remote corpus, with its source window and the corpus consulted', async () => {
    await page.check('#analyze-remote');
    await analyze();
    expect(analyzeBodies.at(-1)?.search_remote).toBe(true);
    expect(infini.calls.length).toBeGreaterThan(0);
    const consulted = await page.locator('#remote-corpora li').allTextContents();
    expect(consulted).toHaveLength(1);
    expect(consulted[0]).toMatch(
      /^pile \(infini-gram, index v4_piletrain_llama, sent to the service's own engine\): searched · 1 match/,
    );

    const row = page.locator('#match-table tr', { hasText: 'remote' }).first();
    await row.locator('button').click();
    const head = await page.locator('#source-view .source-head').textContent();
    expect(head).toContain(`document ${planted.source.doc_ix}`);
    expect(head).toMatch(/occurs \d+ times? in the corpus/);
    const words = (t: string | null) => (t ?? '').split(/\s+/).filter(Boolean).join(' ');
    const passage = words(await page.locator('#source-passage mark').textContent());
    expect(passage).toContain(
      words(planted.text.slice(planted.passage.start, planted.passage.end)).split(' ').slice(5, 15).join(' '),
    );
    expect(problems).toEqual([]);
  });

  it('the status report shows the remote corpus answering', async () => {
    const status = await (await fetch(`${server.url}/api/v1/status`)).json();
    expect(status.status).toBe('operational');
    expect(status.remote_corpora).toEqual([
      expect.objectContaining({
        dataset_id: 'pile',
        engine: 'infini-gram',
        index: 'v4_piletrain_llama',
        state: 'ok',
        endpoint: 'self-hosted',
      }),
    ]);
    const html = await (await fetch(`${server.url}/status`)).text();
    expect(html).toContain('<h2>Remote corpora</h2>');
    expect(html).not.toContain(infini.url);
  });
});
