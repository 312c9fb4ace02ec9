// The web app's served mode in headless Chromium: the page (built by build/web.mjs) and the API
// on one origin — `(await files(req)) ?? api(req)`, as `trainprint serve` does — with the starter
// dataset. Switch the mode form to the served API, enter the key, analyze the MIT grant: the
// highlighted span and the source passage come from the API (no engine or worker is loaded);
// the key stays in sessionStorage only. A wrong key gives an error message on the status line
// and in the analyze form. Built into a temporary folder, so it can run beside web.test.ts.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/serve.js';
import { serveStatic } from '../../src/node/static.js';
import { loadStarterDataset } from '../../src/starter/index.js';
import { MIT_GRANT } from '../fixtures/client/server.js';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';
import { buildWebApp } from '../fixtures/web-build.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const output = join(root, 'test/output');

let tmp: string;
let engine: Engine;
let server: Server;
let base: string;
let key: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];
/** Every URL the page requested. */
const requested: string[] = [];
/** Authorization headers sent to the API. */
const authorizations: string[] = [];

beforeAll(async () => {
  requireChromium();
  let out: string;
  ({ tmp, out } = await buildWebApp('web-served', ['index.js', 'starter.js']));

  engine = await createEngine();
  await loadStarterDataset(engine);
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'web', plan: 'pro', mode: 'test', name: 'web served test' })).key;
  const api = createHandler(engine, { keys });
  const files = serveStatic(out);
  server = await serve(async (req) => (await files(req)) ?? api(req), { port: 0, host: '127.0.0.1' });
  base = `${server.url}/`;

  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 900 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    requested.push(r.url());
    const auth = r.headers().authorization;
    if (auth) authorizations.push(auth);
  });
});

afterAll(async () => {
  await context?.close();
  await server?.close();
  engine?.dispose();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Choose the served mode with this key and wait for the reloaded page to settle. */
async function useServedMode(apiKey: string): Promise<void> {
  await page.locator('#mode summary').click();
  await page.check('#mode-http');
  expect(await page.inputValue('#mode-base-url')).toBe(server.url); // defaults to the page's origin
  await page.fill('#mode-api-key', apiKey);
  await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
  await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state !== 'loading');
}

describe('web app, served mode (headless Chromium)', () => {
  it('analyzes through the API with the key: highlighted span, source passage, no engine loaded', async () => {
    await page.goto(base);
    expect(await page.locator('#mode-summary').textContent()).toBe('in this browser');
    await useServedMode(key);

    expect(await page.locator('#engine-status').getAttribute('data-state')).toBe('ready');
    expect(await page.locator('#engine-status').textContent()).toMatch(/^Ready: 1 dataset, 727 documents/);
    expect(await page.locator('#backend-label').textContent()).toContain('Served API at this site');
    expect(await page.locator('#mode-summary').textContent()).toBe('served API at this site');
    expect(await page.locator('#tagline').textContent()).toContain('is sent there');
    const stored = await page.evaluate(() => ({
      mode: sessionStorage.getItem('trainprint.mode'),
      key: sessionStorage.getItem('trainprint.api_key'),
      local: localStorage.length,
    }));
    expect(stored).toEqual({ mode: 'http', key, local: 0 });

    const since = requested.length;
    await page.fill(
      '#analyze-text',
      `Our project is free software.\n\n${MIT_GRANT}\n\nSee the documentation for details.`,
    );
    await page.click('#analyze-run');
    await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
    const marks = await page.locator('#query-text mark.hit').allTextContents();
    expect(marks.join('')).toContain('to deal in the Software without restriction');
    expect(requested.slice(since).some((u) => u.endsWith('/api/v1/attribution/analyze'))).toBe(true);
    expect(authorizations.every((a) => a === `Bearer ${key}`)).toBe(true);
    expect(authorizations.length).toBeGreaterThan(0);

    // the source passage: starter-texts.json next to the page, the same list version as the served starter
    await page.locator('#match-table button', { hasText: /^MIT$/ }).click();
    const passage = page.locator('#source-passage mark');
    await passage.waitFor();
    expect(await passage.textContent()).toContain('to deal in the Software without restriction');

    // this mode never loaded the engine, the worker or the starter bundle
    const reload = requested.lastIndexOf(base);
    expect(reload).toBeGreaterThan(0);
    expect(requested.slice(reload).filter((u) => /\/(index|starter|worker)\.js$/.test(u))).toEqual([]);
    expect(problems).toEqual([]);
    await page.locator('#mode summary').click();
    mkdirSync(output, { recursive: true });
    await page.screenshot({ path: join(output, 'web-served.png'), fullPage: false });
    await page.locator('#mode summary').click();
  });

  it('a wrong key: an error on the status line and in the analyze form; back to in-browser forgets the key', async () => {
    await useServedMode(`tp_test_${'0'.repeat(32)}`);
    expect(await page.locator('#engine-status').getAttribute('data-state')).toBe('error');
    const status = await page.locator('#engine-status').textContent();
    expect(status).toContain('The served API could not be used.');
    expect(status).toContain('refused the key');
    expect(await page.locator('#mode').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);

    await page.fill('#analyze-text', MIT_GRANT);
    await page.click('#analyze-run');
    const error = page.locator('#analyze-error');
    await expect.poll(() => error.getAttribute('data-code')).toBe('UNAUTHORIZED');
    expect(await error.textContent()).toContain('refused the key');

    // an invalid URL is refused in the form, nothing stored
    await page.fill('#mode-base-url', 'not a url');
    await page.click('#mode-apply');
    await expect.poll(() => page.locator('#mode-error').getAttribute('data-code')).toBe('INVALID_SETTINGS');

    await page.check('#mode-browser');
    await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.locator('#mode-summary').textContent()).toBe('in this browser');
    expect(await page.locator('#mode-http-fields').isHidden()).toBe(true);
  });
});
