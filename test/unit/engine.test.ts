/** The public API's contract: options, errors, lifecycle, similarity and the SHA-256 fallback. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createEngine,
  createFingerprintEngine,
  HTTP_STATUS,
  MESSAGES,
  normalize,
  paramsId,
  resolveOptions,
  sha256Hex,
  shingleCount,
  TrainprintError,
  type ErrorCode,
} from '../../src/library.js';
import { sha256Portable, startSha256HexOfText, toHex } from '../../src/fingerprint/sha256.js';
import type { Core } from '../../src/core/abi.js';
import { prng } from '../reference/core.js';

const code = (c: ErrorCode) => expect.objectContaining({ name: 'TrainprintError', code: c });

describe('errors', () => {
  it('every code has a message and an HTTP status', () => {
    for (const c of Object.keys(MESSAGES) as ErrorCode[]) {
      expect(MESSAGES[c].length).toBeGreaterThan(10);
      expect(HTTP_STATUS[c]).toBeGreaterThanOrEqual(400);
    }
    const e = new TrainprintError('INVALID_INPUT', 'detail here');
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe(`${MESSAGES.INVALID_INPUT}: detail here`);
    expect(e.detail).toBe('detail here');
  });
});

describe('createEngine and fingerprint input validation', () => {
  it('rejects bad engine options', async () => {
    await expect(createEngine({ simd: 'yes' as never })).rejects.toThrow(code('INVALID_OPTIONS'));
    await expect(createEngine(null as never)).rejects.toThrow(code('INVALID_OPTIONS'));
    // a mistyped option is refused by name, not ignored: the rule of every options object
    await expect(createEngine({ pack: 'default' } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('unknown option "pack"'),
    });
    await expect(createFingerprintEngine({ simd: true, store: {} } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/unknown option "store" \(allowed: simd, synonyms\)/),
    });
  });

  it('rejects non-text input and lone surrogates with INVALID_INPUT (async rejection, never a throw)', async () => {
    const engine = await createEngine();
    for (const bad of [42, null, undefined, {}, ['a'], Symbol('x') as unknown, 'ab\uDC00', '\uD800']) {
      const p = engine.fingerprint(bad as never);
      expect(p).toBeInstanceOf(Promise);
      await expect(p).rejects.toThrow(code('INVALID_INPUT'));
    }
    await expect(engine.fingerprint(Uint8Array.from([0xff]))).rejects.toThrow(code('INVALID_INPUT'));
    expect(() => normalize(7 as never)).toThrow(code('INVALID_INPUT'));
  });

  it('validates every option and names it', async () => {
    const engine = await createEngine();
    const bad: unknown[] = [
      { shingle: { unit: 'line' } },
      { shingle: { unit: 'word', size: 0 } },
      { shingle: { unit: 'word', size: 65 } },
      { shingle: { unit: 'char', size: 257 } },
      { normalize: 'nfd' },
      { normalize: 'none' },
      { seed: -1 },
      { seed: 2 ** 32 },
      { seed: 1.5 },
      { winnow: { window: 0 } },
      { winnow: true },
      { minhash: { mode: 'oph', permutations: 100 } },
      { minhash: { mode: 'classic', permutations: 6 } },
      { minhash: { mode: 'bbit' } },
      { simhash: 'yes' },
      { workHash: 1 },
      { unknown: 1 },
      'opts',
    ];
    for (const o of bad)
      await expect(engine.fingerprint('some text', o as never), JSON.stringify(o)).rejects.toThrow(
        code('INVALID_OPTIONS'),
      );
  });

  it('handles empty and one-character texts', async () => {
    const engine = await createEngine();
    for (const t of ['', ' ', 'a', '日', '👍', '\u00ad']) {
      const fp = await engine.fingerprint(t);
      expect(fp.shingles.hashes.length).toBe(fp.token_count > 0 ? 1 : 0);
      expect(fp.work_hash).toBe('sha256:' + createHash('sha256').update(t).digest('hex'));
    }
  });

  it('names its parameters canonically', () => {
    expect(paramsId(resolveOptions({}))).toBe('tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=oph128;sh=64');
    expect(
      paramsId(
        resolveOptions({
          normalize: 'none',
          shingle: { unit: 'char', size: 7 },
          winnow: false,
          minhash: false,
          simhash: false,
        }),
      ),
    ).toBe('tp1;raw;xxh64-rk.v1;char7;seed=0;win=off;mh=off;sh=off');
    // what is not resolved options: the typed refusal, not an id of 'undefined's nor a TypeError
    for (const bad of [null, {}, 'word5'] as never[])
      expect(() => paramsId(bad)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    for (const bad of [null, {}, 3] as never[])
      expect(() => shingleCount(bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('similarity', () => {
  it('measures overlap and refuses incomparable fingerprints', async () => {
    const engine = await createEngine();
    const a = await engine.fingerprint('one two three four five six seven eight nine ten');
    const b = await engine.fingerprint('ONE two three four five six; seven eight nine ten!');
    const c = await engine.fingerprint('one two three four five six seven eight nine ten', {
      shingle: { unit: 'word', size: 3 },
    });
    const s = engine.similarity(a, b);
    expect(s).toEqual({ jaccard: 1, containment_a: 1, containment_b: 1, minhash_jaccard: 1, simhash_distance: 0 });
    expect(() => engine.similarity(a, c)).toThrow(code('PARAMS_MISMATCH'));
    expect(() => engine.similarity(a, {} as never)).toThrow(code('INVALID_INPUT'));
    const half = await engine.fingerprint(
      'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen',
    );
    const sim = engine.similarity(a, half);
    expect(sim.containment_a).toBe(1);
    expect(sim.containment_b).toBeCloseTo(6 / 12);
  });
});

describe('lifecycle and traps', () => {
  it('dispose makes later calls fail with ENGINE_DISPOSED', async () => {
    const engine = await createEngine();
    engine.dispose();
    await expect(engine.fingerprint('x')).rejects.toThrow(code('ENGINE_DISPOSED'));
    expect(() => engine.xxh64('x')).toThrow(code('ENGINE_DISPOSED'));
  });

  it('xxh64 refuses input that is not text or bytes, and bad seeds', async () => {
    const engine = await createEngine();
    for (const bad of [42, null, {}, [1, 2], 'a\uD800'])
      expect(() => engine.xxh64(bad as never)).toThrow(code('INVALID_INPUT'));
    expect(() => engine.xxh64('x', 1.5)).toThrow(code('INVALID_INPUT'));
    expect(engine.xxh64('abc')).toBe(0x44bc2cf5ad770999n);
    expect(engine.xxh64(new TextEncoder().encode('abc'))).toBe(0x44bc2cf5ad770999n);
  });

  it('a trap in the core becomes WASM_ABORT and poisons only that engine', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): Core }).assertLive();
    expect(() => core.guard(() => core.raw.xxh64(core.memoryBytes - 4, 64, 0n))).toThrow(code('WASM_ABORT'));
    await expect(engine.fingerprint('still fine?')).rejects.toThrow(code('WASM_ABORT'));
    const fresh = await createEngine();
    expect((await fresh.fingerprint('still fine?')).token_count).toBe(2);
  });

  it('memory that cannot grow is OUT_OF_MEMORY', async () => {
    const engine = await createEngine();
    const core = (engine as unknown as { assertLive(): Core }).assertLive();
    expect(() => core.reserve(2 ** 32)).toThrow(code('OUT_OF_MEMORY'));
  });

  it('the scalar and SIMD engines agree', async () => {
    const [simd, scalar] = [await createEngine({ simd: true }), await createEngine({ simd: false })];
    expect([simd.variant, scalar.variant]).toEqual(['simd', 'scalar']);
    const text = 'Ｔｈｅ quick brown fox — jumps over the lazy dog, 日本語 too. '.repeat(50);
    const [x, y] = [await simd.fingerprint(text), await scalar.fingerprint(text)];
    expect(x.fingerprint).toBe(y.fingerprint);
    expect(Array.from(x.minhash!)).toEqual(Array.from(y.minhash!));
    expect(x.simhash).toBe(y.simhash);
  });
});

describe('reserveMemory', () => {
  it('grows and maps the core for a text of that size; fingerprints are the same after it', async () => {
    const plain = await createEngine({ synonyms: false });
    const grown = await createEngine({ synonyms: false });
    const text = 'It was the best of times, it was the worst of times — «ça va», naïve café. '.repeat(2000);
    grown.reserveMemory(text.length * 3);
    expect(grown.memoryBytes).toBeGreaterThanOrEqual(16 * text.length * 3);
    const before = grown.memoryBytes;
    const [a, b] = [await plain.fingerprint(text), await grown.fingerprint(text)];
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(b.work_hash).toBe(a.work_hash);
    expect(Array.from(b.winnow!.hashes)).toEqual(Array.from(a.winnow!.hashes));
    expect(Array.from(b.minhash!)).toEqual(Array.from(a.minhash!));
    expect(grown.memoryBytes).toBe(before); // the call fitted in what was reserved
    grown.reserveMemory(0);
    expect(grown.memoryBytes).toBe(before); // memory never shrinks
  });

  it('refuses anything but a non-negative integer, and more than a 32-bit memory holds', async () => {
    const engine = await createEngine({ synonyms: false });
    for (const bad of [-1, 1.5, Number.NaN, '1' as unknown as number, 2 ** 40])
      expect(() => engine.reserveMemory(bad)).toThrow(code(bad === 2 ** 40 ? 'OUT_OF_MEMORY' : 'INVALID_OPTIONS'));
    engine.dispose();
    expect(() => engine.reserveMemory(1)).toThrow(code('ENGINE_DISPOSED'));
  });
});

describe('SHA-256 fallback', () => {
  it('equals node:crypto for random lengths around block boundaries', () => {
    const rnd = prng(5);
    for (const len of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_000]) {
      const data = new Uint8Array(len).map(() => (rnd() * 256) | 0);
      expect(toHex(sha256Portable(data))).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('sha256Hex of strings and bytes, small and large (hashed in place with node:crypto), is SHA-256', async () => {
    for (const t of ['', 'abc', 'ünïcödé 👍🏽', 'x'.repeat(65_536), 'y'.repeat(65_537), 'z'.repeat(300_000)]) {
      const want = createHash('sha256').update(t, 'utf8').digest('hex');
      expect(await sha256Hex(t)).toBe(want);
      expect(await sha256Hex(new TextEncoder().encode(t))).toBe(want);
    }
  });

  it('a string with lone surrogates hashes as its TextEncoder bytes (U+FFFD each), as the fingerprint encodes it', async () => {
    for (const t of ['a\uD800b', '\uDC00', 'x'.repeat(70_000) + '\uD83D', '\uDFFF\uD800'.repeat(40_000)]) {
      const want = toHex(sha256Portable(new TextEncoder().encode(t)));
      expect(await startSha256HexOfText(t)).toBe(want);
      expect(await sha256Hex(t)).toBe(want);
    }
  });

  it('sha256Hex rejects anything but a string or bytes with INVALID_INPUT', async () => {
    for (const bad of [42, null, undefined, {}, [1, 2], new Uint16Array(2)]) {
      await expect(sha256Hex(bad as unknown as string)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
  });

  it('hashes texts through one reused buffer: calls started together each get their own digest', async () => {
    const texts = [
      '',
      'abc',
      'ünïcödé 👍🏽',
      'x'.repeat(65_536),
      'é'.repeat(65_536),
      'y'.repeat(65_537),
      'z'.repeat(1000),
    ];
    const pending = texts.map((t) => startSha256HexOfText(t)); // all started before any resolves
    const want = texts.map((t) => createHash('sha256').update(t, 'utf8').digest('hex'));
    expect(await Promise.all(pending)).toEqual(want);
  });
});
