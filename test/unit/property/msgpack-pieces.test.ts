import { Encoder, encode } from '@msgpack/msgpack';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PORTRAIT_BACKGROUND } from '../../../src/datasets/background.js';
import { MSGPACK_JS_STRING_UNITS, packedPieces, textPieces } from '../../../src/datasets/msgpack-pieces.js';
import {
  crc32,
  EXACT_MINHASH_K,
  encodeDataset,
  type ExactDatasetData,
  type PortraitDatasetData,
  snapshotHead,
} from '../../../src/datasets/snapshot.js';
import { SnapshotStream } from '../../../src/datasets/snapshot-stream.js';
import { prng } from '../../reference/core.js';

const concat = (parts: Iterable<Uint8Array>): Uint8Array => {
  const list = [...parts].map((p) => p.slice()); // a reused piece is copied before the next is taken below
  const out = new Uint8Array(list.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of list) out.set(p, at), (at += p.length);
  return out;
};

/** Every piece copied as it comes (a piece of a reused buffer is valid only until the next is taken). */
function gathered(pieces: Iterable<Uint8Array>): Uint8Array {
  const copies: Uint8Array[] = [];
  for (const p of pieces) copies.push(p.slice());
  return concat(copies);
}

const CHARS = ['a', ' ', 'é', 'ж', '日', '😀', '\ud800', '\udfff', '\u0000', '\uffff', '\ud83d', '\ude00'];

/**
 * A random text: empty, at msgpack's 50/51-unit line and the UTF-8 lengths where a str header widens (31/32,
 * 255/256, 65535/65536 bytes), astral characters, and lone surrogates (alone, at either end, or a pair's halves apart).
 */
function randomText(random: () => number): string | null {
  const r = random();
  if (r < 0.08) return null;
  if (r < 0.12) return '';
  const units = [MSGPACK_JS_STRING_UNITS, MSGPACK_JS_STRING_UNITS + 1, 31, 32, 255, 256, 85, 86];
  const wide = [21845, 21846, 65535, 65536]; // a str16's last lengths and a str32's first, rarer: they take time
  const r2 = random();
  const length =
    r2 < 0.03
      ? wide[Math.floor(random() * wide.length)]
      : r2 < 0.6
        ? units[Math.floor(random() * units.length)]
        : Math.floor(random() * 400);
  const ascii = random() < 0.4;
  let s = '';
  while (s.length < length) s += ascii && random() < 0.97 ? 'x' : CHARS[Math.floor(random() * CHARS.length)];
  return s.slice(0, length); // a pair cut at the end leaves a lone high surrogate
}

const PIECES = [8, 9, 64, 100, 1000, 1 << 16, 1 << 20];

describe('textPieces: msgpack’s own bytes for every text, in pieces of any size', () => {
  it('equals msgpack’s encode of the list (lone surrogates, astral, empty, 50/51 units; 400 random lists)', () => {
    const random = prng(0x7e47);
    const encoder = new Encoder();
    for (let run = 0; run < 400; run++) {
      const texts = Array.from({ length: Math.floor(random() * 12) }, () => randomText(random));
      const want = encode(texts).subarray(1); // the list's header (a fixarray: under 16 texts) is the caller's
      const pieceBytes = PIECES[run % PIECES.length];
      for (const fresh of [false, true]) {
        const got = gathered(textPieces(texts, encoder, { pieceBytes, fresh }));
        expect(Buffer.from(got).equals(Buffer.from(want)), `run ${run}, pieces of ${pieceBytes}`).toBe(true);
      }
    }
  });

  it('never hands encodeInto a view longer than a piece', () => {
    const texts = ['a'.repeat(40), 'b'.repeat(60), '日'.repeat(20), null, 'c'.repeat(5000)];
    const want = Buffer.from(encode(texts).subarray(1));
    const spy = vi.spyOn(TextEncoder.prototype, 'encodeInto');
    const got = gathered(textPieces(texts, new Encoder(), { pieceBytes: 256 }));
    const views = spy.mock.calls.map(([, view]) => view.length);
    spy.mockRestore();
    expect(want.equals(got)).toBe(true);
    expect(views.length).toBeGreaterThan(0);
    for (const length of views) expect(length).toBeLessThanOrEqual(256);
  });

  it('keeps each piece when asked (no piece shares a buffer with another)', () => {
    const texts = Array.from({ length: 50 }, (_, i) => 'w'.repeat(i * 7));
    const pieces = [...textPieces(texts, new Encoder(), { pieceBytes: 256, fresh: true })];
    expect(new Set(pieces.map((p) => p.buffer)).size).toBe(pieces.length);
    expect(Buffer.from(concat(pieces)).equals(Buffer.from(encode(texts).subarray(3)))).toBe(true); // after an array16's header
  });

  it('refuses a piece size a view of which could reach 2 GiB', () => {
    expect(() => [...textPieces([], new Encoder(), { pieceBytes: 2 ** 31 })]).toThrow(RangeError);
    expect(() => [...packedPieces([], { pieceBytes: 4 })]).toThrow(RangeError);
  });
});

