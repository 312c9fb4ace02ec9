// The web app's result view when a portrait match is held by several documents of a pack (`also_in`), in headless
// Chromium, served mode (the page and the API on one origin, as `trainprint serve` does). The pack is built here from
// the fixture books with a third document that is a selection of one of them (words 30,000–40,000 of Persuasion, as an
// anthology or a second edition holds a book's text; test/contract/pack-shared-text.test.ts checks the engine's side).
// A passage of the selection: its row names the book, and its source view names the book (linked, with its ebook
// number and word range) and, on a line of its own, the selection that also holds the text — linked, with its own
// word range and the share of the section it holds. A passage outside the selection shows no such line.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, KeyStore } from '../../src/http/index.js';
import {
  buildPack,
  createEngine,
  type Engine,
  loadPack,
  type PackManifest,
  type PackManifestDocument,
  sha256Hex,
} from '../../src/library.js';
import { serve, type Server } from '../../src/node/serve.js';
import { serveStatic } from '../../src/node/static.js';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';
import { book } from '../fixtures/texts/index.js';
import { buildWebApp } from '../fixtures/web-build.js';

const persuasion = book('austen-persuasion').split(/\s+/).filter(Boolean);
const SELECTION = [30_000, 40_000] as const;
const DOCUMENTS: Array<Omit<PackManifestDocument, 'file' | 'sha256' | 'bytes'> & { text: string }> = [
  {
    id: 'pg105',
    title: 'Persuasion',
    author: 'Jane Austen',
    ebook: 105,
    url: 'https://www.gutenberg.org/ebooks/105',
    text: persuasion.join(' '),
  },
  {
    id: 'austen-selection',
    title: 'Selections from Jane Austen',
    url: 'https://example.org/austen-selection',
    text: persuasion.slice(...SELECTION).join(' '),
  },
  {
    id: 'pg1695',
    title: 'The Man Who Was Thursday',
    author: 'G. K. Chesterton',
    ebook: 1695,
    text: book('chesterton-thursday'),
  },
];

let tmp: string;
let engine: Engine;
let server: Server;
let key: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

async function sharedTextPack(): Promise<{ bytes: Uint8Array; sha256: string }> {
  const enc = new TextEncoder();
  const texts = new Map<string, Uint8Array>();
  const documents: PackManifestDocument[] = [];
  for (const { text, ...d } of DOCUMENTS) {
    const bytes = enc.encode(text);
    texts.set(`${d.id}.txt`, bytes);
    documents.push({
      ...d,
      file: `${d.id}.txt`,
      sha256: await sha256Hex(bytes),
      bytes: bytes.length,
      source: 'nltk/nltk',
    });
  }
  const manifest: PackManifest = {
    format: 'trainprint.pack-manifest',
    version: 1,
    id: 'pack:shared',
    name: 'Shared text',
    pack_version: '1.0.0',
    description: 'A book, a selection of it, and another book.',
    kb_dataset: 'project-gutenberg',
    window: 8,
    built: '2026-01-02',
    sources: [{ repository: 'nltk/nltk', url: 'https://github.com/nltk/nltk' }],
    licence: { texts: 'Public domain in the USA' },
    documents,
  };
  const builder = await createEngine();
  try {
    const built = await buildPack(builder, manifest, (d) => texts.get(d.file)!);
    return { bytes: built.bytes, sha256: built.sha256 };
  } finally {
    builder.dispose();
  }
}

beforeAll(async () => {
  requireChromium();
  let out: string;
  ({ tmp, out } = await buildWebApp('web-also-in'));
  engine = await createEngine();
  const pack = await sharedTextPack();
  await loadPack(engine, pack.bytes, { sha256: pack.sha256 });
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'web', plan: 'pro', mode: 'test', name: 'web also_in test' })).key;
  const api = createHandler(engine, { keys });
  const files = serveStatic(out);
  server = await serve(async (req) => (await files(req)) ?? api(req), { port: 0, host: '127.0.0.1' });

  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 900 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${server.url}/`);
  await page.locator('#mode summary').click();
  await page.check('#mode-http');
  await page.fill('#mode-api-key', key);
  await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
  await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state === 'ready');
}, 120_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  engine?.dispose();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Analyze `text` in the page and open the source view of the pack's first match. */
async function analyzeAndOpen(text: string): Promise<void> {
  await page.fill('#analyze-text', text);
  await page.click('#analyze-run');
  await page.waitForFunction(() => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''));
  const row = page.locator('#match-table tr', { hasText: 'pack:shared' }).first();
  expect(await row.locator('th button').textContent()).toBe('Persuasion');
  await row.locator('th button').click();
  await page.locator('#source-view .source-head').waitFor();
}

describe('web app: a portrait match held by several documents (served mode, headless Chromium)', () => {
  it('names the book and, on a line of its own, the selection that also holds the text', async () => {
    const at = 34_000;
    await analyzeAndOpen(persuasion.slice(at, at + 120).join(' '));

    const head = page.locator('#source-view .source-head');
    expect(await head.textContent()).toMatch(
      /^Persuasion by Jane Austen \(Project Gutenberg #105\) in Shared text \(pack:shared\)$/,
    );
    expect(await head.locator('a').getAttribute('href')).toBe('https://www.gutenberg.org/ebooks/105');

    const also = page.locator('#source-view p', { hasText: 'The same text is also in' });
    expect(await also.count()).toBe(1);
    const line = (await also.textContent()) ?? '';
    // the selection's own word range: it holds the passage near its word 4,000 (words at − 30,000 of its own)
    const m = line.match(
      /^The same text is also in Selections from Jane Austen \(austen-selection\), words ([\d,]+)–([\d,]+) \((\d+) % of this section's n-grams\): a portrait cannot tell identical text apart\.$/,
    );
    expect(m, line).not.toBeNull();
    const [from, to, share] = m!.slice(1).map((x) => Number(x.replace(/,/g, '')));
    expect(from).toBeLessThanOrEqual(at - SELECTION[0]);
    expect(to).toBeGreaterThanOrEqual(at - SELECTION[0] + 120);
    expect(share).toBeGreaterThanOrEqual(20);
    expect(share).toBeLessThanOrEqual(100);
    const link = also.locator('a');
    expect(await link.textContent()).toBe('Selections from Jane Austen');
    expect(await link.getAttribute('href')).toBe('https://example.org/austen-selection');
    expect(await link.getAttribute('rel')).toBe('noopener');
    expect(problems).toEqual([]);
  });

  it('a passage the selection does not hold: the book alone, no "also in" line', async () => {
    await analyzeAndOpen(persuasion.slice(5_000, 5_120).join(' '));
    expect(await page.locator('#source-view .source-head').textContent()).toContain(
      'Persuasion by Jane Austen (Project Gutenberg #105)',
    );
    expect(await page.locator('#source-view p', { hasText: 'The same text is also in' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
