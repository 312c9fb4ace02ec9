/** Dataset snapshots (src/datasets/snapshot.ts): round trips, corruption, hostile input. */
import { describe, expect, it } from 'vitest';
import { decode, encode } from '@msgpack/msgpack';
import {
  crc32,
  declaredDatasetId,
  decodeDataset,
  decodeDatasetLazily,
  encodeDataset,
  DATASET_FORMAT,
  DATASET_VERSION,
  EXACT_MINHASH_K,
  type ExactDatasetData,
} from '../../src/datasets/snapshot.js';
import { TrainprintError } from '../../src/errors.js';
import { olderNormalizer } from '../../src/fingerprint/options.js';
import { prng } from '../reference/core.js';

const PARAMS = 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=oph128;sh=off';
const K = EXACT_MINHASH_K;

/** Deterministic stand-in signatures, K u32 per document. */
function signatures(nDocs: number, seed: number): Uint32Array {
  const rnd = prng(seed ^ 0x5eed);
  return Uint32Array.from({ length: nDocs * K }, () => Math.floor(rnd() * 4294967296));
}

/** A random but valid dataset: `nKeys` sorted keys spread over `nDocs` documents. */
function makeData(nKeys: number, nDocs: number, seed: number): ExactDatasetData {
  const rnd = prng(seed);
  const u32 = () => Math.floor(rnd() * 4294967296);
  const docs = Array.from({ length: nDocs }, (_, i) => ({
    id: `doc-${i}-${u32().toString(36)}`,
    chars: u32() % 100000,
    tokens: u32() % 20000,
    bytes: u32() % 300000,
  }));
  const keys = new BigUint64Array(nKeys);
  for (let i = 0; i < nKeys; i++) keys[i] = (BigInt(u32()) << 32n) | BigInt(u32());
  keys.sort();
  const postDoc = new Uint32Array(nKeys);
  const postStart = new Uint32Array(nKeys);
  const postEnd = new Uint32Array(nKeys);
  for (let i = 0; i < nKeys; i++) {
    postDoc[i] = u32() % Math.max(1, nDocs);
    postStart[i] = u32() % 100000;
    postEnd[i] = postStart[i] + (u32() % 200);
  }
  return {
    descriptor: { id: `ds-${seed}`, name: 'Random', kind: 'exact', models: ['example/m1', 'example/m2'] },
    params: PARAMS,
    docs,
    keys,
    postDoc,
    postStart,
    postEnd,
    minhash: signatures(nDocs, seed),
  };
}

function small(): ExactDatasetData {
  return {
    descriptor: { id: 'wiki-ünï', name: 'Wiki 📚', kind: 'exact', kb_dataset: 'kb/wiki', meta: { lang: 'de', n: 3 } },
    params: PARAMS,
    docs: [
      { id: 'a', chars: 10, tokens: 2, bytes: 10 },
      { id: '日本語-😀', chars: 20, tokens: 4, bytes: 40, meta: { url: 'https://x', tags: ['q'] } },
    ],
    keys: new BigUint64Array([1n, 5n, 5n, 0xffff_ffff_ffff_ffffn]),
    postDoc: new Uint32Array([0, 1, 0, 1]),
    postStart: new Uint32Array([0, 3, 4, 7]),
    postEnd: new Uint32Array([5, 9, 4, 20]),
    minhash: signatures(2, 1),
  };
}

function expectSame(a: ExactDatasetData, b: ExactDatasetData): void {
  expect(b.descriptor).toEqual(a.descriptor);
  expect(b.params).toBe(a.params);
  expect(b.docs).toEqual(a.docs);
  for (const k of ['keys', 'postDoc', 'postStart', 'postEnd', 'minhash'] as const) {
    expect(b[k].constructor).toBe(a[k].constructor);
    expect(b[k].length, k).toBe(a[k].length);
    expect(
      Buffer.from(b[k].buffer, b[k].byteOffset, b[k].byteLength).equals(
        Buffer.from(a[k].buffer, a[k].byteOffset, a[k].byteLength),
      ),
      k,
    ).toBe(true);
  }
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof TrainprintError) return e.code;
    return `raw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`;
  }
  return 'decoded';
}