describe('packedPieces: the pieces’ bytes in order, packed', () => {
  it('equals the concatenation for any piece size (200 random lists)', () => {
    const random = prng(0x9ac4);
    for (let run = 0; run < 200; run++) {
      const parts = Array.from({ length: Math.floor(random() * 30) }, () =>
        Uint8Array.from({ length: Math.floor(random() * 150) }, () => Math.floor(random() * 256)),
      );
      const pieceBytes = PIECES[run % PIECES.length];
      const shared = new Uint8Array(200); // one buffer rewritten for each part, as an encoder's shared view is
      function* reused(): Generator<Uint8Array> {
        for (const p of parts) {
          shared.set(p);
          yield shared.subarray(0, p.length);
        }
      }
      for (const fresh of [false, true]) {
        const got = fresh
          ? concat([...packedPieces(reused(), { pieceBytes, fresh })])
          : gathered(packedPieces(reused(), { pieceBytes }));
        expect(Buffer.from(got).equals(Buffer.from(concat(parts)))).toBe(true);
      }
    }
  });
});

/** The file as written before its payload was written in pieces: msgpack's encode of the whole payload, framed. */
function framedByMsgpack(
  payload: unknown,
  params: string,
  kind: 'exact' | 'portrait',
  counts: { docs: number; keys: number },
  version?: number,
): Uint8Array {
  const bytes = new Encoder({ ignoreUndefined: true }).encode(payload);
  const head = snapshotHead(params, kind, counts, version);
  const c = head.length - 5;
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(c + 1, bytes.length, false);
  dv.setUint32(c - 4, crc32(out.subarray(c), crc32(out.subarray(0, c - 4))), false);
  return out;
}

const le = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function randomExact(random: () => number): ExactDatasetData {
  const count = Math.floor(random() * 14);
  const texts = Array.from({ length: count }, () => randomText(random));
  const keep = random() < 0.8;
  const docs = texts.map((t, d) => ({
    id: random() < 0.3 ? `${'long-id-'.repeat(8)}${d}` : `doc-${d}${random() < 0.2 ? '\ud800' : ''}`,
    chars: t?.length ?? Math.floor(random() * 50),
    tokens: Math.floor(random() * 100),
    bytes: Math.floor(random() * 2 ** 20),
    ...(random() < 0.2 ? { meta: { note: 'ü'.repeat(Math.floor(random() * 80)), n: d } } : {}),
  }));
  const n = Math.floor(random() * 40);
  const keys = new BigUint64Array(n);
  let key = 0n;
  for (let i = 0; i < n; i++) keys[i] = key += BigInt(Math.floor(random() * 2 ** 40));
  const postDoc = Uint32Array.from({ length: n }, () => Math.floor(random() * Math.max(count, 1)));
  const postEnd = Uint32Array.from(postDoc, (d) => Math.floor(random() * (docs[d]?.chars ?? 0)));
  const postStart = Uint32Array.from(postEnd, (e) => Math.floor(random() * (e + 1)));
  return {
    descriptor: { id: 'ds', kind: 'exact', name: random() < 0.5 ? 'n'.repeat(70) : undefined, keep_text: keep },
    params: 'tp1;test',
    docs,
    keys: count === 0 ? new BigUint64Array(0) : keys,
    postDoc: count === 0 ? new Uint32Array(0) : postDoc,
    postStart: count === 0 ? new Uint32Array(0) : postStart,
    postEnd: count === 0 ? new Uint32Array(0) : postEnd,
    minhash: Uint32Array.from({ length: count * EXACT_MINHASH_K }, () => Math.floor(random() * 2 ** 32)),
    ...(keep ? { texts } : {}),
  };
}

function exactByMsgpack(data: ExactDatasetData): Uint8Array {
  const { id, name, kind, models, kb_dataset, keep_text, meta } = data.descriptor;
  const payload = {
    descriptor: { id, name, kind, models, kb_dataset, keep_text, meta },
    docs: data.docs.map(({ id, chars, tokens, bytes, meta }) => ({ id, chars, tokens, bytes, meta })),
    keys: le(data.keys),
    postDoc: le(data.postDoc),
    postStart: le(data.postStart),
    postEnd: le(data.postEnd),
    minhash: le(data.minhash),
    ...(data.texts === undefined ? {} : { texts: data.texts }),
  };
  return framedByMsgpack(payload, data.params, 'exact', { docs: data.docs.length, keys: data.keys.length });
}

