/**
 * The accounting of a request body's pieces: BodyPages (the Node server gathers small pieces into pages and bounds
 * their number) and Gathered (the handler keeps small chunks in pages). Whatever the cut, the bytes come out in
 * order, the parts are about the body's size over a page each, and too many pieces for the bytes are refused.
 */
import { describe, expect, it } from 'vitest';
import {
  BODY_COPY_BELOW,
  BODY_FREE_PIECES,
  BODY_MIN_PIECE_BYTES,
  BODY_PAGE_BYTES,
  BodyPages,
} from '../../src/node/body-pages.js';
import { GATHER_BELOW, GATHER_PAGE, Gathered } from '../../src/http/pipeline/read-body.js';
import { TrainprintError } from '../../src/errors.js';

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): (max: number) => number {
  let a = seed;
  return (max) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % max) + 1;
  };
}

const bytesOf = (n: number, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));

/** `body` cut at `cuts` (sizes, cycled). */
function cut(body: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0, i = 0; at < body.length; i++) {
    const n = Math.max(1, cuts[i % cuts.length]);
    out.push(body.subarray(at, at + n));
    at += n;
  }
  return out;
}

describe('BodyPages', () => {
  it('gives the bytes in order, whatever the cut (property)', () => {
    const r = random(1);
    for (let run = 0; run < 60; run++) {
      const n = r(200_000) - 1;
      const cuts = Array.from({ length: r(8) }, () => r(40_000));
      const flushes = Array.from({ length: r(5) }, () => r(2) === 1);
      const body = bytesOf(n);
      const pages = new BodyPages();
      const out: Uint8Array[] = [];
      cut(body, cuts).forEach((piece, i) => {
        out.push(...pages.add(piece));
        if (flushes[i % flushes.length]) {
          const rest = pages.flush();
          if (rest !== null) out.push(rest);
        }
      });
      const rest = pages.flush();
      if (rest !== null) out.push(rest);
      expect(concat(out).equals(Buffer.from(body))).toBe(true);
    }
  });

  it('copies small pieces into whole pages, passes large ones on as they are', () => {
    const pages = new BodyPages();
    const out: Uint8Array[] = [];
    for (const piece of cut(bytesOf(3 * BODY_PAGE_BYTES), [64])) out.push(...pages.add(piece));
    expect(out.map((p) => p.byteLength)).toEqual([BODY_PAGE_BYTES, BODY_PAGE_BYTES, BODY_PAGE_BYTES]);
    const large = bytesOf(BODY_COPY_BELOW);
    pages.add(bytesOf(10));
    const [before, same] = pages.add(large);
    expect(before.byteLength).toBe(10);
    expect(same).toBe(large);
    // a partial page flushed is copied out at its size, not the page's
    pages.add(bytesOf(3));
    expect(pages.flush()?.buffer.byteLength).toBe(3);
    expect(pages.flush()).toBeNull();
  });

  it(`refuses a body past ${BODY_FREE_PIECES} pieces averaging under ${BODY_MIN_PIECE_BYTES} bytes`, () => {
    const pages = new BodyPages();
    let refused: unknown = null;
    let n = 0;
    try {
      for (; n < 100_000; n++) pages.add(bytesOf(1));
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(TrainprintError);
    expect((refused as TrainprintError).code).toBe('MALFORMED_REQUEST');
    // the first piece over FREE + bytes / MIN: 4,096 + n/32 < n + 1 at n = 4,228
    expect(n).toBe(Math.floor(BODY_FREE_PIECES / (1 - 1 / BODY_MIN_PIECE_BYTES)));
    // pieces of the least average pass, whatever their number
    const fine = new BodyPages();
    for (let i = 0; i < 200_000; i++) fine.add(bytesOf(BODY_MIN_PIECE_BYTES));
    expect(fine.pieces).toBe(200_000);
  });
});

describe('Gathered', () => {
  it('keeps the bytes in order in about a part per page (property)', () => {
    const r = random(2);
    for (let run = 0; run < 60; run++) {
      const n = r(300_000) - 1;
      const cuts = Array.from({ length: r(8) }, () => r(9_000));
      const body = bytesOf(n, 3);
      const g = new Gathered();
      const pieces = cut(body, cuts);
      for (const piece of pieces) g.push(piece);
      const large = pieces.filter((p) => p.byteLength >= GATHER_BELOW).length;
      // each large chunk as it is, small ones in pages between them
      expect(g.parts).toBeLessThanOrEqual(2 * large + 1 + Math.ceil(n / (GATHER_PAGE - GATHER_BELOW)));
      const parts = g.take();
      expect(concat(parts).equals(Buffer.from(body))).toBe(true);
      expect(g.empty).toBe(true);
    }
  });

  it('2 MB in 1-byte chunks is 32 pages of 64 KiB', () => {
    const g = new Gathered();
    const one = new Uint8Array(1);
    for (let i = 0; i < 2 * GATHER_PAGE * 16; i++) g.push(one);
    expect(g.parts).toBe(32);
    expect(g.take().every((p) => p.byteLength === GATHER_PAGE && p.buffer.byteLength === GATHER_PAGE)).toBe(true);
  });
});
