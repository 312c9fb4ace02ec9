// Byte-level GPT inference (src/models/byte-gpt/): one token at a time with a key/value cache.
//
// The weights are the training script's flat float32 file (models/build/train.py `tensor_order`), copied once into
// the arena of a core instance of their own: tok [vocab, d], pos [context, d], per block ln1 w/b, qkv W [3d, d] / b,
// proj W [d, d] / b, ln2 w/b, fc W [4d, d] / b, out W [d, 4d] / b, then ln_f w/b. Linear weights are [out, in]
// row-major, so each output is one dot product over a contiguous row: f32x4 lanes in the SIMD build.
// The cache holds, per layer, K then V as [context, d]. Scratch: 10·d + context floats. The plain-TS oracle is
// src/models/byte-gpt/reference.ts (and the incremental runner.ts, the same arithmetic in TypeScript).

// @ts-ignore: decorator
@inline function f32At(p: usize, i: u32): f32 {
  return load<f32>(p + (<usize>i << 2));
}

/** out[i] = bias[i] + W[i, :] · x (bias 0 = none). cols must be a multiple of 4. */
function matVec(out: usize, x: usize, w: usize, bias: usize, rows: u32, cols: u32): void {
  const rowBytes = <usize>cols << 2;
  for (let i: u32 = 0; i < rows; i++) {
    const row = w + <usize>i * rowBytes;
    let s: f32 = 0;
    if (ASC_FEATURE_SIMD) {
      let a0 = f32x4.splat(0);
      let a1 = f32x4.splat(0);
      let j: u32 = 0;
      for (; j + 8 <= cols; j += 8) {
        const o = <usize>j << 2;
        a0 = f32x4.add(a0, f32x4.mul(v128.load(row + o), v128.load(x + o)));
        a1 = f32x4.add(a1, f32x4.mul(v128.load(row + o, 16), v128.load(x + o, 16)));
      }
      for (; j < cols; j += 4) {
        const o = <usize>j << 2;
        a0 = f32x4.add(a0, f32x4.mul(v128.load(row + o), v128.load(x + o)));
      }
      const a = f32x4.add(a0, a1);
      s = f32x4.extract_lane(a, 0) + f32x4.extract_lane(a, 1) + f32x4.extract_lane(a, 2) + f32x4.extract_lane(a, 3);
    } else {
      for (let j: u32 = 0; j < cols; j++) s += f32At(row, j) * f32At(x, j);
    }
    store<f32>(out + (<usize>i << 2), bias == 0 ? s : s + f32At(bias, i));
  }
}

function layerNorm(out: usize, x: usize, weight: usize, bias: usize, n: u32): void {
  let mean: f64 = 0;
  for (let i: u32 = 0; i < n; i++) mean += <f64>f32At(x, i);
  mean /= <f64>n;
  let variance: f64 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const c = <f64>f32At(x, i) - mean;
    variance += c * c;
  }
  variance /= <f64>n;
  const inv = 1 / Math.sqrt(variance + 1e-5);
  for (let i: u32 = 0; i < n; i++) {
    const v = (<f64>f32At(x, i) - mean) * inv * <f64>f32At(weight, i) + <f64>f32At(bias, i);
    store<f32>(out + (<usize>i << 2), <f32>v);
  }
}

/** The number of float32 parameters of a shape (the weights file's length / 4). */
export function gptParameters(vocab: u32, context: u32, d: u32, layers: u32): u32 {
  return vocab * d + context * d + layers * (12 * d * d + 13 * d) + 2 * d;
}

/**
 * Feed `token` at position `t` (the cache must hold positions 0..t-1 of this sequence) and write the logits of the
 * next token at `logits` (vocab floats). Returns 1, or 0 when the arguments are out of range (d not a multiple of
 * 4·heads, t ≥ context, token ≥ vocab).
 */
