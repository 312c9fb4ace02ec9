import { decode, encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { docsAt, splitTexts } from '../../../src/datasets/payload-bytes.js';
import {
  crc32,
  decodeDataset,
  decodeDatasetLazily,
  EXACT_MINHASH_K,
  encodeDataset,
  type ExactDatasetData,
  LazyTexts,
  snapshotHead,
} from '../../../src/datasets/snapshot.js';
import { TrainprintError } from '../../../src/errors.js';
import { prng } from '../../reference/core.js';

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};

/** Bytes written into a map as they are (a value encoded already, or not msgpack at all). */
class Raw {
  constructor(readonly bytes: Uint8Array) {}
}

/** A msgpack map written entry by entry (a key may repeat, in any order), its header as the writers write it. */
function mapOf(entries: ReadonlyArray<readonly [string, unknown]>): Uint8Array {
  const n = entries.length;
  const head = n < 16 ? Uint8Array.of(0x80 | n) : Uint8Array.of(0xde, n >> 8, n & 0xff);
  return concat([head, ...entries.flatMap(([k, v]) => [encode(k), v instanceof Raw ? v.bytes : encode(v)])]);
}

function arrayOf(items: readonly Uint8Array[]): Uint8Array {
  const n = items.length;
  const head = n < 16 ? Uint8Array.of(0x90 | n) : Uint8Array.of(0xdc, n >> 8, n & 0xff);
  return concat([head, ...items]);
}

const IDS = [
  'a',
  'doc-7.txt#3',
  'ünïcödé',
  '日本語の文書',
  '😀 emoji',
  '\ufeffbom',
  '',
  'x'.repeat(300),
  'lone \ud800',
];

/** One random value of a document's field: mostly what the writers write, sometimes what only msgpack reads. */
function fieldValue(random: () => number, name: string): unknown {
  if (name === 'id') return random() < 0.9 ? IDS[Math.floor(random() * IDS.length)] : Math.floor(random() * 9);
  if (name === 'meta') return random() < 0.5 ? { source: 'x' } : null;
  const r = random();
  if (r < 0.05) return -1 - Math.floor(random() * 1000); // negative: msgpack's only
  if (r < 0.1) return 2 ** 32 + Math.floor(random() * 1000); // uint64: msgpack's only
  if (r < 0.15) return 'text';
  return Math.floor(random() * [0x80, 0x100, 0x10000, 2 ** 32][Math.floor(random() * 4)]);
}

/** A documents' array with random fields (repeated, reordered, missing, `meta`, other types), as raw bytes. */
function randomDocs(random: () => number): Uint8Array {
  const docs: Uint8Array[] = [];
  const count = Math.floor(random() * (random() < 0.1 ? 40 : 6));
  for (let d = 0; d < count; d++) {
    const names = ['id', 'chars', 'tokens', 'bytes'];
    if (random() < 0.05) names.push('meta');
    if (random() < 0.05) names.push('other');
    if (random() < 0.1) names.push(names[Math.floor(random() * names.length)]);
    if (random() < 0.2) names.sort(() => random() - 0.5);
    if (random() < 0.05) names.pop();
    docs.push(mapOf(names.map((n) => [n, fieldValue(random, n)])));
  }
  return arrayOf(docs);
}

describe('docsAt: a documents list read from the bytes as msgpack decodes it', () => {
  it('gives msgpack’s documents, keys in the same order, or leaves them to msgpack (3,000 random lists)', () => {
    const random = prng(0x5eed);
    let read = 0;
    let left = 0;
    for (let run = 0; run < 3000; run++) {
      const bytes = randomDocs(random);
      const tail = random() < 0.5 ? Uint8Array.of(0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0) : new Uint8Array(0);
      const got = docsAt(concat([bytes, tail]), 0);
      if (got === null) {
        left++;
        continue;
      }
      read++;
      expect(got.end).toBe(bytes.length);
      const want = decode(bytes) as unknown[];
      expect(got.docs).toEqual(want);
      expect(got.docs.map((d) => Object.keys(d))).toEqual(want.map((d) => Object.keys(d as object)));
    }
    expect(read).toBeGreaterThan(500); // the writers' shape is read here
    expect(left).toBeGreaterThan(100); // and the rest left to msgpack
  });

  it('leaves a truncated list to msgpack', () => {
    const bytes = encode([{ id: 'a', chars: 1, tokens: 1, bytes: 1 }]);
    for (let cut = 0; cut < bytes.length; cut++) expect(docsAt(bytes.subarray(0, cut), 0)).toBeNull();
  });
});

