/**
 * Raw-ABI tests of the word tokenizer and the word-shingle kernel on the scalar, SIMD and debug
 * builds, against the plain-TypeScript reference. The tokenizer scans 64-byte blocks (16-byte
 * vectors in the SIMD build) and hashes short tokens on a branch-free path, so the cases here
 * sit on those edges: every length around the block and vector boundaries, tokens crossing
 * them, inputs ending mid-token, multi-byte UTF-8 sequences split across blocks, unaligned inputs.
 */
import { describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { BUILDS, coreOf } from './helpers.js';
import { prng, shinglesAndIdRef, shinglesRef, tokensRef, xxh64Ref } from '../../reference/core.js';

const enc = new TextEncoder();
const SENTINEL = 0xdeadbeef;

interface Tokens {
  count: number;
  hashes: bigint[];
  starts: number[];
  ends: number[];
}

/** Tokens of a raw string: runs of [0-9A-Za-z] or non-ASCII, ASCII letters hashed in lower case. */
function rawRef(text: string, seed: bigint): Tokens {
  // every separator is one ASCII code unit, so turning it into a space keeps all offsets
  const spaced = text.replace(/[^0-9A-Za-z\u0080-\uffff]/g, ' ').replace(/[A-Z]/g, (c) => c.toLowerCase());
  const r = tokensRef(spaced);
  const hashes =
    seed === 0n
      ? r.hashes
      : spaced
          .split(' ')
          .filter(Boolean)
          .map((t) => xxh64Ref(enc.encode(t), seed));
  return { count: r.hashes.length, hashes, starts: r.starts, ends: r.ends };
}

/**
 * Run `tokenize` on the UTF-8 of `text` placed `misalign` bytes past a 16-byte boundary; with `stretch`, run
 * `tokenizeRegions` over it as a text without regions instead: one stretch, whose tokens (ASCII only) take the
 * short hash's ASCII paths.
 */
function tokenizeRaw(core: Core, text: string, seed: bigint, misalign = 0, stretch = false): Tokens {
  const bytes = enc.encode(text);
  const cap = bytes.length + 2; // one slot past the worst case, to catch overruns
  const L = core.layout();
  const inPtr = L.take(bytes.length + 32) + misalign;
  const sPtr = L.take(cap * 4);
  const ePtr = L.take(cap * 4);
  const hPtr = L.take(cap * 8);
  const firstPtr = L.take(8);
  L.commit();
  const u8 = core.u8;
  // token bytes right after the input: the kernel must not read them as part of the text
  u8.fill(0x61, inPtr - misalign, inPtr + bytes.length + 32 - misalign);
  u8.set(bytes, inPtr);
  core.u32(sPtr, cap).fill(SENTINEL);
  core.u32(ePtr, cap).fill(SENTINEL);
  core.u64(hPtr, cap).fill(BigInt(SENTINEL));
  const count = stretch
    ? core.raw.tokenizeRegions(inPtr, bytes.length, seed, 0, 0, sPtr, ePtr, hPtr, firstPtr, 0, 0)
    : core.raw.tokenize(inPtr, bytes.length, seed, sPtr, ePtr, hPtr);
  expect(core.raw.countTokens(inPtr, bytes.length)).toBe(count);
  // nothing written past the last token
  expect(core.u32(sPtr, cap)[count]).toBe(SENTINEL);
  expect(core.u32(ePtr, cap)[count]).toBe(SENTINEL);
  expect(core.u64(hPtr, cap)[count]).toBe(BigInt(SENTINEL));
  // the input is left alone (compared as bytes: toEqual walks a typed array an element at a time, the most of this
  // file's time)
  expect(Buffer.compare(core.u8.subarray(inPtr, inPtr + bytes.length), bytes)).toBe(0);
  return {
    count,
    hashes: Array.from(core.u64(hPtr, count)),
    starts: Array.from(core.u32(sPtr, count)),
    ends: Array.from(core.u32(ePtr, count)),
  };
}

const isAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
};

