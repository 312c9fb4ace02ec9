// The reference packs shipped in packs/: the small committed pack rebuilt byte for byte from its
// manifest and texts (the committed fixture books), every listed pack verified against the index
// (SHA-256, CRC, counts, size budget), the default packs loaded and analyze answering from them,
// and the CLI's `packs` commands when dist/ is built. Reads only committed files.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEngine,
  knowledgeBase,
  loadDefaultPacksFromUrl,
  readPackIndexWith,
  readPackInfo,
  readPackManifestWith,
} from '../../src/library.js';
import { serveStatic } from '../../src/node/static.js';
import {
  buildPackFile,
  listPacks,
  loadDefaultPacks,
  nodePackFs,
  packsDir,
  verifyPackFile,
} from '../../src/node/index.js';
import { book } from '../fixtures/texts/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const packs = join(root, 'packs');
const tmp = mkdtempSync(join(tmpdir(), 'trainprint-packs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Default packs ship in the npm package: their total must stay within this budget — 1.5 × the 20.26 MB of the
 * membership filters alone, so that the locators that name documents (≈ 0.57 B per n-gram) fit (29.63 MB), and
 * the Wikipedia packs' tables of common n-grams (30.35 MB with them, 1.004 × the 30.24 MB before them), and the
 * book packs of eight other languages (35.40 MB with them: load, memory and an analyze's latency measured within
 * 1.5 × of the English packs alone, bench/results/packs-load-languages.json), and the Japanese and Chinese packs
 * (0.45 MB of character n-grams: 35.85 MB, bench/results/packs-load-cjk.json).
 */
const DEFAULT_BUDGET = 35.9e6;

/** Writing of our own, in none of the packs. */
const ORIGINAL = [
  'The committee met on a wet Tuesday to argue about the new bus timetable, which nobody had read in full.',
  'Marta brought biscuits and a printed spreadsheet; Daniel brought a grievance about the number 14, which now',
  'skipped his street entirely after seven in the evening. By the time the tea had gone cold they had agreed on',
  'three things: the timetable was too long, the font was too small, and someone should write to the council',
  'before the month ended.',
].join(' ');

/** The paragraph of the false-attribution report, written for it: in no dataset. */
const LIGHTHOUSE =
  'The lighthouse keeper Marisol Vantablack counted seventeen herons over the estuary at dawn, each one a grey comma ' +
  'against the pewter water, and she wrote their number in the ledger beside the price of paraffin, the wind speed, ' +
  'and the name of the ship that did not come back in the autumn of the long storms. Her daughter would read the ' +
  'ledger forty years later and find the herons before she found the ships.';

/** 100-word passages of articles of the Wikipedia packs (test/fixtures/texts/SOURCE.md). */
const wikipedia = JSON.parse(readFileSync(join(root, 'test/fixtures/texts/wikipedia-passages.json'), 'utf8')) as {
  passages: { title: string; pack: string; passage: string }[];
};
/** 100-word passages of famous books of the Gutenberg pack (test/fixtures/texts/SOURCE.md). */
const famous = JSON.parse(readFileSync(join(root, 'test/fixtures/texts/famous-passages.json'), 'utf8')) as {
  passages: { author: string; title: string; ebook: number; passage: string }[];
};

describe('shipped reference packs', () => {
  it('finds the packs folder of this copy', () => {
    expect(packsDir()).toBe(packs);
  });

  it('rebuilds the small pack byte for byte from its manifest and committed texts', async () => {
    const entry = (await readPackIndexWith(nodePackFs, packs)).packs.find((p) => p.id === 'pack:gutenberg-sample')!;
    expect(entry.default).toBe(false);
    const out = join(tmp, 'sample.tpk');
    const r = await buildPackFile({ manifest: join(packs, entry.manifest), out });
    expect(r.sha256).toBe(entry.sha256);
    expect(readFileSync(out)).toEqual(readFileSync(join(packs, entry.file)));
    expect(r.info.counts).toMatchObject({ documents: entry.documents, words: entry.words, ngrams: entry.ngrams });
    // an index whose folder does not hold the pack and its manifest is refused before the pack is built or written
    const stray = join(tmp, 'stray.tpk');
    await expect(
      buildPackFile({ manifest: join(packs, entry.manifest), out: stray, index: join(tmp, 'index.json') }),
    ).rejects.toThrow(/its folder must hold the manifest/);
    expect(existsSync(stray)).toBe(false);
  });

  it('verifies every listed pack against the index, and the index against the manifests', async () => {
    const listed = await listPacks(packs);
    const ids = [
      'pack:gutenberg',
      'pack:wikipedia-wikitext',
      'pack:wikipedia-articles',
      'pack:wikipedia-core',
      'pack:gutenberg-sample',
      'pack:aozora',
      'pack:chinese-classics',
    ];
    expect(listed.map((p) => p.id)).toEqual(expect.arrayContaining(ids));
    for (const p of listed) {
      const info = await verifyPackFile(p.path);
      expect(info.listed).toBe(true);
      expect(info.sha256).toBe(p.sha256);
      expect(info.file_bytes).toBe(p.bytes);
      const manifest = await readPackManifestWith(nodePackFs, join(packs, p.manifest));
      const { id, kb_dataset, window, built } = manifest;
      expect(info).toMatchObject({ id, kb_dataset, window, built });
      expect(info.counts).toMatchObject({ documents: manifest.documents.length, words: p.words, ngrams: p.ngrams });
      expect(info.documents.map((d) => d.sha256)).toEqual(manifest.documents.map((d) => d.sha256));
      expect(info.bytes_per_ngram).toBeLessThan(1.5);
    }
    const gutenberg = listed.find((p) => p.id === 'pack:gutenberg')!;
    expect(gutenberg.documents).toBeGreaterThanOrEqual(500);
    // English Wikipedia: ≥ 20,000 articles, grouped one document per extractor file titled '<n> articles, …'
    const wiki = await readPackManifestWith(nodePackFs, join(packs, 'wikipedia-articles/manifest.json'));
    const articles = wiki.documents.reduce((n, d) => n + Number(/^(\d+) articles/.exec(d.title ?? '')?.[1] ?? 0), 0);
    expect(articles).toBeGreaterThanOrEqual(20_000);
    expect(wiki.selection).toContain(`${articles.toLocaleString('en')} articles`);
    expect(listed.filter((p) => p.default).reduce((a, p) => a + p.bytes, 0)).toBeLessThanOrEqual(DEFAULT_BUDGET);
  });

  it('refuses a pack file whose SHA-256 is not the listed one', async () => {
    const p = (await listPacks(packs)).find((x) => x.id === 'pack:gutenberg-sample')!;
    await expect(verifyPackFile(p.path, { sha256: 'f'.repeat(64) })).rejects.toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
    });
  });

  it("createEngine({ packs: 'default' }): a packed book links to Gutenberg, new text finds nothing", async () => {
    const engine = await createEngine({ packs: 'default' });
    const defaults = (await listPacks(packs)).filter((p) => p.default);
    expect(
      engine
        .datasets()
        .map((d) => d.id)
        .sort(),
    ).toEqual(defaults.map((p) => p.id).sort());
    // the book packs of other languages link to mC4, the Japanese and Chinese packs to the crawl that holds their
    // sites' pages (docs/packs.md)
    expect(new Set(engine.datasets().map((d) => d.kb_dataset))).toEqual(
      new Set(['project-gutenberg', 'wikipedia', 'mc4', 'common-crawl']),
    );
    // Persuasion (ebook #105) is in the Gutenberg pack; the fixture is NLTK's copy, another transcription of it
    const persuasion = book('austen-persuasion').split(/\s+/).slice(20000, 20100).join(' ');
    const hit = await engine.analyze({ content: persuasion, content_type: 'text' });
    expect(hit.matches.some((m) => m.dataset_id === 'pack:gutenberg')).toBe(true);
    expect(hit.attribution_sources.some((s) => JSON.stringify(s).includes('project-gutenberg'))).toBe(true);
    expect((await engine.analyze({ content: ORIGINAL, content_type: 'text' })).matches).toEqual([]);
    engine.dispose();
  });

  it("loadDefaultPacks (trainprint/node) loads the same packs as createEngine({ packs: 'default' })", async () => {
    const engine = await createEngine();
    const loaded = await loadDefaultPacks(engine);
    const defaults = (await listPacks(packs)).filter((p) => p.default);
    expect(loaded.map((l) => l.info.sha256)).toEqual(defaults.map((p) => p.sha256));
    engine.dispose();
  });

  it('keeps the provenance of every document in the pack itself', async () => {
    const info = await readPackInfo(new Uint8Array(readFileSync(join(packs, 'gutenberg.tpk'))));
    expect(info.sources[0]).toMatchObject({ repository: 'rcdm-uga/Gutenberg_Text' });
    expect(info.sources[0].commit).toMatch(/^[0-9a-f]{40}$/);
    expect(info.documents.find((d) => d.ebook === 1342)).toMatchObject({
      title: 'Pride and Prejudice',
      author: 'Jane Austen',
    });
    expect(info.licence.texts).toContain('Public domain');
  });
});

