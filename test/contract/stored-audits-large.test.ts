/**
 * A large catalogue audit kept in a store (memory and PostgreSQL): stored in short transactions with turns of the event
 * loop between them (counted, not timed: a ticker on setImmediate and the writes each transaction makes), every work
 * found again through the text index, and the works read back page by page in the catalogue's order.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/node.js';
import type { Store, Transaction } from '../../src/store/types.js';
import {
  AUDIT_INDEX_BATCH,
  catalogueAuditsOfText,
  catalogueAuditWorks,
  storeCatalogueAudit,
} from '../../src/services/memorization/stored-audits.js';
import { newAudit } from '../fixtures/catalogue-audit.js';
import { describePostgres } from '../pg/postgres.js';

/** An audit of a catalogue of `n` works, `w0` … (test/fixtures/catalogue-audit.ts). */
const catalogue = (n: number) =>
  newAudit(
    String(n),
    Array.from({ length: n }, (_, i) => `w${i}`),
  );

/**
 * The store with its transactions watched: for each, the writes it made and the ticker's count when it began. The
 * ticker counts turns of the event loop (setImmediate callbacks) while the audit is kept.
 */
function watched(store: Store) {
  const transactions: Array<{ writes: number; tick: number }> = [];
  let ticks = 0;
  let ticking = true;
  const tick = () => {
    ticks++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const proxy: Store = {
    get: (k) => store.get(k),
    put: (k, v) => store.put(k, v),
    delete: (k) => store.delete(k),
    scan: (p, o) => store.scan(p, o),
    batch: (ops) => store.batch(ops),
    close: () => store.close(),
    transaction: (fn) =>
      store.transaction((tx) => {
        const entry = { writes: 0, tick: ticks };
        transactions.push(entry);
        const counted: Transaction = {
          get: (k) => tx.get(k),
          scan: (p, o) => tx.scan(p, o),
          put: (k, v) => {
            entry.writes++;
            tx.put(k, v);
          },
          delete: (k) => {
            entry.writes++;
            tx.delete(k);
          },
        };
        return fn(counted);
      }),
  };
  return {
    store: proxy,
    transactions,
    stop: () => {
      ticking = false;
      return ticks;
    },
  };
}

async function keepsLarge(open: () => Promise<Store>, n: number) {
  const store = await open();
  try {
    const { result, texts } = catalogue(n);
    const w = watched(store);
    await storeCatalogueAudit(w.store, 'acme', result, texts);
    const ticks = w.stop();
    // no long transaction: the audit's ordinal given, then each indexes one batch of texts (a write each, the first time)
    expect(w.transactions.length).toBe(1 + Math.ceil(n / AUDIT_INDEX_BATCH));
    expect(Math.max(...w.transactions.map((t) => t.writes))).toBe(AUDIT_INDEX_BATCH);
    // and the event loop turned between every two of them
    for (let i = 1; i < w.transactions.length; i++)
      expect(w.transactions[i].tick).toBeGreaterThan(w.transactions[i - 1].tick);
    expect(ticks).toBeGreaterThanOrEqual(w.transactions.length);
    // every text finds the audit, whole
    for (const i of [0, n >> 1, n - 1]) {
      const [found] = await catalogueAuditsOfText(store, 'acme', texts[i]);
      expect(found.audit_sha256).toBe(result.audit_sha256);
      expect(found.works.length).toBe(n);
      expect(found.works[i].id).toBe(`w${i}`);
    }
    expect(await catalogueAuditsOfText(store, 'other', texts[0])).toEqual([]);
    // page by page, in order, 1,000 at a time
    const ids: string[] = [];
    let after: number | null = 0;
    let pages = 0;
    while (after !== null) {
      const page = await catalogueAuditWorks(store, 'acme', result.audit_sha256, { after, limit: 1000 });
      expect(page?.audit.catalogue.works).toBe(n);
      expect(page).not.toHaveProperty('audit.works');
      for (const work of page!.works) ids.push(work.id);
      after = page!.next;
      pages++;
    }
    expect(pages).toBe(Math.ceil(n / 1000));
    expect(ids).toEqual(result.works.map((x) => x.id));
    const odd = await catalogueAuditWorks(store, 'acme', result.audit_sha256, { after: 499, limit: 3 });
    expect(odd?.works.map((x) => x.id)).toEqual(['w499', 'w500', 'w501']);
    expect(await catalogueAuditWorks(store, 'other', result.audit_sha256)).toBeUndefined();
    // kept again (a resumed job): still one entry per text
    await storeCatalogueAudit(store, 'acme', result, texts.slice(0, 10));
    expect((await catalogueAuditsOfText(store, 'acme', texts[3])).length).toBe(1);
  } finally {
    await store.close();
  }
}

describe('MemoryStore', () => {
  it('a 20,000-work audit: short transactions, the event loop turning, read back page by page', async () => {
    await keepsLarge(async () => new MemoryStore(), 20_000);
  }, 120_000);
});

describePostgres('PostgreSQL', (pg) => {
  it('a 20,000-work audit: short transactions, the event loop turning, read back page by page', async () => {
    await keepsLarge(() => openPostgresStore(pg.url, { schema: pg.schema() }), 20_000);
  }, 300_000);
});
