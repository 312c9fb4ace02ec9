/**
 * Exact datasets kept in PostgreSQL (src/store/postgres/dataset.ts, src/corpus/stored.ts), on a real
 * throwaway cluster: the same documents give the same search, analyze and score results as the
 * in-memory dataset (loaded from documents, from a dataset file, or copied from a loaded dataset); the
 * posting tables really are hash-partitioned; bad input and options are typed errors; the sync search
 * refuses a stored dataset; and a database that goes away is STORE_UNAVAILABLE, 503 over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { createEngine, type Engine, type SearchOptions, type SearchResult } from '../../src/index.js';
import {
  createPostgresDataset,
  openPostgresDataset,
  openPostgresDatasets,
  type PostgresDataset,
} from '../../src/store/node.js';
import { TrainprintError, type ErrorCode } from '../../src/errors.js';
import { knowledgeBase } from '../../src/services/kb/index.js';
import { book, licences } from '../fixtures/texts/index.js';
import { startApi } from '../fixtures/http/harness.js';
import { describePostgres } from '../pg/postgres.js';
import { obfuscate } from '../fixtures/obfuscate.js';

type Outcome = { code: ErrorCode | 'resolved' | 'other'; message: string };

async function failure(p: Promise<unknown> | (() => unknown)): Promise<Outcome> {
  try {
    await (typeof p === 'function' ? p() : p);
    return { code: 'resolved', message: '' };
  } catch (e) {
    return { code: e instanceof TrainprintError ? e.code : 'other', message: String((e as Error).message) };
  }
}

/** The code a call fails with ('resolved' when it does not). */
const codeOf = async (p: Promise<unknown> | (() => unknown)): Promise<Outcome['code']> => (await failure(p)).code;

/** Sections of ~`size` characters of `text`, cut at paragraph breaks. */
function sections(name: string, text: string, size: number): Array<{ id: string; text: string }> {
  const out: Array<{ id: string; text: string }> = [];
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n\n', at + size);
    if (end < 0) end = text.length;
    out.push({ id: `${name}-${out.length}`, text: text.slice(at, end) });
    at = end;
  }
  return out;
}

// A notice that 80 of the sections carry: its content-word pairs are in more documents than a pair
// lookup returns (64), so the too-common path of the stored dataset is taken.
const NOTICE =
  'This transcription was proofread by volunteers of the Example Reading Society, who checked ' +
  'every chapter against the printed edition and corrected spelling, punctuation and page headings.';

const persuasion = book('austen-persuasion');
const thursday = book('chesterton-thursday');
const caesar = book('shakespeare-caesar');
const milton = book('milton-paradise');
const lic = licences();

const DOCUMENTS = [
  ...sections('persuasion', persuasion.slice(0, 240_000), 6000),
  ...sections('thursday', thursday.slice(0, 160_000), 6000),
  ...sections('caesar', caesar, 9000),
  ...Object.entries(lic).map(([id, text]) => ({ id, text, meta: { spdx: id } })),
  { id: 'unicode', text: `Ünïcödé — “quoted” 🙂: ${thursday.slice(200_000, 203_000)} ☃ Straße 東京`, meta: { n: 1 } },
].map((d, i) => (i % 4 !== 3 ? { ...d, text: `${d.text}\n\n${NOTICE}` } : d));

const GPL2_EDITED = lic['GPL-2.0-only'].replace(/software/g, 'program code').replace(/License/g, 'Licence');

/** The queries compared: verbatim, edited, near-duplicate, boilerplate, non-ASCII, unrelated, empty. */
const QUERIES: string[] = [
  `${milton.slice(1000, 3000)}\n\n${persuasion.slice(50_500, 52_500)}\n\n${milton.slice(9000, 10_000)}`,
  [milton.slice(20_000, 21_500), obfuscate(persuasion.slice(120_000, 122_500), 7), milton.slice(30_000, 30_800)].join(
    '\n\n',
  ),
  `${obfuscate(thursday.slice(30_000, 32_000), 11, 5)} ${caesar.slice(40_000, 41_000)}`,
  GPL2_EDITED,
  `${NOTICE}\n\n${milton.slice(50_000, 51_000)}\n\n${NOTICE}`,
  `Before: ${thursday.slice(200_500, 202_000)} ☃ after 🙂`,
  `${persuasion.slice(21_500, 25_000)}\n\n${NOTICE}`,
  milton.slice(100_000, 104_000),
  '',
  'word',
];
const OPTION_SETS: SearchOptions[] = [
  { alignBudgetMs: 60_000 },
  { alignBudgetMs: 60_000, candidates: 0 },
  { alignBudgetMs: 60_000, minTokens: 20, near: 0.3, candidates: 3 },
];

