/**
 * Incremental inference of a byte-level GPT in the WebAssembly core (assembly/gpt.ts, SIMD when the runtime has it):
 * the weights copied once into a core instance of their own, with the key/value cache and scratch beside them. The
 * same contract as the TypeScript {@link ByteGptRunner}, tested against it and against the reference.
 */
import { Core } from '../../core/abi.js';
import { compileCore, pickVariant, type SimdChoice } from '../../core/load.js';
import { TrainprintError } from '../../errors.js';
import { SequenceRunner } from './runner.js';
import type { ByteGptWeights } from './weights.js';

/**
 * A runner over the WebAssembly core.
 * @example
 * const r = await WasmByteGptRunner.create(weights)
 * r.push(0)
 * const logits = r.push(0x46)
 */
export class WasmByteGptRunner extends SequenceRunner {
  readonly simd: boolean;
  readonly #core: Core;
  readonly #weightsPtr: number;
  readonly #kvPtr: number;
  readonly #scratchPtr: number;
  readonly #logitsPtr: number;
  readonly #logits: Float32Array;

  private constructor(core: Core, weights: ByteGptWeights) {
    super(weights);
    this.#core = core;
    this.simd = core.raw.simdEnabled() === 1;
    const { vocab_size: vocab, context, d_model: d, n_layers: layers } = weights.config;
    if (core.raw.gptParameters(vocab, context, d, layers) !== weights.all.length) {
      throw new TrainprintError('INVALID_INPUT', 'the weights do not match their config');
    }
    const layout = core.layout();
    this.#weightsPtr = layout.take(weights.all.length * 4);
    this.#kvPtr = layout.take(2 * layers * context * d * 4);
    this.#scratchPtr = layout.take((10 * d + context) * 4);
    this.#logitsPtr = layout.take(vocab * 4);
    layout.commit();
    core.f32(this.#weightsPtr, weights.all.length).set(weights.all);
    this.#logits = new Float32Array(vocab);
  }

  /** A runner in a new core instance (`simd`: which build; auto by default). */
  static async create(weights: ByteGptWeights, options: { simd?: SimdChoice } = {}): Promise<WasmByteGptRunner> {
    const { d_model: d, n_heads: heads } = weights.config;
    if ((d / heads) % 4 !== 0) {
      throw new TrainprintError(
        'INVALID_INPUT',
        'the WebAssembly runner needs d_model / n_heads to be a multiple of 4',
      );
    }
    const core = await Core.create(await compileCore(pickVariant(options.simd ?? 'auto')));
    return new WasmByteGptRunner(core, weights);
  }

  protected step(t: number, token: number): Float32Array {
    const { vocab_size: vocab, context, d_model: d, n_layers: layers, n_heads: heads } = this.weights.config;
    const ok = this.#core.guard(() =>
      this.#core.raw.gptStep(
        this.#weightsPtr,
        vocab,
        context,
        d,
        layers,
        heads,
        this.#kvPtr,
        this.#scratchPtr,
        t,
        token,
        this.#logitsPtr,
      ),
    );
    if (ok !== 1) throw new RangeError('the core refused the step');
    this.#logits.set(this.#core.f32(this.#logitsPtr, vocab));
    return this.#logits;
  }
}
