/**
 * `trainprint serve` shuts down although a catalogue job item is running and would not end on its own for a while:
 * the item waits on a remote corpus engine that takes every request and never answers. SIGTERM stops the runner,
 * aborts the item and hands its chunk back — the job is left with no result, its chunk free to be claimed at once
 * by the next process on the store — and the process exits with code 0 (not cut off by its shutdown bound).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, requireBuiltCli, startServe, stopProcess } from '../fixtures/serve-process.js';
import { type SilentEngine, startSilentEngine } from '../fixtures/silent-engine.js';
import { openFileStore } from '../../src/store/node.js';
import { createJobService } from '../../src/library.js';

let silent: SilentEngine;
let dir = '';

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-jobs-'));
  // a remote corpus engine that reads each request and never answers
  silent = await startSilentEngine();
});
afterAll(async () => {
  await silent?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('serve: SIGTERM with a job item running', () => {
  it('aborts the item, hands its chunk back and exits with code 0', async () => {
    const store = join(dir, 'store');
    const running: import('node:child_process').ChildProcess[] = [];
    const { child, url, dev, out } = await startServe(
      [
        ...['--packs', 'none', '--port', '0', '--store', store],
        ...['--infini-gram', 'v4_piletrain_llama', '--infini-gram-endpoint', silent.url],
      ],
      { startMs: 30_000, running },
    );
    try {
      const words = Array.from({ length: 400 }, (_, i) => `word${i % 97}`).join(' ');
      const res = await fetch(`${url}/api/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${dev}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'analyze', items: [{ content: words, content_type: 'text' }] }),
      });
      expect(res.status).toBe(202);
      const job = (await res.json()) as { job_id: string };
      for (let i = 0; i < 1000 && silent.requests() === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(silent.requests()).toBeGreaterThan(0); // the item is running: it waits on the silent engine

      const gone = exited(child);
      child.kill('SIGTERM');
      await gone;
      expect(child.exitCode).toBe(0);
      expect(out()).not.toContain('exiting now');

      // the next process on the store finds the chunk free at once, its item without a result
      const s = await openFileStore(store);
      try {
        const jobs = createJobService({ store: s });
        expect(await jobs.status(job.job_id, { owner: 'dev' })).toMatchObject({ state: 'running', done: 0 });
        const claim = await jobs.claim(60_000);
        expect(claim).toMatchObject({ job: { id: job.job_id }, chunk: 0 });
      } finally {
        await s.close();
      }
    } finally {
      await stopProcess(child);
    }
  }, 90_000);
});
