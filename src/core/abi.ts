/**
 * Typed facade over the raw exports of the core (assembly/index.ts is the other half of the ABI).
 *
 * One {@link Core} owns one WebAssembly instance and its memory. Inputs and outputs are laid out
 * in the instance's arena by a bump {@link Layout} per call; views over memory are re-created
 * whenever the memory has grown (growth replaces `memory.buffer` and detaches old views).
 * Nothing here hands a view of wasm memory to a caller: results are copied out.
 */
import { TrainprintError } from '../errors.js';
import { INERT_RANGES } from './inert.js';
import { builtinModule } from '../util/builtin.js';

/** The raw exports, exactly as assembly/index.ts declares them. */
export interface RawExports {
  readonly memory: WebAssembly.Memory;
  readonly arenaBase: WebAssembly.Global;
  readonly maxCharK: WebAssembly.Global;
  reserve(bytes: number): number;
  xxh64(ptr: number, len: number, seed: bigint): bigint;
  xxh64Folded(ptr: number, len: number, seed: bigint): bigint;
  /** `xxh64(ptr, len, seedA)`, with `xxh64(ptr, len, seedB)` for {@link xxh64PairSecond}: both in one pass. */
  xxh64Pair(ptr: number, len: number, seedA: bigint, seedB: bigint): bigint;
  /** The XXH64 under the second seed of the last xxh64Pair. */
  xxh64PairSecond(): bigint;
  countTokens(ptr: number, len: number): number;
  tokenize(ptr: number, len: number, seed: bigint, startsPtr: number, endsPtr: number, hashesPtr: number): number;
  findRegions(ptr: number, len: number, outPtr: number, cap: number): number;
  setInert(lo: number, hi: number): void;
  utf8Invalid(ptr: number, len: number): number;
  /** The UTF-8 of `units` UTF-16LE code units at `src` (lone surrogates as U+FFFD), written at `dst`; its length. */
  utf16ToUtf8(src: number, units: number, dst: number): number;
  /** The `\s`-separated words of the UTF-8 at ptr, counted up to n (min(words, n), exact; assembly/words.ts). */
  wordsAtLeast(ptr: number, len: number, n: number): number;
  /** Pinned NFKC_Casefold (assembly/nfkc.ts): where the host copies the tables, and how many bytes fit. */
  nfkcTables(): number;
  readonly nfkcTableBytes: WebAssembly.Global;
  /** Sets up the tables copied in at nfkcTables(); 1 when they fit, else 0. */
  nfkcInit(dataLen: number, offsetsLen: number, poolLen: number, pairsPtr: number, pairs: number): number;
  /**
   * Decodes the tables from their varint strings at `src` (assembly/nfkc-decode.ts) into nfkcTables(), with
   * nfkcDecodeScratch bytes at `scratch`; the data length (0: they do not fit), the other lengths at `scratch`.
   */
  nfkcDecode(
    src: number,
    tokenLen: number,
    aloneLen: number,
    cccLen: number,
    compositionLen: number,
    mappingLen: number,
    scratch: number,
  ): number;
  readonly nfkcDecodeScratch: WebAssembly.Global;
  /**
   * Word tokens of a region (UTF-16 offsets from `base`) straight from its UTF-8; at most `cap`; -1 when the host
   * must normalise the region itself.
   */
  nfkcTokens(
    ptr: number,
    len: number,
    base: number,
    seed: bigint,
    startsPtr: number,
    endsPtr: number,
    hashesPtr: number,
    cap: number,
    /** Not 0 when the host found no lone surrogate in the text: its U+FFFD are taken as they are (omitted: 0). */
    replacementsChecked?: number,
  ): number;
  /** The token count, or -1 when region failedRegion() needs the host (then call again from it). */
  tokenizeRegions(
    ptr: number,
    len: number,
    seed: bigint,
    regPtr: number,
    regions: number,
    startsPtr: number,
    endsPtr: number,
    hashesPtr: number,
    firstTokPtr: number,
    from: number,
    n0: number,
  ): number;
  failedRegion(): number;
  shingleTokens(tokHashesPtr: number, count: number, n: number, seed: bigint, outPtr: number): number;
  /**
   * `shingleTokens` of each of `texts` texts: text i's tokens first[i] … first[i + 1] (u32 at firstPtr), its shingles
   * after text i − 1's at outPtr, where each begins at fromPtr (texts + 1 u32); returns how many in all.
   */
  shingleTexts(
    tokHashesPtr: number,
    firstPtr: number,
    texts: number,
    n: number,
    seed: bigint,
    outPtr: number,
    fromPtr: number,
  ): number;
  /**
   * `shingleTokens`, and `xxh64Pair(tokHashesPtr, count * 8, idSeedA, idSeedB)`'s two values as two u64 at `idPtr`, in
   * one pass over the token hashes; returns the shingle count.
   */
  shingleTokensAndId(
    tokHashesPtr: number,
    count: number,
    n: number,
    seed: bigint,
    outPtr: number,
    idSeedA: bigint,
    idSeedB: bigint,
    idPtr: number,
  ): number;
  charShingles(
    ptr: number,
    len: number,
    k: number,
    seed: bigint,
    hashesPtr: number,
    startsPtr: number,
    endsPtr: number,
  ): number;
  winnow(hashesPtr: number, count: number, w: number, outPtr: number): number;
  /** Hash, token-start and token-end of each of `w` winnowed shingles (positions at winPtr) of n tokens. */
  winnowPostings(
    hashesPtr: number,
    winPtr: number,
    w: number,
    n: number,
    count: number,
    startsPtr: number,
    endsPtr: number,
    outHashesPtr: number,
    outStartsPtr: number,
    outEndsPtr: number,
  ): void;
  /** Sorted index (assembly/sortindex.ts): MSD counts and scatter by the top 11 bits, then each bucket sorted. */
  radixCount(keysPtr: number, n: number, countsPtr: number): void;
  /** Payload columns a, b and (when `cols` is 3) c travel with the keys. */
  radixScatter(
    keysPtr: number,
    aPtr: number,
    bPtr: number,
    cPtr: number,
    cols: number,
    n: number,
    cursorsPtr: number,
    dstKeysPtr: number,
    dstAPtr: number,
    dstBPtr: number,
    dstCPtr: number,
  ): void;
  /** `scratchPtr`: 20 bytes per pair of the largest bucket. */
  sortBuckets(
    keysPtr: number,
    aPtr: number,
    bPtr: number,
    cPtr: number,
    cols: number,
    endsPtr: number,
    scratchPtr: number,
  ): void;
  buildPrefix(keysPtr: number, n: number, bits: number, outPtr: number): void;
  buildFilter(keysPtr: number, n: number, outPtr: number, words: number): void;
  lookupSorted(
    keysPtr: number,
    prefixPtr: number,
    bits: number,
    filterPtr: number,
    words: number,
    queriesPtr: number,
    m: number,
    outPtr: number,
  ): number;
  /**
   * The indices of the queries a lookupSorted found (count ≠ 0 of its `m` pairs at outPtr), in order, as u32 at
   * listPtr (room for m; may be the queries' room); returns how many.
   */
  foundQueries(outPtr: number, m: number, listPtr: number): number;
  simdEnabled(): number;
  // byte-level GPT inference (assembly/gpt.ts)
  /** float32 parameters of a shape (the weights file's bytes / 4). */
  gptParameters(vocab: number, context: number, d: number, layers: number): number;
  /**
   * Feed `token` at position `t` (the cache at kvPtr holds 0..t-1); the next token's logits go to logitsPtr (vocab
   * f32). scratchPtr: 10·d + context f32. Returns 1, or 0 for arguments out of range.
   */
  gptStep(
    weightsPtr: number,
    vocab: number,
    context: number,
    d: number,
    layers: number,
    heads: number,
    kvPtr: number,
    scratchPtr: number,
    t: number,
    token: number,
    logitsPtr: number,
  ): number;
  // sketches: MinHash, SimHash, blocked Bloom filter
  readonly minhashMaxK: WebAssembly.Global;
  readonly bloomMaxK: WebAssembly.Global;
  /** Classic k-permutation MinHash → k u32 at outPtr; returns k, 0 for an invalid k. */
  minhashSignature(hashesPtr: number, count: number, k: number, seed: bigint, outPtr: number): number;
  /** One-permutation MinHash with optimal densification; returns k, 0 for an invalid k. */
  minhashOph(hashesPtr: number, count: number, k: number, seed: bigint, outPtr: number): number;
  /** Unweighted 64-bit SimHash; the u64 comes back signed (BigInt.asUintN(64, x)). */
  simhash64(hashesPtr: number, count: number): bigint;
  /** minhashOph and simhash64 of the same hashes in one pass (k = 128; another k in turn): returns k or 0. */
  ophSimhash(hashesPtr: number, count: number, k: number, seed: bigint, outPtr: number): number;
  /** The SimHash of the last ophSimhash or winnowOphSimhash. */
  ophSimhashSecond(): bigint;
  /**
   * winnow(hashesPtr, count, w, winPtr) and ophSimhash(hashesPtr, count, 128, seed, sigPtr) in one pass of pieces that
   * stay in cache: returns winnow's count; the SimHash from ophSimhashSecond. The same outputs as the two.
   */
  winnowOphSimhash(hashesPtr: number, count: number, w: number, winPtr: number, seed: bigint, sigPtr: number): number;
  /** Blocked Bloom insert; returns count, 0 for invalid k/blocks. */
  bloomInsert(filterPtr: number, blocks: number, keysPtr: number, count: number, k: number): number;
  /** Blocked Bloom query: one byte 0/1 per key at outPtr; returns the number of hits. */
  bloomQuery(filterPtr: number, blocks: number, keysPtr: number, count: number, k: number, outPtr: number): number;
  // alignment (compare)
  /**
   * Sentence-pair seeds of `compare` (assembly/align.ts): (i, j) u32 pairs at outIJPtr and f64 cosines at
   * outCosPtr for pairs with cosine > thCos and Dice > thDice; returns the count. acc/cnt: zeroed scratch (nb each).
   */
  alignSeeds(
    aOffPtr: number,
    aTermsPtr: number,
    aWPtr: number,
    aNormPtr: number,
    aSizePtr: number,
    na: number,
    bOffPtr: number,
    bSentPtr: number,
    bWPtr: number,
    bNormPtr: number,
    bSizePtr: number,
    nb: number,
    terms: number,
    thCos: number,
    thDice: number,
    accPtr: number,
    cntPtr: number,
    outIJPtr: number,
    outCosPtr: number,
  ): number;
  /**
   * The copies that explain a scan's seed regions in two windows' word ids (assembly/copywalk.ts; the reference is
   * `walkCopies`, src/align/copy-walk.ts): six i32 a region at outPtr (a0, a1, b0, b1, replaced, words in shared runs;
   * a0 = −1 for a region an earlier copy covers); returns `regions`, or the first region no copy covers.
   */
  copyWalk(
    qPtr: number,
    nq: number,
    sPtr: number,
    ns: number,
    qStartPtr: number,
    qEndPtr: number,
    regPtr: number,
    regions: number,
    scratchPtr: number,
    outPtr: number,
  ): number;
  /**
   * The ids of two windows' words (assembly/windowids.ts; `windowIds` of src/align/window-words.ts): for the query
   * window and then the document window its UTF-8 (ptr, bytes, UTF-16 units), its words' count, UTF-16 starts and ends
   * (u32) and 64-bit form hashes; scratch of windowIdsScratch(nq) bytes; at outPtr the query's starts and ends (shifted by
   * qBase) and ids, then the document's (shifted by sBase): 3 × (nq + ns) u32. 1, or 0 when a form cannot be settled
   * from its hash and characters.
   */
  windowIds(
    qPtr: number,
    qLen: number,
    qUnits: number,
    nq: number,
    qStartsPtr: number,
    qEndsPtr: number,
    qHashesPtr: number,
    qBase: number,
    sPtr: number,
    sLen: number,
    sUnits: number,
    ns: number,
    sStartsPtr: number,
    sEndsPtr: number,
    sHashesPtr: number,
    sBase: number,
    scratchPtr: number,
    outPtr: number,
  ): number;
}

