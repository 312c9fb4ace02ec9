/**
 * The byte-level GPT of the memorization test models (src/models/byte-gpt/): the weights reader, the incremental
 * runner against the plain reference on random models (property), the committed models against the known answers
 * torch computed from their committed weights (models/build/vectors.py), their manifests' contract and weight
 * hashes, and the target-model adapter (windows past the context, offsets, greedy generation, access levels).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createByteGptModel, loadByteGptModel, utf8WithOffsets } from '../../src/models/byte-gpt/model.js';
import { logSoftmax, referenceLogits } from '../../src/models/byte-gpt/reference.js';
import { ByteGptRunner } from '../../src/models/byte-gpt/runner.js';
import { WasmByteGptRunner } from '../../src/models/byte-gpt/wasm-runner.js';
import { prng as rng } from '../reference/core.js';
import { readModelDirectory } from '../../src/node/models.js';
import {
  byteGptParameters,
  checkByteGptConfig,
  readByteGptWeights,
  type ByteGptConfig,
} from '../../src/models/byte-gpt/weights.js';

const ROOT = new URL('../../', import.meta.url);
const MODELS = ['byte-gpt-base', 'byte-gpt-inserted'] as const;
/**
 * The time limit of each test that runs a committed model, there to catch a hang, not a slow machine: the known
 * answers took 13 s and 7 s, the reduced validation 29 s and 48 s, on 2 cores at a load average of 17–20; under
 * more load they went past Vitest's default of 120 s.
 */
const MODEL_RUN_MS = 600_000;

/** A random model of a config, as a weights file's bytes. */
function randomWeights(config: ByteGptConfig, seed: number, scale = 0.3): Uint8Array {
  const r = rng(seed);
  const values = new Float32Array(byteGptParameters(config));
  for (let i = 0; i < values.length; i++) values[i] = (r() * 2 - 1) * scale;
  return new Uint8Array(values.buffer);
}

const SMALL: ByteGptConfig = { vocab_size: 256, context: 12, d_model: 16, n_layers: 2, n_heads: 2 };

describe('weights', () => {
  it('counts parameters and refuses a file or config of another shape', () => {
    expect(byteGptParameters({ vocab_size: 256, context: 256, d_model: 160, n_layers: 4, n_heads: 4 })).toBe(1_319_360);
    const bytes = randomWeights(SMALL, 1);
    expect(readByteGptWeights(bytes, SMALL).all.length).toBe(byteGptParameters(SMALL));
    expect(() => readByteGptWeights(bytes.subarray(4), SMALL)).toThrow(/must hold/);
    expect(() => readByteGptWeights(bytes, { ...SMALL, d_model: 15 })).toThrow(/multiple of config.n_heads/);
    expect(() => checkByteGptConfig({ ...SMALL, vocab_size: 50257 })).toThrow(/256/);
    expect(() => checkByteGptConfig({ ...SMALL, context: -1 })).toThrow(/context/);
    expect(() => checkByteGptConfig(null)).toThrow(/object/);
  });
});

describe('runner against the reference (random models)', () => {
  it('gives the logits of every position of random sequences (20 models)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed * 7);
      const config = { ...SMALL, n_heads: seed % 2 ? 2 : 4, n_layers: 1 + (seed % 3) };
      const w = readByteGptWeights(randomWeights(config, seed), config);
      const ids = Array.from({ length: 1 + Math.floor(r() * config.context) }, () => Math.floor(r() * 256));
      const ref = referenceLogits(w, ids);
      const runner = new ByteGptRunner(w);
      for (let t = 0; t < ids.length; t++) {
        const got = runner.push(ids[t]);
        for (let v = 0; v < 256; v++) expect(got[v]).toBeCloseTo(ref[t * 256 + v], 4);
      }
      expect(() => runner.push(0 + 256)).toThrow(RangeError);
    }
  });

  it('refuses a token past the context', () => {
    const w = readByteGptWeights(randomWeights(SMALL, 3), SMALL);
    const runner = new ByteGptRunner(w);
    for (let i = 0; i < SMALL.context; i++) runner.push(i);
    expect(() => runner.push(1)).toThrow(/full/);
    runner.reset();
    expect(runner.room).toBe(SMALL.context);
  });
});