/** A random exact dataset with kept texts (some not kept) and documents of every shape the writers write. */
function randomDataset(random: () => number): ExactDatasetData {
  const count = 1 + Math.floor(random() * 20);
  const texts = Array.from({ length: count }, (_, d) =>
    random() < 0.2 ? null : `${['', 'ü ', '日本 ', '😀 '][d % 4]}${'word '.repeat(Math.floor(random() * 30))}`,
  );
  const docs = texts.map((t, d) => ({
    id: `${IDS[Math.floor(random() * (IDS.length - 1))]}#${d}`,
    chars: t?.length ?? Math.floor(random() * 500),
    tokens: Math.floor(random() * 100),
    bytes: Math.floor(random() * (random() < 0.1 ? 2 ** 20 : 300)),
    ...(random() < 0.1 ? { meta: { n: d, tags: ['x'] } } : {}),
  }));
  const n = Math.floor(random() * 50);
  const keys = new BigUint64Array(n);
  const postDoc = new Uint32Array(n);
  const postStart = new Uint32Array(n);
  const postEnd = new Uint32Array(n);
  let key = 0n;
  for (let i = 0; i < n; i++) {
    key += BigInt(Math.floor(random() * 2 ** 40));
    keys[i] = key;
    postDoc[i] = Math.floor(random() * count);
    postEnd[i] = Math.floor(random() * (docs[postDoc[i]].chars + 1));
    postStart[i] = Math.floor(random() * (postEnd[i] + 1));
  }
  const minhash = Uint32Array.from({ length: count * EXACT_MINHASH_K }, () => Math.floor(random() * 2 ** 32));
  return {
    descriptor: { id: 'ds', kind: 'exact', ...(random() < 0.3 ? { meta: { a: 1 } } : {}) },
    params: 'tp1;test',
    docs,
    keys,
    postDoc,
    postStart,
    postEnd,
    minhash,
    texts,
  };
}

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