export function gptStep(
  w: usize, vocab: u32, context: u32, d: u32, layers: u32, heads: u32,
  kv: usize, scratch: usize, t: u32, token: u32, logits: usize,
): u32 {
  if (heads == 0 || d % heads != 0 || (d / heads) % 4 != 0 || t >= context || token >= vocab) return 0;
  const hd = d / heads;
  const db = <usize>d << 2;
  const x = scratch;
  const h = x + db;
  const qkv = h + db;
  const y = qkv + 3 * db;
  const tmp = y + db;
  const hidden = tmp + db;
  const scores = hidden + 4 * db;
  const tok = w;
  const pos = tok + <usize>vocab * db;
  for (let i: u32 = 0; i < d; i++) {
    store<f32>(x + (<usize>i << 2), f32At(tok + <usize>token * db, i) + f32At(pos + <usize>t * db, i));
  }
  let p = pos + <usize>context * db;
  const scale: f64 = 1 / Math.sqrt(<f64>hd);
  const layerKV = <usize>context * db;
  for (let l: u32 = 0; l < layers; l++) {
    const ln1w = p;
    const ln1b = ln1w + db;
    const qkvW = ln1b + db;
    const qkvB = qkvW + 3 * <usize>d * db;
    const projW = qkvB + 3 * db;
    const projB = projW + <usize>d * db;
    const ln2w = projB + db;
    const ln2b = ln2w + db;
    const fcW = ln2b + db;
    const fcB = fcW + 4 * <usize>d * db;
    const outW = fcB + 4 * db;
    const outB = outW + 4 * <usize>d * db;
    p = outB + db;
    const K = kv + <usize>(2 * l) * layerKV;
    const V = K + layerKV;
    layerNorm(h, x, ln1w, ln1b, d);
    matVec(qkv, h, qkvW, qkvB, 3 * d, d);
    memory.copy(K + <usize>t * db, qkv + db, db);
    memory.copy(V + <usize>t * db, qkv + 2 * db, db);
    for (let head: u32 = 0; head < heads; head++) {
      const qo = <usize>(head * hd) << 2;
      let max: f64 = -Infinity;
      for (let s: u32 = 0; s <= t; s++) {
        const ks = K + <usize>s * db + qo;
        let dot: f32 = 0;
        if (ASC_FEATURE_SIMD) {
          let a = f32x4.splat(0);
          for (let i: u32 = 0; i < hd; i += 4) {
            a = f32x4.add(a, f32x4.mul(v128.load(qkv + qo + (<usize>i << 2)), v128.load(ks + (<usize>i << 2))));
          }
          dot = f32x4.extract_lane(a, 0) + f32x4.extract_lane(a, 1) + f32x4.extract_lane(a, 2) + f32x4.extract_lane(a, 3);
        } else {
          for (let i: u32 = 0; i < hd; i++) dot += f32At(qkv + qo, i) * f32At(ks, i);
        }
        const sc = <f64>dot * scale;
        store<f32>(scores + (<usize>s << 2), <f32>sc);
        if (sc > max) max = sc;
      }
      let sum: f64 = 0;
      for (let s: u32 = 0; s <= t; s++) {
        const e = Math.exp(<f64>f32At(scores, s) - max);
        store<f32>(scores + (<usize>s << 2), <f32>e);
        sum += e;
      }
      const yh = y + qo;
      for (let i: u32 = 0; i < hd; i++) store<f32>(yh + (<usize>i << 2), 0);
      for (let s: u32 = 0; s <= t; s++) {
        const pr = <f32>(<f64>f32At(scores, s) / sum);
        const vs = V + <usize>s * db + qo;
        if (ASC_FEATURE_SIMD) {
          const pv = f32x4.splat(pr);
          for (let i: u32 = 0; i < hd; i += 4) {
            const o = <usize>i << 2;
            v128.store(yh + o, f32x4.add(v128.load(yh + o), f32x4.mul(pv, v128.load(vs + o))));
          }
        } else {
          for (let i: u32 = 0; i < hd; i++) {
            const o = <usize>i << 2;
            store<f32>(yh + o, load<f32>(yh + o) + pr * load<f32>(vs + o));
          }
        }
      }
    }
    matVec(tmp, y, projW, projB, d, d);
    for (let i: u32 = 0; i < d; i++) store<f32>(x + (<usize>i << 2), f32At(x, i) + f32At(tmp, i));
    layerNorm(h, x, ln2w, ln2b, d);
    matVec(hidden, h, fcW, fcB, 4 * d, d);
    for (let i: u32 = 0; i < 4 * d; i++) {
      const v = <f64>f32At(hidden, i);
      // GELU, tanh approximation (GPT-2's)
      const g = 0.5 * v * (1 + Math.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
      store<f32>(hidden + (<usize>i << 2), <f32>g);
    }
    matVec(tmp, hidden, outW, outB, d, 4 * d);
    for (let i: u32 = 0; i < d; i++) store<f32>(x + (<usize>i << 2), f32At(x, i) + f32At(tmp, i));
  }
  layerNorm(h, x, p, p + db, d);
  matVec(logits, h, tok, 0, vocab, d);
  return 1;
}
