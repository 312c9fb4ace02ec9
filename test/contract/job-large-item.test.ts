/**
 * A job whose one item is a large catalogue (the audit job of 20,000 works here; 100,000 in the bench) submitted to a
 * store (memory and PostgreSQL): the item's value is encoded with turns of the event loop between its works (counted,
 * not timed: a ticker on a timer), and read back whole, decoded with turns too, when the item is claimed.
 */
import { describe, expect, it } from 'vitest';
import { createJobService } from '../../src/services/jobs/service.js';
import { MemoryStore } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import { describePostgres } from '../pg/postgres.js';

const item = (n: number) => ({
  works: Array.from({ length: n }, (_, i) => ({ id: `w${i}`, text: `word${i % 97} `.repeat(60) })),
  model: { base_url: 'http://127.0.0.1:9/v1', model: 'm' },
  budget_calls: 2000,
});

async function submitsLarge(open: () => Promise<Store> | Store): Promise<void> {
  const store = await open();
  try {
    const jobs = createJobService({ store, chunkItems: 1 });
    const submitted = item(20_000);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const job = await jobs.submit({ account: 'acme', type: 'audit', items: [submitted] }).finally(() => {
      clearInterval(ticker);
    });
    // 20,000 works of 60 words are about 7 MB: encoded in one step, the memory store gave no turn at all (0 ticks);
    // PostgreSQL's writes turn the loop on their I/O either way, so there the test holds the bytes read back
    expect(ticks).toBeGreaterThan(2);
    // claimed: the item decoded with turns of the event loop too (in one step, the memory store gave none)
    let claimTicks = 0;
    const claimTicker = setInterval(() => claimTicks++, 0);
    const claim = await jobs.claim(60_000).finally(() => clearInterval(claimTicker));
    expect(claimTicks).toBeGreaterThan(2);
    expect(claim?.job.id).toBe(job.id);
    expect(claim?.items).toEqual([submitted]);
  } finally {
    await store.close();
  }
}

describe('MemoryStore', () => {
  it("a job's catalogue item of 20,000 works: stored with turns of the event loop, claimed whole", async () => {
    await submitsLarge(() => new MemoryStore());
  }, 120_000);
});

describePostgres('PostgreSQL', (pg) => {
  it("a job's catalogue item of 20,000 works: stored with turns of the event loop, claimed whole", async () => {
    await submitsLarge(() => openPostgresStore(pg.url, { schema: pg.schema() }));
  }, 300_000);
});