const encoder = new TextEncoder();

/** The part of Node's `Buffer` used here. */
interface NodeBuffers {
  from(buffer: ArrayBuffer, byteOffset: number, length: number): NodeBuffer;
}

/** The part of a Node `Buffer` that {@link Core#writeUtf8} uses. */
interface NodeBuffer {
  write(s: string, o: number, n: number, e: 'utf16le'): number;
}

/**
 * `Buffer` where the runtime lends `node:buffer` synchronously (Node ≥ 20.16, Deno, Bun), else undefined. Its
 * 'utf16le' write copies a string's code units as they lie in the engine; `TextEncoder#encodeInto` encodes them one
 * at a time (Node 20: ≈ 7 ms of CPU for 10 MB of English, against ≈ 4 ms for the copy and the core's encoder).
 */
const nodeBuffers: NodeBuffers | undefined = (() => {
  const b = builtinModule<{ Buffer: Partial<NodeBuffers> }>('node:buffer')?.Buffer;
  return typeof b?.from === 'function' ? (b as NodeBuffers) : undefined;
})();

/** Code units a chunk of a string copied into the core holds at most: 128 KiB of UTF-16, which stays in L2. */
const UTF16_CHUNK = 65_536;

/**
 * Strings shorter than this go to `encodeInto`: a few calls a chunk cost more than they save on a short text, and the
 * chunk must fit in the room after the text's worst-case UTF-8.
 */
