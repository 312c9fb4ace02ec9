/**
 * src/util/inflate.ts's StreamInflater: the streaming inflater of zip entries and PDF streams against Node's zlib (a
 * one-shot inflate) on generated inputs — random bytes, text, a small alphabet, long runs; every level and the fixed
 * Huffman strategy; the data pushed in pieces of random sizes down to one byte — with each chunk of output at most
 * 32 KiB and every chunk a view of one buffer; the document's budget, thrown from the consumer, stops it; malformed
 * data is refused.
 */
import { deflateRawSync, inflateRawSync, constants as zlib } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ExtractionBudget } from '../../src/formats/budget.js';
import { INFLATE_CHUNK, InflateError, StreamInflater } from '../../src/util/inflate.js';
import { resolveLimits } from '../../src/formats/limits.js';
import { mulberry32 } from '../../src/util/random.js';

/** A seeded generator, so that a failing case can be run again. */
const random = mulberry32;

function sample(rand: () => number, n: number, kind: number): Uint8Array {
  const out = new Uint8Array(n);
  if (kind === 0) for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 256);
  else if (kind === 1)
    out.set(Buffer.from('lorem ipsum dolor sit amet, consectetur '.repeat(n / 40 + 1)).subarray(0, n));
  else if (kind === 2) for (let i = 0; i < n; i++) out[i] = 97 + Math.floor(rand() * 4);
  else for (let i = 0; i < n; ) out.fill(Math.floor(rand() * 3), i, (i += 1 + Math.floor(rand() * 5000)));
  return out;
}

/** Inflates `data` pushed in pieces of random sizes (≤ `piece`): the output joined, the chunks' sizes and buffers. */
function inflatePieces(data: Uint8Array, rand: () => number, piece: number) {
  const inflater = new StreamInflater();
  const parts: Buffer[] = [];
  const sizes: number[] = [];
  const buffers = new Set<ArrayBufferLike>();
  for (let at = 0; ; ) {
    const end = Math.min(data.length, at + 1 + Math.floor(rand() * piece));
    inflater.push(data.subarray(at, end), end === data.length, (chunk) => {
      sizes.push(chunk.length);
      buffers.add(chunk.buffer);
      parts.push(Buffer.from(chunk));
    });
    if (end === data.length) break;
    at = end;
  }
  return { out: Buffer.concat(parts), sizes, buffers, ended: inflater.ended, total: inflater.total };
}

describe('StreamInflater', () => {
  it('gives the bytes a one-shot inflate gives, in chunks of ≤ 32 KiB of one reused buffer, however it is fed', () => {
    const rand = random(56);
    for (let t = 0; t < 120; t++) {
      const kind = t % 4;
      const input = sample(rand, Math.floor(rand() * (t % 10 === 0 ? 400_000 : 70_000)), kind);
      const level = [0, 1, 6, 9][Math.floor(rand() * 4)];
      const strategy = rand() < 0.25 ? zlib.Z_FIXED : zlib.Z_DEFAULT_STRATEGY;
      const data = deflateRawSync(input, { level, strategy });
      const oneShot = inflateRawSync(data);
      const piece = [1, 13, 1024, 1 << 20][t % 4];
      if (piece === 1 && data.length > 30_000) continue;
      const got = inflatePieces(data, rand, piece);
      const at = `case ${t}: ${input.length} bytes of kind ${kind}, level ${level}, pieces ≤ ${piece}`;
      expect(got.out.equals(oneShot), at).toBe(true);
      expect(got.ended, at).toBe(true);
      expect(got.total, at).toBe(input.length);
      expect(Math.max(0, ...got.sizes), at).toBeLessThanOrEqual(INFLATE_CHUNK);
      expect(got.buffers.size, at).toBeLessThanOrEqual(1);
    }
  });

  it('ends at its final block and reads nothing after it', () => {
    const input = Buffer.from('the end of the data '.repeat(500));
    const data = Buffer.concat([deflateRawSync(input), Buffer.from('\nendstream\nendobj\n')]);
    const got = inflatePieces(data, random(1), 64);
    expect(got.out.equals(input)).toBe(true);
    expect(got.ended).toBe(true);
  });

  it('says where the DEFLATE data ended in the input pushed (what inflateZlib reads the Adler-32 from)', () => {
    const rand = random(73);
    for (let t = 0; t < 40; t++) {
      const raw = deflateRawSync(sample(rand, Math.floor(rand() * 90_000), t % 4), { level: t % 10 });
      const data = Buffer.concat([raw, Buffer.from('trailing bytes')]);
      const inflater = new StreamInflater();
      expect(inflater.consumed).toBe(-1);
      for (let at = 0; !inflater.ended && at < data.length; ) {
        const end = Math.min(data.length, at + 1 + Math.floor(rand() * [1, 7, 4096, 1 << 20][t % 4]));
        inflater.push(data.subarray(at, end), end === data.length, () => {});
        at = end;
      }
      expect(inflater.consumed, `case ${t}`).toBe(raw.length);
    }
  });

  it("stops where the document's budget runs out, a chunk at most past its limit", () => {
    // 64 MiB of one byte from 64 KiB of deflate data; a budget of 1 MiB
    const data = deflateRawSync(Buffer.alloc(64 << 20, 0x61), { level: 9 });
    const budget = new ExtractionBudget('pdf', resolveLimits({ maxUncompressedBytes: 1 << 20 }));
    const inflater = new StreamInflater();
    let error: unknown;
    try {
      for (let at = 0; at < data.length; at += 1024) {
        inflater.push(data.subarray(at, at + 1024), at + 1024 >= data.length, (chunk) => budget.inflate(chunk.length));
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(String((error as Error).message)).toMatch(/maxUncompressedBytes/);
    expect(inflater.ended).toBe(false);
    expect(inflater.total).toBeGreaterThan(1 << 20);
    expect(inflater.total).toBeLessThanOrEqual((1 << 20) + INFLATE_CHUNK + 258);
  });

  it('refuses malformed data: a block of type 3, a distance back past the start, data cut short', () => {
    const run = (bytes: number[] | Uint8Array) => () =>
      new StreamInflater().push(Uint8Array.from(bytes), true, () => {});
    expect(run([0x07])).toThrow(InflateError); // final, type 3
    const bad = deflateRawSync(Buffer.from('abcdabcd'), { strategy: zlib.Z_FIXED });
    expect(run(bad)).not.toThrow();
    expect(run(bad.subarray(0, bad.length - 2))).toThrow(InflateError);
    // deflated against a preset dictionary: its first back-reference reaches before the output's start
    const primed = deflateRawSync(Buffer.from('lorem ipsum dolor'), { dictionary: Buffer.from('lorem ipsum dolor') });
    expect(run(primed)).toThrow(/past the start/);
    // the same cut short but more to come: nothing thrown, it waits
    const waiting = new StreamInflater();
    expect(() => waiting.push(bad.subarray(0, 3), false, () => {})).not.toThrow();
    expect(waiting.ended).toBe(false);
  });
});