/**
 * A packs folder in `tmp` holding the sample pack as its one default pack, listed with `sha256`
 * (the real one unless a test gives another), optionally without the pack file itself.
 */
function samplePacksFolder(name: string, change: { sha256?: string; missing?: boolean } = {}): string {
  const index = JSON.parse(readFileSync(join(packs, 'index.json'), 'utf8'));
  const entry = index.packs.find((p: { id: string }) => p.id === 'pack:gutenberg-sample');
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  if (!change.missing) copyFileSync(join(packs, entry.file), join(dir, entry.file));
  const listed = { ...entry, default: true, sha256: change.sha256 ?? entry.sha256 };
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ ...index, packs: [listed] }));
  return dir;
}

describe('default packs from a URL (packsUrl)', () => {
  const good = samplePacksFolder('good');
  const tampered = samplePacksFolder('tampered', { sha256: 'e'.repeat(64) });
  samplePacksFolder('missing', { missing: true });
  const files = serveStatic(tmp);
  const server = createServer(async (req, res) => {
    const r = (await files(new Request(`http://127.0.0.1${req.url}`))) ?? new Response('not found', { status: 404 });
    res.writeHead(r.status, Object.fromEntries(r.headers));
    res.end(Buffer.from(await r.arrayBuffer()));
  });
  const listening = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/`);
    }),
  );
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches the index and the listed file over HTTP, checks it and loads it', async () => {
    const engine = await createEngine({ packs: 'default', packsUrl: `${await listening}good` });
    expect(engine.datasets().map((d) => [d.id, d.kb_dataset])).toEqual([
      ['pack:gutenberg-sample', 'project-gutenberg'],
    ]);
    const persuasion = book('austen-persuasion').split(/\s+/).slice(20000, 20100).join(' ');
    expect((await engine.analyze({ content: persuasion, content_type: 'text' })).matches.length).toBeGreaterThan(0);
    engine.dispose();
  });

  it('reads a file: URL from disk as well', async () => {
    const engine = await createEngine();
    const loaded = await loadDefaultPacksFromUrl(engine, pathToFileURL(good));
    expect(loaded.map((l) => l.stats.id)).toEqual(['pack:gutenberg-sample']);
    engine.dispose();
  });

  it('refuses a pack whose SHA-256 is not the listed one, over HTTP and from disk, loading nothing', async () => {
    const url = `${await listening}tampered/`;
    await expect(createEngine({ packs: 'default', packsUrl: url })).rejects.toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
      message: expect.stringContaining('SHA-256 mismatch'),
    });
    const engine = await createEngine();
    await expect(loadDefaultPacksFromUrl(engine, pathToFileURL(tampered))).rejects.toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
    });
    expect(engine.datasets()).toEqual([]);
    engine.dispose();
  });

  it('answers a missing file, a missing index or a bad URL with INVALID_INPUT', async () => {
    const base = await listening;
    await expect(createEngine({ packs: 'default', packsUrl: `${base}missing/` })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('HTTP 404'),
    });
    await expect(createEngine({ packs: 'default', packsUrl: `${base}nowhere/` })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createEngine({ packs: 'default', packsUrl: 'not a url' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createEngine({ packs: 'all' as 'default' })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});

describe.runIf(existsSync(join(root, 'dist/cli.js')))('trainprint packs (dist/cli.js)', () => {
  const run = (...args: string[]) =>
    promisify(execFile)(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: tmp });

  it('lists, verifies and describes the shipped packs', async () => {
    const list = await run('packs', 'list');
    expect(list.stdout).toContain('pack:gutenberg');
    expect(list.stdout).toContain('(default)');
    const verify = await run('packs', 'verify');
    expect(verify.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength((await listPacks(packs)).length);
    const info = JSON.parse((await run('packs', 'info', 'pack:wikipedia-wikitext')).stdout);
    expect(info).toMatchObject({ id: 'pack:wikipedia-wikitext', kb_dataset: 'wikipedia', listed: true });
  });

  it('a name that is no file nor id suggests the id it could mean (gutenberg → pack:gutenberg)', async () => {
    type Failed = { code?: number; stderr: string };
    const failed: Failed = await run('packs', 'info', 'gutenberg').catch((e: Failed) => e);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(
      'gutenberg: no such file, and no listed pack has this id; did you mean pack:gutenberg?',
    );
    const other: Failed = await run('packs', 'info', 'no-such-pack').catch((e: Failed) => e);
    expect(other.stderr).toContain('no listed pack has this id (trainprint packs list shows the ids)');
  });

  it('builds a pack from a manifest (same SHA-256 as listed)', async () => {
    const entry = (await readPackIndexWith(nodePackFs, packs)).packs.find((p) => p.id === 'pack:gutenberg-sample')!;
    const out = join(tmp, 'cli-sample.tpk');
    const r = await run('pack', 'build', join(packs, entry.manifest), '--out', out);
    expect(JSON.parse(r.stdout)).toMatchObject({ sha256: entry.sha256, file_bytes: entry.bytes });
  });
});

describe.runIf(existsSync(join(root, 'dist/cli.js')))('the default server (serve --starter): default packs', () => {
  let child: ChildProcess;
  let url = '';
  let key = '';
  beforeAll(async () => {
    child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'serve', '--starter', '--port', '0'], { cwd: tmp });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    for (let i = 0; i < 400 && !(url && key); i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? '';
      key = /(tp_test_[A-Za-z0-9]{32})/.exec(out)?.[1] ?? '';
    }
    if (!url || !key) throw new Error(`serve did not start:\n${out}`);
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  const analyze = async (content: string) => {
    const res = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content, content_type: 'text' }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as {
      matches: {
        dataset_id: string;
        kind?: string;
        document?: { ebook?: number; url?: string };
        article?: { title: string; url?: string };
      }[];
      confidence: number;
      attribution_sources: { model: string; kb_dataset: string | null; dataset_id: string; confidence: number }[];
    };
  };

  // the models the knowledge base documents as trained on Project Gutenberg (PG-19, The Pile's Gutenberg part …)
  const documented = new Set(
    knowledgeBase()
      .models({ dataset: 'project-gutenberg' })
      .map((m) => m.id),
  );

  it.each(famous.passages.map((p) => [`${p.author}, ${p.title.split(/[;:]| or,/)[0]}`, p.passage, p.ebook] as const))(
    '%s: 100 words attributed to models trained on Project Gutenberg, confidence ≥ 80, the book named',
    async (_name, passage, ebook) => {
      const r = await analyze(passage);
      expect(r.matches.some((m) => m.dataset_id === 'pack:gutenberg')).toBe(true);
      // the pack names the book: its ebook number and a link to it
      const named = r.matches.filter((m) => m.dataset_id === 'pack:gutenberg' && m.kind === 'portrait');
      expect(named.some((m) => m.document?.ebook === ebook && m.document?.url?.endsWith(`/${ebook}`))).toBe(true);
      expect(r.confidence).toBeGreaterThanOrEqual(80);
      const sources = r.attribution_sources.filter((s) => s.dataset_id === 'pack:gutenberg');
      expect(sources.length).toBeGreaterThan(0);
      for (const s of sources) {
        expect(s.kb_dataset).toBe('project-gutenberg');
        expect(documented.has(s.model), s.model).toBe(true);
      }
      // The Pile's models (EleutherAI's Pythia, GPT-J, GPT-NeoX) are among them
      expect(sources.some((s) => s.model.startsWith('eleutherai/'))).toBe(true);
    },
  );

  const onWikipedia = new Set(
    knowledgeBase()
      .models({ dataset: 'wikipedia' })
      .map((m) => m.id),
  );
  it.each(wikipedia.passages.map((p) => [`${p.title} (${p.pack})`, p.pack, p.passage]))(
    'Wikipedia, %s: 100 words attributed to models trained on English Wikipedia, confidence ≥ 80, naming the article',
    async (name, pack, passage) => {
      const r = await analyze(passage);
      expect(r.matches.some((m) => m.dataset_id === pack)).toBe(true);
      expect(r.confidence).toBeGreaterThanOrEqual(80);
      // the match names the article, not only the extractor file that holds it, and links it by page id
      const article = r.matches.find((m) => m.dataset_id === pack && m.kind === 'portrait' && m.article)?.article;
      expect(article?.title).toBe(name.replace(/ \(pack:.*\)$/, ''));
      expect(article?.url).toMatch(/^https:\/\/en\.wikipedia\.org\/wiki\?curid=\d+$/);
      const sources = r.attribution_sources.filter((s) => s.dataset_id === pack);
      expect(sources.length).toBeGreaterThan(0);
      for (const s of sources) {
        expect(s.kb_dataset).toBe('wikipedia');
        expect(onWikipedia.has(s.model), s.model).toBe(true);
      }
    },
  );

  it('original writing: no match, no attribution', async () => {
    const r = await analyze(ORIGINAL);
    expect(r.matches).toEqual([]);
    expect(r.attribution_sources).toEqual([]);
  });

  // Written for these tests and in no dataset: a 70-word paragraph that the packs once answered with 94 (common
  // phrases of 601 books and 30,000 articles counted as evidence) and a 1,532-word essay
  it.each([
    ['the 70-word lighthouse paragraph', LIGHTHOUSE],
    ['a 1,532-word unpublished essay', readFileSync(join(root, 'test/fixtures/texts/unpublished-essay.txt'), 'utf8')],
  ])('%s: confidence < 50, no model named at 50 or more, the summary says why', async (_name, text) => {
    const r = (await analyze(text)) as Awaited<ReturnType<typeof analyze>> & {
      corpus_evidence: { strongest: unknown; summary: string };
      evidence: { datasets: { dataset_id: string; found: number; counted: boolean }[] };
      limitations: string[];
    };
    expect(r.confidence).toBeLessThan(50);
    expect(r.attribution_sources.filter((s) => s.confidence >= 50)).toEqual([]);
    // the packs hold some of its common phrases: shown for the record, not evidence
    expect(r.evidence.datasets.some((d) => d.dataset_id.startsWith('pack:') && d.found > 0)).toBe(true);
    expect(r.evidence.datasets.every((d) => !d.counted)).toBe(true);
    expect(r.limitations).toContain('scattered_common_phrases');
    expect(r.corpus_evidence.strongest).toBeNull();
    expect(r.corpus_evidence.summary).toMatch(/^No corpus evidence/);
  });
});