const UTF16_MIN = 16_384;

/** A wide text's last units, fewer than this, go to `encodeInto` (the chunks before them shrink toward the room's end). */
const UTF16_TAIL = 256;

/**
 * A bump allocator over the arena for one call. `take(bytes)` returns an absolute pointer
 * aligned to 16 bytes; `commit()` reserves the total in wasm memory (grows it) and refreshes views.
 */
export class Layout {
  private offset: number;
  constructor(
    private readonly core: Core,
    from = 0,
  ) {
    this.offset = (from + 15) & ~15;
  }
  take(bytes: number): number {
    const ptr = this.core.arenaBase + this.offset;
    this.offset += (bytes + 15) & ~15;
    return ptr;
  }
  /** Grow memory to hold everything taken so far. Throws OUT_OF_MEMORY when it cannot. */
  commit(): void {
    this.core.reserve(this.offset);
  }
  get size(): number {
    return this.offset;
  }
  /**
   * Give back everything taken since {@link size} read `size`: for a path that laid out its room and then left the work
   * to another, which then lays out its own in the same place (memory, once grown, stays grown).
   */
  rewind(size: number): void {
    this.offset = size;
  }
}

/** One instance of the core with typed access to its memory. */
export class Core {
  readonly raw: RawExports;
  readonly arenaBase: number;
  /** Whether this binary has SIMD128 (its UTF-16 encoder then outruns `encodeInto` on every script). */
  readonly simd: boolean;
  private u8view: Uint8Array;
  private poisoned = false;

