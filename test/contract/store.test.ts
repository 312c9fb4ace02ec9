/**
 * The store contract (src/store/types.ts), run unchanged against MemoryStore, the file store and
 * the PostgreSQL store (test/pg/postgres.ts: skipped when there is no PostgreSQL), then the file
 * store's own guarantees: reopen, compaction, torn tails, corruption, the lock (across processes,
 * with the store bundled into a child script by esbuild). PostgreSQL's own: store-postgres.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Encoder } from '@msgpack/msgpack';
import { MemoryStore } from '../../src/store/index.js';
import { openFileStore, openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import { TrainprintError, type ErrorCode } from '../../src/errors.js';
import { crc32 } from '../../src/util/crc32.js';
import { bundleStoreChild } from '../fixtures/store-child-bundle.js';
import { describePostgres } from '../pg/postgres.js';

let tmpRoot: string;
beforeAll(async () => {
  tmpRoot = await mkdtemp(join(tmpdir(), 'trainprint-store-'));
});
afterAll(async () => {
  await rm(tmpRoot, { recursive: true, force: true });
});

let dirCount = 0;
const freshDir = (): string => join(tmpRoot, `s${dirCount++}`);

/** Resolves to the TrainprintError code the promise rejects with. */
async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<ErrorCode | 'resolved' | 'other'> {
  try {
    await (typeof p === 'function' ? p() : p);
    return 'resolved';
  } catch (e) {
    return e instanceof TrainprintError ? e.code : 'other';
  }
}