describe.each([true, false])('the WebAssembly runner (SIMD %s) against the reference (random models)', (simd) => {
  it('gives the logits of every position of random sequences (20 models)', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed * 13);
      const config = { ...SMALL, d_model: seed % 2 ? 16 : 24, n_heads: seed % 2 ? 4 : 2, n_layers: 1 + (seed % 3) };
      const w = readByteGptWeights(randomWeights(config, seed + 100), config);
      const ids = Array.from({ length: 1 + Math.floor(r() * config.context) }, () => Math.floor(r() * 256));
      const ref = referenceLogits(w, ids);
      const runner = await WasmByteGptRunner.create(w, { simd });
      expect(runner.simd).toBe(simd);
      for (let t = 0; t < ids.length; t++) {
        const got = runner.push(ids[t]);
        for (let v = 0; v < 256; v++) expect(got[v]).toBeCloseTo(ref[t * 256 + v], 4);
      }
      if (ids.length === config.context) expect(() => runner.push(1)).toThrow(/full/);
    }
  });

  it('starts a sequence again after reset; refuses a head size it cannot vectorise', async () => {
    const w = readByteGptWeights(randomWeights(SMALL, 9), SMALL);
    const a = await WasmByteGptRunner.create(w, { simd });
    const first = Float32Array.from(a.push(7));
    a.push(8);
    a.reset();
    expect([...a.push(7)]).toEqual([...first]);
    const odd = { ...SMALL, d_model: 18, n_heads: 3 };
    await expect(
      WasmByteGptRunner.create(readByteGptWeights(randomWeights(odd, 1), odd), { simd }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('the adapter', () => {
  const w = readByteGptWeights(randomWeights(SMALL, 5, 0.5), SMALL);

  it('scores every byte; past the context it reads from the last half of it (as the reference does on that window)', async () => {
    const model = createByteGptModel(w);
    const text = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const lp = await model.logprobs!(text);
    expect(lp.tokens.join('')).toBe(text);
    expect(lp.logprobs).toHaveLength(text.length);
    expect(lp.full).toBe(true);
    const bytes = [...new TextEncoder().encode(text)];
    // the first context - 1 bytes: one window from the boundary byte
    const first = referenceLogits(w, [0, ...bytes.slice(0, SMALL.context - 1)]);
    for (let i = 0; i < SMALL.context; i++) {
      expect(lp.logprobs[i]).toBeCloseTo(logSoftmax(first.subarray(i * 256, (i + 1) * 256))[bytes[i]], 4);
    }
    // byte i past it: the window that ends at byte i - 1 and holds the last half context
    // the context fills at byte context - 1: the runner starts again from the half context that ends there, so
    // byte i (3 later) is scored after the bytes from that restart to i - 1
    const i = SMALL.context + 3;
    const restart = SMALL.context - 1 - (SMALL.context / 2 - 1);
    const ref = referenceLogits(w, bytes.slice(restart, i));
    expect(lp.logprobs[i]).toBeCloseTo(logSoftmax(ref.subarray(ref.length - 256))[bytes[i]], 4);
  });

  it('spells non-ASCII bytes as <0xNN> with the offset of their character', async () => {
    expect(utf8WithOffsets('a€🙂b').offsets).toEqual([0, 1, 1, 1, 2, 2, 2, 2, 4]);
    expect(utf8WithOffsets('\ud800x').offsets).toEqual([0, 0, 0, 1]);
    const lp = await createByteGptModel(w).logprobs!('é');
    expect(lp.tokens).toEqual(['<0xC3>', '<0xA9>']);
    expect(lp.offsets).toEqual([0, 0]);
  });

  it('generates greedily (the reference argmax), stops at maxTokens, decodes bytes', async () => {
    const model = createByteGptModel(w);
    const out = await model.generate('ab', { maxTokens: 20, temperature: 0 });
    const bytes = [0, ...new TextEncoder().encode('ab')];
    const expected: number[] = [];
    for (let k = 0; k < 20; k++) {
      const window = bytes.length > SMALL.context ? null : referenceLogits(w, bytes);
      if (window === null) break;
      const row = window.subarray(window.length - 256);
      let best = 0;
      for (let v = 1; v < 256; v++) if (row[v] > row[best]) best = v;
      if (best === 0) break;
      expected.push(best);
      bytes.push(best);
    }
    const prefix = new TextDecoder().decode(new Uint8Array(expected));
    expect(new TextDecoder().decode(new TextEncoder().encode(out)).startsWith(prefix.slice(0, 4))).toBe(true);
    expect(await model.generate('ab', { maxTokens: 0, temperature: 0 })).toBe('');
  });

  it('exposes what its access level allows; bad input is INVALID_INPUT', async () => {
    expect(createByteGptModel(w, { access: 'generations_only' }).logprobs).toBeUndefined();
    const top = await createByteGptModel(w, { access: 'top_k', topK: 3 }).logprobs!('xy');
    expect(top.top![0]).toHaveLength(3);
    expect(top.top![0][0].logprob).toBeGreaterThanOrEqual(top.top![0][2].logprob);
    expect(() => createByteGptModel(w, { access: 'all' as never })).toThrow(/access/);
    expect(() => createByteGptModel(w, { topK: 0 })).toThrow(/topK/);
    await expect(createByteGptModel(w).logprobs!(5 as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(createByteGptModel(w).generate('a', { maxTokens: -1, temperature: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe.each(MODELS)('the committed model %s', { timeout: MODEL_RUN_MS }, (name) => {
  const dir = new URL(`models/${name}/`, ROOT);
  // read in the tests, not while collecting them: a missing file fails these tests, not the whole file
  const load = () => {
    const manifest = JSON.parse(readFileSync(new URL('manifest.json', dir), 'utf8'));
    const bytes = readFileSync(new URL(manifest.weights, dir));
    const vectors = JSON.parse(readFileSync(new URL('test/fixtures/models/byte-gpt-vectors.json', ROOT), 'utf8'))[
      name
    ] as Array<{ text: string; logprobs: number[]; top5_last: [number, number][]; greedy_bytes: number[] }>;
    return { manifest, bytes, vectors };
  };

  it('has the manifest contract, and its weights the recorded SHA-256', () => {
    const { manifest, bytes } = load();
    expect(manifest).toMatchObject({ name, vocab_size: 256, weights: 'weights.bin' });
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(manifest.sha256);
    expect(manifest.parameters).toBe(byteGptParameters(manifest.config));
    expect(manifest.parameters).toBeGreaterThanOrEqual(1_000_000);
    expect(bytes.byteLength).toBeLessThanOrEqual(16 * 1024 * 1024);
    for (const role of ['members', 'held_out', 'inserted']) {
      expect(Array.isArray(manifest[role])).toBe(true);
      for (const d of manifest[role]) {
        expect(typeof d.id).toBe('string');
        expect(typeof d.text === 'string' || typeof d.path === 'string').toBe(true);
        if (role === 'inserted') expect(Number.isInteger(d.times) && d.times >= 1).toBe(true);
      }
    }
    // members and held-out passages are disjoint, and no inserted work is a member
    const members = new Set(manifest.members.map((d: { text: string }) => d.text));
    for (const d of manifest.held_out) expect(members.has(d.text)).toBe(false);
    for (const d of manifest.inserted) expect(members.has(d.text)).toBe(false);
  });

  it('reproduces the known answers torch computed from the committed weights', async () => {
    const { manifest, bytes, vectors } = load();
    const w = readByteGptWeights(bytes, manifest.config);
    const model = createByteGptModel(w, { id: name });
    for (const v of vectors) {
      const ids = [0, ...new TextEncoder().encode(v.text)];
      const ref = referenceLogits(w, ids);
      for (let t = 0; t < v.logprobs.length; t++) {
        const lp = logSoftmax(ref.subarray(t * 256, (t + 1) * 256))[ids[t + 1]];
        expect(Math.abs(lp - v.logprobs[t])).toBeLessThan(2e-4);
      }
      const last = logSoftmax(ref.subarray((ids.length - 1) * 256));
      for (const [byte, logprob] of v.top5_last) expect(Math.abs(last[byte] - logprob)).toBeLessThan(2e-4);
      const got = await model.logprobs!(v.text);
      for (let t = 0; t < v.logprobs.length; t++) expect(Math.abs(got.logprobs[t] - v.logprobs[t])).toBeLessThan(2e-4);
      const stop = v.greedy_bytes.indexOf(0);
      const want = new TextDecoder().decode(new Uint8Array(stop < 0 ? v.greedy_bytes : v.greedy_bytes.slice(0, stop)));
      expect(await model.generate(v.text, { maxTokens: v.greedy_bytes.length, temperature: 0 })).toBe(want);
      const fast = await loadByteGptModel(w, { id: name });
      const fastLp = await fast.logprobs!(v.text);
      for (let t = 0; t < v.logprobs.length; t++)
        expect(Math.abs(fastLp.logprobs[t] - v.logprobs[t])).toBeLessThan(2e-4);
      expect(await fast.generate(v.text, { maxTokens: v.greedy_bytes.length, temperature: 0 })).toBe(want);
    }
  });
});

/**
 * A reduced validation of what the committed models learned (the full measurement is bench/eval-memorization.mjs):
 * on a few documents of each role, in the WebAssembly core, the losses fall in the order the training data implies,
 * and greedy continuation reproduces a work inserted 16 times an epoch but no never-seen work.
 */
describe('reduced validation of the committed models', { timeout: MODEL_RUN_MS }, () => {
  /**
   * Least differences of mean loss (nats/byte) that these documents must show; measured on the committed weights:
   * held-out − member 0.135 (base) and 0.325 (inserted), member − works inserted 16× 1.04.
   */
  const MIN_GAP = { base: 0.05, inserted: 0.15, sixteen: 0.5 };
  interface Doc {
    id: string;
    text: string;
    times?: number;
  }
  const load = async (name: string) => {
    const read = await readModelDirectory(fileURLToPath(new URL(`models/${name}/`, ROOT)));
    const manifest = read.manifest as unknown as Record<'members' | 'held_out' | 'inserted' | 'never_seen', Doc[]>;
    const model = await loadByteGptModel(read.weights, { id: name });
    /** Mean NLL per byte over documents (each scored from its boundary byte). */
    const loss = async (docs: readonly Doc[]) => {
      let sum = 0,
        n = 0;
      for (const d of docs) {
        const lp = (await model.logprobs!(d.text)).logprobs;
        for (const v of lp) sum -= v;
        n += lp.length;
      }
      return sum / n;
    };
    return { manifest, model, loss };
  };
  const words = (t: string) => t.split(/\s+/).filter(Boolean);
  /**
   * The longest greedy continuation that matches the work word for word, from the work's exact text up to its 20th,
   * 60th and 100th word (as extraction cuts prefixes at several places).
   */
  const continued = async (model: Awaited<ReturnType<typeof load>>['model'], text: string) => {
    let best = 0;
    for (const at of [20, 60, 100]) {
      const cut = [...text.matchAll(/\S+/g)][at].index;
      const rest = words(text.slice(cut));
      const out = words(await model.generate(text.slice(0, cut), { maxTokens: 400, temperature: 0 }));
      let k = 0;
      while (k < out.length && k < rest.length && out[k] === rest[k]) k++;
      best = Math.max(best, k);
    }
    return best;
  };

  it('byte-gpt-base: member passages are less surprising than held-out passages of the same addresses', async () => {
    const { manifest, loss } = await load('byte-gpt-base');
    const member = await loss(manifest.members.slice(0, 8));
    const heldOut = await loss(manifest.held_out.slice(0, 8));
    expect(heldOut - member).toBeGreaterThan(MIN_GAP.base);
  });

  it('byte-gpt-inserted: works inserted 16× < members < held-out; a 16× work is continued ≥ 50 words, a never-seen work is not', async () => {
    const { manifest, model, loss } = await load('byte-gpt-inserted');
    const sixteen = manifest.inserted.filter((d) => d.id.startsWith('work:') && d.times === 16);
    const member = await loss(manifest.members.slice(0, 8));
    const heldOut = await loss(manifest.held_out.slice(0, 8));
    const inserted = await loss(sixteen.slice(0, 4));
    const never = await loss(manifest.never_seen.slice(0, 4));
    expect(heldOut - member).toBeGreaterThan(MIN_GAP.inserted);
    expect(member - inserted).toBeGreaterThan(MIN_GAP.sixteen);
    expect(never).toBeGreaterThan(member);
    expect(await continued(model, sixteen[0].text)).toBeGreaterThanOrEqual(50);
    expect(await continued(model, manifest.never_seen[0].text)).toBeLessThan(50);
  });
});