function incompatible(fn: () => unknown, detail?: RegExp): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(TrainprintError);
  expect((err as TrainprintError).code).toBe('SNAPSHOT_INCOMPATIBLE');
  if (detail) expect((err as TrainprintError).detail).toMatch(detail);
}

const le = (a: BigUint64Array | Uint32Array) =>
  new Uint8Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));

/** Hand-built snapshot with a *valid* checksum, to reach the checks behind it. */
function craft(
  over: { header?: Record<string, unknown>; payload?: Record<string, unknown> | Uint8Array; checksum?: number } = {},
  base: ExactDatasetData = small(),
): Uint8Array {
  const payload =
    over.payload instanceof Uint8Array
      ? over.payload
      : encode(
          {
            descriptor: base.descriptor,
            docs: base.docs,
            keys: le(base.keys),
            postDoc: le(base.postDoc),
            postStart: le(base.postStart),
            postEnd: le(base.postEnd),
            minhash: le(base.minhash),
            ...over.payload,
          },
          { ignoreUndefined: true },
        );
  const h = {
    format: DATASET_FORMAT,
    version: DATASET_VERSION,
    params: base.params,
    kind: 'exact',
    counts: { docs: base.docs.length, keys: base.keys.length },
    ...over.header,
  };
  const head = encode(h, { ignoreUndefined: true });
  expect(head[0] & 0xf0).toBe(0x80); // fixmap: one more entry follows
  head[0] += 1;
  const tag = [0xa8, ...new TextEncoder().encode('checksum'), 0xce];
  const c = 1 + head.length + tag.length + 4;
  const out = new Uint8Array(c + 5 + payload.length);
  const dv = new DataView(out.buffer);
  out[0] = 0x92;
  out.set(head, 1);
  out.set(tag, 1 + head.length);
  out[c] = 0xc6;
  dv.setUint32(c + 1, payload.length);
  out.set(payload, c + 5);
  dv.setUint32(c - 4, over.checksum ?? crc32(out.subarray(c), crc32(out.subarray(0, c - 4))));
  return out;
}