function contract(name: string, open: () => Promise<Store>): void {
  describe(`${name}: Store contract`, () => {
    it('get / put / delete', async () => {
      const s = await open();
      expect(await s.get('a')).toBeUndefined();
      await s.put('a', 1);
      await s.put('b', { x: [1, 'two', null, true, 2.5, -7], y: {} });
      expect(await s.get('a')).toBe(1);
      await s.put('a', 'again');
      expect(await s.get('a')).toBe('again');
      expect(await s.get('b')).toEqual({ x: [1, 'two', null, true, 2.5, -7], y: {} });
      expect(await s.delete('a')).toBe(true);
      expect(await s.delete('a')).toBe(false);
      expect(await s.get('a')).toBeUndefined();
      await s.put('n', null);
      expect(await s.get('n')).toBeNull();
      await s.close();
    });

    it('scan: prefix, after, limit, order by UTF-16 code units', async () => {
      const s = await open();
      const keys = ['b/2', 'a/1', 'b/10', 'b/1', 'c', 'b/', 'b', 'ba', 'b/\uffff', 'b/\ud83d\ude00', 'b/é'];
      for (const k of keys) await s.put(k, k.length);
      const sorted = [...keys].sort();
      expect((await s.scan('')).map(([k]) => k)).toEqual(sorted);
      const b = sorted.filter((k) => k.startsWith('b/'));
      expect((await s.scan('b/')).map(([k]) => k)).toEqual(b);
      expect(await s.scan('b/1')).toEqual([
        ['b/1', 3],
        ['b/10', 4],
      ]);
      expect((await s.scan('b/', { after: 'b/1' })).map(([k]) => k)).toEqual(b.slice(b.indexOf('b/1') + 1));
      expect((await s.scan('b/', { after: 'a' })).map(([k]) => k)).toEqual(b); // after below the prefix
      expect(await s.scan('b/', { after: 'c' })).toEqual([]);
      expect((await s.scan('b/', { limit: 2 })).map(([k]) => k)).toEqual(b.slice(0, 2));
      expect(await s.scan('b/', { limit: 0 })).toEqual([]);
      expect(await s.scan('zz')).toEqual([]);
      // cursor pagination visits every key once
      const pages: string[] = [];
      for (let after: string | undefined; ; ) {
        const page = await s.scan('b/', { after, limit: 3 });
        if (page.length === 0) break;
        pages.push(...page.map(([k]) => k));
        after = page[page.length - 1][0];
      }
      expect(pages).toEqual(b);
      expect(await codeOf(s.scan('b/', { limit: -1 }))).toBe('INVALID_INPUT');
      expect(await codeOf(s.scan('b/', { limit: 1.5 }))).toBe('INVALID_INPUT');
      expect(await codeOf(s.scan(1 as never))).toBe('INVALID_INPUT');
      await s.close();
    });

    it('batch is atomic and applied in order', async () => {
      const s = await open();
      await s.put('x', 0);
      await s.batch([
        { type: 'put', key: 'a', value: 1 },
        { type: 'put', key: 'b', value: 2 },
        { type: 'delete', key: 'x' },
        { type: 'put', key: 'a', value: 3 },
      ]);
      expect(await s.scan('')).toEqual([
        ['a', 3],
        ['b', 2],
      ]);
      // one bad op anywhere: nothing is written
      const bad = [
        { type: 'put', key: 'c', value: 1 },
        { type: 'delete', key: 'a' },
        { type: 'put', key: 'd', value: undefined },
      ] as const;
      expect(await codeOf(s.batch(bad))).toBe('INVALID_INPUT');
      expect(await codeOf(s.batch([{ type: 'put', key: '', value: 1 }]))).toBe('INVALID_INPUT');
      expect(await codeOf(s.batch([{ type: 'merge', key: 'a' } as never]))).toBe('INVALID_INPUT');
      expect(await s.scan('')).toEqual([
        ['a', 3],
        ['b', 2],
      ]);
      await s.batch([]);
      await s.close();
    });

    it('values are copies, in and out', async () => {
      const s = await open();
      const v = { list: [1, 2], bytes: new Uint8Array([1, 2, 3]) };
      await s.put('v', v);
      v.list.push(3);
      v.bytes[0] = 99;
      const got = (await s.get('v')) as typeof v;
      expect(got).toEqual({ list: [1, 2], bytes: new Uint8Array([1, 2, 3]) });
      got.list.push(4);
      got.bytes[1] = 77;
      expect(await s.get('v')).toEqual({ list: [1, 2], bytes: new Uint8Array([1, 2, 3]) });
      // a returned Uint8Array owns its buffer (not a view of the stored bytes)
      expect(got.bytes.byteOffset).toBe(0);
      expect(got.bytes.buffer.byteLength).toBe(3);
      const [[, scanned]] = await s.scan('v');
      expect(scanned).not.toBe(got);
      await s.close();
    });

    it('rejects invalid keys and unencodable values with INVALID_INPUT, writing nothing', async () => {
      const s = await open();
      for (const key of ['', 'x'.repeat(1025), 42, null, undefined, 'lone\ud800'] as never[]) {
        expect(await codeOf(s.put(key, 1))).toBe('INVALID_INPUT');
        expect(await codeOf(s.get(key))).toBe('INVALID_INPUT');
        expect(await codeOf(s.delete(key))).toBe('INVALID_INPUT');
      }
      await s.put('x'.repeat(1024), 1);
      class Point {
        x = 1;
      }
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const sparse = [1, undefined, 3]; // eslint-disable-line no-sparse-arrays
      const values: unknown[] = [
        undefined,
        { a: undefined },
        [1, undefined],
        sparse,
        1n,
        { n: 2n },
        () => 1,
        Symbol('s'),
        { [Symbol('k')]: 1 },
        new Date(0),
        new Map(),
        new Set(),
        new Point(),
        new Float32Array(2),
        new ArrayBuffer(2),
        cyclic,
        JSON.parse('{"__proto__": 1}'),
        'lone \udc00',
        { 'bad\ud800key': 1 },
      ];
      for (const value of values) expect([value, await codeOf(s.put('k', value))]).toEqual([value, 'INVALID_INPUT']);
      expect(await s.get('k')).toBeUndefined();
      // the boundary cases that are accepted
      await s.put('k', {
        emoji: '😀',
        nested: [[[]]],
        nil: null,
        bytes: new Uint8Array(0),
        proto: Object.create(null),
      });
      expect(await s.get('k')).toEqual({ emoji: '😀', nested: [[[]]], nil: null, bytes: new Uint8Array(0), proto: {} });
      await s.close();
    });

    it('100 concurrent read-increment-write transactions end at 100', async () => {
      const s = await open();
      await Promise.all(
        Array.from({ length: 100 }, () =>
          s.transaction(async (tx) => {
            const n = ((await tx.get('counter')) as number | undefined) ?? 0;
            await new Promise((r) => setTimeout(r, 0)); // yield: a non-serialised store would lose updates here
            tx.put('counter', n + 1);
          }),
        ),
      );
      expect(await s.get('counter')).toBe(100);
      await s.close();
    });

    it('a throwing transaction writes nothing and rethrows; tx sees its own writes', async () => {
      const s = await open();
      await s.batch([
        { type: 'put', key: 'a/1', value: 1 },
        { type: 'put', key: 'a/3', value: 3 },
        { type: 'put', key: 'a/5', value: 5 },
      ]);
      const boom = new Error('boom');
      await expect(
        s.transaction(async (tx) => {
          tx.put('a/2', 2);
          tx.delete('a/1');
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await s.scan('a/')).toEqual([
        ['a/1', 1],
        ['a/3', 3],
        ['a/5', 5],
      ]);
      const seen = await s.transaction(async (tx) => {
        tx.put('a/2', 2);
        tx.delete('a/3');
        tx.put('a/0', 0);
        tx.put('b', 'b');
        return {
          get: [await tx.get('a/2'), await tx.get('a/3'), await tx.get('a/5')],
          all: await tx.scan('a/'),
          page: await tx.scan('a/', { after: 'a/1', limit: 2 }),
        };
      });
      expect(seen).toEqual({
        get: [2, undefined, 5],
        all: [
          ['a/0', 0],
          ['a/1', 1],
          ['a/2', 2],
          ['a/5', 5],
        ],
        page: [
          ['a/2', 2],
          ['a/5', 5],
        ],
      });
      expect(await s.scan('')).toEqual([
        ['a/0', 0],
        ['a/1', 1],
        ['a/2', 2],
        ['a/5', 5],
        ['b', 'b'],
      ]);
      // a tx handle used after its callback settled is refused (a missing await would lose the write)
      let leaked: Parameters<Parameters<Store['transaction']>[0]>[0] | undefined;
      await s.transaction((tx) => {
        leaked = tx;
      });
      expect(await codeOf(() => leaked!.put('late', 1))).toBe('STORE_CLOSED');
      // an invalid value inside the callback fails the transaction
      expect(await codeOf(s.transaction((tx) => tx.put('u', undefined)))).toBe('INVALID_INPUT');
      expect(await s.get('u')).toBeUndefined();
      await s.close();
    });

    it('writes and transactions run in arrival order', async () => {
      const s = await open();
      void s.put('a', 1);
      const p = s.transaction(async (tx) => tx.get('a'));
      void s.put('a', 2);
      const [d1, d2] = await Promise.all([s.delete('a'), s.delete('a')]);
      expect(await p).toBe(1);
      expect([d1, d2]).toEqual([true, false]);
      // many unawaited writes (group commit in the file store) all land, last write wins
      await Promise.all(Array.from({ length: 500 }, (_, i) => s.put(`m/${i % 50}`, i)));
      const m = await s.scan('m/');
      expect(m.length).toBe(50);
      expect(m.every(([k, v]) => Number(k.slice(2)) === (v as number) % 50 && (v as number) >= 450)).toBe(true);
      await s.close();
    });

    it('increment: exact under concurrency, capped by max, refuses what is not a count', async () => {
      const s = await open();
      expect(await s.increment!('c/a', 1)).toEqual({ value: 1, applied: true });
      expect(await s.increment!('c/a', 41)).toEqual({ value: 42, applied: true });
      expect(await s.get('c/a')).toBe(42); // an ordinary value for get and scan
      const results = await Promise.all(Array.from({ length: 150 }, () => s.increment!('c/b', 1, 100)));
      expect(results.filter((r) => r.applied).length).toBe(100);
      expect(results.filter((r) => !r.applied).every((r) => r.value === 100)).toBe(true);
      expect(new Set(results.filter((r) => r.applied).map((r) => r.value)).size).toBe(100); // each count once
      expect(await s.get('c/b')).toBe(100);
      expect(await s.increment!('c/zero', 1, 0)).toEqual({ value: 0, applied: false });
      expect(await s.get('c/zero')).toBeUndefined();
      await s.put('c/big', 2 ** 40);
      expect(await s.increment!('c/big', 2)).toEqual({ value: 2 ** 40 + 2, applied: true });
      await s.put('c/text', 'seven');
      await s.put('c/neg', -1);
      for (const k of ['c/text', 'c/neg']) expect(await codeOf(s.increment!(k, 1))).toBe('INVALID_INPUT');
      for (const by of [0, -1, 1.5, NaN, '1']) {
        expect(await codeOf(s.increment!('c/a', by as never))).toBe('INVALID_INPUT');
      }
      expect(await codeOf(s.increment!('c/a', 1, -1))).toBe('INVALID_INPUT');
      expect(await codeOf(s.increment!('', 1))).toBe('INVALID_INPUT');
      expect(await s.get('c/a')).toBe(42);
      await s.close();
      expect(await codeOf(s.increment!('c/a', 1))).toBe('STORE_CLOSED');
    });

    it('prepare: a value encoded ahead is written as the value itself, alone, in a batch and in a transaction', async () => {
      const s = await open();
      expect(typeof s.prepare).toBe('function');
      // a long text (encoded a piece at a time: pairs, accents and ideographs across the pieces' cuts) and a record
      const text = 'The quick brown fox é 漢字 😀 '.repeat(9_000);
      const record = { title: 'Dune', tags: ['a', 'b'], n: 3, long: text };
      const [t, r] = [await s.prepare!(text), await s.prepare!(record)];
      await s.put('p/alone', t);
      await s.batch([{ type: 'put', key: 'p/batch', value: r }]);
      await s.transaction(async (tx) => {
        tx.put('p/tx', t);
        expect(await tx.get('p/tx')).toBe(text);
      });
      expect(await s.get('p/alone')).toBe(text);
      expect(await s.get('p/batch')).toEqual(record);
      expect(await s.get('p/tx')).toBe(text);
      // the same errors as a put of the value, raised by prepare; a token inside another value is refused
      const lone = `${'a'.repeat(70_000)}\ud800b`;
      expect(await codeOf(s.prepare!(lone))).toBe('INVALID_INPUT');
      expect(await codeOf(s.prepare!({ a: undefined }))).toBe('INVALID_INPUT');
      expect(await codeOf(s.put('p/nested', { text: t }))).toBe('INVALID_INPUT');
      expect(await s.get('p/nested')).toBeUndefined();
      await s.close();
      expect(await codeOf(s.prepare!(1))).toBe('STORE_CLOSED');
    });

    it('after close every call rejects with STORE_CLOSED; close waits for queued writes', async () => {
      const s = await open();
      const queued = s.put('q', 1);
      const closing = s.close();
      await queued;
      await closing;
      await s.close(); // idempotent
      for (const call of [
        () => s.get('q'),
        () => s.put('q', 2),
        () => s.delete('q'),
        () => s.scan(''),
        () => s.batch([]),
        () => s.transaction(() => 1),
      ]) {
        expect(await codeOf(call)).toBe('STORE_CLOSED');
      }
    });
  });
}

contract('MemoryStore', async () => new MemoryStore());
contract('FileStore', () => openFileStore(freshDir()));
// every value kept on disk and read back, with compactions between the writes (re-pointed values, retired files)
contract('FileStore, every value on disk', () => openFileStore(freshDir(), { valuesOnDiskFrom: 0, compactEvery: 3 }));
describePostgres('PostgreSQL', (pg) => {
  contract('PostgresStore', () => openPostgresStore(pg.url, { schema: pg.schema() }));
});

describe('MemoryStore', () => {
  it('the browser entry bundles without node: modules', async () => {
    const result = await build({
      entryPoints: [new URL('../../src/store/index.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    expect(result.outputFiles[0].text).not.toMatch(/node:/);
  });
});

// ---------------------------------------------------------------------------------------------

async function fillAndClose(
  dir: string,
  n: number,
  options?: { compactEvery?: number },
): Promise<Array<[string, unknown]>> {
  const s = await openFileStore(dir, options);
  for (let i = 0; i < n; i++) {
    if (i % 7 === 3) await s.delete(`k/${i - 1}`);
    else if (i % 5 === 0)
      await s.batch([
        { type: 'put', key: `k/${i}`, value: { i } },
        { type: 'put', key: `b/${i}`, value: new Uint8Array([i]) },
      ]);
    else await s.put(`k/${i}`, { i, s: 'x'.repeat(i) });
  }
  const all = await s.scan('');
  await s.close();
  return all;
}

async function scanAll(dir: string, options?: { compactEvery?: number }): Promise<Array<[string, unknown]>> {
  const s = await openFileStore(dir, options);
  const all = await s.scan('');
  await s.close();
  return all;
}

/** Size of the log header (format version 2): records start after it. */
const LOG_HEADER = 4096;

/** Byte offsets where each log record starts (after the header). */
function recordOffsets(log: Uint8Array): number[] {
  const dv = new DataView(log.buffer, log.byteOffset, log.byteLength);
  const out: number[] = [];
  for (let o = LOG_HEADER; o < log.length; o += 12 + dv.getUint32(o, true)) out.push(o);
  return out;
}

const u32At = (bytes: Uint8Array, offset: number): number =>
  new DataView(bytes.buffer, bytes.byteOffset).getUint32(offset, true);

describe('FileStore', () => {
  it('reopening keeps everything, including deletes and binary values', async () => {
    const dir = freshDir();
    const before = await fillAndClose(dir, 40);
    expect(before.length).toBeGreaterThan(20);
    expect(await scanAll(dir)).toEqual(before);
    // and the store keeps working after a reopen
    const s = await openFileStore(dir);
    await s.put('after', true);
    await s.close();
    expect(await scanAll(dir)).toEqual([...before, ['after', true]].sort(([a], [b]) => (a < b ? -1 : 1)));
  });

  it('compaction keeps everything across reopen', async () => {
    const dir = freshDir();
    const before = await fillAndClose(dir, 60, { compactEvery: 4 });
    const snapshot = await readFile(join(dir, 'snapshot'));
    const log = await readFile(join(dir, 'store.log'));
    expect(new TextDecoder().decode(snapshot.subarray(0, 4))).toBe('TPSN');
    expect(u32At(snapshot, 8)).toBeGreaterThan(5); // generation
    expect(u32At(log, 8)).toBe(u32At(snapshot, 8));
    expect(recordOffsets(log).length).toBeLessThan(4);
    expect(await scanAll(dir, { compactEvery: 4 })).toEqual(before);
    expect(await scanAll(dir)).toEqual(before);
  });

  it('a compaction stopped after its snapshot (older log beside it) recovers to the snapshot', async () => {
    const dir = freshDir();
    await fillAndClose(dir, 10, { compactEvery: 1000 });
    const oldLog = await readFile(join(dir, 'store.log')); // generation 0
    const s = await openFileStore(dir, { compactEvery: 1 });
    await s.put('last', 1); // compacts: snapshot generation 1, fresh log generation 1
    const all = await s.scan('');
    await s.close();
    await writeFile(join(dir, 'store.log'), oldLog);
    await writeFile(join(dir, 'snapshot.tmp'), 'half-written garbage');
    await writeFile(join(dir, 'store.log.tmp'), 'more garbage');
    expect(await scanAll(dir)).toEqual(all);
    const log = await readFile(join(dir, 'store.log'));
    expect([u32At(log, 8), log.length]).toEqual([1, LOG_HEADER]);
    await expect(stat(join(dir, 'snapshot.tmp'))).rejects.toThrow();
  });

  it('files that do not fit together are STORE_CORRUPT', async () => {
    const dir = freshDir();
    await fillAndClose(dir, 10, { compactEvery: 3 });
    const snapshot = await readFile(join(dir, 'snapshot'));
    const log = await readFile(join(dir, 'store.log'));
    await rm(join(dir, 'snapshot'));
    expect(await codeOf(openFileStore(dir))).toBe('STORE_CORRUPT'); // log generation > 0, no snapshot
    await writeFile(join(dir, 'snapshot'), snapshot);
    await rm(join(dir, 'store.log'));
    expect(await codeOf(openFileStore(dir))).toBe('STORE_CORRUPT'); // snapshot without log
    await writeFile(join(dir, 'store.log'), log);
    const flipped = Uint8Array.from(snapshot);
    flipped[snapshot.length >> 1] ^= 0x10;
    await writeFile(join(dir, 'snapshot'), flipped);
    expect(await codeOf(openFileStore(dir))).toBe('STORE_CORRUPT');
    await writeFile(join(dir, 'snapshot'), snapshot);
    await scanAll(dir); // whole again; and the failed opens released the lock
  });

  it('a torn write after the durable point (cut at every byte) recovers the previous state', async () => {
    const dir = freshDir();
    const before = await fillAndClose(dir, 12);
    const durable = await readFile(join(dir, 'store.log')); // closed: its header claims every record
    const s = await openFileStore(dir);
    await s.put('torn', { big: 'y'.repeat(40) });
    await s.close();
    // What a crash during that put's fdatasync leaves: its record, whole or in part, after the
    // durable point that the header held before it.
    const after = await readFile(join(dir, 'store.log'));
    const full = Buffer.concat([durable.subarray(0, LOG_HEADER), after.subarray(LOG_HEADER)]);
    const last = recordOffsets(full).at(-1)!;
    expect(last).toBe(durable.length);
    expect(full.length - last).toBeGreaterThan(50);
    for (let cut = last; cut < full.length; cut++) {
      await writeFile(join(dir, 'store.log'), full.subarray(0, cut));
      expect(await scanAll(dir)).toEqual(before);
      expect((await stat(join(dir, 'store.log'))).size).toBe(last); // truncated to the last good record
    }
    // a CRC-failing last record and a zero-filled tail are torn writes too
    const bad = Uint8Array.from(full);
    bad[full.length - 3] ^= 1;
    await writeFile(join(dir, 'store.log'), bad);
    expect(await scanAll(dir)).toEqual(before);
    await writeFile(join(dir, 'store.log'), Buffer.concat([full, new Uint8Array(300)]));
    const s2 = await openFileStore(dir);
    expect((await s2.get('torn')) as object).toEqual({ big: 'y'.repeat(40) });
    await s2.put('next', 1); // appends where the good records end
    await s2.close();
    expect((await scanAll(dir)).map(([k]) => k)).toContain('next');
  });

  it('a damaged record followed by intact ones is STORE_CORRUPT (every byte of it)', async () => {
    const dir = freshDir();
    await fillAndClose(dir, 8);
    const log = await readFile(join(dir, 'store.log'));
    const offsets = recordOffsets(log);
    const start = offsets[3];
    const end = offsets[4];
    for (let i = start; i < end; i++) {
      const bad = Uint8Array.from(log);
      bad[i] ^= 0x40;
      await writeFile(join(dir, 'store.log'), bad);
      expect([i, await codeOf(openFileStore(dir))]).toEqual([i, 'STORE_CORRUPT']);
    }
    const badHeader = Uint8Array.from(log);
    badHeader[9] ^= 1;
    await writeFile(join(dir, 'store.log'), badHeader);
    expect(await codeOf(openFileStore(dir))).toBe('STORE_CORRUPT');
    await writeFile(join(dir, 'store.log'), log);
    expect((await scanAll(dir)).length).toBeGreaterThan(0);
  });

  it('options are validated', async () => {
    expect(await codeOf(openFileStore(freshDir(), { compactEvery: 0 }))).toBe('INVALID_OPTIONS');
    expect(await codeOf(openFileStore(freshDir(), { lockStaleMs: -1 }))).toBe('INVALID_OPTIONS');
  });
});

/** Every file of a store directory and its bytes (LOCK excluded: a failed open takes and drops it). */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of (await readdir(dir)).sort()) {
    if (f !== 'LOCK') out.set(f, (await readFile(join(dir, f))).toString('base64'));
  }
  return out;
}

/** Opens `dir` expecting STORE_CORRUPT; returns its detail, and checks the failed open changed no file. */
async function corruptDetail(dir: string): Promise<string> {
  const before = await filesOf(dir);
  const error = await openFileStore(dir).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TrainprintError);
  expect((error as TrainprintError).code).toBe('STORE_CORRUPT');
  expect(await filesOf(dir)).toEqual(before); // nothing repaired, truncated or created
  return (error as TrainprintError).detail ?? '';
}

/** `n` keys written 16 at a time (group commit on), so the log holds fewer, larger records. */
async function fillConcurrently(dir: string, n: number): Promise<Store> {
  const s = await openFileStore(dir);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i: number; (i = next++) < n; )
        await s.put(`k/${String(i).padStart(5, '0')}`, { i, pad: 'p'.repeat(i % 50) });
    }),
  );
  return s;
}

