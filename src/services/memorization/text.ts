/**
 * Text helpers of the memorization operations: chunks of the engine's word tokens, verbatim
 * token runs between a model output and a work, compressed length (CompressionStream, every
 * runtime), and a bounded-concurrency map for model calls.
 */
import { wordSpans, type WordTokenSpans } from '../../models/ngram.js';
import { GramIndex, maximalRuns } from '../../util/exact-runs.js';

export { wordSpans };
export type { WordTokenSpans };

/** One chunk: a UTF-16 span of its document and its word count. */
export interface TextChunk {
  /** Index of the document the chunk is from (0 for a single text). */
  readonly document: number;
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
}

/**
 * Cut each document into chunks of exactly `size` word tokens (the tail shorter than `size` is
 * dropped, so every chunk of both sets has the same length; a chunk never spans two documents).
 */
export function chunkDocuments(texts: readonly string[], size: number): TextChunk[] {
  const out: TextChunk[] = [];
  texts.forEach((text, document) => {
    const { starts, ends } = wordSpans(text);
    for (let i = 0; i + size <= starts.length; i += size)
      out.push({ document, start: starts[i], end: ends[i + size - 1], tokens: size });
  });
  return out;
}

/** A verbatim run of tokens shared by an output and a work. */
export interface TokenRun {
  /** Length in word tokens. */
  readonly tokens: number;
  /** Token index of the run in the output and in the work. */
  readonly output_token: number;
  readonly work_token: number;
}

/**
 * Index of a work's word tokens for finding verbatim runs of another text in it: every run of
 * ≥ `seed` tokens shared with the work is found (seeded by `seed`-grams, extended both ways) — the library's one
 * run finder (src/util/exact-runs.ts) over the tokens as ids.
 * @example new RunIndex(['a', 'b', 'c', 'd', 'e']).runs(['x', 'b', 'c', 'd', 'e'], 4) // [{ tokens: 4, output_token: 1, work_token: 1 }]
 */
export class RunIndex {
  readonly tokens: string[];
  /** Each distinct token of the work → its id. */
  private readonly words = new Map<string, number>();
  private readonly index: GramIndex;
  constructor(
    tokens: string[],
    readonly seed = 4,
  ) {
    this.tokens = tokens;
    const ids = new Int32Array(tokens.length);
    for (let j = 0; j < tokens.length; j++) {
      let id = this.words.get(tokens[j]);
      if (id === undefined) this.words.set(tokens[j], (id = this.words.size));
      ids[j] = id;
    }
    this.index = new GramIndex(ids, seed);
  }

  /** Maximal shared runs of ≥ max(seed, minTokens) tokens, longest first (one per diagonal stretch). */
  runs(out: readonly string[], minTokens = this.seed): TokenRun[] {
    // a token the work lacks is -1: equal to none of the work's
    const ids = new Int32Array(out.length);
    for (let i = 0; i < out.length; i++) ids[i] = this.words.get(out[i]) ?? -1;
    return maximalRuns(ids, this.index, minTokens).map((r) => ({
      tokens: r.length,
      output_token: r.a,
      work_token: r.b,
    }));
  }
}

/** Leading tokens of `a` equal to `b` (the Carlini exact-continuation length). */
export function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** One UTF-8 encoder for the operations' texts. */
export const encoder = new TextEncoder();
let rawSupported: boolean | undefined;

/**
 * Bytes of the DEFLATE compression of a text's UTF-8 (the "zlib entropy" of Carlini et al. 2021,
 * without zlib's 6 header/trailer bytes). CompressionStream exists in Node ≥ 18, Deno and
 * browsers; where 'deflate-raw' is missing, 'deflate' minus its 6 framing bytes gives the same length.
 */
export async function deflateLength(text: string): Promise<number> {
  const bytes = encoder.encode(text);
  if (rawSupported === undefined) {
    try {
      new CompressionStream('deflate-raw');
      rawSupported = true;
    } catch {
      rawSupported = false;
    }
  }
  const stream = new Blob([bytes])
    .stream()
    .pipeThrough(new CompressionStream(rawSupported ? 'deflate-raw' : 'deflate'));
  let n = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
  }
  return rawSupported ? n : Math.max(0, n - 6);
}

// the services' bounded map, named here for the memorization modules that import it with the text helpers
export { mapLimit } from '../../util/pool.js';
