/**
 * The text index of kept catalogue audits in its two key forms, on each store (file, memory, PostgreSQL).
 * test/fixtures/stores/audits-hex-file/ is a file store that the release before the short keys wrote
 * (test/fixtures/stores/write-audits-hex.mjs: 17 audits of account `acme`, each with the text `shared` and a text of
 * its own, indexed under `text/<hex>/<stamp>/<hex>`). Opened as it is, and replayed record by record into a memory and
 * a PostgreSQL store: every text still finds its audits, oldest first; new audits are indexed under short keys; a
 * text's entries of both forms count toward its 16 together, and an audit kept again leaves its old entry — with the
 * clock held still, so that the order kept is read back also where two keeps share a millisecond.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';
import { openFileStore, openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import {
  catalogueAuditsOfText,
  catalogueAuditWorks,
  STORED_AUDITS_PER_TEXT,
  storeCatalogueAudit,
} from '../../src/services/memorization/stored-audits.js';
import { newAudit } from '../fixtures/catalogue-audit.js';
import { describePostgres } from '../pg/postgres.js';

const FIXTURE = new URL('../fixtures/stores/audits-hex-file/', import.meta.url);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const audit = (i: number | string) => sha(`audit ${i}`);
const SHARED = sha('shared');

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function fixtureFileStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-audits-hex-'));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  return openFileStore(dir);
}

async function replayInto(store: Store): Promise<Store> {
  const source = await fixtureFileStore();
  for (const [key, value] of await source.scan('')) await store.put(key, value);
  await source.close();
  return store;
}

const digestsOf = async (store: Store, text: string) =>
  (await catalogueAuditsOfText(store, 'acme', text)).map((a) => a.audit_sha256);

function suite(name: string, open: () => Promise<Store>): void {
  describe(`${name}: audits kept with the text index's hex keys`, () => {
    afterEach(() => vi.restoreAllMocks());
    it('finds them by their texts, oldest first, and reads their works', async () => {
      const store = await open();
      try {
        // audit 0 left the shared text's index when audit 16 was kept (16 a text)
        expect(await digestsOf(store, SHARED)).toEqual(Array.from({ length: 16 }, (_, i) => audit(i + 1)));
        expect(await digestsOf(store, sha('own 0'))).toEqual([audit(0)]);
        const [first] = await catalogueAuditsOfText(store, 'acme', sha('own 3'));
        expect(first.works.map((w) => w.id)).toEqual(['shared', 'own 3']);
        const page = await catalogueAuditWorks(store, 'acme', audit(7), { after: 1, limit: 5 });
        expect(page?.works.map((w) => w.id)).toEqual(['own 7']);
        expect(await digestsOf(store, sha('not kept'))).toEqual([]);
        expect(await catalogueAuditsOfText(store, 'other', SHARED)).toEqual([]);
      } finally {
        await store.close();
      }
    });

    it('indexes new audits under short keys, 16 a text across both forms, an audit kept again once', async () => {
      // every keep of this test in one millisecond, as on a fast machine: the order kept must still be the order read
      vi.spyOn(Date, 'now').mockReturnValue(Date.now());
      const store = await open();
      try {
        const oldEntries = (text: string) => store.scan(`catalogue-audits/acme/text/${text}/`);
        const a = newAudit('a', ['shared', 'new']);
        await storeCatalogueAudit(store, 'acme', a.result, a.texts);
        const short = await store.scan('catalogue-audits/acme/t/');
        expect(short).toHaveLength(2);
        for (const [key] of short) {
          expect(key).toMatch(/^catalogue-audits\/acme\/t\/[A-Za-z0-9_-]{43}\/\d{15}\/[0-9a-z]+$/);
          expect(key.length).toBeLessThan(90);
        }
        expect(short.map(([k]) => k.split('/')[3]).sort()).toEqual(
          a.texts.map((t) => Buffer.from(t, 'hex').toString('base64url')).sort(),
        );
        // the oldest of the shared text's 16 gave way, its old-form entry deleted
        const shared = Array.from({ length: 15 }, (_, i) => audit(i + 2));
        expect(await digestsOf(store, SHARED)).toEqual([...shared, audit('a')]);
        expect(await oldEntries(SHARED)).toHaveLength(15);
        expect(await digestsOf(store, sha('new'))).toEqual([audit('a')]);

        // audit 5, kept again: now the newest, its old entries replaced by short ones
        const [five] = await catalogueAuditsOfText(store, 'acme', sha('own 5'));
        await storeCatalogueAudit(store, 'acme', five, [SHARED, sha('own 5')]);
        const after = [...shared.filter((d) => d !== audit(5)), audit('a'), audit(5)];
        expect(await digestsOf(store, SHARED)).toEqual(after);
        expect(await digestsOf(store, sha('own 5'))).toEqual([audit(5)]);
        expect(await oldEntries(sha('own 5'))).toEqual([]);
        expect((await catalogueAuditsOfText(store, 'acme', sha('own 5')))[0]).toEqual(five);

        // audit a again: the same ordinal, still one entry a text; another audit: an ordinal of its own
        await storeCatalogueAudit(store, 'acme', a.result, a.texts);
        expect(await store.scan('catalogue-audits/acme/t/')).toHaveLength(4);
        expect(await digestsOf(store, SHARED)).toEqual([...after.filter((d) => d !== audit('a')), audit('a')]);
        const b = newAudit('b', ['new']);
        await storeCatalogueAudit(store, 'acme', b.result, b.texts);
        expect(await digestsOf(store, sha('new'))).toEqual([audit('a'), audit('b')]);
        expect((await store.scan('catalogue-audits/acme/n/')).map(([, v]) => v)).toEqual([
          audit('a'),
          audit(5),
          audit('b'),
        ]);
        expect((await digestsOf(store, SHARED)).length).toBe(STORED_AUDITS_PER_TEXT);
      } finally {
        await store.close();
      }
    });
  });
}

suite('file store', fixtureFileStore);
suite('MemoryStore', () => replayInto(new MemoryStore()));
describePostgres('PostgreSQL', (pg) => {
  suite('PostgreSQL store', async () => replayInto(await openPostgresStore(pg.url, { schema: pg.schema() })));
});
