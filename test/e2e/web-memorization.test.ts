// The web app's memorization view in headless Chromium against the committed test models, each served on its own
// port by a real listening server (createByteGptHandler, as `trainprint model serve` does): "Fill in the demo" puts
// in a work that byte-gpt-inserted saw 4 times an epoch and twelve never-seen works; the model fields then point at
// this run's ports. Served mode: the API calls the models (allowPrivateModelHosts). In-browser mode: the page's
// engine calls them itself, which their servers allow for this page's origin only (CORS). Both read `strong`, with
// the report in a sandboxed frame. Built into a temporary folder, so it can run beside the other web tests.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createByteGptHandler, createEngine, loadByteGptModel, withCors, type Engine } from '../../src/library.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { readModelDirectory } from '../../src/node/models.js';
import { serve, type Server } from '../../src/node/serve.js';
import { serveStatic } from '../../src/node/static.js';
import { DEMO_MODELS, DEMO_REFERENCE, DEMO_WORK } from '../../app/memorization-demo.js';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';
import { buildWebApp } from '../fixtures/web-build.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const output = join(root, 'test/output');

let tmp: string;
let engine: Engine;
let site: Server;
/** The same page and API, except that the API keeps to its default model-host policy (no private hosts). */
let strictSite: Server;
/** byte-gpt-base without CORS: a page of another origin cannot read it. */
let closedModel: Server;
const models: Record<'target' | 'reference', Server> = {} as never;
let key: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

async function serveModel(name: string, origin: (() => string) | null): Promise<Server> {
  const { weights } = await readModelDirectory(join(root, 'models', name));
  const model = await loadByteGptModel(weights, {
    id: name,
    access: 'top_k',
    topK: 20,
  });
  const handler = createByteGptHandler(model);
  // the page's origin is known once the site listens: decided per request
  return serve((req) => (origin ? withCors(handler, origin())(req) : handler(req)), { port: 0, host: '127.0.0.1' });
}

beforeAll(async () => {
  requireChromium();
  let out: string;
  ({ tmp, out } = await buildWebApp('web-memorization'));
  engine = await createEngine();
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'web', plan: 'pro', mode: 'test', name: 'web memorization test' })).key;
  const api = createHandler(engine, { keys, allowPrivateModelHosts: true });
  const files = serveStatic(out);
  site = await serve(async (req) => (await files(req)) ?? api(req), { port: 0, host: '127.0.0.1' });
  const strictApi = createHandler(engine, { keys });
  strictSite = await serve(async (req) => (await files(req)) ?? strictApi(req), { port: 0, host: '127.0.0.1' });
  closedModel = await serveModel(DEMO_MODELS.reference.model, null);
  models.target = await serveModel(DEMO_MODELS.target.model, () => site.url);
  models.reference = await serveModel(DEMO_MODELS.reference.model, () => site.url);
  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 1000 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await Promise.all([
    site?.close(),
    strictSite?.close(),
    closedModel?.close(),
    models.target?.close(),
    models.reference?.close(),
  ]);
  engine?.dispose();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Switch the page at `origin` to served mode with the test key (the mode is kept per origin and tab). */
async function useServedMode(origin: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.locator('#mode summary').click();
  await page.check('#mode-http');
  await page.fill('#mode-api-key', key);
  await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
}

/** Open the view, fill in the demo, point the model fields at this run's servers (or `target`), assess. */
async function runDemo(origin: string, target = `${models.target.url}/v1`): Promise<void> {
  await page.goto(`${origin}/#memorization`);
  await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state === 'ready', null, {
    timeout: 60_000,
  });
  await page.click('#memorization-demo');
  expect(await page.inputValue('#memorization-work')).toBe(DEMO_WORK.text);
  expect(await page.inputValue('#memorization-chunk')).toBe('16');
  await page.fill('#memorization-model-url', target);
  await page.fill('#memorization-reference-url', `${models.reference.url}/v1`);
  await page.click('#memorization-run');
  await page.waitForFunction(
    () =>
      /^Done in/.test(document.getElementById('memorization-status')?.textContent ?? '') ||
      (document.getElementById('memorization-error')?.textContent ?? '') !== '',
    null,
    { timeout: 120_000 },
  );
  // what a user waits for, as the page says it ("Done in …"): docs/web-app.md quotes it
  console.log(`memorization demo: ${await page.locator('#memorization-status').textContent()}`);
}

/** The demo against this run's model servers; the tier shown. */
async function assessDemo(): Promise<string> {
  await runDemo(site.url);
  expect(await page.locator('#memorization-error').textContent()).toBe('');
  const srcdoc = (await page.locator('#memorization-report').getAttribute('srcdoc')) ?? '';
  expect(srcdoc).toContain('loss calibrated by the reference model <code>openai-compatible:byte-gpt-base</code>');
  expect(await page.locator('#memorization-report').getAttribute('sandbox')).toBe('');
  const summary = await page.locator('#memorization-summary li').allTextContents();
  expect(summary.some((s) => s.startsWith('Probe (significant)'))).toBe(true);
  return (await page.locator('#memorization-tier').textContent()) ?? '';
}

describe('web app, memorization view (headless Chromium)', () => {
  it('the demo in served mode: the API calls the models; a work seen 4 times reads strong', async () => {
    await useServedMode(site.url);
    expect(await assessDemo()).toBe('strong');
    expect(DEMO_REFERENCE.length).toBe(12);
    mkdirSync(output, { recursive: true });
    await page.locator('#memorization-verdict').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(output, 'web-memorization.png'), fullPage: false });
    expect(problems).toEqual([]);
  }, 240_000);

  it('the demo in this browser: the page calls the models (CORS for its origin); strong again', async () => {
    await page.goto(`${site.url}/`);
    await page.locator('#mode summary').click();
    await page.check('#mode-browser');
    await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
    expect(await assessDemo()).toBe('strong');
    expect(problems).toEqual([]);
  }, 240_000);

  it('says what to do when the API may not call the models, or a model server does not allow the page', async () => {
    await useServedMode(strictSite.url);
    await runDemo(strictSite.url);
    expect(await page.locator('#memorization-error').textContent()).toContain('--allow-private-model-hosts');
    await page.goto(`${site.url}/`); // in-browser mode on this origin (the previous test left it there)
    await runDemo(site.url, `${closedModel.url}/v1`);
    const error = (await page.locator('#memorization-error').textContent()) ?? '';
    expect(error).toContain('could not reach a model server');
    expect(error).toContain(`--allow-origin ${site.url}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
