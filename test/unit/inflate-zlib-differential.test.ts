/**
 * The DEFLATE decoder (one, src/util/inflate.ts: the raw stream and the zlib-wrapped one-shot built on it) against node:zlib (round 6's L1: 68 of 20,000 mutated streams that zlib refuses were decoded
 * into junk, over-subscribed or incomplete Huffman code sets): a seeded, bounded differential fuzz of deflated data
 * with a bit flipped or cut short, as raw DEFLATE (`StreamInflater`) and zlib-wrapped (`inflateZlib`); every case
 * must be refused by both or decoded by both to the same bytes. Plus the Kraft checks themselves, set by set.
 */
import { deflateRawSync, deflateSync, inflateRawSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { StreamInflater } from '../../src/util/inflate.js';
import { codeSetFault, dynamicSetsFault, inflateZlib } from '../../src/util/inflate.js';
import { mulberry32 } from '../../src/util/random.js';

/** What a decoder made of a stream: its bytes, or null for a refusal. */
function outcome(decode: () => Uint8Array): Buffer | null {
  try {
    return Buffer.from(decode());
  } catch {
    return null;
  }
}

function streamInflate(raw: Uint8Array): Uint8Array {
  const inflater = new StreamInflater();
  const parts: Buffer[] = [];
  inflater.push(raw, true, (c) => parts.push(Buffer.from(c)));
  if (!inflater.ended) throw new Error('not ended');
  return Buffer.concat(parts);
}

/** Data of a few kinds and sizes: random bytes, a small alphabet, text with literals among it. */
function data(rand: () => number): Buffer {
  const n = [10, 300, 1000, 5000][Math.floor(rand() * 4)];
  const d = Buffer.alloc(n);
  const kind = Math.floor(rand() * 3);
  for (let k = 0; k < n; k++)
    d[k] =
      kind === 0 ? Math.floor(rand() * 256) : rand() < 0.8 ? 97 + Math.floor(rand() * 4) : Math.floor(rand() * 256);
  return d;
}

/**
 * `stream` with one bit flipped — in its first 24 bytes (a dynamic block's header: where its code sets are) half the
 * time — or cut short.
 */
function mutate(stream: Buffer, rand: () => number, skip = 0): Buffer {
  const s = Buffer.from(stream);
  const r = rand();
  if (r < 0.8) {
    const span = r < 0.4 ? Math.min(s.length - skip, 24) : s.length - skip;
    s[skip + Math.floor(rand() * span)] ^= 1 << Math.floor(rand() * 8);
    return s;
  }
  return s.subarray(0, Math.floor(rand() * (s.length + 1)));
}

describe('the decoders against node:zlib, on mutated streams', () => {
  it('StreamInflater: every raw stream refused by both, or decoded by both to the same bytes (3,000 seeded cases)', () => {
    const rand = mulberry32(72);
    const tally = { same: 0, bothRefused: 0 };
    for (let i = 0; i < 3000; i++) {
      const raw = mutate(
        deflateRawSync(data(rand), { level: Math.floor(rand() * 10), strategy: Math.floor(rand() * 5) }),
        rand,
      );
      const z = outcome(() => inflateRawSync(raw));
      const ours = outcome(() => streamInflate(raw));
      const at = `case ${i}: ${raw.toString('hex').slice(0, 80)}`;
      if (z === null) expect(ours, `${at}: zlib refuses it`).toBeNull();
      else {
        expect(ours, `${at}: zlib decodes it`).not.toBeNull();
        expect(ours!.equals(z), at).toBe(true);
      }
      tally[z === null ? 'bothRefused' : 'same']++;
    }
    // both kinds occur: the fuzz is not all refusals, nor all intact
    expect(tally.same).toBeGreaterThan(300);
    expect(tally.bothRefused).toBeGreaterThan(300);
  });

  it('inflateZlib: the same for zlib-wrapped streams (1,500 seeded cases)', () => {
    const rand = mulberry32(7201);
    for (let i = 0; i < 1500; i++) {
      const wrapped = mutate(
        deflateSync(data(rand), { level: Math.floor(rand() * 10), strategy: Math.floor(rand() * 5) }),
        rand,
        2,
      );
      const z = outcome(() => inflateSync(wrapped));
      const ours = outcome(() => inflateZlib(wrapped));
      const at = `case ${i}: ${wrapped.toString('hex').slice(0, 80)}`;
      if (z === null) expect(ours, `${at}: zlib refuses it`).toBeNull();
      else expect(ours?.equals(z), at).toBe(true);
    }
  });

  it('refuses the stream of the report that zlib refuses (an invalid code set)', () => {
    const raw = Buffer.from('05c1010100000082a0ad86ff370401b5e996249b3613664078', 'hex');
    expect(() => inflateRawSync(raw)).toThrow();
    expect(() => streamInflate(raw)).toThrow(/invalid/);
  });
});

describe('the Kraft checks of a code set, as zlib’s inflate_table', () => {
  const set = (...lengths: number[]) => Uint8Array.from(lengths);
  it('refuses over-subscribed sets of every kind', () => {
    expect(codeSetFault(set(1, 1, 1), 'distances')).toBe('invalid distances set');
    expect(codeSetFault(set(2, 2, 2, 2, 2), 'literal/lengths')).toBe('invalid literal/lengths set');
    expect(codeSetFault(set(1, 2, 2, 3), 'code lengths')).toBe('invalid code lengths set');
  });

  it('refuses incomplete sets, except one code of length 1 in a literal/length or distance set', () => {
    expect(codeSetFault(set(1, 2), 'distances')).toBe('invalid distances set');
    expect(codeSetFault(set(2, 2, 2), 'literal/lengths')).toBe('invalid literal/lengths set');
    expect(codeSetFault(set(0, 1, 0), 'distances')).toBeNull();
    expect(codeSetFault(set(1, 0), 'literal/lengths')).toBeNull();
    expect(codeSetFault(set(1, 0, 0), 'code lengths')).toBe('invalid code lengths set');
  });

  it('takes complete sets, and no distance codes at all; refuses no code-length codes and a missing end-of-block', () => {
    expect(codeSetFault(set(1, 2, 3, 3), 'literal/lengths')).toBeNull();
    expect(codeSetFault(set(2, 2, 2, 2), 'code lengths')).toBeNull();
    expect(codeSetFault(set(0, 0, 0), 'distances')).toBeNull();
    expect(codeSetFault(new Uint8Array(19), 'code lengths')).toBe('invalid code lengths set');
    const lengths = new Uint8Array(257 + 1);
    lengths[0] = 1;
    lengths[1] = 1;
    expect(dynamicSetsFault(lengths, 257)).toBe('invalid code -- missing end-of-block');
    lengths[1] = 0;
    lengths[256] = 1;
    expect(dynamicSetsFault(lengths, 257)).toBeNull();
  });
});
