/**
 * The scan queue (src/node/queue: scan jobs of the job model on the PostgreSQL store) against a real PostgreSQL,
 * with a stand-in scanner (hits where an item says "SECRET-<n>"), so these tests check the queue and not the scan:
 * the streamed enqueue in chunks by items and bytes, the export in job order, the same jobs read through the store's
 * job service (what `serve --store` lists), a failed item as a failed result, exactly once when a worker vanishes
 * mid-chunk, the refusal of a job whose datasets differ, and an enqueue cut short leaving no job.
 */
import { expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { createJobService, type ScanHit, type ScanItem } from '../../src/library.js';
import { keyedCall } from '../fixtures/http/keyed-call.js';
import { openScanQueue, type QueueScanner } from '../../src/node/queue/index.js';
import { openPostgresStore } from '../../src/store/node.js';
import { describePostgres } from '../pg/postgres.js';

const SHA = 'a'.repeat(64);

/** Hits where an item's text says SECRET-<n>: deterministic, like the real scan. `calls` counts scans per item. */
function fakeScanner(sha = SHA, failOn?: string): QueueScanner & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  return {
    calls,
    datasets: () => [{ id: 'ds', kind: 'exact' }],
    datasetDigest: async () => sha,
    async scanItem(item) {
      calls.set(item.id, (calls.get(item.id) ?? 0) + 1);
      if (item.id === failOn) throw new Error(`cannot scan ${item.id}`);
      return hitsOf(item);
    },
  };
}

function hitsOf(item: ScanItem): ScanHit[] {
  const out: ScanHit[] = [];
  for (const m of item.text.matchAll(/SECRET-(\d+)/g)) {
    const start = m.index ?? 0;
    out.push({
      id: item.id,
      dataset_id: 'ds',
      document_id: `doc-${m[1]}`,
      query_start: start,
      query_end: start + m[0].length,
      source_start: 0,
      source_end: m[0].length,
      words: 1,
      kind: 'verbatim',
    });
  }
  return out;
}

function makeItems(n: number, prefix = 'item'): ScanItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    text: `text ${i} ${i % 7 === 0 ? `SECRET-${i} and SECRET-${i + 1}` : 'clean'} ${'x'.repeat(i % 50)}`,
  }));
}

