/**
 * A content-word index built on several threads: the documents are cut into batches of about
 * {@link BATCH_UNITS} characters, which the threads of an {@link Offload} (the worker pool of `serve`) and the
 * caller's own thread take one at a time; the postings come back per batch and are gathered in document
 * order, then sorted once, so the index is the one {@link ContentWordIndex.buildSteps} makes.
 *
 * Nothing waits on another thread to finish: a thread that finds no batch left to take makes one still out on
 * another thread itself (whichever result comes first is kept), so a search that moves the build on in its own
 * steps — in one go, with no event loop to wait in — always finishes it, and a pool that fails or closes only
 * leaves its batches to the other threads.
 */
import type { TokenSource } from './content-pairs.js';
import { collectSteps, ContentWordIndex, PostingColumns, type PairPostings } from './content-words.js';
import type { Offload } from './work.js';
import { PAUSE, type Steps } from '../util/steps.js';

/** Characters (UTF-16 units) of text in a batch: about 15 ms of work, a small share of a large build. */
export const BATCH_UNITS = 1 << 20;
/**
 * How long a batch may be out on another thread before this thread makes it too (ms): a few batches' time, so a
 * result on its way is waited for, and one that will not come (a pool that failed or closed) is not.
 */
const PATIENCE_MS = 100;

/** One stretch of consecutive documents. */
interface Batch {
  readonly first: number;
  readonly texts: ReadonlyArray<string | null>;
}

/**
 * A content-word index being built in batches (module comment).
 * @example
 * const build = new BatchedPairBuild(texts, tokens)
 * await Promise.all([build.runOn(pool), build.runOn(pool), sliced(build.steps(), 3)])
 */
export class BatchedPairBuild {
  readonly #batches: Batch[] = [];
  /** Each batch's postings, until they are appended in order. */
  readonly #results: Array<PairPostings | null>;
  /** Batches handed out (to a thread of the offload, or taken by steps). */
  #claimed = 0;
  /** When each batch was handed out, or −∞ once another thread failed on it (ms). */
  readonly #handedAt: Float64Array;
  readonly #out = new PostingColumns();
  /** Batches appended to #out: all before this one. */
  #appended = 0;
  #index: ContentWordIndex | null = null;

  /**
   * @param texts the documents' texts (null: not kept)
   * @param tokens the core's tokenizer for the batches made in this thread
   */
  constructor(
    private readonly texts: ReadonlyArray<string | null>,
    private readonly tokens: TokenSource,
  ) {
    for (let from = 0; from < texts.length; ) {
      let to = from,
        units = 0;
      while (to < texts.length && (to === from || units < BATCH_UNITS)) units += texts[to++]?.length ?? 0;
      this.#batches.push({ first: from, texts: texts.slice(from, to) });
      from = to;
    }
    this.#results = this.#batches.map(() => null);
    this.#handedAt = new Float64Array(this.#batches.length);
  }

  /** Documents the index covers. */
  get documents(): number {
    return this.texts.length;
  }

  /** Batches the documents are cut into. */
  get batches(): number {
    return this.#batches.length;
  }

  /**
   * Take batches one at a time and make them on `offload` until none is left to take. A batch it fails on is
   * left to the threads that run {@link steps}.
   */
  async runOn(offload: Offload): Promise<void> {
    for (let b = this.#claim(); b >= 0; b = this.#claim()) {
      const { first, texts } = this.#batches[b];
      try {
        this.#done(b, await offload.run({ kind: 'pair-postings', texts, first }));
      } catch {
        this.#handedAt[b] = -Infinity; // the steps make it at once
      }
    }
  }

  /**
   * The build in this thread, as steps: batches not taken yet, then those out on another thread whose result
   * has not come within PATIENCE_MS (made again here), then the sort; the index. Any number of callers may
   * move the same steps on.
   */
  *steps(): Steps<ContentWordIndex> {
    while (!this.#index) {
      let b = this.#claim();
      if (b < 0) {
        const late = this.#results.findIndex((r, i) => r === null && i >= this.#appended);
        if (late >= 0 && performance.now() - this.#handedAt[late] < PATIENCE_MS) {
          yield PAUSE; // a turn of the event loop (sliced), in which the result may come
          continue;
        }
        b = late;
      }
      if (b < 0) {
        yield PAUSE;
        this.#index ??= ContentWordIndex.fromColumns(this.#out, this.texts.length);
        break;
      }
      const { first, texts } = this.#batches[b];
      const out = new PostingColumns();
      yield* collectSteps(texts, first, this.tokens, out);
      this.#done(b, out.copied());
    }
    return this.#index;
  }

  /** The next batch not handed out, or −1. */
  #claim(): number {
    if (this.#claimed === this.#batches.length) return -1;
    this.#handedAt[this.#claimed] = performance.now();
    return this.#claimed++;
  }

  /** Batch `b`'s postings: kept unless it came before; then what is complete from the front is appended. */
  #done(b: number, postings: PairPostings): void {
    if (b < this.#appended || this.#results[b] !== null) return;
    this.#results[b] = postings;
    while (this.#appended < this.#results.length && this.#results[this.#appended] !== null) {
      this.#out.appendAll(this.#results[this.#appended]!);
      this.#results[this.#appended++] = null;
    }
  }
}
