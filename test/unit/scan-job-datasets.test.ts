/**
 * A scan job made against its datasets' SHA-256 (the scan queue's: `context.datasets` as `{ id, sha256 }`) runs only
 * where each dataset is held with that digest: elsewhere the runner hands its items back — neither run nor failed —
 * and leaves the job to the other processes; where the digests match it runs.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';
import { createJobService, ItemHandedBack, JobRunner, scanExecutor } from '../../src/library.js';

const context = { datasets: [{ id: 'books', sha256: 'a'.repeat(64) }], min_words: 5 };
const items = [{ id: 'q1', text: 'one' }];

describe('a scan job against its datasets by SHA-256', () => {
  it('is handed back where a dataset differs or is missing, with why', async () => {
    const scanned: unknown[] = [];
    const scanItem = async (item: unknown) => {
      scanned.push(item);
      return [];
    };
    const other = scanExecutor(scanItem, async () => 'b'.repeat(64));
    const missing = scanExecutor(scanItem, async () => undefined);
    const claim = { job: { id: 'job_1', account: '' }, context } as never;
    const signal = new AbortController().signal;
    await expect(other(items[0], claim, signal)).rejects.toThrow(
      /dataset "books" has SHA-256 a{64}, this process's has b{64}/,
    );
    await expect(missing(items[0], claim, signal)).rejects.toBeInstanceOf(ItemHandedBack);
    // a digest that cannot be read is a dataset not loaded here
    const unreadable = scanExecutor(scanItem, () => Promise.reject(new Error('the dataset file is gone')));
    await expect(unreadable(items[0], claim, signal)).rejects.toThrow(/"books" has SHA-256 a{64}, not loaded here/);
    expect(scanned).toEqual([]);
  });

  it('a runner with another version leaves the job queued, unfailed; one with the same version runs it', async () => {
    const jobs = createJobService({ store: new MemoryStore() });
    const job = await jobs.submit({ account: '', type: 'scan', items, context });
    const run = (sha: string) => {
      const runner = new JobRunner({
        jobs,
        pollMs: 5,
        executors: {
          scan: scanExecutor(
            async () => [],
            async () => sha,
          ),
        },
        unsupported: {},
      });
      runner.start();
      return runner;
    };
    const wrong = run('b'.repeat(64));
    await new Promise((r) => setTimeout(r, 100));
    await wrong.stop();
    expect(await jobs.status(job.id, { owner: '' })).toMatchObject({ done: 0, failed: 0 });
    expect(['queued', 'running']).toContain((await jobs.status(job.id, { owner: '' })).state);
    const right = run('a'.repeat(64));
    // until it ends, however long a loaded machine takes (the test's timeout bounds a hang)
    while ((await jobs.status(job.id, { owner: '' })).state !== 'done') await new Promise((r) => setTimeout(r, 10));
    await right.stop();
    expect(await jobs.status(job.id, { owner: '' })).toMatchObject({ state: 'done', done: 1, failed: 0 });
    expect((await jobs.results(job.id, { owner: '' })).results).toEqual([
      { index: 0, success: true, result: { id: 'q1', hits: [] } },
    ]);
  });
});
