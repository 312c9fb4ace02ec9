/**
 * A byte-level GPT as a {@link TargetModel}, in process: the memorization operations run against it as against a
 * model behind an API. Tokens are bytes of the UTF-8 text; a byte of an ASCII character is spelled as the character,
 * any other byte as `<0xNN>` (the way byte-fallback tokenizers spell them), and each token's offset is the UTF-16
 * start of the character it belongs to. Texts longer than the context are read in windows: when the context is
 * full, the model starts again from the last half of it (every byte is scored with at least half a context before
 * it, except at the start of the text).
 */
import { TrainprintError } from '../../errors.js';
import type {
  AccessLevel,
  DistributionMoments,
  GenerateOptions,
  TargetModel,
  TokenLogprobs,
  TopLogprob,
} from '../types.js';
import { logSoftmax } from './reference.js';
import type { SimdChoice } from '../../core/load.js';
import { ByteGptRunner, type TokenRunner } from './runner.js';
import { WasmByteGptRunner } from './wasm-runner.js';
import type { ByteGptWeights } from './weights.js';
import { mulberry32 } from '../../util/random.js';

/** Options of {@link createByteGptModel}. */
export interface ByteGptModelOptions {
  /** The id results name. @default 'byte-gpt' */
  readonly id?: string;
  /** What the model exposes (`generations_only` to exercise the black-box paths). @default 'logprobs' */
  readonly access?: AccessLevel;
  /** Alternatives per position with `access: 'top_k'`. @default 5 */
  readonly topK?: number;
  /** What computes the forward pass. @default a TypeScript {@link ByteGptRunner} over the weights */
  readonly runner?: TokenRunner;
}

/** The boundary byte: a document starts after it. */
export const BOUNDARY = 0;

const spell = (byte: number): string =>
  byte < 0x80 ? String.fromCharCode(byte) : `<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`;

/**
 * The UTF-8 bytes of `text` and, for each, the UTF-16 offset of the character it belongs to.
 * @example utf8WithOffsets('a€').offsets // [0, 1, 1, 1]
 */
export function utf8WithOffsets(text: string): { bytes: Uint8Array; offsets: number[] } {
  const bytes = new TextEncoder().encode(text);
  const offsets: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    // lone surrogates are encoded as U+FFFD (3 bytes) by TextEncoder
    const isPair = cp > 0xffff;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 || !isPair ? 3 : 4;
    for (let k = 0; k < n; k++) offsets.push(i);
    i += isPair ? 2 : 1;
  }
  return { bytes, offsets };
}

/**
 * Feeds `bytes` after the boundary byte and calls `visit(i, logits)` with the logits that score bytes[i]; slides
 * the window when the context is full.
 */
function readThrough(runner: TokenRunner, bytes: Uint8Array, visit: (i: number, logits: Float32Array) => void): void {
  const keep = Math.max(1, runner.weights.config.context >> 1);
  runner.reset();
  let logits = runner.push(BOUNDARY);
  for (let i = 0; i < bytes.length; i++) {
    visit(i, logits);
    if (i === bytes.length - 1) break;
    if (runner.room === 0) {
      runner.reset();
      for (let j = i - keep + 1; j < i; j++) runner.push(bytes[j]);
    }
    logits = runner.push(bytes[i]);
  }
}

/**
 * A target model over byte-GPT weights (see {@link readByteGptWeights}).
 * @example
 * const model = createByteGptModel(readByteGptWeights(bytes, manifest.config), { id: 'byte-gpt-base' })
 * const lp = await model.logprobs!('Fellow-Citizens of the Senate')
 * const text = await model.generate('Fellow-Citizens of the', { maxTokens: 40, temperature: 0 })
 */