/** `tokenize` of `text` equals the reference; so does the stretch path (tokenizeRegions) when the text is ASCII. */
function check(core: Core, text: string, seed = 0n, misalign = 0): void {
  const want = rawRef(text, seed);
  for (const stretch of isAscii(text) ? [false, true] : [false]) {
    const got = tokenizeRaw(core, text, seed, misalign, stretch);
    if (
      got.count !== want.count ||
      got.starts.join() !== want.starts.join() ||
      got.ends.join() !== want.ends.join() ||
      got.hashes.join() !== want.hashes.join()
    ) {
      // fail with a readable diff
      expect({ text, misalign, stretch, ...got }).toEqual({ text, misalign, stretch, ...want });
    }
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// separators, including the ASCII neighbours of the token ranges and bytes that `| 0x20` maps onto them
const SEPS = ' \t\n\r!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~\x7f\x00\x01\x10\x11\x15\x19\x1a';
const WIDE = ['é', 'ß', 'ж', '€', '中', '한', '\u0800', '\uffff', '😀', '𝔘', '\u{10ffff}', '\u0080'];

function randomText(rnd: () => number, len: number, pSep = 0.2, pWide = 0.05): string {
  let s = '';
  while (s.length < len) {
    const r = rnd();
    if (r < pSep) s += SEPS[(rnd() * SEPS.length) | 0];
    else if (r < pSep + pWide) s += WIDE[(rnd() * WIDE.length) | 0];
    else s += ALNUM[(rnd() * ALNUM.length) | 0];
  }
  return s;
}

function word(rnd: () => number, len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += ALNUM[(rnd() * ALNUM.length) | 0];
  return s;
}

describe.each(BUILDS)('tokenize / shingleTokens (%s)', (build) => {
  it('the reference agrees with known tokens', () => {
    const r = rawRef('Hello, World! x9', 0n);
    expect(r.starts).toEqual([0, 7, 14]);
    expect(r.ends).toEqual([5, 12, 16]);
    expect(r.hashes[0]).toBe(xxh64Ref(enc.encode('hello'), 0n));
  });

  it('every input length 0..200, at every misalignment, with several seeds', async () => {
    const core = await coreOf(build);
    const rnd = prng(101);
    for (let len = 0; len <= 200; len++) {
      const text = randomText(rnd, len, 0.25, 0);
      check(core, text, 0n, len % 16);
      check(core, text, 0x123456789abcdef0n, (len * 7) % 16);
    }
  });

  it('one token of every length 1..80 at every position around a 64-byte block, ending the input or not', async () => {
    const core = await coreOf(build);
    const rnd = prng(102);
    for (let len = 1; len <= 80; len++) {
      const w = word(rnd, len);
      for (let pre = 0; pre <= 70; pre += len > 20 ? 3 : 1) {
        const lead = ' '.repeat(pre);
        check(core, lead + w, 7n); // input ends mid-token
        check(core, lead + w + '.', 7n);
        check(core, lead + w + ' ' + word(rnd, 1 + ((rnd() * 20) | 0)), 7n, pre % 16);
      }
    }
  });

  it('runs of short tokens of mixed lengths (the branch-free hash) across blocks', async () => {
    const core = await coreOf(build);
    const rnd = prng(103);
    for (let t = 0; t < 200; t++) {
      let s = '';
      const target = (rnd() * 400) | 0;
      while (s.length < target)
        s += word(rnd, 1 + ((rnd() * 35) | 0)) + SEPS[(rnd() * SEPS.length) | 0].repeat(1 + ((rnd() * 3) | 0));
      check(core, s, BigInt(t), t % 16);
      check(core, s.slice(0, -((rnd() * 5) | 0) || undefined), 1n);
    }
  });

  it('ASCII tokens of every length 1..17 after every other, around the 8- and 16-byte hash paths', async () => {
    const core = await coreOf(build);
    const rnd = prng(108);
    for (let a = 1; a <= 17; a++) {
      for (let b = 1; b <= 17; b++) {
        // letters of both cases and digits, separators whose `| 0x20` is a letter or digit right after the token
        const text = `${word(rnd, a)}${'@[`{\x10\x19'[(a + b) % 6]}${word(rnd, b)}${' \x0d'[b & 1]}${word(rnd, ((a * b) % 9) + 1)}`;
        for (let pre = 0; pre < 16; pre += 5) check(core, ' '.repeat(pre) + text, BigInt(a * 31 + b), (a + pre) % 16);
      }
    }
  });

  it('stretches of thousands of ASCII tokens, hashed by length a few hundred at a time', async () => {
    const core = await coreOf(build);
    const rnd = prng(109);
    for (let t = 0; t < 24; t++) {
      let s = '';
      const target = 500 + ((rnd() * 6000) | 0);
      // mostly short words (one length class each), some of 8..40 bytes, separators of 1..3 bytes
      while (s.length < target)
        s +=
          word(rnd, rnd() < 0.85 ? 1 + ((rnd() * 7) | 0) : 8 + ((rnd() * 33) | 0)) +
          SEPS[(rnd() * SEPS.length) | 0].repeat(1 + ((rnd() * 3) | 0));
      check(core, s, BigInt(t) * 0x9e3779b97f4a7c15n, t % 16);
      check(core, s.slice(0, -((rnd() * 9) | 0) || undefined), 0n);
    }
    // the most tokens a block holds, and every token of one length (one class filling up)
    for (let len = 1; len <= 9; len++) check(core, `${'x'.repeat(len)} `.repeat(4000 / (len + 1)), BigInt(len));
    check(core, 'a.'.repeat(5000), 11n, 1);
  });

  it('multi-byte UTF-8 sequences at every position around block and vector edges', async () => {
    const core = await coreOf(build);
    for (const wide of WIDE) {
      for (let pre = 0; pre <= 140; pre++) {
        const a = 'a'.repeat(pre);
        check(core, a + wide + 'B ' + wide + wide + ' c' + wide);
        check(core, ' '.repeat(pre) + wide, 3n);
        check(core, 'x '.repeat(pre >> 1) + (pre & 1 ? 'Q' : '') + wide + wide + wide + '!', 0n, pre % 16);
      }
    }
  });

  it('non-ASCII-heavy and surrogate-pair-heavy random text', async () => {
    const core = await coreOf(build);
    const rnd = prng(104);
    for (let t = 0; t < 150; t++) {
      check(core, randomText(rnd, (rnd() * 600) | 0, 0.15, 0.6), 9n, t % 16);
    }
    check(core, '😀'.repeat(1000), 1n);
    check(core, ('😀é中' + ' ').repeat(300), 2n);
  });

  it('long runs of separators and long tokens', async () => {
    const core = await coreOf(build);
    const rnd = prng(105);
    check(core, ' '.repeat(1000));
    check(core, '.,;'.repeat(400) + 'end');
    check(core, 'start' + '\n'.repeat(777) + 'x');
    check(core, 'A'.repeat(1000), 5n);
    check(core, word(rnd, 5000) + ' ' + word(rnd, 129) + ' '.repeat(200) + word(rnd, 64), 6n);
    let s = '';
    for (let i = 0; i < 60; i++) s += ' '.repeat((rnd() * 150) | 0) + word(rnd, (rnd() * 150) | 0);
    check(core, s, 4n, 3);
  });

  it('a large random text', async () => {
    const core = await coreOf(build);
    const rnd = prng(106);
    check(core, randomText(rnd, 200_000, 0.18, 0.03), 0xfedcba9876543210n, 5);
  });

  it('shingleTokens equals the reference for n = 1..9 and every count 0..40', async () => {
    const core = await coreOf(build);
    const rnd = prng(107);
    const rand64 = () => (BigInt((rnd() * 2 ** 32) >>> 0) << 32n) | BigInt((rnd() * 2 ** 32) >>> 0);
    const hashes = Array.from({ length: 40 }, rand64);
    const L = core.layout();
    const inPtr = L.take(40 * 8);
    const outPtr = L.take(42 * 8);
    L.commit();
    core.u64(inPtr, 40).set(hashes);
    for (let n = 1; n <= 9; n++) {
      for (let count = 0; count <= 40; count++) {
        const seed = rand64();
        core.u64(outPtr, 42).fill(BigInt(SENTINEL));
        const m = core.raw.shingleTokens(inPtr, count, n, seed, outPtr);
        const want = shinglesRef(hashes.slice(0, count), n, seed);
        expect(m).toBe(want.length);
        expect(Array.from(core.u64(outPtr, m))).toEqual(want);
        expect(core.u64(outPtr, 42)[m]).toBe(BigInt(SENTINEL));
      }
    }
  });

  it("shingleTexts writes each text's shingleTokens one after another, and where each begins", async () => {
    const core = await coreOf(build);
    const rnd = prng(108);
    const rand64 = () => (BigInt((rnd() * 2 ** 32) >>> 0) << 32n) | BigInt((rnd() * 2 ** 32) >>> 0);
    const hashes = Array.from({ length: 12 }, rand64);
    // four texts: no tokens, 2 (fewer than n = 3: one shingle), 7 (five shingles), 3 (one)
    const first = [0, 0, 2, 9, 12];
    const seed = rand64();
    const L = core.layout();
    const inPtr = L.take(12 * 8);
    const firstPtr = L.take(5 * 4);
    const outPtr = L.take(14 * 8);
    const fromPtr = L.take(5 * 4);
    L.commit();
    core.u64(inPtr, 12).set(hashes);
    core.u32(firstPtr, 5).set(first);
    core.u64(outPtr, 14).fill(BigInt(SENTINEL));
    expect(core.raw.shingleTexts(inPtr, firstPtr, 4, 3, seed, outPtr, fromPtr)).toBe(7);
    expect(Array.from(core.u32(fromPtr, 5))).toEqual([0, 0, 1, 6, 7]);
    const want = [
      ...shinglesRef(hashes.slice(0, 2), 3, seed),
      ...shinglesRef(hashes.slice(2, 9), 3, seed),
      ...shinglesRef(hashes.slice(9, 12), 3, seed),
    ];
    expect(Array.from(core.u64(outPtr, 7))).toEqual(want);
    expect(core.u64(outPtr, 14)[7]).toBe(BigInt(SENTINEL));
    expect(core.raw.shingleTexts(inPtr, firstPtr, 0, 3, seed, outPtr, fromPtr)).toBe(0);
    expect(core.u32(fromPtr, 1)[0]).toBe(0);
  });

  it('shingleTokensAndId equals the reference: the shingles and both halves of the id, n = 1..9, counts 0..45 and random', async () => {
    const core = await coreOf(build);
    const rnd = prng(109);
    const rand64 = () => (BigInt((rnd() * 2 ** 32) >>> 0) << 32n) | BigInt((rnd() * 2 ** 32) >>> 0);
    const MAX = 2_100;
    const hashes = Array.from({ length: MAX }, rand64);
    const L = core.layout();
    const inPtr = L.take(MAX * 8);
    const outPtr = L.take((MAX + 2) * 8);
    const idPtr = L.take(32);
    L.commit();
    core.u64(inPtr, MAX).set(hashes);
    // every count around the four-token step and its remainders, then counts up to the thousands at random
    const cases: Array<[number, number]> = [];
    for (let n = 1; n <= 9; n++) for (let count = 0; count <= 45; count++) cases.push([n, count]);
    for (let i = 0; i < 40; i++) cases.push([1 + Math.floor(rnd() * 9), Math.floor(rnd() * MAX)]);
    for (const [n, count] of cases) {
      const seed = rand64();
      const idSeeds: [bigint, bigint] = [rand64(), BigInt(Math.floor(rnd() * 1000))];
      core.u64(outPtr, MAX + 2).fill(BigInt(SENTINEL));
      core.u64(idPtr, 4).fill(BigInt(SENTINEL));
      const m = core.raw.shingleTokensAndId(inPtr, count, n, seed, outPtr, idSeeds[0], idSeeds[1], idPtr);
      const want = shinglesAndIdRef(hashes.slice(0, count), n, seed, idSeeds);
      const at = `n ${n}, ${count} tokens`;
      expect(m, at).toBe(want.shingles.length);
      expect(Array.from(core.u64(outPtr, m)), at).toEqual(want.shingles);
      expect(core.u64(outPtr, MAX + 2)[m], at).toBe(BigInt(SENTINEL));
      expect(Array.from(core.u64(idPtr, 3)), at).toEqual([...want.id, BigInt(SENTINEL)]);
    }
  });

  it('shingles of a tokenised text (n = 5 and 3)', async () => {
    const core = await coreOf(build);
    const rnd = prng(108);
    const text = randomText(rnd, 20_000);
    const toks = rawRef(text, 0n);
    const L = core.layout();
    const inPtr = L.take(toks.count * 8);
    const outPtr = L.take(toks.count * 8);
    L.commit();
    core.u64(inPtr, toks.count).set(toks.hashes);
    for (const n of [5, 3]) {
      const m = core.raw.shingleTokens(inPtr, toks.count, n, 42n, outPtr);
      expect(Array.from(core.u64(outPtr, m))).toEqual(shinglesRef(toks.hashes, n, 42n));
    }
  });
});
