/**
 * The plain-TypeScript forward pass of a byte-level GPT: the reference the fast paths are tested against, written
 * to be read next to the training script's `Block.forward` (models/build/train.py), one operation per function,
 * no cache, no batching. Sums are taken in double precision; torch's float32 sums differ from them by about 1e-6
 * relative, which the known-answer tests allow for.
 */
import type { ByteGptWeights } from './weights.js';

/** out[i] = bias[i] + Σ_j weight[i, j] · x[j] (weight [rows, cols] row-major, as torch's Linear keeps it). */
function linear(x: Float32Array, weight: Float32Array, bias: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows);
  for (let i = 0; i < rows; i++) {
    let s = bias[i];
    const base = i * cols;
    for (let j = 0; j < cols; j++) s += weight[base + j] * x[j];
    out[i] = s;
  }
  return out;
}

/**
 * Layer normalisation of one vector into `out` (ε = 1e-5, torch's default).
 * @example layerNormInto(out, x, ln.weight, ln.bias)
 */
export function layerNormInto(out: Float32Array, x: Float32Array, weight: Float32Array, bias: Float32Array): void {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (x[i] - mean) ** 2;
  variance /= n;
  const inv = 1 / Math.sqrt(variance + 1e-5);
  for (let i = 0; i < n; i++) out[i] = (x[i] - mean) * inv * weight[i] + bias[i];
}

function layerNorm(x: Float32Array, weight: Float32Array, bias: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  layerNormInto(out, x, weight, bias);
  return out;
}

/** GELU, tanh approximation (GPT-2's; torch `gelu(approximate='tanh')`). */
export function geluTanh(x: number): number {
  return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
}

/**
 * Logits of every position of `ids` (byte values; at most `context` of them): row t is the model's score of each
 * byte value as the token after ids[0..t]. Returns [ids.length, 256] row-major.
 * @example const logits = referenceLogits(weights, [0, ...new TextEncoder().encode('Fellow-Citizens')])
 */
export function referenceLogits(w: ByteGptWeights, ids: ArrayLike<number>): Float32Array {
  const { d_model: d, n_heads: heads, vocab_size: vocab, context } = w.config;
  const T = ids.length;
  if (T > context) throw new RangeError(`at most ${context} tokens, not ${T}`);
  const hd = d / heads;
  // the residual stream, one vector per position
  let xs: Float32Array[] = [];
  for (let t = 0; t < T; t++) {
    const x = new Float32Array(d);
    for (let i = 0; i < d; i++) x[i] = w.tok[ids[t] * d + i] + w.pos[t * d + i];
    xs.push(x);
  }
  for (const b of w.blocks) {
    const qkv = xs.map((x) => linear(layerNorm(x, b.ln1Weight, b.ln1Bias), b.qkvWeight, b.qkvBias, 3 * d, d));
    const next: Float32Array[] = [];
    for (let t = 0; t < T; t++) {
      const y = new Float32Array(d);
      for (let h = 0; h < heads; h++) {
        const q = h * hd;
        // causal attention: position t attends to 0..t
        const scores = new Float64Array(t + 1);
        let max = -Infinity;
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let i = 0; i < hd; i++) dot += qkv[t][q + i] * qkv[s][d + q + i];
          scores[s] = dot / Math.sqrt(hd);
          if (scores[s] > max) max = scores[s];
        }
        let sum = 0;
        for (let s = 0; s <= t; s++) {
          scores[s] = Math.exp(scores[s] - max);
          sum += scores[s];
        }
        for (let i = 0; i < hd; i++) {
          let v = 0;
          for (let s = 0; s <= t; s++) v += (scores[s] / sum) * qkv[s][2 * d + q + i];
          y[q + i] = v;
        }
      }
      const attended = linear(y, b.projWeight, b.projBias, d, d);
      const x = new Float32Array(d);
      for (let i = 0; i < d; i++) x[i] = xs[t][i] + attended[i];
      const hidden = linear(layerNorm(x, b.ln2Weight, b.ln2Bias), b.fcWeight, b.fcBias, 4 * d, d);
      for (let i = 0; i < hidden.length; i++) hidden[i] = geluTanh(hidden[i]);
      const mlp = linear(hidden, b.outWeight, b.outBias, d, 4 * d);
      for (let i = 0; i < d; i++) x[i] += mlp[i];
      next.push(x);
    }
    xs = next;
  }
  const logits = new Float32Array(T * vocab);
  for (let t = 0; t < T; t++) {
    const x = layerNorm(xs[t], w.lnFWeight, w.lnFBias);
    for (let v = 0; v < vocab; v++) {
      let s = 0;
      for (let i = 0; i < d; i++) s += w.tok[v * d + i] * x[i];
      logits[t * vocab + v] = s;
    }
  }
  return logits;
}

/**
 * Natural-log softmax of one row of logits.
 * @example logSoftmax(new Float32Array([0, 0])) // [-0.693…, -0.693…]
 */
export function logSoftmax(row: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i] - max);
  const lse = max + Math.log(sum);
  const out = new Float64Array(row.length);
  for (let i = 0; i < row.length; i++) out[i] = row[i] - lse;
  return out;
}
