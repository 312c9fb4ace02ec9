// createEngine({ packs: 'default' }) in headless Chromium (playwright-core + /usr/bin/chromium): the
// built dist/index.js and the committed packs/ served over node:http the way a CDN serves the
// package (dist/ and packs/ side by side), so the default packs URL (../packs/ from the bundle) is
// fetched; each pack file is checked against the index's SHA-256, and a tampered index is refused.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStatic } from '../../src/node/static.js';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = process.env.TRAINPRINT_DIST ?? join(root, 'dist');
const PRIDE =
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be ' +
  'in want of a wife. However little known the feelings or views of such a man may be on his first entering a ' +
  'neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered ' +
  'the rightful property of some one or other of their daughters.';

let tmp: string;
let server: Server;
let base: string;
let context: BrowserContext;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(dist, 'index.js'))) throw new Error('dist/index.js is missing: run `npm run build` first');
  requireChromium();
  // a tampered copy of the index: the sample pack listed as a default pack with another SHA-256
  tmp = mkdtempSync(join(tmpdir(), 'trainprint-packs-web-'));
  const index = JSON.parse(readFileSync(join(root, 'packs/index.json'), 'utf8'));
  const sample = index.packs.find((p: { id: string }) => p.id === 'pack:gutenberg-sample');
  mkdirSync(join(tmp, 'tampered'));
  copyFileSync(join(root, 'packs', sample.file), join(tmp, 'tampered', sample.file));
  writeFileSync(
    join(tmp, 'tampered/index.json'),
    JSON.stringify({
      ...index,
      packs: [{ ...sample, default: true, sha256: '0'.repeat(64) }],
    }),
  );
  // /dist/… from the build, /packs/… committed, /tampered/… the copy above
  const mounts: Array<[string, ReturnType<typeof serveStatic>]> = [
    ['/dist/', serveStatic(dist)],
    ['/packs/', serveStatic(join(root, 'packs'))],
    ['/tampered/', serveStatic(join(tmp, 'tampered'))],
  ];
  server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    requested.push(path);
    const mount = mounts.find(([prefix]) => path.startsWith(prefix));
    const r = mount ? await mount[1](new Request(`http://127.0.0.1/${path.slice(mount[0].length)}`)) : null;
    const response =
      r ??
      new Response(path === '/' ? '<!doctype html><title>packs</title>' : 'not found', {
        status: path === '/' ? 200 : 404,
        headers: { 'content-type': 'text/html' },
      });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/`;
  ({ context, page } = await launchChromium(join(tmp, 'profile')));
  await page.goto(base);
  // the library as a page module would import it (an import() inside evaluate would be rewritten by vitest)
  const content = "import * as lib from '/dist/index.js'; window.trainprint = lib";
  await page.addScriptTag({ type: 'module', content });
  await page.waitForFunction(() => 'trainprint' in window);
});

/** The library in the page. */
type Lib = typeof import('../../src/index.js');
declare global {
  interface Window {
    trainprint: Lib;
  }
}

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('default packs in headless Chromium', () => {
  it("createEngine({ packs: 'default' }) fetches ../packs/ beside the bundle; Austen → Gutenberg", async () => {
    const r = await page.evaluate(async (content) => {
      const lib = window.trainprint;
      const engine = await lib.createEngine({ packs: 'default' });
      const result = await engine.analyze({ content, content_type: 'text' });
      const out = {
        datasets: engine
          .datasets()
          .map((d) => d.id)
          .sort(),
        matched: result.matches.map((m) => m.dataset_id),
        confidence: result.confidence,
      };
      engine.dispose();
      return out;
    }, PRIDE);
    const index = JSON.parse(readFileSync(join(root, 'packs/index.json'), 'utf8'));
    const defaults = index.packs.filter((p: { default: boolean }) => p.default);
    expect(r.datasets).toEqual(defaults.map((p: { id: string }) => p.id).sort());
    expect(r.matched).toContain('pack:gutenberg');
    for (const p of defaults) expect(requested).toContain(`/packs/${p.file}`);
  });

  it('a German passage names Die Verwandlung from pack:books-de, as an English one names its book', async () => {
    const german = readFileSync(join(root, 'test/fixtures/texts/languages/de/kafka-verwandlung.txt'), 'utf8')
      .split(/\s+/)
      .slice(300, 380)
      .join(' ');
    const r = await portraitIn(page, german);
    expect(r.confidence).toBeGreaterThanOrEqual(50);
    expect(r).toMatchObject({ dataset: 'pack:books-de', document: 'pg22367' });
  });

  it('a Japanese passage (160 characters, no spaces) names 羅生門 from pack:aozora', async () => {
    const japanese = [
      ...readFileSync(join(root, 'test/fixtures/texts/cjk/akutagawa-rashomon.txt'), 'utf8').replace(/\s+/g, ''),
    ]
      .slice(1000, 1160)
      .join('');
    const r = await portraitIn(page, japanese);
    expect(r.confidence).toBeGreaterThanOrEqual(50);
    expect(r).toMatchObject({ dataset: 'pack:aozora', document: 'akutagawa-rashomon' });
  });

  it('refuses a pack file whose SHA-256 is not the one the index lists (SNAPSHOT_INCOMPATIBLE)', async () => {
    const r = await page.evaluate(async (url) => {
      const lib = window.trainprint;
      const engine = await lib.createEngine();
      try {
        await lib.loadDefaultPacksFromUrl(engine, url);
        return { code: 'none', loaded: engine.datasets().length };
      } catch (e) {
        return { code: (e as { code?: string }).code, message: String(e), loaded: engine.datasets().length };
      } finally {
        engine.dispose();
      }
    }, `${base}tampered/`);
    expect(r).toMatchObject({ code: 'SNAPSHOT_INCOMPATIBLE', loaded: 0 });
    expect(r.message).toContain('SHA-256 mismatch');
  });
});

/** analyze with the default packs in the page: the confidence and the first portrait match's pack and document. */
function portraitIn(page: Page, content: string) {
  return page.evaluate(async (text) => {
    const engine = await window.trainprint.createEngine({ packs: 'default' });
    const result = await engine.analyze({ content: text, content_type: 'text' });
    const m = result.matches.find((x) => x.kind === 'portrait') as { dataset_id: string; document_id?: string };
    engine.dispose();
    return { confidence: result.confidence, dataset: m?.dataset_id, document: m?.document_id };
  }, content);
}