describe('encodeDataset: the bytes msgpack writes for the whole payload, with its texts in bounded pieces', () => {
  afterEach(() => vi.restoreAllMocks());

  it('an exact dataset: the same file, and the stream’s, at every piece size (120 random datasets)', () => {
    const random = prng(0xe4c0);
    for (let run = 0; run < 120; run++) {
      const data = randomExact(random);
      const want = Buffer.from(exactByMsgpack(data));
      const pieceBytes = PIECES[run % PIECES.length];
      expect(want.equals(encodeDataset(data, { pieceBytes })), `run ${run}, pieces of ${pieceBytes}`).toBe(true);
      expect(want.equals(encodeDataset(data))).toBe(true);
      const column = <T extends BigUint64Array | Uint32Array>(a: T) => ({
        length: a.length,
        read: (f: number, t: number) => a.subarray(f, t) as T,
      });
      const stream = new SnapshotStream({
        ...data,
        keys: column(data.keys),
        postDoc: column(data.postDoc),
        postStart: column(data.postStart),
        postEnd: column(data.postEnd),
      });
      const streamed = gathered(stream.pieces());
      const patch = stream.patch();
      streamed.set(patch.bytes, patch.offset);
      expect(want.equals(streamed), `run ${run}: the stream`).toBe(true);
    }
  });

  it('a portrait: the same file, and the stream’s (100 random portraits, half with a measured background)', () => {
    const random = prng(0x9047);
    for (let run = 0; run < 100; run++) {
      const docs = Array.from({ length: Math.floor(random() * 6) }, (_, d) => ({
        id: d % 2 ? 'p'.repeat(60 + d) : `w${d}\udc00`,
        chars: 10,
        tokens: 2,
        bytes: 10,
      }));
      const filters = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
        keys: Math.floor(random() * 2 ** 20),
        k: 1 + Math.floor(random() * 16),
        bits: Uint8Array.from({ length: 64 * (1 + Math.floor(random() * 40)) }, () => Math.floor(random() * 256)),
      }));
      const background = random() < 0.5 ? DEFAULT_PORTRAIT_BACKGROUND : undefined;
      const data = {
        descriptor: { id: 'portrait-'.repeat(8), kind: 'portrait', window: 1 + Math.floor(random() * 64), background },
        params: 'tp1;test',
        docs,
        filters,
      } as unknown as PortraitDatasetData;
      const { id, kind, window } = data.descriptor;
      const payload = { descriptor: { id, kind, window, background }, docs, filters };
      const keys = filters.reduce((a, f) => a + f.keys, 0);
      const want = Buffer.from(framedByMsgpack(payload, data.params, 'portrait', { docs: docs.length, keys }));
      expect(want.equals(encodeDataset(data, { pieceBytes: PIECES[run % PIECES.length] })), `run ${run}`).toBe(true);
      // the stream writes the same file, its measured background included
      const bits = (b: Uint8Array) => ({ length: b.length, read: (f: number, t: number) => b.subarray(f, t) });
      const stream = new SnapshotStream({ ...data, filters: filters.map((f) => ({ ...f, bits: bits(f.bits) })) });
      const streamed = gathered(stream.pieces());
      const patch = stream.patch();
      streamed.set(patch.bytes, patch.offset);
      expect(want.equals(streamed), `run ${run}: the stream`).toBe(true);
    }
  });

  it('hands encodeInto no view longer than a piece or an encoder’s first buffer (msgpack’s sized it to the file)', () => {
    const random = prng(0xb16);
    let data = randomExact(random);
    while (data.docs.length < 2) data = randomExact(random);
    const texts = Array.from({ length: data.docs.length }, (_, d) => `${'long text '.repeat(2000)}${d}`);
    const big = { ...data, docs: data.docs.map((x, d) => ({ ...x, chars: texts[d].length })), texts };
    const want = Buffer.from(exactByMsgpack(big));
    const spy = vi.spyOn(TextEncoder.prototype, 'encodeInto');
    expect(want.equals(encodeDataset(big, { pieceBytes: 64 }))).toBe(true);
    expect(spy.mock.calls.length).toBeGreaterThan(0);
    // 2048: an Encoder's first buffer (msgpack's DEFAULT_INITIAL_BUFFER_SIZE), which the small entries never outgrow
    for (const [, view] of spy.mock.calls) expect(view.length).toBeLessThanOrEqual(2048);
  });
});