describe('decodeDatasetLazily: the payload read in place gives decodeDataset’s values', () => {
  it('the same descriptor, documents, columns and texts, adopted or not (600 random snapshots)', () => {
    const random = prng(0xdeca);
    for (let run = 0; run < 600; run++) {
      const bytes = encodeDataset(randomDataset(random));
      const eager = decodeDataset(bytes);
      for (const adopt of [false, true]) {
        // at every offset from an 8-byte boundary: an adopted file's columns are moved onto their alignment in place
        const input = new Uint8Array(bytes.length + 8).subarray(run % 8, (run % 8) + bytes.length);
        input.set(bytes);
        const lazy = decodeDatasetLazily(input, { adopt }) as ExactDatasetData & {
          lazyTexts: { get(d: number): string | null };
        };
        expect(lazy.descriptor).toEqual(eager.descriptor);
        expect(JSON.stringify(lazy.docs)).toBe(JSON.stringify(eager.docs)); // keys in the same order too
        for (const k of ['keys', 'postDoc', 'postStart', 'postEnd', 'minhash'] as const) {
          expect(Buffer.from(bytesOf(lazy[k])).equals(Buffer.from(bytesOf(eager[k]))), k).toBe(true);
          expect(lazy[k].buffer === input.buffer).toBe(adopt); // the file's own bytes only when adopted
        }
        if (!adopt) input.fill(0); // not adopted: the texts are the decode's own copy
        expect(eager.texts!.map((_, d) => lazy.lazyTexts.get(d))).toEqual(eager.texts);
      }
    }
  });

  it('refuses a payload as decodeDataset does, with its reasons', () => {
    const data = randomDataset(prng(7));
    const le = (a: ArrayBufferView) => bytesOf(a).slice();
    const entries: Array<readonly [string, unknown]> = [
      ['descriptor', data.descriptor],
      ['docs', data.docs],
      ['keys', le(data.keys)],
      ['postDoc', le(data.postDoc)],
      ['postStart', le(data.postStart)],
      ['postEnd', le(data.postEnd)],
      ['minhash', le(data.minhash)],
    ];
    const frame = (payload: Uint8Array): Uint8Array => {
      const head = snapshotHead(data.params, 'exact', { docs: data.docs.length, keys: data.keys.length });
      const out = concat([head, payload]);
      const c = head.length - 5;
      new DataView(out.buffer).setUint32(c + 1, payload.length, false);
      new DataView(out.buffer).setUint32(c - 4, crc32(out.subarray(c), crc32(out.subarray(0, c - 4))), false);
      return out;
    };
    const texts = new Raw(encode(data.texts));
    const cases: Uint8Array[] = [
      mapOf([...entries, ['texts', texts]]), // as written: accepted
      mapOf([['docs', [{ id: 'x' }]], ...entries, ['texts', texts]]), // a key repeated: the last one counts
      mapOf([...entries, ['docs', [{ id: 'x', chars: 1, tokens: 1, bytes: 1 }]], ['texts', texts]]),
      mapOf([...entries, ['__proto__', 1], ['texts', texts]]),
      mapOf([...entries, ['extra', 1], ['texts', texts]]),
      mapOf([...entries.slice(1), ['texts', texts]]),
      mapOf([
        ...entries.slice(0, 1),
        ['docs', new Raw(Uint8Array.of(0x91, 0x84, 0xc1))],
        ...entries.slice(2),
        ['texts', texts],
      ]),
      mapOf([...entries, ['texts', [...data.docs, null].map(() => null)]]),
    ];
    const outcome = (f: () => unknown): string => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        expect(e).toBeInstanceOf(TrainprintError);
        return `${(e as TrainprintError).code}: ${(e as TrainprintError).detail}`;
      }
    };
    const seen = cases.map((payload) => {
      const bytes = frame(payload);
      const eager = outcome(() => decodeDataset(bytes));
      expect(outcome(() => decodeDatasetLazily(bytes))).toBe(eager);
      expect(outcome(() => decodeDatasetLazily(bytes.slice(), { adopt: true }))).toBe(eager);
      return eager;
    });
    expect(seen[0]).toBe('accepted');
    expect(seen.filter((s) => s !== 'accepted').length).toBeGreaterThanOrEqual(5);
  });
});

describe('splitTexts: texts past 2 GiB', () => {
  it('places a text that starts beyond 2 GiB of texts and reads it back', () => {
    // a payload { texts: [<a str32 of 2 GiB>, "abc"] }: only its headers are written, so only the first and the last
    // pages of the 2 GiB are ever touched (an offset kept in an Int32 turned negative here)
    const big = 2 ** 31;
    const payload = new Uint8Array(1 + 6 + 1 + 5 + big + 4);
    payload.set([0x81, 0xa5, 0x74, 0x65, 0x78, 0x74, 0x73, 0x92, 0xdb]);
    new DataView(payload.buffer).setUint32(9, big, false);
    payload.set([0xa3, 0x61, 0x62, 0x63], 13 + big);
    const split = splitTexts(payload, true);
    expect(split).not.toBeNull();
    expect([...split!.starts]).toEqual([0, 5 + big]);
    expect([...split!.ends]).toEqual([5 + big, 9 + big]);
    const docs = [
      { id: 'big', chars: big, tokens: 0, bytes: big },
      { id: 'after', chars: 3, tokens: 1, bytes: 3 },
    ];
    const texts = new LazyTexts(split!.bytes, split!.starts, split!.ends, docs);
    expect(texts.has(1)).toBe(true);
    expect(texts.get(1)).toBe('abc');
  });
});