  constructor(instance: WebAssembly.Instance) {
    this.raw = instance.exports as unknown as RawExports;
    this.arenaBase = this.raw.arenaBase.value as number;
    this.simd = this.raw.simdEnabled() === 1;
    this.u8view = new Uint8Array(this.raw.memory.buffer);
  }

  /** Instantiate `module` with our `env.abort`. */
  static async create(module: WebAssembly.Module): Promise<Core> {
    let core: Core | undefined;
    const abort = (_msg: number, _file: number, line: number, col: number): never => {
      if (core) core.poisoned = true;
      throw new TrainprintError('WASM_ABORT', `abort in the core at ${line}:${col}`);
    };
    const instance = await WebAssembly.instantiate(module, { env: { abort } });
    core = new Core(instance);
    for (const [lo, hi] of INERT_RANGES) core.raw.setInert(lo, hi);
    return core;
  }

  /** False once a trap has left the instance in an undefined state ({@link checkUsable} then throws). */
  get usable(): boolean {
    return !this.poisoned;
  }

  /** Throws when a previous trap left the instance in an undefined state. */
  checkUsable(): void {
    if (this.poisoned) throw new TrainprintError('WASM_ABORT', 'a previous call trapped; create a new engine');
  }

  /** Run `fn`, turning a trap (RuntimeError) into WASM_ABORT and poisoning this instance. */
  guard<T>(fn: () => T): T {
    this.checkUsable();
    try {
      return fn();
    } catch (e) {
      if (e instanceof TrainprintError) throw e;
      this.poisoned = true;
      if (
        e instanceof RangeError ||
        (typeof WebAssembly.RuntimeError === 'function' && e instanceof WebAssembly.RuntimeError)
      ) {
        throw new TrainprintError('WASM_ABORT', String((e as Error).message), { cause: e });
      }
      throw e;
    }
  }

  /** Grow memory so the arena has `bytes` bytes. */
  reserve(bytes: number): void {
    // room already there: a live view (one of a buffer that growth detached has length 0) spans the whole memory, so
    // the core would grow nothing — and a scan of many small items asks this four times an item
    if (bytes <= 0xffff_ffff - this.arenaBase && this.arenaBase + bytes <= this.u8view.length) return;
    if (bytes > 0xffff_ffff - this.arenaBase || this.raw.reserve(bytes) === 0) {
      throw new TrainprintError('OUT_OF_MEMORY', `could not reserve ${bytes} bytes of WebAssembly memory`);
    }
    this.refresh();
  }

  /** Current bytes of linear memory. */
  get memoryBytes(): number {
    return this.raw.memory.buffer.byteLength;
  }

