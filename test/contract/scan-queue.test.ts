/**
 * The scan queue (src/node/queue) against a real PostgreSQL, with a stand-in scanner (hits where an item says
 * "SECRET-<n>"), so these tests check the queue and not the scan: chunking, job order of the export, exactly-once
 * writes when a chunk is redone, a chunk whose worker vanished coming back after its lease, the refusal of a job
 * whose datasets differ, failure after the retries, cancel / delete removing pending chunks, retention.
 */
import { expect, it } from 'vitest';
import pg from 'pg';
import { TrainprintError } from '../../src/library.js';
import {
  openScanQueue,
  startBoss,
  type QueueHit,
  type QueueItem,
  type QueueScanner,
} from '../../src/node/queue/index.js';
import { inTransaction, openPool, parseTarget, unavailable } from '../../src/store/node-kit.js';
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

function hitsOf(item: QueueItem): QueueHit[] {
  const out: QueueHit[] = [];
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

function makeItems(n: number, prefix = 'item'): QueueItem[] {
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

const FAST = { pollIntervalMs: 50, maintenanceIntervalSeconds: 1 };

describePostgres('scan queue', (db) => {
  it('chunks by items and by bytes; a job is worked to done and exported in job order, then its texts go', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST });
    try {
      const items = makeItems(1234);
      const byItems = await queue.enqueue(items, { datasets: [{ id: 'ds', sha256: SHA }], chunkItems: 100 });
      expect(byItems).toMatchObject({ items: 1234, chunks: 13 });
      expect(await queue.status(byItems.job)).toMatchObject({ state: 'queued', items_done: 0, items_total: 1234 });
      const big = [
        { id: 'a', text: 'x'.repeat(300) },
        { id: 'b', text: 'y'.repeat(300) },
        { id: 'c', text: 'z'.repeat(2000) },
        { id: 'd', text: 'w' },
      ];
      const byBytes = await queue.enqueue(big, { datasets: [{ id: 'ds', sha256: SHA }], chunkBytes: 700 });
      expect(byBytes).toMatchObject({ items: 4, chunks: 3 }); // [a b] [c] alone (larger than a chunk) [d]
      expect(await queue.latestJob()).toBe(byBytes.job);

      const scanner = fakeScanner();
      const summary = await queue.work(scanner, { job: byItems.job, concurrency: 2 });
      expect(summary).toMatchObject({ chunks: 13, items: 1234 });
      const expected = items.flatMap(hitsOf);
      const st = await queue.status(byItems.job);
      expect(st).toMatchObject({ state: 'done', items_done: 1234, items_total: 1234, hits: expected.length });
      expect(await collect(queue.exportHits(byItems.job))).toEqual(expected);
      // the export's JSON line has exactly the hit's fields in the contract's order
      expect(Object.keys(expected[0])).toEqual([
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
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const left = await client.query(`SELECT count(*)::int AS n FROM "${schema}".chunks WHERE texts IS NOT NULL`);
        expect(left.rows[0].n).toBe(3); // only the other job's
        expect((await queue.status(byItems.job)).exported).toBe(true);
      } finally {
        await client.end();
      }
      // the other job is still open: exporting it now is a conflict
      await expect(collect(queue.exportHits(byBytes.job))).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await queue.close();
    }
  });

  it('the job model: a submitted scan job, run by the one runner over jobStore, gives { id, hits } per item in order', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST });
    try {
      const items = makeItems(23);
      const job = await queue.submit({
        account: '',
        type: 'scan',
        items,
        context: { datasets: [{ id: 'ds', sha256: SHA }], min_words: 1 },
      });
      expect(job).toMatchObject({ account: '', type: 'scan', state: 'queued', total: 23, done: 0 });
      await expect(queue.submit({ account: 'acme', type: 'scan', items })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      await expect(queue.jobInfo(job.id, { owner: 'acme' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await queue.results(job.id, { owner: '' })).toEqual({ results: [], next: -1 }); // nothing yet
      const jobs = queue.jobStore(fakeScanner(), { job: job.id });
      const claim = (await jobs.claim(60_000))!;
      expect(claim).toMatchObject({ chunk: 0, first: 0, context: { datasets: ['ds'], min_words: 1 } });
      expect(claim.items).toEqual(items);
      expect(await jobs.watch(claim)).toBe('held');
      expect(await jobs.renew(claim, 60_000)).toBe(true);
      await jobs.release(claim); // back to pg-boss: the worker takes it again
      expect(await jobs.complete(claim, [])).toBe(false); // a claim given back completes nothing
      await queue.work(fakeScanner(), { job: job.id });
      expect(await queue.jobInfo(job.id, { owner: '' })).toMatchObject({ state: 'done', done: 23, total: 23 });
      const first = await queue.results(job.id, { owner: '', limit: 10 });
      expect(first.next).toBe(9);
      const rest = await queue.results(job.id, { owner: '', after: 9, limit: 100 });
      expect(rest.next).toBeNull();
      const all = [...first.results, ...rest.results];
      expect(all).toEqual(
        items.map((item, index) => ({ index, success: true, result: { id: item.id, hits: hitsOf(item) } })),
      );
      // listed for the operator (newest first), never for an account; the list of the JobStore face is the same
      const second = await queue.submit({
        account: '',
        type: 'scan',
        items: makeItems(1),
        context: { datasets: [{ id: 'ds', sha256: SHA }] },
      });
      const listed = await queue.listJobs({ owner: '', limit: 1 });
      expect(listed.jobs.map((j) => j.id)).toEqual([second.id]);
      expect(listed.next).toBe(second.id);
      expect(await jobs.list({ owner: '', after: listed.next! })).toEqual({
        jobs: [expect.objectContaining({ id: job.id, state: 'done' })],
        next: null,
      });
      expect(await queue.listJobs({ owner: 'acme' })).toEqual({ jobs: [], next: null });
      expect(await queue.deleteJob(second.id, { owner: '' })).toBe(true);
      expect(await queue.cancelJob(job.id, { owner: '' })).toMatchObject({ cancelled: false });
      expect(await queue.deleteJob(job.id, { owner: 'acme' })).toBe(false);
      expect(await queue.deleteJob(job.id, { owner: '' })).toBe(true);
    } finally {
      await queue.close();
    }
  });

  it('exactly once: a chunk done twice writes its hits once; a chunk whose worker vanished comes back after its lease', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST, leaseSeconds: 2 });
    const boss = await startBoss(db.url, { schema: `${schema}_boss`, maintenanceIntervalSeconds: 1 });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const items = makeItems(300);
      const { job } = await queue.enqueue(items, { datasets: [{ id: 'ds', sha256: SHA }], chunkItems: 50 });
      const saved = await client.query(`SELECT texts FROM "${schema}".chunks WHERE job_id = $1 AND seq = 0`, [job]);
      // a worker that takes a chunk and dies (kill -9): the chunk stays active until its lease runs out
      const [taken] = await boss.fetch<{ job: string; seq: number }>(`scan-${job}`);
      expect(taken.data).toEqual({ job, seq: 0 });
      const t0 = Date.now();
      await queue.work(fakeScanner(), { job });
      expect(Date.now() - t0).toBeGreaterThan(1500); // waited for the lease of chunk 0
      const expected = items.flatMap(hitsOf);
      expect(await queue.status(job)).toMatchObject({ state: 'done', items_done: 300, hits: expected.length });

      // chunk 0 again, as if its worker had died after the commit was sent: its texts back, marked not done,
      // and a second pg-boss job for it — the redo writes no hit twice
      await client.query(`UPDATE "${schema}".chunks SET done_at = NULL, texts = $2 WHERE job_id = $1 AND seq = 0`, [
        job,
        saved.rows[0].texts,
      ]);
      await boss.send(`scan-${job}`, { job, seq: 0 });
      const scanner = fakeScanner();
      const again = await queue.work(scanner, { job });
      expect(again).toMatchObject({ chunks: 1, items: 50 });
      expect(scanner.calls.size).toBe(50);
      const hits = await client.query(`SELECT count(*)::int AS n FROM "${schema}".hits WHERE job_id = $1`, [job]);
      expect(hits.rows[0].n).toBe(expected.length);
      expect(await collect(queue.exportHits(job))).toEqual(expected);
      // and a chunk already done is only acknowledged
      await boss.send(`scan-${job}`, { job, seq: 1 });
      const none = await queue.work(fakeScanner(), { job });
      expect(none.chunks).toBe(0);
    } finally {
      await client.end();
      await boss.stop({ graceful: false });
      await queue.close();
    }
  });

  it('a worker refuses a job whose datasets differ by SHA-256 (or that it lacks), before writing anything', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST });
    try {
      const { job } = await queue.enqueue(makeItems(120), { datasets: [{ id: 'ds', sha256: SHA }], chunkItems: 50 });
      const wrong = fakeScanner('b'.repeat(64));
      const refused = await queue.work(wrong).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TrainprintError);
      expect(refused).toMatchObject({ code: 'CONFLICT' });
      expect(String((refused as Error).message)).toMatch(/dataset "ds" has SHA-256 a{64}, this worker's has b{64}/);
      expect(wrong.calls.size).toBe(0);
      const lacking: QueueScanner = { ...fakeScanner(), datasets: () => [{ id: 'other', kind: 'exact' }] };
      await expect(queue.work(lacking, { job })).rejects.toThrow(/which this worker has not loaded/);
      expect(await queue.status(job)).toMatchObject({ state: 'queued', items_done: 0, hits: 0 });
    } finally {
      await queue.close();
    }
  });

  it('a chunk that fails every retry fails the job; cancel and delete take its pending chunks out of pg-boss', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST, retryLimit: 1 });
    const boss = await startBoss(db.url, { schema: `${schema}_boss` });
    try {
      const { job } = await queue.enqueue(makeItems(100), { datasets: [{ id: 'ds', sha256: SHA }], chunkItems: 25 });
      const errors: unknown[] = [];
      const scanner = fakeScanner(SHA, 'item-30');
      await queue.work(scanner, { job, onChunkError: (e) => errors.push(e) });
      expect(errors).toHaveLength(2); // the first try and its one retry
      expect(scanner.calls.get('item-30')).toBe(2);
      const st = await queue.status(job);
      expect(st).toMatchObject({ state: 'failed', items_done: 75, chunks_failed: 1 });
      expect(st.error).toMatch(/cannot scan item-30/);

      const second = await queue.enqueue(makeItems(100, 'b'), {
        datasets: [{ id: 'ds', sha256: SHA }],
        chunkItems: 25,
      });
      expect(await boss.getQueueSize(`scan-${second.job}`)).toBe(4);
      expect(await queue.cancel(second.job)).toBe(true);
      expect(await boss.getQueue(`scan-${second.job}`)).toBeNull();
      expect(await queue.status(second.job)).toMatchObject({ state: 'failed', error: 'cancelled' });
      expect(await queue.delete(second.job)).toBe(true);
      await expect(queue.status(second.job)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await queue.delete(second.job)).toBe(false);
    } finally {
      await boss.stop({ graceful: false });
      await queue.close();
    }
  });

  it('an enqueue cut short (signal, bad input) leaves no job behind', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST });
    try {
      const stop = new AbortController();
      async function* slow() {
        for (const [i, item] of makeItems(400).entries()) {
          if (i === 150) stop.abort(new Error('stopped'));
          yield item;
        }
      }
      const datasets = [{ id: 'ds', sha256: SHA }];
      await expect(queue.enqueue(slow(), { datasets, chunkItems: 50, signal: stop.signal })).rejects.toThrow('stopped');
      const bad = [{ id: 'a', text: 'x' }, { id: 7, text: 'y' } as unknown as QueueItem];
      await expect(queue.enqueue(bad, { datasets })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await queue.latestJob()).toBeUndefined();
    } finally {
      await queue.close();
    }
  });

  it('an enqueue whose connection ends half-way (its process killed) leaves a job that reads failed and is never scanned', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST });
    const worker = await openScanQueue(db.url, { schema, ...FAST });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let job = '';
    try {
      async function* stalled() {
        yield* makeItems(100);
        await gate; // the input has not ended: the job is not sealed
        yield* makeItems(10, 'late');
      }
      const enqueue = queue.enqueue(stalled(), {
        datasets: [{ id: 'ds', sha256: SHA }],
        chunkItems: 25,
        onJob: (id) => {
          job = id;
        },
      });
      enqueue.catch(() => undefined);
      await expect.poll(async () => (job ? (await queue.status(job)).chunks_total : 0)).toBe(3); // the 4th waits for the next item
      // while the enqueuer lives, its job is on its way (workers may start on it)
      expect(await queue.status(job)).toMatchObject({ state: 'queued', sealed: false, items_total: 75 });
      // the enqueuer's session ends, as a kill -9 ends it: its lock on the job goes with it
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks
          WHERE locktype = 'advisory' AND classid = $1 AND granted AND mode = 'ExclusiveLock'`,
        [0x7470_7165],
      );
      expect(killed.rows).toEqual([{ ok: true }]);
      // pg_terminate_backend only signals the backend: its locks go when it has exited, a moment later
      await expect.poll(async () => (await queue.status(job)).state).toBe('failed');
      const st = await queue.status(job);
      expect(st).toMatchObject({ state: 'failed', sealed: false, items_done: 0 });
      expect(st.error).toContain('its enqueue stopped before the input ended');
      // a worker never takes its chunks, and a worker for this job alone returns at once
      const scanner = fakeScanner();
      expect(await worker.work(scanner, { job })).toMatchObject({ chunks: 0, items: 0 });
      expect(scanner.calls.size).toBe(0);
      // the enqueuer, still running here, finds its lock gone at its next chunk and deletes the job
      open();
      await expect(enqueue).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(queue.status(job)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      open();
      await admin.end();
      await worker.close();
      await queue.close();
    }
  });

  it("a connection cut inside a transaction (a restart) is the transaction's error, never an unheard 'error' event", async () => {
    const pool = await openPool(parseTarget(db.url), { maxConnections: 2 });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const cut = inTransaction(pool, 'BEGIN', async (client) => {
        const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        // the driver reports the end as an 'error' event of the checked-out client while no statement runs
        await new Promise((r) => setTimeout(r, 200));
        await client.query('SELECT 1');
      });
      await expect(cut).rejects.toThrow();
      expect(unavailable(await cut.catch((e: unknown) => e), parseTarget(db.url))?.code).toBe('STORE_UNAVAILABLE');
      // the pool goes on with a fresh connection
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await pool.end();
    }
  });

  it('retention: the input texts of jobs older than retentionDays are deleted, with their pending chunks', async () => {
    const schema = db.schema();
    const queue = await openScanQueue(db.url, { schema, ...FAST, retentionDays: 7 });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const old = await queue.enqueue(makeItems(60), { datasets: [{ id: 'ds', sha256: SHA }], chunkItems: 20 });
      const young = await queue.enqueue(makeItems(60), { datasets: [{ id: 'ds', sha256: SHA }], chunkItems: 20 });
      await client.query(`UPDATE "${schema}".jobs SET created = now() - interval '8 days' WHERE id = $1`, [old.job]);
      expect(await queue.deleteExpiredTexts()).toEqual([old.job]);
      const texts = await client.query(
        `SELECT job_id, count(texts)::int AS n FROM "${schema}".chunks GROUP BY job_id ORDER BY job_id`,
      );
      const byJob = Object.fromEntries(texts.rows.map((r) => [r.job_id, r.n]));
      expect(byJob).toEqual({ [old.job]: 0, [young.job]: 3 });
      expect((await queue.status(old.job)).state).toBe('failed');
      // a worker takes only the young job's chunks
      const summary = await queue.work(fakeScanner(), { job: young.job });
      expect(summary.items).toBe(60);
    } finally {
      await client.end();
      await queue.close();
    }
  });
});