describe('crc32', () => {
  it('matches the IEEE check value and continues across calls', () => {
    const s = new TextEncoder().encode('123456789');
    expect(crc32(s)).toBe(0xcbf43926);
    expect(crc32(s.subarray(5), crc32(s.subarray(0, 5)))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    const big = new Uint8Array(1000).map((_, i) => (i * 31) & 255);
    let c = 0;
    for (let i = 0; i < big.length; i += 7) c = crc32(big.subarray(i, i + 7), c);
    expect(c).toBe(crc32(big));
  });
});

describe('encodeDataset / decodeDataset round trip', () => {
  it('empty dataset', () => {
    const data: ExactDatasetData = {
      descriptor: { id: 'empty', kind: 'exact' },
      params: PARAMS,
      docs: [],
      keys: new BigUint64Array(0),
      postDoc: new Uint32Array(0),
      postStart: new Uint32Array(0),
      postEnd: new Uint32Array(0),
      minhash: new Uint32Array(0),
    };
    const back = decodeDataset(encodeDataset(data), { params: PARAMS });
    expectSame(data, back);
    expect(Object.keys(back.descriptor).sort()).toEqual(['id', 'kind']);
  });

  it('declaredDatasetId reads the id a file declares, and gives null for what is not a dataset file', () => {
    const bytes = encodeDataset({
      descriptor: { id: 'bücher', kind: 'exact' },
      params: PARAMS,
      docs: [],
      keys: new BigUint64Array(0),
      postDoc: new Uint32Array(0),
      postStart: new Uint32Array(0),
      postEnd: new Uint32Array(0),
      minhash: new Uint32Array(0),
    });
    expect(declaredDatasetId(bytes)).toBe('bücher');
    expect(declaredDatasetId(bytes.subarray(0, bytes.length - 9))).toBeNull(); // truncated
    expect(declaredDatasetId(new Uint8Array(encode(['header', 'no payload'])))).toBeNull();
    expect(declaredDatasetId(new Uint8Array(encode([{}, encode({ descriptor: { id: 7 } })])))).toBeNull();
    expect(declaredDatasetId(new Uint8Array(0))).toBeNull();
  });

  it('one document, descriptor and meta preserved (unicode ids, absent optionals stay absent)', () => {
    const data: ExactDatasetData = {
      descriptor: {
        id: 'корпус-🚀',
        name: 'ñ',
        kind: 'exact',
        models: ['example/gpt-x'],
        kb_dataset: 'k',
        meta: { a: [1, 'two', null, { b: true }], t: 1.5, big: 1.7e12 },
      },
      params: PARAMS,
      docs: [{ id: '\u{1F600}\u0000x', chars: 3, tokens: 1, bytes: 6, meta: { src: 'é' } }],
      keys: new BigUint64Array([42n]),
      postDoc: new Uint32Array([0]),
      postStart: new Uint32Array([1]),
      postEnd: new Uint32Array([3]),
      minhash: signatures(1, 2),
    };
    const back = decodeDataset(encodeDataset(data));
    expectSame(data, back);
    const noMeta = { ...data, docs: [{ id: 'x', chars: 1, tokens: 1, bytes: 1 }] };
    expect('meta' in decodeDataset(encodeDataset(noMeta)).docs[0]).toBe(false);
  });

  it('small dataset with duplicate keys and u64 max', () => {
    expectSame(small(), decodeDataset(encodeDataset(small())));
  });

  it('100k random keys', () => {
    const data = makeData(100_000, 500, 7);
    const bytes = encodeDataset(data);
    expect(bytes.length).toBeGreaterThan(100_000 * 20);
    expectSame(data, decodeDataset(bytes, { params: PARAMS }));
  });

  it('accepts a view into a larger buffer (Buffer, offset subarray)', () => {
    const bytes = encodeDataset(small());
    const host = new Uint8Array(bytes.length + 13);
    host.set(bytes, 3);
    expectSame(small(), decodeDataset(host.subarray(3, 3 + bytes.length)));
    expectSame(small(), decodeDataset(Buffer.from(bytes)));
  });

  it('results are fresh copies, never views into the input', () => {
    const data = { ...small(), descriptor: { ...small().descriptor, meta: { blob: new Uint8Array([1, 2, 3]) } } };
    const bytes = encodeDataset(data);
    const back = decodeDataset(bytes);
    for (const a of [back.keys, back.postDoc, back.postStart, back.postEnd, back.minhash]) {
      expect(a.buffer).not.toBe(bytes.buffer);
      expect(a.byteOffset).toBe(0);
      expect(a.buffer.byteLength).toBe(a.byteLength);
    }
    const blob = (back.descriptor.meta as { blob: Uint8Array }).blob;
    expect(blob).toEqual(new Uint8Array([1, 2, 3]));
    expect(blob.buffer).not.toBe(bytes.buffer);
    bytes.fill(0);
    expectSame(data, back);
  });
});

describe('corruption', () => {
  it('truncation at every byte of a small file', () => {
    const bytes = encodeDataset(small());
    for (let cut = 0; cut < bytes.length; cut++)
      expect(
        codeOf(() => decodeDataset(bytes.subarray(0, cut))),
        `cut ${cut}`,
      ).toBe('SNAPSHOT_INCOMPATIBLE');
    incompatible(() => decodeDataset(new Uint8Array(0)), /empty/);
    incompatible(() => decodeDataset(bytes.subarray(0, bytes.length - 1)), /truncated/);
  });

  it('truncation at 200 random cut points of a large file', () => {
    const bytes = encodeDataset(makeData(100_000, 300, 11));
    const rnd = prng(99);
    for (let t = 0; t < 200; t++) {
      const cut = Math.floor(rnd() * bytes.length);
      expect(
        codeOf(() => decodeDataset(bytes.subarray(0, cut))),
        `cut ${cut}`,
      ).toBe('SNAPSHOT_INCOMPATIBLE');
    }
  });

  it('trailing garbage', () => {
    const bytes = encodeDataset(small());
    for (const extra of [[0], [0xc0], [1, 2, 3]]) {
      const b = new Uint8Array(bytes.length + extra.length);
      b.set(bytes);
      b.set(extra, bytes.length);
      incompatible(() => decodeDataset(b), /trailing/);
    }
  });

  it('every possible single-byte change of a small file is refused', () => {
    const bytes = encodeDataset(small());
    const b = bytes.slice();
    for (let pos = 0; pos < b.length; pos++) {
      for (let x = 1; x < 256; x++) {
        b[pos] = bytes[pos] ^ x;
        const c = codeOf(() => decodeDataset(b));
        if (c !== 'SNAPSHOT_INCOMPATIBLE') expect.fail(`byte ${pos} ^ ${x}: ${c}`);
      }
      b[pos] = bytes[pos];
    }
  });

  it('single-byte flips at 500 random positions of a large file', () => {
    const bytes = encodeDataset(makeData(50_000, 200, 12));
    const rnd = prng(1234);
    for (let t = 0; t < 500; t++) {
      const pos = t < 50 ? t : Math.floor(rnd() * bytes.length); // the header too
      const b = bytes.slice();
      b[pos] ^= 1 + Math.floor(rnd() * 255);
      expect(
        codeOf(() => decodeDataset(b)),
        `pos ${pos}`,
      ).toBe('SNAPSHOT_INCOMPATIBLE');
    }
  });

  it('a flipped payload byte is reported as a checksum mismatch', () => {
    const bytes = encodeDataset(makeData(1000, 10, 3));
    bytes[bytes.length - 100] ^= 0x10;
    incompatible(() => decodeDataset(bytes), /checksum mismatch/);
  });
});

describe('compatibility checks', () => {
  it('wrong format, version, kind, params', () => {
    incompatible(() => decodeDataset(craft({ header: { format: 'trainprint.index' } })), /format "trainprint.index"/);
    incompatible(() => decodeDataset(craft({ header: { version: 3 } })), /version 3 is newer/);
    incompatible(() => decodeDataset(craft({ header: { version: 0 } })), /version 0 is older/);
    incompatible(() => decodeDataset(craft({ header: { kind: 'minhash' } })), /kind "minhash"/);
    const other = PARAMS.replace('win=8', 'win=16');
    incompatible(() => decodeDataset(encodeDataset(small()), { params: other }), /params mismatch.*win=8.*win=16/);
    expect(decodeDataset(encodeDataset(small()), { params: PARAMS }).params).toBe(PARAMS);
    expect(decodeDataset(encodeDataset(small()), {}).params).toBe(PARAMS);
  });

  it('a snapshot of an older normaliser is refused with the reason and the remedy', () => {
    // t1 made a kana or Thai run one token; its fingerprints can never match this version's
    const old = { ...small(), params: PARAMS.replace('.t2;', '.t1;') };
    incompatible(
      () => decodeDataset(encodeDataset(old), { params: PARAMS }),
      /snapshot has ".*u17\.0\.0\.t1.*"; it was made by an older normaliser \(nfkccf-u17\.0\.0\.t1, this version has nfkccf-u17\.0\.0\.t2\) and must be rebuilt from its texts$/,
    );
    // other differences, or a newer normaliser, name only the params
    const other = PARAMS.replace('win=8', 'win=16');
    expect(olderNormalizer(PARAMS, other)).toBe('');
    expect(olderNormalizer(PARAMS.replace('.t2;', '.t3;'), PARAMS)).toBe('');
    expect(olderNormalizer(PARAMS.replace('u17.0.0.t2', 'u16.0.0.t9'), PARAMS)).toMatch(
      /older normaliser \(nfkccf-u16/,
    );
    expect(olderNormalizer(PARAMS.replace('nfkccf-u17.0.0.t2', 'raw'), PARAMS)).toBe('');
  });

  it('the crafting helper reproduces the real checksum', () => {
    expect(craft()).toEqual(encodeDataset(small()));
  });

  it('not a snapshot at all', () => {
    incompatible(() => decodeDataset(encode({ hello: 'world' })), /not a trainprint dataset/);
    incompatible(() => decodeDataset(encode([1, 2])), /header is not a map/);
    incompatible(() => decodeDataset(encode([{ format: DATASET_FORMAT }, 1, 2])), /not a trainprint dataset/);
    incompatible(
      () => decodeDataset(new TextEncoder().encode('{"format":"trainprint.dataset"}')),
      /not a trainprint dataset/,
    );
    incompatible(() => decodeDataset(new Uint8Array([0x92, 0xc1, 0xc1])), /not valid msgpack/);
  });

  it('non-Uint8Array input is INVALID_INPUT', () => {
    const bytes = encodeDataset(small());
    for (const bad of [
      bytes.buffer,
      Array.from(bytes),
      'x',
      null,
      undefined,
      new Uint16Array(4),
      new DataView(bytes.buffer),
    ]) {
      expect(codeOf(() => decodeDataset(bad as never))).toBe('INVALID_INPUT');
    }
    expect(codeOf(() => decodeDataset(bytes, { params: 3 } as never))).toBe('INVALID_OPTIONS');
  });
});

describe('inconsistent or mistyped contents (valid checksum)', () => {
  const cases: Array<[string, Parameters<typeof craft>[0], RegExp]> = [
    ['doc count', { header: { counts: { docs: 3, keys: 4 } } }, /header says 3 documents/],
    ['key count', { header: { counts: { docs: 2, keys: 5 } } }, /payload.keys has 32 bytes, expected 5/],
    ['column length', { payload: { postEnd: le(new Uint32Array([5, 9, 4])) } }, /payload.postEnd has 12 bytes/],
    ['ragged column bytes', { payload: { postDoc: new Uint8Array(15) } }, /payload.postDoc has 15 bytes/],
    [
      'minhash one value short',
      { payload: { minhash: le(new Uint32Array(2 * K - 1)) } },
      new RegExp(`payload.minhash has ${(2 * K - 1) * 4} bytes, expected ${2 * K} × 4`),
    ],
    [
      'minhash one document too many',
      { payload: { minhash: le(new Uint32Array(3 * K)) } },
      /payload.minhash has 1536 bytes, expected 256 × 4 = 1024/,
    ],
    ['minhash ragged bytes', { payload: { minhash: new Uint8Array(2 * K * 4 + 2) } }, /payload.minhash has 1026 bytes/],
    ['minhash not bin', { payload: { minhash: [1, 2, 3] } }, /payload.minhash must be bin/],
    ['minhash missing', { payload: { minhash: undefined } }, /payload.minhash is missing/],
    [
      'postDoc range',
      { payload: { postDoc: le(new Uint32Array([0, 1, 2, 1])) } },
      /postDoc\[2\] = 2 is not a document index/,
    ],
    ['start > end', { payload: { postStart: le(new Uint32Array([0, 3, 5, 7])) } }, /posting 2 starts after it ends/],
    ['unsorted keys', { payload: { keys: le(new BigUint64Array([1n, 5n, 4n, 9n])) } }, /keys\[2\] < keys\[1\]/],
    [
      'unsorted keys (low word)',
      { payload: { keys: le(new BigUint64Array([1n, 0x1_0000_0005n, 0x1_0000_0004n, 9n])) } },
      /not sorted/,
    ],
    ['keys not bin', { payload: { keys: [1, 5, 5, 9] } }, /payload.keys must be bin/],
    [
      'doc chars string',
      {
        payload: {
          docs: [
            { id: 'a', chars: '10', tokens: 2, bytes: 10 },
            { id: 'b', chars: 1, tokens: 1, bytes: 1 },
          ],
        },
      },
      /docs\[0\].chars/,
    ],
    [
      'doc chars fractional',
      {
        payload: {
          docs: [
            { id: 'a', chars: 1.5, tokens: 2, bytes: 10 },
            { id: 'b', chars: 1, tokens: 1, bytes: 1 },
          ],
        },
      },
      /docs\[0\].chars/,
    ],
    [
      'doc chars negative',
      {
        payload: {
          docs: [
            { id: 'a', chars: -1, tokens: 2, bytes: 10 },
            { id: 'b', chars: 1, tokens: 1, bytes: 1 },
          ],
        },
      },
      /docs\[0\].chars/,
    ],
    [
      'doc id number',
      {
        payload: {
          docs: [
            { id: 1, chars: 1, tokens: 2, bytes: 10 },
            { id: 'b', chars: 1, tokens: 1, bytes: 1 },
          ],
        },
      },
      /docs\[0\].id/,
    ],
    [
      'doc unknown field',
      {
        payload: {
          docs: [
            { id: 'a', chars: 1, tokens: 2, bytes: 10, x: 1 },
            { id: 'b', chars: 1, tokens: 1, bytes: 1 },
          ],
        },
      },
      /docs\[0\] has unknown field "x"/,
    ],
    ['doc not a map', { payload: { docs: [1, 2] } }, /docs\[0\] must be an object/],
    ['docs not array', { payload: { docs: { 0: 'a' } } }, /docs must be an array/],
    ['descriptor id', { payload: { descriptor: { id: 7, kind: 'exact' } } }, /descriptor.id/],
    ['descriptor kind', { payload: { descriptor: { id: 'x', kind: 'minhash' } } }, /descriptor.kind/],
    ['descriptor models', { payload: { descriptor: { id: 'x', kind: 'exact', models: [1] } } }, /descriptor.models/],
    ['descriptor name', { payload: { descriptor: { id: 'x', kind: 'exact', name: null } } }, /descriptor.name/],
    ['payload unknown field', { payload: { extra: 1 } }, /payload has unknown field "extra"/],
    ['payload missing field', { payload: { postEnd: undefined } }, /payload.postEnd is missing/],
    ['payload not a map', { payload: encode([1, 2, 3]) }, /payload is not a map/],
    ['payload trailing bytes', { payload: new Uint8Array([...encode({}), 0]) }, /payload has trailing bytes/],
    ['header unknown field', { header: { extra: 1 } }, /header has unknown field "extra"/],
    ['header params type', { header: { params: 5 } }, /header.params/],
    ['header counts type', { header: { counts: { docs: '2', keys: 4 } } }, /header.counts/],
    ['header counts extra', { header: { counts: { docs: 2, keys: 4, x: 1 } } }, /header.counts has unknown field/],
    ['header version type', { header: { version: '1' } }, /header.version/],
    ['checksum wrong', { checksum: 12345 }, /checksum mismatch/],
  ];
  for (const [name, over, detail] of cases) it(name, () => incompatible(() => decodeDataset(craft(over)), detail));

  it('missing header field, checksum not canonical', () => {
    const b = encode([
      { format: DATASET_FORMAT, version: 1, params: PARAMS, kind: 'exact', counts: { docs: 0, keys: 0 } },
      new Uint8Array(0),
    ]);
    incompatible(() => decodeDataset(b), /header.checksum is missing/);
    const good = encodeDataset(small());
    const header = decode(good) as [Record<string, unknown>, Uint8Array];
    // Same values, but msgpack-encoded by the library (checksum as int, payload as bin16/bin8).
    incompatible(() => decodeDataset(encode(header)), /checksum is not where it belongs/);
    incompatible(
      () => decodeDataset(encode([{ ...header[0], checksum: 1.5 }, header[1]])),
      /header.checksum must be a u32/,
    );
    // checksum before counts
    const { checksum, ...rest } = header[0];
    incompatible(() => decodeDataset(encode([{ checksum, ...rest }, header[1]])), /checksum is not where it belongs/);
  });
});

describe('hostile sizes are refused before they are read', () => {
  const prefix = (): number[] => {
    const full = encodeDataset(small());
    const payload = (decode(full) as [unknown, Uint8Array])[1];
    return Array.from(full.subarray(0, full.length - payload.length - 5)); // up to the payload's bin32 tag
  };
  // refused by the size check named in `detail`, before anything of the claimed size is allocated or read (a
  // 4 GB allocation would throw a RangeError, not this error; no clock is read: a loaded machine is slow, not wrong)
  const refused = (b: Uint8Array, detail: RegExp) => {
    incompatible(() => decodeDataset(b), detail);
  };

  it('a 4 GB bin claim in the outer array', () => {
    refused(
      new Uint8Array([...prefix(), 0xc6, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
      /bin length \(4294967295\) > maxBinLength/,
    );
  });

  it('4-billion-element array / map / string claims', () => {
    refused(new Uint8Array([0x92, 0xdd, 0xff, 0xff, 0xff, 0xff, 0]), /array length/);
    refused(new Uint8Array([0x92, 0xdf, 0xff, 0xff, 0xff, 0xff, 0]), /map length/);
    refused(new Uint8Array([0x92, 0xdb, 0xff, 0xff, 0xff, 0xff, 0]), /maxStrLength/);
    refused(new Uint8Array([0x92, 0xc9, 0xff, 0xff, 0xff, 0xff, 1, 0]), /ext length/);
  });

  it('huge claims inside a checksummed payload', () => {
    for (const [bytes, detail] of [
      [[0xc6, 0xff, 0xff, 0xff, 0xff, 0], /bin length/],
      [[0xdd, 0xff, 0xff, 0xff, 0xff, 0], /array length/],
      [[0x81, 0xa4, 0x64, 0x6f, 0x63, 0x73, 0xdd, 0x7f, 0xff, 0xff, 0xff], /array length/],
    ] as const) {
      refused(craft({ payload: new Uint8Array(bytes) }), detail);
    }
  });

  it('claimed counts far above the payload are refused without allocating', () => {
    refused(craft({ header: { counts: { docs: 2, keys: 2 ** 40 } } }), /payload.keys has 32 bytes/);
  });
});

describe('encodeDataset input checks', () => {
  const bad = (over: Partial<Record<keyof ExactDatasetData, unknown>>) =>
    codeOf(() => encodeDataset({ ...small(), ...over } as never));
  it('refuses what decode would refuse', () => {
    expect(bad({ keys: new BigUint64Array([5n, 1n, 6n, 7n]) })).toBe('INVALID_INPUT');
    expect(bad({ keys: [1n] })).toBe('INVALID_INPUT');
    expect(bad({ postDoc: new Uint32Array([0, 1, 2, 0]) })).toBe('INVALID_INPUT');
    expect(bad({ postEnd: new Uint32Array([0, 0, 0, 0]) })).toBe('INVALID_INPUT');
    expect(bad({ postEnd: new Uint32Array(3) })).toBe('INVALID_INPUT');
    expect(bad({ minhash: new Uint32Array(2 * K - 1) })).toBe('INVALID_INPUT');
    expect(bad({ minhash: new Uint32Array(3 * K) })).toBe('INVALID_INPUT');
    expect(bad({ minhash: Array.from(new Uint32Array(2 * K)) })).toBe('INVALID_INPUT');
    expect(bad({ minhash: undefined })).toBe('INVALID_INPUT');
    expect(bad({ params: '' })).toBe('INVALID_INPUT');
    expect(bad({ docs: [{ id: 'a', chars: 1, tokens: 1 }] })).toBe('INVALID_INPUT');
    expect(bad({ descriptor: { id: 'x', kind: 'exact', extra: 1 } })).toBe('INVALID_INPUT');
    expect(bad({ descriptor: { id: 'x', kind: 'exact', meta: { f: () => 1 } } })).toBe('INVALID_INPUT');
    expect(bad({ descriptor: { id: 'x', kind: 'exact', meta: { b: 1n } } })).toBe('INVALID_INPUT');
    expect(codeOf(() => encodeDataset(null as never))).toBe('INVALID_INPUT');
  });
});

describe('1M keys', () => {
  // the codec's speed at scale is measured by bench/exact-scale.mjs (export_ms, and the import in Chromium), not
  // asserted here: a loaded machine would fail any fixed bound
  it('round-trips 1M keys and 5,000 documents exactly, with a checksum over the whole', () => {
    const data = makeData(1_000_000, 5000, 5);
    const bytes = encodeDataset(data);
    const back = decodeDataset(bytes, { params: PARAMS });
    // compared as bytes (a deep equality of million-element arrays element by element takes minutes)
    const same = (a: ArrayBufferView, b: ArrayBufferView) =>
      Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    expect(back.keys.length).toBe(1_000_000);
    for (const k of ['keys', 'postDoc', 'postStart', 'postEnd', 'minhash'] as const)
      expect(same(back[k], data[k]), k).toBe(true);
    expect(back.docs).toEqual(data.docs);
    const again = encodeDataset(back);
    expect(same(again, bytes)).toBe(true); // the same bytes again: the encoding is canonical
    expect(crc32(again)).toBe(crc32(bytes));
  });
});

describe('decodeDatasetLazily: texts decoded on first use', () => {
  const texts = ['0123456789', `${'ü'.repeat(14)}日本語-😀`];
  const withTexts = (t: ReadonlyArray<string | null>): ExactDatasetData => ({ ...small(), texts: t });

  it('gives the texts decodeDataset gives, one at a time, and the same columns', () => {
    for (const t of [texts, [null, texts[1]], [texts[0], null]]) {
      const bytes = encodeDataset(withTexts(t));
      const eager = decodeDataset(bytes);
      const lazy = decodeDatasetLazily(bytes);
      if (!('keys' in lazy)) throw new Error('an exact dataset');
      expectSame(eager, lazy);
      expect(lazy.texts).toBeUndefined();
      expect(lazy.lazyTexts).toBeDefined();
      expect(t.map((_, d) => lazy.lazyTexts!.has(d))).toEqual(t.map((x) => x !== null));
      expect(t.map((_, d) => lazy.lazyTexts!.get(d))).toEqual(eager.texts);
      expect(lazy.lazyTexts!.has(2)).toBe(false);
      expect(lazy.lazyTexts!.get(-1)).toBeNull();
    }
    const none = decodeDatasetLazily(encodeDataset(small()));
    expect('lazyTexts' in none).toBe(false);
  });

  it('checks the length of a text when it decodes it', () => {
    const bytes = craft({ payload: { texts: [texts[0], 'x'.repeat(19)] } });
    incompatible(() => decodeDataset(bytes), /texts\[1\] has 19 characters, docs\[1\]\.chars says 20/);
    const lazy = decodeDatasetLazily(bytes) as ExactDatasetData & { lazyTexts: { get(d: number): string | null } };
    expect(lazy.lazyTexts.get(0)).toBe(texts[0]);
    incompatible(() => lazy.lazyTexts.get(1), /texts\[1\] has 19 characters, docs\[1\]\.chars says 20/);
  });

  it('refuses what decodeDataset refuses, with its reasons', () => {
    for (const [payload, why] of [
      [{ texts: [texts[0]] }, /texts has 1 entries, expected one per document \(2\)/],
      [{ texts: [42, texts[1]] }, /texts\[0\] must be a string or nil/],
      [{ texts: 'no' }, /texts must be an array/],
    ] as const) {
      const bytes = craft({ payload });
      incompatible(() => decodeDataset(bytes), why);
      incompatible(() => decodeDatasetLazily(bytes), why);
    }
  });

  it('decodes a payload whose texts are not its last entry as decodeDataset does', () => {
    const base = small();
    const payload = encode({
      texts,
      descriptor: base.descriptor,
      docs: base.docs,
      keys: le(base.keys),
      postDoc: le(base.postDoc),
      postStart: le(base.postStart),
      postEnd: le(base.postEnd),
      minhash: le(base.minhash),
    });
    const bytes = craft({ payload });
    const lazy = decodeDatasetLazily(bytes);
    expect(lazy).toEqual(decodeDataset(bytes));
    expect('lazyTexts' in lazy).toBe(false);
  });
});