  /**
   * Re-create the view after growth. Growth detaches the old buffer, and every view of a detached buffer has length 0
   * (ECMA-262 IsTypedArrayOutOfBounds): reading that is a field load, where asking the memory for its buffer is a call
   * into the host, which a scan of many small items made tens of thousands of times a second.
   */
  refresh(): void {
    if (this.u8view.length === 0) this.u8view = new Uint8Array(this.raw.memory.buffer);
  }

  get u8(): Uint8Array {
    this.refresh();
    return this.u8view;
  }

  /** A fresh u32 view of `count` elements at `ptr` (valid until the next call that grows memory). */
  u32(ptr: number, count: number): Uint32Array {
    return new Uint32Array(this.u8.buffer, ptr, count);
  }

  /** A fresh u16 view of `count` elements at `ptr` (valid until the next call that grows memory). */
  u16(ptr: number, count: number): Uint16Array {
    return new Uint16Array(this.u8.buffer, ptr, count);
  }

  /** A fresh u64 view of `count` elements at `ptr` (valid until the next call that grows memory). */
  u64(ptr: number, count: number): BigUint64Array {
    return new BigUint64Array(this.u8.buffer, ptr, count);
  }

  /** A fresh f32 view of `count` elements at `ptr` (valid until the next call that grows memory). */
  f32(ptr: number, count: number): Float32Array {
    return new Float32Array(this.u8.buffer, ptr, count);
  }

  /** A fresh f64 view of `count` elements at `ptr` (valid until the next call that grows memory). */
  f64(ptr: number, count: number): Float64Array {
    return new Float64Array(this.u8.buffer, ptr, count);
  }

  /** Copy bytes into memory at `ptr`. */
  writeBytes(ptr: number, bytes: Uint8Array): void {
    this.u8.set(bytes, ptr);
  }

  /**
   * Encode `text` as UTF-8 straight into memory at `ptr` (capacity `cap` ≥ 3 × text.length), byte for byte what
   * `TextEncoder#encodeInto` writes. Returns the number of bytes written. A long text, where Node's `Buffer` is at
   * hand, goes in as UTF-16 a chunk at a time (at the end of the room) and is encoded by the core
   * (assembly/utf16.ts): the whole text in the SIMD build, while it stays mostly ASCII in the scalar one.
   */
  writeUtf8(text: string, ptr: number, cap: number): number {
    const n = text.length;
    let i = 0;
    let d = 0;
    if (nodeBuffers && n >= UTF16_MIN && cap >= 3 * n) {
      // a chunk of code units at a time into the end of the room, each encoded by the core in front of it while the
      // chunk's worst case (3 bytes a unit) fits before it: near the end of a wide text the chunks shrink, and the
      // last few units go to encodeInto. The scalar core encodes a wide character one at a time, slower than
      // encodeInto, so there the chunks go on only while the text so far is mostly ASCII (≤ 1.125 bytes a unit).
      const wideToo = this.simd;
      const units = Math.min(UTF16_CHUNK, n >>> 2);
      let stage = -1;
      let out: NodeBuffer | undefined;
      while (i < n && (wideToo || d <= i + (i >>> 3))) {
        let j = Math.min(n, i + units);
        // aligned: Node copies the units of a write at an odd address through a temporary buffer first
        let at = ((ptr + cap - 2 * (j - i)) & ~15) >>> 0;
        if (ptr + d + 3 * (j - i) > at) {
          // the worst case of u units must end before the stage of u units at the room's end: 5u ≤ room
          j = i + Math.floor((cap - d - 16) / 5);
          if (j - i < UTF16_TAIL) break;
          at = ((ptr + cap - 2 * (j - i)) & ~15) >>> 0;
        }
        if (j < n && (text.charCodeAt(j - 1) & 0xfc00) === 0xd800) j--; // never between a pair's halves
        if (at !== stage || !out) {
          stage = at;
          out = nodeBuffers.from(this.u8.buffer as ArrayBuffer, stage, ptr + cap - stage);
        }
        out.write(text.substring(i, j), 0, 2 * (j - i), 'utf16le');
        d += this.raw.utf16ToUtf8(stage, j - i, ptr + d);
        i = j;
      }
      if (i === n) return d;
    }
    const rest = i === 0 ? text : text.substring(i);
    const { read, written } = encoder.encodeInto(rest, this.u8.subarray(ptr + d, ptr + cap));
    if (read !== rest.length) throw new TrainprintError('OUT_OF_MEMORY', 'UTF-8 buffer too small');
    return d + written;
  }

  /** New bump layout for one call, starting `from` bytes into the arena (after long-lived data). */
  layout(from = 0): Layout {
    return new Layout(this, from);
  }
}