export function createByteGptModel(weights: ByteGptWeights, options: ByteGptModelOptions = {}): ByteGptModel {
  const access = options.access ?? 'logprobs';
  if (!['logprobs', 'top_k', 'generations_only'].includes(access))
    throw new TrainprintError('INVALID_INPUT', `access must be 'logprobs', 'top_k' or 'generations_only'`);
  const topK = options.topK ?? 5;
  if (!Number.isInteger(topK) || topK < 1 || topK > 256)
    throw new TrainprintError('INVALID_INPUT', 'topK must be an integer in 1..256');
  const runner = options.runner ?? new ByteGptRunner(weights);
  if (runner.weights !== weights) throw new TrainprintError('INVALID_INPUT', 'the runner holds other weights');

  const logprobs = async (text: string): Promise<TokenLogprobs> => {
    if (typeof text !== 'string') throw new TrainprintError('INVALID_INPUT', 'the text must be a string');
    const { bytes, offsets } = utf8WithOffsets(text);
    const tokens: string[] = [];
    const lps: number[] = [];
    const moments: DistributionMoments[] = [];
    const top: TopLogprob[][] = [];
    readThrough(runner, bytes, (i, logits) => {
      const lp = logSoftmax(logits);
      tokens.push(spell(bytes[i]));
      lps.push(lp[bytes[i]]);
      let mean = 0;
      for (let v = 0; v < lp.length; v++) mean += Math.exp(lp[v]) * lp[v];
      let variance = 0;
      for (let v = 0; v < lp.length; v++) variance += Math.exp(lp[v]) * (lp[v] - mean) ** 2;
      moments.push({ mean, variance });
      if (access === 'top_k') {
        const order = [...lp.keys()].sort((a, b) => lp[b] - lp[a] || a - b).slice(0, topK);
        top.push(order.map((v) => ({ token: spell(v), logprob: lp[v] })));
      }
    });
    return {
      tokens,
      logprobs: lps,
      offsets: offsets.slice(0, tokens.length),
      moments,
      full: true,
      ...(access === 'top_k' ? { top } : {}),
    };
  };

  /** The continuation of `prompt`, each next byte chosen by `pick` from the logits; stops at the boundary byte. */
  const continueFrom = (prompt: string, maxTokens: unknown, pick: (logits: Float32Array) => number): string => {
    if (typeof prompt !== 'string') throw new TrainprintError('INVALID_INPUT', 'the prompt must be a string');
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 0 || (maxTokens as number) > 1 << 16)
      throw new TrainprintError('INVALID_INPUT', 'maxTokens must be an integer in 0..65536');
    const max = maxTokens as number;
    const seq = Array.from(new TextEncoder().encode(prompt));
    const keep = Math.max(1, weights.config.context >> 1);
    const out: number[] = [];
    // the prompt's tail that fits, after the boundary byte when the whole prompt fits
    const start = Math.max(0, seq.length - (weights.config.context - 1));
    runner.reset();
    // a prompt cut to its tail has no document start before it: no boundary byte then
    let logits = start === 0 ? runner.push(BOUNDARY) : runner.push(seq[start]);
    for (let j = start === 0 ? 0 : start + 1; j < seq.length; j++) logits = runner.push(seq[j]);
    while (out.length < max) {
      const next = pick(logits);
      if (next === BOUNDARY) break;
      out.push(next);
      seq.push(next);
      if (out.length === max) break;
      if (runner.room === 0) {
        runner.reset();
        for (let j = seq.length - keep; j < seq.length - 1; j++) runner.push(seq[j]);
      }
      logits = runner.push(next);
    }
    return new TextDecoder().decode(new Uint8Array(out));
  };

  const generate = async (prompt: string, o: GenerateOptions): Promise<string> =>
    continueFrom(prompt, o?.maxTokens, (logits) => {
      let best = 0;
      for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
      return best;
    });

  const sample = async (prompt: string, o: SampleOptions): Promise<string> => {
    const t = o?.temperature;
    if (typeof t !== 'number' || !(t > 0 && t <= 100))
      throw new TrainprintError('INVALID_INPUT', 'temperature must be a number in (0, 100]');
    if (!Number.isSafeInteger(o.seed)) throw new TrainprintError('INVALID_INPUT', 'seed must be an integer');
    const random = mulberry32(o.seed);
    return continueFrom(prompt, o.maxTokens, (logits) => {
      const lp = logSoftmax(Float64Array.from(logits, (x) => x / t));
      let u = random();
      for (let v = 0; v < lp.length; v++) {
        u -= Math.exp(lp[v]);
        if (u <= 0) return v;
      }
      return lp.length - 1;
    });
  };

  const id = options.id ?? 'byte-gpt';
  return access === 'generations_only' ? { id, access, generate, sample } : { id, access, logprobs, generate, sample };
}

/** Options of {@link ByteGptModel.sample}. */
export interface SampleOptions {
  /** Most bytes to generate. */
  readonly maxTokens: number;
  /** Softmax temperature, > 0. */
  readonly temperature: number;
  /** The same seed, prompt and options give the same text. */
  readonly seed: number;
}

/** A byte-level GPT as a target model, which can also sample. */
export interface ByteGptModel extends TargetModel {
  /** A sampled continuation of `prompt` (the continuation only). */
  sample(prompt: string, options: SampleOptions): Promise<string>;
}

/**
 * A target model computed in the WebAssembly core (SIMD where the runtime has it), or in TypeScript with
 * `engine: 'typescript'`.
 * @example
 * const model = await loadByteGptModel(readByteGptWeights(bytes, manifest.config), { id: 'byte-gpt-inserted' })
 * await model.generate('Fellow-Citizens of the Senate', { maxTokens: 64, temperature: 0 })
 */
export async function loadByteGptModel(
  weights: ByteGptWeights,
  options: Omit<ByteGptModelOptions, 'runner'> & { engine?: 'wasm' | 'typescript'; simd?: SimdChoice } = {},
): Promise<ByteGptModel> {
  const { engine = 'wasm', simd, ...rest } = options;
  if (engine !== 'wasm' && engine !== 'typescript')
    throw new TrainprintError('INVALID_INPUT', `engine must be 'wasm' or 'typescript'`);
  const runner =
    engine === 'wasm'
      ? await WasmByteGptRunner.create(weights, simd === undefined ? {} : { simd })
      : new ByteGptRunner(weights);
  return createByteGptModel(weights, { ...rest, runner });
}
