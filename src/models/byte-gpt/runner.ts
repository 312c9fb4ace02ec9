/**
 * Incremental inference of a byte-level GPT in TypeScript: one token at a time with a key/value cache, so a text of
 * n bytes costs n passes over the weights instead of the reference's n² / 2. Same arithmetic as ./reference.ts
 * (tested against it), in preallocated float32 buffers.
 */
import { geluTanh, layerNormInto } from './reference.js';
import type { ByteGptWeights } from './weights.js';

/** out = bias + W·x for W [rows, cols] row-major. */
function matVec(
  out: Float32Array,
  x: Float32Array,
  w: Float32Array,
  bias: Float32Array | null,
  rows: number,
  cols: number,
): void {
  for (let i = 0; i < rows; i++) {
    let s = bias === null ? 0 : bias[i];
    const base = i * cols;
    for (let j = 0; j < cols; j++) s += w[base + j] * x[j];
    out[i] = s;
  }
}

/** What the model adapter needs of a runner: feed a token, get the next token's logits. */
export interface TokenRunner {
  readonly weights: ByteGptWeights;
  /** Tokens fed since the last reset. */
  readonly length: number;
  /** Room left before the context is full. */
  readonly room: number;
  reset(): void;
  /** Feed one token; the logits of the next (a view reused by the next call). */
  push(token: number): Float32Array;
}

/**
 * What every runner keeps the same way: the position in the sequence, the room left, reset, and the checks of a
 * fed token; a runner supplies the step itself.
 */
export abstract class SequenceRunner implements TokenRunner {
  readonly weights: ByteGptWeights;
  #length = 0;

  constructor(weights: ByteGptWeights) {
    this.weights = weights;
  }

  /** Tokens fed since the last {@link reset}. */
  get length(): number {
    return this.#length;
  }

  /** Room left before the context is full. */
  get room(): number {
    return this.weights.config.context - this.#length;
  }

  /** Forget the sequence. */
  reset(): void {
    this.#length = 0;
  }

  /**
   * Feed one token (a byte value); returns the logits of the next token (a view reused by the next call: copy it to
   * keep it).
   * @throws RangeError when the context is full or the token is not a byte
   */
  push(token: number): Float32Array {
    const { vocab_size: vocab, context } = this.weights.config;
    if (this.#length >= context) throw new RangeError(`the context of ${context} tokens is full`);
    if (!Number.isInteger(token) || token < 0 || token >= vocab) throw new RangeError(`not a token: ${token}`);
    const logits = this.step(this.#length, token);
    this.#length++; // after the step: a step that throws leaves the sequence as it was
    return logits;
  }

  /** The logits after `token` at position `t` (both checked), from the cache of the positions before it. */
  protected abstract step(t: number, token: number): Float32Array;
}

/**
 * A model's state over one sequence: feed tokens with {@link push}, read the next token's logits.
 * @example
 * const r = new ByteGptRunner(weights)
 * r.push(0)                                   // the boundary byte: a document starts
 * const logits = r.push(0x46)                 // 'F' → scores of the byte after it
 */
export class ByteGptRunner extends SequenceRunner {
  readonly #keys: Float32Array[];
  readonly #values: Float32Array[];
  readonly #x: Float32Array;
  readonly #h: Float32Array;
  readonly #qkv: Float32Array;
  readonly #y: Float32Array;
  readonly #tmp: Float32Array;
  readonly #hidden: Float32Array;
  readonly #scores: Float32Array;
  readonly #logits: Float32Array;

  constructor(weights: ByteGptWeights) {
    super(weights);
    const { d_model: d, context, n_layers, vocab_size } = weights.config;
    this.#keys = Array.from({ length: n_layers }, () => new Float32Array(context * d));
    this.#values = Array.from({ length: n_layers }, () => new Float32Array(context * d));
    this.#x = new Float32Array(d);
    this.#h = new Float32Array(d);
    this.#qkv = new Float32Array(3 * d);
    this.#y = new Float32Array(d);
    this.#tmp = new Float32Array(d);
    this.#hidden = new Float32Array(4 * d);
    this.#scores = new Float32Array(context);
    this.#logits = new Float32Array(vocab_size);
  }

  protected step(t: number, token: number): Float32Array {
    const w = this.weights;
    const { d_model: d, n_heads: heads, vocab_size: vocab } = w.config;
    const hd = d / heads;
    const scale = 1 / Math.sqrt(hd);
    const x = this.#x;
    for (let i = 0; i < d; i++) x[i] = w.tok[token * d + i] + w.pos[t * d + i];
    for (let l = 0; l < w.blocks.length; l++) {
      const b = w.blocks[l];
      const K = this.#keys[l];
      const V = this.#values[l];
      layerNormInto(this.#h, x, b.ln1Weight, b.ln1Bias);
      matVec(this.#qkv, this.#h, b.qkvWeight, b.qkvBias, 3 * d, d);
      K.set(this.#qkv.subarray(d, 2 * d), t * d);
      V.set(this.#qkv.subarray(2 * d, 3 * d), t * d);
      const y = this.#y;
      const scores = this.#scores;
      for (let h = 0; h < heads; h++) {
        const q = h * hd;
        let max = -Infinity;
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          const ks = s * d + q;
          for (let i = 0; i < hd; i++) dot += this.#qkv[q + i] * K[ks + i];
          scores[s] = dot * scale;
          if (scores[s] > max) max = scores[s];
        }
        let sum = 0;
        for (let s = 0; s <= t; s++) {
          scores[s] = Math.exp(scores[s] - max);
          sum += scores[s];
        }
        for (let i = 0; i < hd; i++) y[q + i] = 0;
        for (let s = 0; s <= t; s++) {
          const p = scores[s] / sum;
          const vs = s * d + q;
          for (let i = 0; i < hd; i++) y[q + i] += p * V[vs + i];
        }
      }
      matVec(this.#tmp, y, b.projWeight, b.projBias, d, d);
      for (let i = 0; i < d; i++) x[i] += this.#tmp[i];
      layerNormInto(this.#h, x, b.ln2Weight, b.ln2Bias);
      matVec(this.#hidden, this.#h, b.fcWeight, b.fcBias, 4 * d, d);
      for (let i = 0; i < 4 * d; i++) this.#hidden[i] = geluTanh(this.#hidden[i]);
      matVec(this.#tmp, this.#hidden, b.outWeight, b.outBias, d, 4 * d);
      for (let i = 0; i < d; i++) x[i] += this.#tmp[i];
    }
    layerNormInto(this.#h, x, w.lnFWeight, w.lnFBias);
    matVec(this.#logits, this.#h, w.tok, null, vocab, d);
    return this.#logits;
  }
}