/** A result with the dataset ids renamed (a copy kept under another id). */
const renamed = (r: SearchResult, from: string, to: string): SearchResult =>
  JSON.parse(JSON.stringify(r).replaceAll(`"${from}"`, `"${to}"`));

/** A TCP proxy to the database that can be cut: the database "goes away" for whoever connects through it. */
async function proxy(url: string): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const through = new URL(url);
  through.port = String((server.address() as { port: number }).port);
  return {
    url: through.toString(),
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describePostgres('exact datasets in PostgreSQL', (db) => {
  let memory: Engine;
  let stored: Engine;
  let books: PostgresDataset;
  const opened: PostgresDataset[] = [];
  const model = knowledgeBase()
    .modelsTrainedOn('project-gutenberg')
    .find((l) => l.via.length === 1 && l.model.disclosure === 'full')!.model.id;
  const descriptor = { id: 'books', name: 'Books and licences', kb_dataset: 'project-gutenberg' };

  beforeAll(async () => {
    memory = await createEngine();
    await memory.addDataset(descriptor, DOCUMENTS);
    stored = await createEngine();
    books = await createPostgresDataset({ url: db.url, schema: db.schema(), ...descriptor });
    opened.push(books);
    await stored.attachDataset(books);
    await stored.addDataset({ id: 'books' }, DOCUMENTS);
  });
  afterAll(async () => {
    memory?.dispose();
    stored?.dispose();
    await Promise.all(opened.map((d) => d.close()));
  });

  it('keeps the counts of the in-memory dataset, and says where it lives', () => {
    const [m] = memory.datasets();
    const [s] = stored.datasets();
    const { index_bytes: mi, ...mRest } = m;
    const { index_bytes: si, storage, ...sRest } = s;
    expect(sRest).toEqual(mRest);
    expect(storage).toBe('postgres');
    expect(si).toBeGreaterThan(mi); // rows, pages and B-trees take more than packed arrays
  });

  it('searches like the in-memory dataset: same matches, spans, scores, alignment and near-duplicates', async () => {
    let aligned = 0,
      near = 0,
      matched = 0;
    for (const options of OPTION_SETS) {
      for (const q of QUERIES) {
        const want = memory.search(q, options);
        const got = await stored.searchAsync(q, options);
        expect(got, `${JSON.stringify(options)} ${q.slice(0, 40)}`).toEqual(want);
        expect(await memory.searchAsync(q, options)).toEqual(want);
        matched += want.matches.length;
        aligned += want.matches.filter((m) => m.kind === 'exact' && m.aligned).length;
        near += want.matches.filter((m) => m.kind === 'near').length;
      }
    }
    // the comparison covered seed matches, aligned passages and near-duplicates
    expect(matched).toBeGreaterThan(20);
    expect(aligned).toBeGreaterThan(2);
    expect(near).toBeGreaterThan(0);
  });

  it('gives the same analysis and the same score', async () => {
    const strip = (r: object) => {
      const { analysis_id: _a, created_at: _c, processing_time_ms: _p, ...rest } = r as Record<string, unknown>;
      return rest;
    };
    for (const content of [QUERIES[0], QUERIES[1], QUERIES[3]]) {
      const a = await memory.analyze({ content, content_type: 'text', metadata: { jurisdiction: 'US' } });
      const b = await stored.analyze({ content, content_type: 'text', metadata: { jurisdiction: 'US' } });
      expect(strip(b)).toEqual(strip(a));
    }
    const content = persuasion.slice(60_000, 75_000);
    const scores = [];
    for (const e of [memory, stored]) {
      const w = await e.registerWork({ content, owner: 'estate', work_type: 'book' });
      scores.push(await e.score({ work_hash: w.work_hash, target_model: model, jurisdiction: 'US' }));
    }
    const [ms, ss] = scores.map(({ work_id: _w, ...s }) => strip(s));
    expect(ss).toEqual(ms);
    expect(scores[0].tier).not.toBe('inconclusive');
  });

  it('loads a dataset file into PostgreSQL, and copies a loaded dataset, with the same results', async () => {
    const bytes = memory.exportDataset('books');
    const engine = await createEngine();
    try {
      const fromFile = await createPostgresDataset({ url: db.url, schema: db.schema(), ...descriptor, partitions: 4 });
      opened.push(fromFile);
      await engine.attachDataset(fromFile);
      await engine.importDataset(bytes, { into: 'books' });
      const copy = await createPostgresDataset({ url: db.url, schema: db.schema(), ...descriptor, id: 'books-copy' });
      opened.push(copy);
      await engine.attachDataset(copy);
      // only an in-memory dataset is copied ('books' is stored here)
      expect(await codeOf(engine.copyDataset('books', 'books-copy'))).toBe('INVALID_OPTIONS');
      const side = await createEngine();
      await side.importDataset(bytes);
      await side.attachDataset(copy);
      await side.copyDataset('books', 'books-copy');
      side.dispose();
      for (const q of QUERIES.slice(0, 4)) {
        const want = memory.search(q, OPTION_SETS[0]);
        expect(await engine.searchAsync(q, { ...OPTION_SETS[0], datasets: ['books'] })).toEqual(want);
        const copied = await engine.searchAsync(q, { ...OPTION_SETS[0], datasets: ['books-copy'] });
        expect(copied).toEqual(renamed(want, 'books', 'books-copy'));
      }
    } finally {
      engine.dispose();
    }
  });

  it('hash-partitions the fingerprint and pair tables (pg_partitioned_table, pg_inherits)', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const parts = async (table: string) =>
        (
          await client.query(
            `SELECT p.partstrat, a.attname, count(i.inhrelid)::int AS n
          FROM pg_partitioned_table p JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
          JOIN pg_inherits i ON i.inhparent = p.partrelid
          WHERE p.partrelid = $1::regclass GROUP BY p.partstrat, a.attname`,
            [`"${books.schema}"."${books.tables}_${table}"`],
          )
        ).rows[0];
      expect(books.partitions).toBe(16);
      expect(await parts('fingerprints')).toEqual({ partstrat: 'h', attname: 'hash', n: 16 });
      expect(await parts('pairs')).toEqual({ partstrat: 'h', attname: 'hash', n: 16 });
      // every partition holds some of the rows, and they add up to the dataset's fingerprints
      const rows = await client.query(`SELECT tableoid::regclass AS part, count(*)::int AS n
        FROM "${books.schema}"."${books.tables}_fingerprints" GROUP BY 1`);
      expect(rows.rows).toHaveLength(16);
      expect(rows.rows.reduce((a, r) => a + r.n, 0)).toBe(stored.datasets()[0].fingerprints);
      // each partition has its own index on hash
      const idx = await client.query(
        `SELECT count(*)::int AS n FROM pg_index x
        JOIN pg_inherits i ON i.inhrelid = x.indrelid WHERE i.inhparent = $1::regclass`,
        [`"${books.schema}"."${books.tables}_fingerprints"`],
      );
      expect(idx.rows[0].n).toBe(16);
    } finally {
      await client.end();
    }
  });

  it("opens a stored dataset from another process's view: by id, by URL parameter, all of a schema", async () => {
    const one = await openPostgresDataset({ url: db.url, schema: books.schema, id: 'books' });
    const url = new URL(db.url);
    url.searchParams.set('schema', books.schema);
    url.searchParams.set('dataset', 'books');
    const two = await openPostgresDataset({ url: url.toString() });
    url.searchParams.delete('dataset');
    const all = await openPostgresDatasets({ url: url.toString() });
    opened.push(one, two, ...all);
    expect(all.map((d) => d.id)).toEqual(['books']);
    const engine = await createEngine();
    try {
      await engine.attachDataset(two);
      expect(await engine.searchAsync(QUERIES[0], OPTION_SETS[0])).toEqual(memory.search(QUERIES[0], OPTION_SETS[0]));
      expect((await one.info()).documents).toBe(DOCUMENTS.length);
    } finally {
      engine.dispose();
    }
  });

  it('refuses what it cannot do with typed errors', async () => {
    const schema = db.schema();
    const url = db.url;
    expect(await codeOf(createPostgresDataset({ url, schema, id: 'x', partitions: 0 }))).toBe('INVALID_OPTIONS');
    expect(await codeOf(createPostgresDataset({ url, schema, id: 'x', partitions: 2.5 }))).toBe('INVALID_OPTIONS');
    expect(await codeOf(createPostgresDataset({ url, schema, id: '' }))).toBe('INVALID_INPUT');
    expect(await codeOf(createPostgresDataset({ url, schema: 'Bad-Schema', id: 'x' }))).toBe('INVALID_OPTIONS');
    expect(await codeOf(createPostgresDataset({ url: 'mysql://x/y', id: 'x' }))).toBe('INVALID_OPTIONS');
    expect(await codeOf(createPostgresDataset({ url, pool: {} as never, id: 'x' }))).toBe('INVALID_OPTIONS');
    const a = await createPostgresDataset({ url, schema, id: 'small', keep_text: false, partitions: 2 });
    opened.push(a);
    expect(await codeOf(createPostgresDataset({ url, schema, id: 'small' }))).toBe('ALREADY_EXISTS');
    expect(await codeOf(openPostgresDataset({ url, schema, id: 'nothing' }))).toBe('NOT_FOUND');
    expect(await codeOf(openPostgresDataset({ url, schema }))).toBe('INVALID_OPTIONS');
    const engine = await createEngine();
    try {
      await engine.addDataset({ id: 'mem' }, DOCUMENTS.slice(0, 3));
      await engine.attachDataset(a);
      expect(await codeOf(engine.attachDataset(a))).toBe('ALREADY_EXISTS');
      await engine.addDataset({ id: 'small' }, DOCUMENTS.slice(0, 5));
      // a document id already stored, a kind or keep_text that differ
      expect(await codeOf(engine.addDataset({ id: 'small' }, [DOCUMENTS[2]]))).toBe('ALREADY_EXISTS');
      expect(await codeOf(engine.addDataset({ id: 'small', kind: 'portrait' }, []))).toBe('INVALID_OPTIONS');
      expect(await codeOf(engine.addDataset({ id: 'small', keep_text: true }, []))).toBe('INVALID_OPTIONS');
      const nul = [{ id: 'nul\u0000id', text: 'some words here' }];
      expect(await codeOf(engine.addDataset({ id: 'small' }, nul))).toBe('INVALID_INPUT');
      expect(engine.datasets().find((d) => d.id === 'small')!.documents).toBe(5);
      // the sync paths refuse a stored dataset, naming the async one; other datasets stay searchable
      const sync = await failure(() => engine.search(QUERIES[0]));
      expect(sync).toMatchObject({ code: 'NOT_SUPPORTED' });
      expect(sync.message).toContain('searchAsync');
      const inMemory = engine.search(DOCUMENTS[1].text.slice(500, 3000), { datasets: ['mem'] });
      expect(inMemory.matches.length).toBeGreaterThan(0);
      expect(await codeOf(() => engine.exportDataset('small'))).toBe('NOT_SUPPORTED');
      expect(await codeOf(() => engine.documentText('small', DOCUMENTS[0].id))).toBe('NOT_SUPPORTED');
      expect(await codeOf(() => engine.declareDataset('small', { models: [] }))).toBe('NOT_SUPPORTED');
      const file = engine.exportDataset('mem');
      expect(await codeOf(engine.importDataset(file, { into: 'mem' }))).toBe('INVALID_OPTIONS');
      // without text: seed matches only, and the report says which dataset kept none
      const r = await engine.searchAsync(DOCUMENTS[1].text.slice(500, 3000), { datasets: ['small'] });
      expect(r.matches.length).toBeGreaterThan(0);
      expect(r.alignment.without_text).toEqual(['small']);
      // detached, it stays in the database
      expect(engine.removeDataset('small')).toBe(true);
      expect((await a.info()).documents).toBe(5);
      await a.drop();
      expect(await codeOf(openPostgresDataset({ url, schema, id: 'small' }))).toBe('NOT_FOUND');
      expect(await codeOf(a.info())).toBe('STORE_CLOSED');
    } finally {
      engine.dispose();
    }
  });

  it('an unreachable database is STORE_UNAVAILABLE without the password, and 503 over HTTP', async () => {
    const closed = new URL(db.url);
    closed.port = '1';
    const refused = await failure(createPostgresDataset({ url: closed.toString(), id: 'x' }));
    expect(refused.code).toBe('STORE_UNAVAILABLE');
    expect(refused.message).not.toContain(decodeURIComponent(closed.password));
    // attached through a proxy that is then cut: searches, analyze and the HTTP route fail as unavailable
    const p = await proxy(db.url);
    const far = await openPostgresDataset({ url: p.url, schema: books.schema, id: 'books', connectTimeoutMs: 2000 });
    opened.push(far);
    const engine = await createEngine();
    await engine.attachDataset(far);
    const api = await startApi({}, engine);
    try {
      const { key } = await api.keys.createKey({ account: 'acme', plan: 'pro', scopes: ['analyze', 'datasets:read'] });
      const listed = await api.call('GET', '/api/v1/datasets', { key });
      expect(listed.json.datasets[0]).toMatchObject({ id: 'books', storage: 'postgres' });
      const exported = await api.call('GET', '/api/v1/datasets/books/export', { key });
      expect(exported.status).toBe(501);
      expect(exported.json.error.code).toBe('NOT_SUPPORTED');
      const body = { content: QUERIES[0], content_type: 'text' };
      expect((await api.call('POST', '/api/v1/attribution/analyze', { key, json: body })).status).toBe(200);
      await p.cut();
      expect(await codeOf(engine.searchAsync(QUERIES[0]))).toBe('STORE_UNAVAILABLE');
      const r = await api.call('POST', '/api/v1/attribution/analyze', { key, json: body });
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe('STORE_UNAVAILABLE');
    } finally {
      await api.close();
    }
  });
});
