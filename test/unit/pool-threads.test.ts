/**
 * One bound for every `threads`: the worker pool and the document pool take 1..MAX_THREADS, as a dataset build and a
 * file scan do, and refuse the rest in the same words. A pool starts its threads with its first task, so making one
 * of 256 starts none.
 */
import { describe, expect, it } from 'vitest';
import { MAX_THREADS } from '../../src/library.js';
import { createDocumentPool } from '../../src/node/extract-pool.js';
import { createWorkerPool } from '../../src/node/offload.js';

const refusal = { code: 'INVALID_OPTIONS', message: expect.stringContaining('threads must be an integer in 1..256') };

describe('the pools take 1..MAX_THREADS threads', () => {
  it('is 256', () => {
    expect(MAX_THREADS).toBe(256);
  });

  it('the worker pool: 1 and 256 made, 0, 257 and 1.5 refused', async () => {
    for (const threads of [1, 65, MAX_THREADS]) {
      const pool = createWorkerPool({ threads });
      expect([pool.threads, pool.started]).toEqual([threads, 0]);
      await pool.close();
    }
    for (const threads of [0, MAX_THREADS + 1, 1.5])
      expect(() => createWorkerPool({ threads })).toThrow(expect.objectContaining(refusal));
  });

  it('the document pool: the same bound, the same words', async () => {
    for (const threads of [1, 65, MAX_THREADS]) await createDocumentPool({ threads }).close();
    for (const threads of [0, MAX_THREADS + 1, 1.5])
      expect(() => createDocumentPool({ threads })).toThrow(expect.objectContaining(refusal));
  });
});