async function collect<T>(it: AsyncGenerator<T, unknown>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const FAST = { pollIntervalMs: 20 };
const DATASETS = [{ id: 'ds', sha256: SHA }];

describePostgres('scan queue', (db) => {
  it('enqueues in chunks by items and bytes; works a job to done; exports its hits in job order; serve lists it', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST });
    try {
      const items = makeItems(1234);
      const chunks: number[] = [];
      const byItems = await queue.enqueue(items, {
        datasets: DATASETS,
        chunkItems: 100,
        onChunk: (j) => chunks.push(j.total),
      });
      expect(byItems).toMatchObject({ items: 1234 });
      expect(chunks).toEqual([0, ...Array.from({ length: 12 }, (_, i) => (i + 1) * 100), 1234]);
      expect(await queue.jobs.status(byItems.job, { owner: '' })).toMatchObject({
        state: 'queued',
        type: 'scan',
        total: 1234,
      });
      const big = [
        { id: 'a', text: 'x'.repeat(300) },
        { id: 'b', text: 'y'.repeat(300) },
        { id: 'c', text: 'z'.repeat(2000) },
        { id: 'd', text: 'w' },
      ];
      const sizes: number[] = [];
      const byBytes = await queue.enqueue(big, {
        datasets: DATASETS,
        chunkBytes: 700,
        onChunk: (j) => sizes.push(j.total),
      });
      expect(sizes).toEqual([0, 2, 3, 4]); // [a b] [c] alone (larger than a chunk) [d]

      const scanner = fakeScanner();
      const summary = await queue.work(scanner, { job: byItems.job, concurrency: 2 });
      expect(summary).toMatchObject({ chunks: 13, items: 1234 });
      expect([...scanner.calls.values()].every((n) => n === 1)).toBe(true);
      const expected = items.flatMap(hitsOf);
      expect(await queue.jobs.status(byItems.job, { owner: '' })).toMatchObject({
        state: 'done',
        done: 1234,
        failed: 0,
      });
      expect(await collect(queue.exportHits(byItems.job))).toEqual(expected);
      // the other job is still open: exporting it now is a conflict
      await expect(collect(queue.exportHits(byBytes.job))).rejects.toMatchObject({ code: 'CONFLICT' });
      // the same jobs, as a serving process on the same store reads them: the operator's, newest first
      const store = await openPostgresStore(db.url, { schema });
      try {
        const listed = await createJobService({ store }).list({ owner: '' });
        expect(listed.jobs.map((j) => [j.id, j.state])).toEqual([
          [byBytes.job, 'queued'],
          [byItems.job, 'done'],
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await queue.close();
    }
  });

  it('an item whose scan fails has a failed result (the job is done, its failed count says so); cancel stops the rest', async () => {
    const queue = await openScanQueue(db.url, { schema: db.schema(), ...FAST });
    try {
      const items = makeItems(30);
      const { job } = await queue.enqueue(items, { datasets: DATASETS, chunkItems: 10 });
      await queue.work(fakeScanner(SHA, 'item-3'), { job });
      expect(await queue.jobs.status(job, { owner: '' })).toMatchObject({ state: 'done', done: 30, failed: 1 });
      const page = await queue.jobs.results(job, { owner: '', after: 2, limit: 1 });
      expect(page.results[0]).toMatchObject({ index: 3, success: false, error: { message: 'cannot scan item-3' } });
      expect(await collect(queue.exportHits(job))).toEqual(items.filter((i) => i.id !== 'item-3').flatMap(hitsOf));

      const second = await queue.enqueue(items, { datasets: DATASETS, chunkItems: 10 });
      expect(await queue.jobs.cancel(second.job, { owner: '' })).toMatchObject({
        cancelled: true,
        job: { state: 'cancelled' },
      });
      const scanner = fakeScanner();
      await queue.work(scanner, { job: second.job });
      expect(scanner.calls.size).toBe(0); // chunks not claimed never run
    } finally {
      await queue.close();
    }
  });

  it('exactly once: a chunk whose worker vanished is claimed again after its lease, its late completion writes nothing', async () => {
    const queue = await openScanQueue(db.url, { schema: db.schema(), ...FAST, leaseSeconds: 1 });
    try {
      const items = makeItems(40);
      const { job } = await queue.enqueue(items, { datasets: DATASETS, chunkItems: 10 });
      // a worker that claims a chunk and vanishes (kill -9): it never completes in time
      const lost = (await queue.jobs.claim(1000))!;
      expect(lost.first).toBe(0);
      await new Promise((r) => setTimeout(r, 1100));
      await queue.work(fakeScanner(), { job });
      const late = lost.items.map((item, i) => ({
        index: i,
        success: true as const,
        result: { id: (item as ScanItem).id, hits: [] },
      }));
      expect(await queue.jobs.complete(lost, late)).toBe(false);
      expect(await queue.jobs.status(job, { owner: '' })).toMatchObject({ state: 'done', done: 40, failed: 0 });
      expect(await collect(queue.exportHits(job))).toEqual(items.flatMap(hitsOf));
    } finally {
      await queue.close();
    }
  });

  it('a worker refuses a job whose datasets differ by SHA-256 (or that it lacks): nothing run, nothing failed', async () => {
    const queue = await openScanQueue(db.url, { schema: db.schema(), ...FAST });
    try {
      const { job } = await queue.enqueue(makeItems(20), { datasets: DATASETS });
      const other = fakeScanner('b'.repeat(64));
      const refusals: string[] = [];
      await expect(queue.work(other, { job, onRefuse: (_, why) => refusals.push(why) })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining(`dataset "ds" has SHA-256 ${SHA}`),
      });
      expect(refusals.length).toBeGreaterThan(0);
      expect(other.calls.size).toBe(0);
      expect(await queue.jobs.status(job, { owner: '' })).toMatchObject({ done: 0, failed: 0 });
      expect((await queue.jobs.status(job, { owner: '' })).state).not.toBe('failed');
      await queue.work(fakeScanner(), { job }); // a worker with the same dataset does it
      expect((await queue.jobs.status(job, { owner: '' })).state).toBe('done');
    } finally {
      await queue.close();
    }
  });

  it("a queue of an account: its jobs are that account's in GET /api/v1/jobs of a server on the same store", async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST, account: 'ops' });
    const store = await openPostgresStore(db.url, { schema });
    const engine = await createEngine({ store });
    try {
      const { job } = await queue.enqueue(makeItems(25), { datasets: DATASETS, chunkItems: 10 });
      await queue.work(fakeScanner(), { job });
      const keys = new KeyStore(engine.store);
      const ops = await keyedCall(createHandler(engine, { keys }), keys, 'ops');
      const listed = await ops('GET', '/api/v1/jobs');
      expect(listed.status).toBe(200);
      expect(listed.json.jobs).toEqual([
        expect.objectContaining({ job_id: job, type: 'scan', state: 'done', total: 25 }),
      ]);
      const results = await ops('GET', `/api/v1/jobs/${job}/results`);
      expect(results.text.trim().split('\n')).toHaveLength(25);
      const other = await keyedCall(createHandler(engine, { keys }), keys, 'acme');
      expect((await other('GET', `/api/v1/jobs/${job}`)).status).toBe(404);
      expect((await queue.jobs.list({ owner: '' })).jobs).toEqual([]); // not the operator's
    } finally {
      engine.dispose();
      await store.close();
      await queue.close();
    }
  });

  it('an enqueue cut short (signal, bad input) leaves no job', async () => {
    const queue = await openScanQueue(db.url, { schema: db.schema(), ...FAST });
    try {
      const stop = new AbortController();
      async function* slow() {
        yield* makeItems(30);
        stop.abort(new Error('stopped'));
        yield* makeItems(5, 'late');
      }
      await expect(queue.enqueue(slow(), { datasets: DATASETS, chunkItems: 10, signal: stop.signal })).rejects.toThrow(
        'stopped',
      );
      const bad = [...makeItems(15), { id: 7, text: 'x' } as unknown as ScanItem];
      await expect(queue.enqueue(bad, { datasets: DATASETS, chunkItems: 10 })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      await expect(queue.enqueue(makeItems(1), { datasets: [] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect((await queue.jobs.list({ owner: '' })).jobs).toEqual([]);
    } finally {
      await queue.close();
    }
  });
});
