/**
 * What an account keeps by text (src/services/memorization/kept-by-text.ts, audit-text-index.ts) is listed in the
 * order it was kept, also when the clock does not move between two keeps: a key is `<ms stamp>/<digest or
 * ordinal>`, so two entries of one millisecond would sort by their digests or ordinals. The clock is held still here,
 * as a fast machine (or a coarse clock) holds it between two keeps.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';
import { keepNewest, keptOfText, keptStamp, stampAfter } from '../../src/services/memorization/kept-by-text.js';
import { catalogueAuditsOfText, storeCatalogueAudit } from '../../src/services/memorization/stored-audits.js';
import { newAudit } from '../fixtures/catalogue-audit.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const NOW = 1_790_000_000_000;
afterEach(() => vi.restoreAllMocks());

describe('stampAfter', () => {
  it('keeps a stamp later than every entry that stays, else takes the millisecond after the latest', () => {
    expect(stampAfter(keptStamp(5), [])).toBe(keptStamp(5));
    expect(stampAfter(keptStamp(5), [keptStamp(3), keptStamp(4)])).toBe(keptStamp(5));
    expect(stampAfter(keptStamp(5), [keptStamp(5)])).toBe(keptStamp(6));
    expect(stampAfter(keptStamp(5), [keptStamp(9), keptStamp(2)])).toBe(keptStamp(10));
  });
});

describe('entries kept within one millisecond', () => {
  it('keepNewest: listed in the order kept, and one kept again is the newest', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const store = new MemoryStore();
    const text = sha('a text');
    const prefix = `kept/${text}/`;
    // digests in the reverse of their keeping order: a sort by digest would list them backwards
    const digests = ['f', 'c', '9', '3'].map((d) => d.repeat(64));
    for (const d of digests) await store.transaction((tx) => keepNewest(tx, prefix, d, d, 16));
    const order = async () => (await keptOfText(store, text, (t) => `kept/${t}/`)).map(([, v]) => v);
    expect(await order()).toEqual(digests);
    await store.transaction((tx) => keepNewest(tx, prefix, digests[0], digests[0], 16));
    expect(await order()).toEqual([...digests.slice(1), digests[0]]);
    // past `most`, the oldest go: the one kept first of the three left
    await store.transaction((tx) => keepNewest(tx, prefix, 'e'.repeat(64), 'e'.repeat(64), 3));
    expect(await order()).toEqual([digests[3], digests[0], 'e'.repeat(64)]);
  });

  it('catalogue audits: the text lists them in the order kept, and one kept again is the newest', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const store = new MemoryStore();
    const shared = sha('shared');
    // twelve audits: ordinals 0 … b, whose keys of one millisecond would sort '0', '1', 'a', 'b', '2' …
    const audits = Array.from({ length: 12 }, (_, i) => newAudit(String(i), ['shared']).result);
    for (const a of audits) await storeCatalogueAudit(store, 'acme', a, [shared]);
    const order = async () => (await catalogueAuditsOfText(store, 'acme', shared)).map((a) => a.audit_sha256);
    expect(await order()).toEqual(audits.map((a) => a.audit_sha256));
    await storeCatalogueAudit(store, 'acme', audits[1], [shared]);
    expect(await order()).toEqual([audits[0], ...audits.slice(2), audits[1]].map((a) => a.audit_sha256));
  });
});
