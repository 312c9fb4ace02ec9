/**
 * Idempotency keys across processes: two `Idempotency` instances on one store stand for two server processes on
 * one PostgreSQL store (the store's transactions are what makes the claim atomic; the store contract suite runs
 * them on every store). A request running with a key in one is refused in the other; a finished one is replayed
 * by both; a failed one frees the key; a claim left by a process that died lapses after IDEMPOTENCY_CLAIM_MS.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { Idempotency, IDEMPOTENCY_CLAIM_MS } from '../../src/services/accounts/idempotency.js';
import { openPostgresStore } from '../../src/store/node.js';
import { describePostgres } from '../pg/postgres.js';

const response = { status: 201, body: '{"success":true,"id":"x"}', content_type: 'application/json; charset=utf-8' };

function twoProcesses() {
  const store = new MemoryStore();
  let clock = Date.parse('2026-11-23T10:00:00Z');
  const now = () => clock;
  const another = () => new Idempotency(store, now);
  return {
    a: another(),
    b: another(),
    another,
    store,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const code = (e: unknown) => e as { code?: string; message?: string };

describe('Idempotency-Key across processes on one store', () => {
  it('refuses a retry in the other process while the first runs, then replays the kept response there', async () => {
    const { a, b } = twoProcesses();
    const first = await a.begin('acme', 'key-1', 'h1');
    const refused = await b.begin('acme', 'key-1', 'h1').catch((e: unknown) => e);
    expect(code(refused).code).toBe('CONFLICT');
    expect(code(refused).message).toContain('still being processed');
    // another account's key of the same text is its own
    await (await b.begin('other', 'key-1', 'h1')).release();
    await first.finish!(response);
    await first.release();
    const replayed = await b.begin('acme', 'key-1', 'h1');
    expect(replayed.replay).toEqual(response);
    const different = await b.begin('acme', 'key-1', 'h2').catch((e: unknown) => e);
    expect(code(different).message).toContain('different request');
  });

  it('frees the key when the request fails (released without a response)', async () => {
    const { a, b, store } = twoProcesses();
    const failed = await a.begin('acme', 'key-2', 'h1');
    await failed.release();
    expect((await store.scan('http/idem-claim/')).length).toBe(0);
    const again = await b.begin('acme', 'key-2', 'h1');
    expect(again.replay).toBeUndefined();
    await again.release();
  });

  it('lets a claim of a process that died lapse after IDEMPOTENCY_CLAIM_MS', async () => {
    const { a, b, another, advance } = twoProcesses();
    await a.begin('acme', 'key-3', 'h1'); // never finished nor released: the process died
    await expect(b.begin('acme', 'key-3', 'h1')).rejects.toMatchObject({ code: 'CONFLICT' });
    advance(IDEMPOTENCY_CLAIM_MS + 1);
    const taken = await b.begin('acme', 'key-3', 'h1');
    expect(taken.replay).toBeUndefined();
    await taken.finish!(response);
    await taken.release();
    expect((await another().begin('acme', 'key-3', 'h1')).replay).toEqual(response); // a process started since
  });

  it('two processes racing for one key: exactly one runs it', async () => {
    const { a, b } = twoProcesses();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).begin('acme', 'key-4', 'h1')),
    );
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
  });
});

describePostgres('Idempotency-Key on two PostgreSQL store connections', (pg) => {
  it('two processes racing for one key: exactly one runs it; the other replays it after', async () => {
    const schema = pg.schema();
    const [s1, s2] = await Promise.all([openPostgresStore(pg.url, { schema }), openPostgresStore(pg.url, { schema })]);
    try {
      const [a, b] = [new Idempotency(s1, Date.now), new Idempotency(s2, Date.now)];
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).begin('acme', 'raced', 'h1')),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won.length).toBe(1);
      const slot = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<Idempotency['begin']>>>).value;
      await slot.finish!(response);
      await slot.release();
      const other = results.indexOf(won[0]) % 2 ? b : a;
      expect((await other.begin('acme', 'raced', 'h1')).replay).toEqual(response);
    } finally {
      await Promise.all([s1.close(), s2.close()]);
    }
  });
});
