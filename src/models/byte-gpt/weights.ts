/**
 * The weights of a byte-level GPT (the test models under models/, trained by models/build/train.py): a config and
 * one flat little-endian float32 file, tensors in a fixed order. Reading checks the size against the config, so a
 * file of another shape is refused instead of read as garbage.
 *
 * Order (`tensor_order` of the training script): the byte embedding `tok` [vocab, d], the positions `pos`
 * [context, d], then per block `ln1` (weight, bias [d]), `qkv` (weight [3d, d], bias [3d]), `proj` ([d, d], [d]),
 * `ln2` ([d], [d]), `fc` ([4d, d], [4d]), `out` ([d, 4d], [d]), and the final `ln_f` ([d], [d]). Linear weights are
 * [out, in], row-major, as torch keeps them. The output projection is the byte embedding (tied).
 */
import { TrainprintError } from '../../errors.js';

/** The shape of a byte-level GPT. */
export interface ByteGptConfig {
  /** 256: one token per byte value; byte 0 marks a document boundary. */
  readonly vocab_size: number;
  /** Positions the model attends over. */
  readonly context: number;
  readonly d_model: number;
  readonly n_layers: number;
  readonly n_heads: number;
}

/** One transformer block's tensors. */
export interface ByteGptBlock {
  readonly ln1Weight: Float32Array;
  readonly ln1Bias: Float32Array;
  /** [3d, d]: the query, key and value projections stacked. */
  readonly qkvWeight: Float32Array;
  readonly qkvBias: Float32Array;
  readonly projWeight: Float32Array;
  readonly projBias: Float32Array;
  readonly ln2Weight: Float32Array;
  readonly ln2Bias: Float32Array;
  /** [4d, d] */
  readonly fcWeight: Float32Array;
  readonly fcBias: Float32Array;
  /** [d, 4d] */
  readonly outWeight: Float32Array;
  readonly outBias: Float32Array;
}

/** A model's tensors, views of one Float32Array. */
export interface ByteGptWeights {
  readonly config: ByteGptConfig;
  /** [vocab, d]: the byte embedding, also the output projection. */
  readonly tok: Float32Array;
  /** [context, d] */
  readonly pos: Float32Array;
  readonly blocks: readonly ByteGptBlock[];
  readonly lnFWeight: Float32Array;
  readonly lnFBias: Float32Array;
  /** Every parameter, in file order. */
  readonly all: Float32Array;
}

const POSITIVE = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 1 << 16;

/**
 * Checks a config read from a manifest.
 * @throws INVALID_INPUT naming the field
 * @example checkByteGptConfig({ vocab_size: 256, context: 256, d_model: 160, n_layers: 4, n_heads: 4 })
 */
export function checkByteGptConfig(config: unknown): ByteGptConfig {
  const c = config as Record<string, unknown> | null;
  if (c === null || typeof c !== 'object')
    throw new TrainprintError('INVALID_INPUT', 'the model config must be an object');
  for (const k of ['vocab_size', 'context', 'd_model', 'n_layers', 'n_heads']) {
    if (!POSITIVE(c[k])) throw new TrainprintError('INVALID_INPUT', `config.${k} must be a positive integer`);
  }
  if (c.vocab_size !== 256) throw new TrainprintError('INVALID_INPUT', 'config.vocab_size must be 256 (bytes)');
  if ((c.d_model as number) % (c.n_heads as number) !== 0)
    throw new TrainprintError('INVALID_INPUT', 'config.d_model must be a multiple of config.n_heads');
  return {
    vocab_size: 256,
    context: c.context as number,
    d_model: c.d_model as number,
    n_layers: c.n_layers as number,
    n_heads: c.n_heads as number,
  };
}

/**
 * The number of parameters of a config (what the weights file holds, in float32 values).
 * @example byteGptParameters({ vocab_size: 256, context: 256, d_model: 160, n_layers: 4, n_heads: 4 }) // 1319360
 */
export function byteGptParameters(c: ByteGptConfig): number {
  const d = c.d_model;
  const block = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (4 * d * d + 4 * d) + (4 * d * d + d);
  return c.vocab_size * d + c.context * d + c.n_layers * block + 2 * d;
}

/**
 * Views the tensors of a weights file (little-endian float32, the order above).
 * @throws INVALID_INPUT when the file's size is not the config's
 * @example const w = readByteGptWeights(readFileSync('models/byte-gpt-base/weights.bin'), manifest.config)
 */
export function readByteGptWeights(bytes: Uint8Array, config: unknown): ByteGptWeights {
  const c = checkByteGptConfig(config);
  const n = byteGptParameters(c);
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== n * 4) {
    throw new TrainprintError(
      'INVALID_INPUT',
      `the weights file must hold ${n} float32 values (${n * 4} bytes) for this config, not ${bytes?.byteLength} bytes`,
    );
  }
  const all = new Float32Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) all[i] = view.getFloat32(i * 4, true);
  let at = 0;
  const take = (len: number): Float32Array => {
    const t = all.subarray(at, at + len);
    at += len;
    return t;
  };
  const d = c.d_model;
  const tok = take(c.vocab_size * d);
  const pos = take(c.context * d);
  const blocks: ByteGptBlock[] = [];
  for (let l = 0; l < c.n_layers; l++) {
    blocks.push({
      ln1Weight: take(d),
      ln1Bias: take(d),
      qkvWeight: take(3 * d * d),
      qkvBias: take(3 * d),
      projWeight: take(d * d),
      projBias: take(d),
      ln2Weight: take(d),
      ln2Bias: take(d),
      fcWeight: take(4 * d * d),
      fcBias: take(4 * d),
      outWeight: take(4 * d * d),
      outBias: take(d),
    });
  }
  const lnFWeight = take(d);
  const lnFBias = take(d);
  return { config: c, tok, pos, blocks, lnFWeight, lnFBias, all };
}