/** A log of format version 1 (16-byte header, no durable point) holding one record of `puts`. */
function versionOneLog(puts: Array<[string, unknown]>): Uint8Array {
  const header = new Uint8Array(16);
  const dv = new DataView(header.buffer);
  header.set([0x54, 0x50, 0x4c, 0x47]);
  dv.setUint32(4, 1, true);
  dv.setUint32(8, 0, true);
  dv.setUint32(12, crc32(header.subarray(0, 12)), true);
  const ops = puts.map(([key, value]) => ({ type: 'put', key, value: new Encoder().encode(value) }));
  const payload = new Encoder().encode({ ops });
  const record = new Uint8Array(12 + payload.length);
  const rv = new DataView(record.buffer);
  rv.setUint32(0, payload.length, true);
  rv.setUint32(4, 1, true);
  record.set(payload, 12);
  rv.setUint32(8, crc32(payload, crc32(record.subarray(0, 8))), true);
  return Buffer.concat([header, record]);
}

describe('FileStore: lost acknowledged data is STORE_CORRUPT, a torn tail is not', () => {
  it('a log cut to half its length: STORE_CORRUPT naming the sizes, the files untouched', async () => {
    const dir = freshDir();
    await (await fillConcurrently(dir, 3000)).close();
    const log = await readFile(join(dir, 'store.log'));
    expect(recordOffsets(log).length).toBeLessThan(3000); // group commit: several puts per record
    await writeFile(join(dir, 'store.log'), log.subarray(0, log.length >> 1));
    const detail = await corruptDetail(dir);
    expect(detail).toContain('store.log');
    expect(detail).toContain(`expected at least ${log.length} bytes, found ${log.length >> 1}`);
    await writeFile(join(dir, 'store.log'), log);
    expect((await scanAll(dir)).length).toBe(3000); // the whole log again: everything is back
  });

  it('also when the writer died without close (the durable point trails the last writes by milliseconds)', async () => {
    const dir = freshDir();
    const s = await fillConcurrently(dir, 2000);
    // the files as a crash right now would leave them (no close, no idle checkpoint yet)
    const crashed = freshDir();
    await mkdir(crashed);
    for (const f of ['store.log', 'MANIFEST']) await writeFile(join(crashed, f), await readFile(join(dir, f)));
    await s.close();
    const log = await readFile(join(crashed, 'store.log'));
    expect((await scanAll(crashed)).length).toBe(2000);
    await writeFile(join(crashed, 'store.log'), log); // scanAll's close claimed the rest; back to the crash state
    await writeFile(join(crashed, 'store.log'), log.subarray(0, log.length >> 1));
    expect(await corruptDetail(crashed)).toMatch(/bytes of acknowledged writes are missing/);
  });

  it('a deleted log beside a manifest (and no snapshot) is STORE_CORRUPT, not a new empty store', async () => {
    const dir = freshDir();
    await fillAndClose(dir, 10);
    await rm(join(dir, 'store.log'));
    expect(await corruptDetail(dir)).toMatch(/^store\.log: missing, although MANIFEST/);
    await expect(stat(join(dir, 'store.log'))).rejects.toThrow(); // not recreated
  });

  it('a flipped byte in any record before the durable point, the last one included, is STORE_CORRUPT', async () => {
    const dir = freshDir();
    await fillAndClose(dir, 8);
    const log = await readFile(join(dir, 'store.log'));
    const offsets = recordOffsets(log);
    const last = offsets.at(-1)!;
    for (let i = last; i < log.length; i++) {
      const bad = Uint8Array.from(log);
      bad[i] ^= 0x08;
      await writeFile(join(dir, 'store.log'), bad);
      expect([i, await codeOf(openFileStore(dir))]).toEqual([i, 'STORE_CORRUPT']);
    }
    const bad = Uint8Array.from(log);
    bad[offsets[2] + 20] ^= 0x01;
    await writeFile(join(dir, 'store.log'), bad);
    expect(await corruptDetail(dir)).toBe(
      `store.log: record 3 at byte ${offsets[2]} is damaged (CRC mismatch); ` +
        `the header records ${offsets.length} acknowledged records ending at byte ${log.length}`,
    );
    await writeFile(join(dir, 'store.log'), log);
    expect((await scanAll(dir)).length).toBeGreaterThan(0);
  });

  it('a partial record appended after the last sync is a torn tail: dropped alone, without error', async () => {
    const dir = freshDir();
    const before = await fillAndClose(dir, 30);
    const log = await readFile(join(dir, 'store.log'));
    const frame = await (async () => {
      const s = await openFileStore(dir);
      await s.batch([{ type: 'put', key: 'late', value: 'z'.repeat(200) }]);
      await s.close();
      return (await readFile(join(dir, 'store.log'))).subarray(log.length);
    })();
    for (const cut of [1, 11, 12, 100, frame.length - 1]) {
      await writeFile(join(dir, 'store.log'), Buffer.concat([log, frame.subarray(0, cut)]));
      expect(await scanAll(dir)).toEqual(before);
      expect(await readFile(join(dir, 'store.log'))).toEqual(log); // only the torn part went
    }
  });

  it('a damaged header slot falls back to the other one; both damaged is STORE_CORRUPT', async () => {
    const dir = freshDir();
    const before = await fillAndClose(dir, 12);
    const log = await readFile(join(dir, 'store.log'));
    const stamps = [u32At(log, 16), u32At(log, 36)];
    const newest = stamps[0] > stamps[1] ? 16 : 36;
    const bad = Uint8Array.from(log);
    bad[newest + 5] ^= 0x01;
    await writeFile(join(dir, 'store.log'), bad);
    expect(await scanAll(dir)).toEqual(before); // the older slot claims less: still consistent
    bad[(newest === 16 ? 36 : 16) + 5] ^= 0x01;
    await writeFile(join(dir, 'store.log'), bad);
    expect(await corruptDetail(dir)).toMatch(/neither durable-point slot/);
  });

  it('a log without its manifest, or a manifest newer than the files, is STORE_CORRUPT', async () => {
    const dir = freshDir();
    await fillAndClose(dir, 10, { compactEvery: 4 });
    const manifest = await readFile(join(dir, 'MANIFEST'));
    await rm(join(dir, 'MANIFEST'));
    expect(await corruptDetail(dir)).toMatch(/^MANIFEST: missing, although store\.log/);
    const newer = Uint8Array.from(manifest);
    new DataView(newer.buffer).setUint32(8, u32At(manifest, 8) + 1, true);
    new DataView(newer.buffer).setUint32(12, crc32(newer.subarray(0, 12)), true);
    await writeFile(join(dir, 'MANIFEST'), newer);
    expect(await corruptDetail(dir)).toMatch(/^MANIFEST: expected files of generation/);
    await writeFile(join(dir, 'MANIFEST'), manifest);
    expect((await scanAll(dir)).length).toBeGreaterThan(0);
  });

  it('a log of format version 1 is read with its old rules and upgraded on open', async () => {
    const dir = freshDir();
    await mkdir(dir);
    await writeFile(
      join(dir, 'store.log'),
      versionOneLog([
        ['a', 1],
        ['b', { x: 'y' }],
      ]),
    );
    expect(await scanAll(dir)).toEqual([
      ['a', 1],
      ['b', { x: 'y' }],
    ]);
    const log = await readFile(join(dir, 'store.log'));
    expect([u32At(log, 4), u32At(log, 8), log.length]).toEqual([2, 1, LOG_HEADER]);
    expect(u32At(await readFile(join(dir, 'MANIFEST')), 8)).toBe(1);
    expect(await scanAll(dir)).toEqual([
      ['a', 1],
      ['b', { x: 'y' }],
    ]);
  });
});

