/**
 * A word-shingle fingerprint's per-shingle columns are computed when first read (src/fingerprint/fingerprint.ts
 * lazyShingles): whatever is read, in whatever order, equals what the same call gives when it is asked for every
 * column at once, on seeded random Unicode of every script; a lone surrogate is found without a pass of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src/core/abi.js';
import { fingerprintCore, loneSurrogateIndex, shingleCount, toText } from '../../../src/fingerprint/fingerprint.js';
import { resolveOptions, type FingerprintOptions } from '../../../src/fingerprint/options.js';
import { createEngine, type Engine } from '../../../src/library.js';
import { prng } from '../../reference/core.js';
import { randomText } from './gen.js';
import { plainFingerprint as plain } from './plain-fingerprint.js';

const EAGER = { hashes: true, spans: true } as const;

const ORDERS: ReadonlyArray<ReadonlyArray<'hashes' | 'starts' | 'ends'>> = [
  ['hashes', 'starts', 'ends'],
  ['ends', 'hashes', 'starts'],
  ['starts', 'ends', 'hashes'],
];

describe.each([
  ['simd', true],
  ['scalar', false],
] as const)('lazy columns, %s build', (_name, simd) => {
  let engine: Engine;
  let core: Core;
  beforeAll(async () => {
    engine = await createEngine({ simd });
    core = (engine as unknown as { assertLive(): Core }).assertLive();
  });

  it('equal the eager columns on random Unicode (all scripts, sizes, windows, seeds), read in any order', () => {
    const rnd = prng(8_300);
    for (let t = 0; t < 240; t++) {
      const text = randomText(83_000 + t, t < 4 ? t : Math.floor(rnd() * 700), rnd());
      const options: FingerprintOptions = {
        shingle: { unit: 'word', size: 1 + (t % 7) },
        winnow: t % 5 === 0 ? false : { window: 1 + (t % 11) },
        seed: t % 3 === 0 ? 0 : t * 7919,
        workHash: false,
      };
      const o = resolveOptions(options);
      const eager = fingerprintCore(core, text, o, undefined, EAGER).fp;
      const lazy = fingerprintCore(core, text, o).fp;
      expect(shingleCount(lazy.shingles)).toBe(eager.shingles.hashes.length);
      // fingerprint other texts in between: the columns come from the text, not from what the core last held
      fingerprintCore(core, randomText(t, 300, 0.3), o);
      const order = ORDERS[t % ORDERS.length];
      for (const key of order) expect([...lazy.shingles[key]]).toEqual([...eager.shingles[key]]);
      expect(plain(lazy)).toEqual(plain(eager));
    }
  });

  it('each column, once read, is a plain property; reading one column leaves the others unread', () => {
    const text = 'Это было лучшее из времён, это было худшее из времён — 日本語のテキストと English words.';
    const o = resolveOptions({ workHash: false });
    const fp = fingerprintCore(core, text, o).fp;
    const s = fp.shingles;
    const kind = (k: string) => ('value' in Object.getOwnPropertyDescriptor(s, k)! ? 'data' : 'lazy');
    expect([kind('hashes'), kind('starts'), kind('ends')]).toEqual(['lazy', 'lazy', 'lazy']);
    void s.starts;
    expect([kind('hashes'), kind('starts'), kind('ends')]).toEqual(['lazy', 'data', 'data']);
    expect(s.hashes).toBe(s.hashes);
    expect(Object.keys(s)).toEqual(['hashes', 'starts', 'ends']);
  });

  it('character shingles keep every column, computed at once', () => {
    const fp = fingerprintCore(core, 'Ein Straßenname', resolveOptions({ shingle: { unit: 'char', size: 4 } })).fp;
    expect(Object.values(Object.getOwnPropertyDescriptors(fp.shingles)).every((d) => 'value' in d)).toBe(true);
    expect(shingleCount(fp.shingles)).toBe(fp.shingles.hashes.length);
  });
});

describe('lone surrogates, found by the tokenizer instead of a pass of their own', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
  });

  it('are INVALID_INPUT naming the index, in every context (ASCII, inert separators, scripts, start, end)', async () => {
    const rnd = prng(8_302);
    const contexts = ['plain words here ', 'quotes \u201c and \u2014 dashes ', 'Кириллица и ', '日本語のテキスト', ''];
    for (let t = 0; t < 120; t++) {
      const before = contexts[t % contexts.length] + randomText(85_000 + t, Math.floor(rnd() * 200), rnd());
      const after = randomText(86_000 + t, Math.floor(rnd() * 200), rnd()) + contexts[(t + 2) % contexts.length];
      const lone = t % 2 === 0 ? '\ud800' : '\udc00';
      const text = before + lone + after;
      const at = loneSurrogateIndex(text);
      expect(at).toBeGreaterThanOrEqual(0);
      await expect(engine.fingerprint(text)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        detail: `text contains a lone surrogate at index ${at}`,
      });
      // the same error toText gives when it checks first
      expect(() => toText(text)).toThrow(`text contains a lone surrogate at index ${at}`);
    }
    for (const unit of ['char', 'word'] as const) {
      for (const normalize of ['nfkc-casefold', 'none'] as const) {
        if (unit === 'word' && normalize === 'none') continue;
        await expect(engine.fingerprint('ab\ud800cd', { shingle: { unit, size: 2 }, normalize })).rejects.toThrow(
          'lone surrogate',
        );
      }
    }
  });

  it('are found past U+FFFD of the text itself, in the same region or one before it (the core then takes those)', async () => {
    const rnd = prng(8_303);
    const contexts = ['plain words \ufffd here ', '\ufffd', 'Кирил\ufffdлица и ', '日本語\ufffdのテキスト', 'é\ufffd'];
    for (let t = 0; t < 80; t++) {
      // a U+FFFD right before the lone surrogate (one region), or far before it (a region of its own)
      const gap = t % 2 === 0 ? '' : ` ${'word '.repeat(20)}`;
      const before = randomText(87_000 + t, Math.floor(rnd() * 120), rnd()) + contexts[t % contexts.length] + gap;
      const lone = t % 3 === 0 ? '\udc00' : '\ud800';
      const text = `${before}${lone}${contexts[(t + 1) % contexts.length]}`;
      const at = loneSurrogateIndex(text);
      expect(at).toBeGreaterThanOrEqual(before.length - 1);
      await expect(engine.fingerprint(text)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        detail: `text contains a lone surrogate at index ${at}`,
      });
    }
  });

  it('while U+FFFD itself, and well-formed pairs, are text like any other', async () => {
    const fp = await engine.fingerprint('a replacement \ufffd character and an emoji \ud83d\ude00 in words');
    expect(fp.token_count).toBeGreaterThan(5);
  });
});