describe('FileStore lock', () => {
  let child: string;
  beforeAll(async () => {
    child = await bundleStoreChild(await mkdtemp(join(tmpRoot, 'bundle-')));
  });

  /** Runs the child, collecting stdout lines; `onLine` may react to them. */
  function runChild(args: string[], onLine?: (line: string, proc: ReturnType<typeof spawn>) => void) {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let buf = '';
    proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        onLine?.(line, proc);
      }
    });
    const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
    return { proc, lines, exited };
  }

  it('the same process cannot open a store twice', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir);
    const err = await openFileStore(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainprintError);
    expect((err as TrainprintError).code).toBe('STORE_LOCKED');
    expect((err as TrainprintError).message).toContain(`pid ${process.pid}`);
    await s.close();
    await (await openFileStore(dir)).close();
  });

  it('a second writer in another process gets STORE_LOCKED naming the holder', async () => {
    const dir = freshDir();
    const s = await openFileStore(dir);
    const probe = runChild(['probe', dir]);
    expect(await probe.exited).toBe(0);
    const report = JSON.parse(probe.lines[0]) as { code: string; message: string };
    expect(report.code).toBe('STORE_LOCKED');
    expect(report.message).toContain(`pid ${process.pid}`);
    await s.close();
    const again = runChild(['probe', dir]);
    await again.exited;
    expect(JSON.parse(again.lines[0])).toEqual({ ok: true });
  });

  it('while another process holds the store, opening here fails; after it closes, it works', async () => {
    const dir = freshDir();
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    const holder = runChild(['hold', dir], (line) => line === 'ready' && ready());
    await isReady;
    const err = (await openFileStore(dir).catch((e: unknown) => e)) as TrainprintError;
    expect(err.code).toBe('STORE_LOCKED');
    expect(err.message).toContain(`pid ${holder.proc.pid}`);
    holder.proc.stdin!.end();
    await holder.exited;
    expect(holder.lines).toContain('closed');
    await (await openFileStore(dir)).close();
  });

  it('a lock left by a dead process (SIGKILL, or a recorded pid that exited) is recovered', async () => {
    const dir = freshDir();
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    const holder = runChild(['hold', dir], (line) => line === 'ready' && ready());
    await isReady;
    holder.proc.kill('SIGKILL');
    await holder.exited;
    expect(JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')).pid).toBe(holder.proc.pid);
    const s = await openFileStore(dir);
    expect(JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')).pid).toBe(process.pid);
    await s.close();
    await expect(stat(join(dir, 'LOCK'))).rejects.toThrow(); // close removes it

    // a pid that certainly does not run any more: a process that has exited
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.on('close', r));
    await writeFile(
      join(dir, 'LOCK'),
      JSON.stringify({ pid: gone.pid, hostname: hostname(), started: new Date().toISOString(), token: 'x' }),
    );
    await (await openFileStore(dir)).close();
  });

  it('a live lock from another host, or an unreadable young LOCK, is respected; an old unreadable one is not', async () => {
    const dir = freshDir();
    await (await openFileStore(dir)).close();
    const lock = join(dir, 'LOCK');
    await writeFile(lock, JSON.stringify({ pid: 1, hostname: 'elsewhere.example', started: 'then', token: 'x' }));
    const err = (await openFileStore(dir).catch((e: unknown) => e)) as TrainprintError;
    expect(err.code).toBe('STORE_LOCKED');
    expect(err.message).toContain('elsewhere.example');
    await writeFile(lock, ''); // a writer that died between creating the LOCK and filling it
    expect(await codeOf(openFileStore(dir, { lockStaleMs: 60_000 }))).toBe('STORE_LOCKED');
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    await (await openFileStore(dir, { lockStaleMs: 60_000 })).close();
  });
});
