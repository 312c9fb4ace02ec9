/**
 * A search of one remote corpus, the way OLMoTrace traces a text (Liu et al. 2025, arXiv 2504.07096): find the
 * stretches of the text that occur verbatim in the corpus, keep the long ones, fetch their documents, and — unlike
 * OLMoTrace, which shows the exact spans only — align a window of each document with the text locally (the compare
 * algorithm), so a copied passage comes out with exact character spans on both sides and an edited copy as one
 * passage with its gaps, not as fragments.
 *
 * **infini-gram** (token-level):
 * 1. *Tokens.* The text goes to the server in pieces of ≤ 900 characters cut at spaces (never holding ` AND ` or
 *    ` OR `, which the API reads as a CNF query); each piece is an `infgram_prob` query, whose answer gives the
 *    server's token ids and strings (mapped back to character offsets: ./token-map.ts) and, free, the longest match
 *    ending at the piece's last token.
 * 2. *Samples.* Every `stride` tokens an `infgram_prob` of the ids before that place gives the longest suffix that
 *    occurs in the corpus (`suffix_len`, the engine's binary lifting over counts) and its count: a maximal match
 *    ending there. The stride is the budget's: 16 tokens when it allows (a 2,000-word text), wider for long texts.
 *    A match of ≥ {@link HIT_TOKENS} tokens is a hit.
 * 3. *Regions.* Hits' matches that overlap or lie within {@link GAP_TOKENS} of each other make one region (an
 *    edited copy's runs); the longest match of a region is looked up with `find` and the window of its first
 *    occurrence fetched with `get_doc_by_rank`, wide enough for the region and a margin.
 * **infini-gram mini** (character-level): tiles of {@link TILE_WORDS} words, each a `find` of its exact characters
 * (a hit when found); consecutive hit tiles make a region, and the rarest tile's occurrence gives the window
 * (`get_doc_by_rank` with `max_ctx_len` bytes around it).
 *
 * 4. *Alignment.* The region's stretch of the text, widened by a margin, is aligned with the window; passages that
 *    overlap the region and are verbatim or edited (≥ 50 % of their words in shared runs) are the matches. Regions
 *    that a passage already covers are not fetched again.
 * 5. *Counts for the evidence* (services/analyze/evidence.ts, the statistics of an exact dataset): the samples
 *    are the places tested, a passage's samples a chain of hits among them, the samples outside every passage the
 *    background hit rate; the aligned passages' content-word pairs against the background of their window. A
 *    passage whose span occurs ≥ `boilerplate_count` times in the corpus is text many documents share: reported,
 *    but neither it nor its samples enter the evidence.
 *
 * The search stays within its call budget and deadline; what it could not ask is said in its report's outcome.
 */
import type { Core } from '../core/abi.js';
import type { TokenizedText } from '../align/tokens.js';
import type { AlignmentKit } from '../corpus/alignment-kit.js';
import {
  MIN_STRIDE_TOKENS,
  TILE_WORDS,
  type RemoteCorpusReport,
  type RemoteDatasetConfig,
  type RemoteOutcome,
  type RemoteSampling,
  type RemoteSearch,
  type RemoteSearchOptions,
} from '../corpus/remote-types.js';
import type { RemoteMatch } from '../datasets/types.js';
import type { Store } from '../store/types.js';
import {
  documentByRank,
  documentByRankMini,
  find,
  firstOccurrence,
  infgramProb,
  isUtf8Cut,
  LIMITS,
  type DocumentWindow,
  type FindAnswer,
} from './api.js';
import { sharedCache, StoreCache } from './cache.js';
import { acrossLineBreaks, SWAP_MIN_TOKENS, SWAP_TRIES, type SwappedMatch } from './line-breaks.js';
import { mapTokens } from './token-map.js';
import { CallBudget, RemoteCallError, type CallAnswer } from './transport.js';
import { round4 } from '../util/round.js';
import { mapLimit, spreadOrder } from '../util/pool.js';
import { anySignal } from '../util/signals.js';
import { countWords } from '../util/space.js';
import { lowerBound } from '../util/sorted.js';

/** A match of at least this many tokens at a sampled place is a hit. */
export const HIT_TOKENS = 12;
/** Tokens of the prompt of a sample: its match can be at most this long (longer copies are several samples). */
export const SAMPLE_WINDOW = 256;
/** Hit matches this close (tokens) belong to one region. */
export const GAP_TOKENS = 24;
/** Tokens of document fetched beyond a region on each side. */
export const MARGIN_TOKENS = 96;
/** Characters of the text aligned beyond a region on each side (and of mini document context). */
export const MARGIN_CHARS = 600;
/** Characters of the document window kept on each side of a source passage (`source_text`), for context. */
export const SOURCE_CONTEXT_CHARS = 200;
/** Characters of a tokenization piece (the APIs take ≤ 1000). */
const PIECE_CHARS = 900;
/** Estimated tokens of a piece (the APIs take ≤ 500). */
const PIECE_TOKENS = 420;
/** Share of the budget kept for fetching documents. */
const FOLLOW_UP_SHARE = 0.25;
/** Fewest calls kept for fetching documents. */
const FOLLOW_UP_MIN = 16;
/** Most query pairs outside the passages that a window's background is measured on (an even sample beyond). */
const BACKGROUND_PAIRS = 20_000;
/** Fewest query pairs outside the passages to measure a window's background (as for exact datasets). */
const MIN_CONTROL_PAIRS = 10;

/** The calls of a 2,000-word text and of a 10,000-word one: 250 and 1,000 (the dataset's `maxCalls` caps it). */
export function callBudget(words: number, maxCalls: number): number {
  return Math.max(20, Math.min(maxCalls, Math.floor(50 + words / 10)));
}

/** What a search needs of its dataset. */
export interface SearchContext {
  readonly config: Required<Pick<RemoteDatasetConfig, 'id' | 'kind' | 'index'>> & {
    readonly endpoint: string;
    readonly maxCalls: number;
    readonly deadlineMs: number;
    readonly boilerplateCount: number;
    readonly cacheTtlMs: number;
    readonly concurrency: number;
  };
  readonly post: (
    body: Record<string, unknown>,
    run: { budget: CallBudget; signal?: AbortSignal },
  ) => Promise<CallAnswer>;
  readonly core: () => Core;
  /** The engine's alignment (src/corpus/alignment-kit.ts): this code is loaded apart from it. */
  readonly kit: AlignmentKit;
  readonly store?: Store;
}

/** One sampled place: where in the text (the end of its match, UTF-16), whether it hit, and its match. */
export interface Sample {
  readonly at: number;
  readonly hit: boolean;
  /** The match ending here: tokens [start, end) (infini-gram) or the tile's characters (mini). */
  readonly span: Span | null;
}
/** A stretch of the text with a corpus count: token indexes (infini-gram) or characters (mini). */
export interface Span {
  readonly start: number;
  readonly end: number;
  /** UTF-16 span in the text. */
  readonly q0: number;
  readonly q1: number;
  readonly count: number;
  /** Token ids (infini-gram) or the exact characters (mini) to look it up with. */
  readonly query: readonly number[] | string;
  /** The `find` answer of the stretch (its occurrences), where it was asked already (mini; a sampled passage). */
  readonly found?: FindAnswer;
}
export interface Region {
  q0: number;
  q1: number;
  best: Span;
  /** Tokens (infini-gram) of the region, for the window's width. */
  start: number;
  end: number;
  /**
   * Characters of the work aligned beyond the region on each side besides {@link MARGIN_CHARS}, where the window fetched
   * is at least twice as long (a short document is aligned as closely as any region): room for a sampled search's
   * calibration passages far from the passage found (./sampling.ts). @default 0
   */
  reach?: number;
}

/**
 * Share of a search's deadline its samples may use: the rest is kept for fetching the documents of what they found,
 * so that a slow engine's hits become passages with spans instead of being lost when the deadline ends the search.
 */
export const SAMPLING_SHARE = 0.7;

/** The state of one search: its budget, its deadline and cancellation, its counters and its first fatal failure. */
export class Session {
  readonly budget: CallBudget;
  readonly signal: AbortSignal;
  readonly t0 = Date.now();
  cached = 0;
  failures = 0;
  answered = 0;
  /** Samples planned but not asked because sampling's share of the deadline had passed. */
  skipped = 0;
  /** Whether the deadline (not the caller, not a failure) ended the search. */
  private deadlinePassed = false;
  /** When sampling stops asking ({@link SAMPLING_SHARE} of the deadline). */
  private readonly samplingEnds: number;
  /**
   * Every answer the search used, as the digests of its request and its answer (SHA-256 of their JSON): what a
   * signed evidence bundle carries, so that each number can be traced to the answers it rests on.
   */
  readonly transcript: Array<{ readonly request: string; readonly answer: string }> = [];
  private readonly onCall: RemoteSearchOptions['onCall'];
  /** The failure that ended the search early (budget, outage, cancellation). */
  fatal: RemoteCallError | null = null;
  /** The most recent failure of a call the search could do without. */
  lastFailure: RemoteCallError | null = null;
  /** Failures already counted by {@link call}, so that {@link unusable} does not count them twice. */
  private readonly counted = new WeakSet<object>();
  /** Requests this search fetched (not cached ones): dropped from the caches when an answer proves unusable. */
  private readonly fetched: string[] = [];
  private readonly deadline: AbortController;
  private readonly timer: ReturnType<typeof setTimeout>;
  readonly storeCache: StoreCache | null;

  constructor(
    private readonly ctx: SearchContext,
    limit: number,
    options: RemoteSearchOptions,
  ) {
    this.budget = new CallBudget(limit);
    this.deadline = new AbortController();
    this.samplingEnds = this.t0 + SAMPLING_SHARE * ctx.config.deadlineMs;
    this.timer = setTimeout(() => {
      this.deadlinePassed = true;
      this.deadline.abort();
    }, ctx.config.deadlineMs);
    (this.timer as { unref?: () => void }).unref?.();
    this.signal = options.signal ? anySignal([options.signal, this.deadline.signal]) : this.deadline.signal;
    this.storeCache = options.persist && ctx.store ? new StoreCache(ctx.store, ctx.config.cacheTtlMs) : null;
    this.callerSignal = options.signal;
    this.onCall = options.onCall;
    this.onCall?.(0, limit);
  }

  /** Keep the digests of an answer used (see {@link transcript}) and tell the caller's progress. */
  private record(request: Record<string, unknown>, answer: Record<string, unknown>): void {
    const digest = this.ctx.kit.sha256Text;
    this.transcript.push({ request: digest(JSON.stringify(request)), answer: digest(JSON.stringify(answer)) });
    this.onCall?.(this.budget.used, this.budget.limit);
  }

  /**
   * The transcript in a stable order (by request digest, then answer: calls run concurrently) and its digest: the
   * SHA-256 of one line `request answer` per call.
   */
  transcriptDigest(): { readonly list: Array<{ request: string; answer: string }>; readonly sha256: string } {
    const list = this.transcript
      .slice()
      .sort((a, b) => (a.request < b.request ? -1 : a.request > b.request ? 1 : a.answer < b.answer ? -1 : 1));
    return { list, sha256: this.ctx.kit.sha256Text(list.map((c) => `${c.request} ${c.answer}\n`).join('')) };
  }
  private readonly callerSignal: AbortSignal | undefined;

  get stopped(): boolean {
    return this.fatal !== null || this.signal.aborted;
  }

  /**
   * Whether a planned sample may still be asked: not once the search has stopped, nor once sampling's share of the
   * deadline has passed (counted in {@link skipped}; the documents of what was found are fetched in the time left).
   */
  maySample(): boolean {
    if (this.stopped) return false;
    if (Date.now() < this.samplingEnds) return true;
    this.skipped++;
    return false;
  }

  /** One call through the caches. Throws RemoteCallError; marks the search ended on a fatal one. */
  async call(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.stopped) throw this.fatal ?? this.abortError();
    const key = `${this.ctx.config.endpoint}\n${JSON.stringify(body)}`;
    const hit = sharedCache.get(key) ?? (this.storeCache ? await this.storeCache.get(key) : undefined);
    if (hit) {
      this.cached++;
      this.record(body, hit);
      return hit;
    }
    try {
      const { body: answer } = await this.ctx.post(body, { budget: this.budget, signal: this.signal });
      this.answered++;
      sharedCache.set(key, answer, key.length + approxSize(answer));
      this.storeCache?.put(key, answer);
      this.fetched.push(key);
      this.record(body, answer);
      return answer;
    } catch (e) {
      this.onCall?.(this.budget.used, this.budget.limit);
      const err =
        e instanceof RemoteCallError ? e : new RemoteCallError('invalid_response', String((e as Error)?.message ?? e));
      this.failures++;
      if (err.kind === 'cancelled' && !this.callerSignal?.aborted) {
        // the deadline, not the caller: the corpus did not answer in time
        this.fatal ??= new RemoteCallError(
          'unreachable',
          `no complete answer within the deadline of ${this.ctx.config.deadlineMs} ms`,
        );
      } else if (
        err.kind === 'cancelled' ||
        err.kind === 'budget_exhausted' ||
        (err.kind === 'unreachable' && err.message.includes('not tried again'))
      ) {
        this.fatal ??= err;
      } else {
        this.lastFailure = err;
      }
      const thrown = this.fatal ?? err;
      this.counted.add(thrown);
      throw thrown;
    }
  }

  /**
   * A failure caught where the search can go on without that call. Failures of the call itself were counted by
   * {@link call}; anything else is an answer that arrived but could not be used (a field of the wrong type or out of
   * range, a document that is not text): the engine is not answering as its API says, so the search ends with
   * `invalid_response` rather than reading a silent "nothing found" from it, and what it fetched is not cached.
   */
  unusable(e: unknown): void {
    if (e !== null && typeof e === 'object' && this.counted.has(e)) return;
    const err =
      e instanceof RemoteCallError && e.kind === 'invalid_response'
        ? e
        : new RemoteCallError(
            'invalid_response',
            e instanceof RemoteCallError ? e.message : `an answer could not be used: ${(e as Error)?.message ?? e}`,
          );
    this.failures++;
    this.fatal ??= err;
    for (const key of this.fetched.splice(0)) sharedCache.delete(key);
    this.storeCache?.discard();
  }

  private abortError(): RemoteCallError {
    return this.callerSignal?.aborted
      ? new RemoteCallError('cancelled', 'the request was cancelled')
      : new RemoteCallError(
          'unreachable',
          `no complete answer within the deadline of ${this.ctx.config.deadlineMs} ms`,
        );
  }

  /**
   * The outcome: the deadline reached (the engine answered, but not everything planned was asked in time: what was
   * found is kept), a fatal failure, most calls failing, or searched.
   */
  outcome(): { outcome: RemoteOutcome; message: string | null } {
    if (this.signal.aborted && !this.fatal) this.fatal = this.abortError();
    const answers = this.answered + this.cached;
    const byDeadline = this.deadlinePassed && !this.callerSignal?.aborted && this.fatal?.kind === 'unreachable';
    if (answers > 0 && (byDeadline || (this.fatal === null && this.skipped > 0))) {
      const ms = this.ctx.config.deadlineMs;
      return {
        outcome: 'deadline_reached',
        message: byDeadline
          ? `the deadline of ${ms} ms passed after ${this.answered} calls answered by the engine${this.cached > 0 ? ` (and ${this.cached} answered from the cache)` : ''}: what was found before it is kept`
          : `${this.skipped} planned samples were not asked: sampling stops at ${Math.round(SAMPLING_SHARE * 100)} % of the deadline of ${ms} ms to leave time for fetching the documents of what it found`,
      };
    }
    if (this.fatal) return { outcome: this.fatal.kind, message: this.fatal.message };
    // a search that lost more than a tenth of its calls is not a clean "nothing found"
    if (this.lastFailure && this.failures > 0.1 * (this.failures + this.answered + this.cached)) {
      return { outcome: this.lastFailure.kind, message: this.lastFailure.message };
    }
    return { outcome: 'searched', message: null };
  }

  async end(): Promise<void> {
    clearTimeout(this.timer);
    // answers already fetched are kept even when the store fails; the search's result does not depend on it
    await this.storeCache?.flush().catch(() => undefined);
  }
}

/**
 * Search `text` in the remote corpus of `ctx` (see the module comment). Never throws for the corpus's failures:
 * the report's outcome says what happened and the matches are what was found before it.
 */
export async function searchRemote(
  ctx: SearchContext,
  text: string,
  options: RemoteSearchOptions = {},
): Promise<RemoteSearch> {
  const words = countWords(text);
  const limit = Math.min(options.maxCalls ?? Infinity, callBudget(words, ctx.config.maxCalls));
  const session = new Session(ctx, limit, options);
  let found: Found;
  try {
    found =
      ctx.config.kind === 'infini-gram'
        ? await searchTokens(ctx, session, text)
        : await searchTiles(ctx, session, text, words);
  } finally {
    await session.end();
  }
  return evidenceOf(ctx, session, text, found);
}

/** What the engine-specific part of a search gives. */
export interface Found {
  readonly samples: Sample[];
  /** How far apart the samples asked lie: the stride, or wider where the search was cut short ({@link spacingAsked}). */
  readonly stride: number;
  readonly unit: 'tokens' | 'words';
  readonly passages: Passage[];
  readonly windows: number;
  /** A sampled search (./sampling.ts): what it drew and found. */
  readonly sampling?: RemoteSampling;
  /** Stretches found but not resolved into passages (no document fetched): their samples enter no evidence. */
  readonly unresolved?: ReadonlyArray<{ readonly q0: number; readonly q1: number }>;
}
/** A document window and the shard it was read from. */
export type ShardWindow = DocumentWindow & { readonly shard: number; readonly count: number };
/** An aligned passage with the window it was found in. */
export interface Passage {
  readonly match: RemoteMatch;
  readonly window: ShardWindow;
  /**
   * Whether the passage runs to the start or the end of its window (no letter of the window before or after it): a
   * document that ends inside a passage of the work (a short one: a paragraph each), whose rest is another document.
   */
  readonly edges?: { readonly start: boolean; readonly end: boolean };
}

// ---------------------------------------------------------------------------------------------- infini-gram

async function searchTokens(ctx: SearchContext, session: Session, text: string): Promise<Found> {
  const index = ctx.config.index;
  const post = (body: Record<string, unknown>) => session.call(body).then((b) => ({ body: b, ms: 0 }));
  // 1. the server's tokens, piece by piece (and a sample at the end of each piece, free)
  const pieces = textPieces(text);
  const tokenized = await mapLimit(pieces, ctx.config.concurrency, (p) =>
    tokenizePiece(post, index, text, p, 0).catch((e) => {
      session.unusable(e);
      return null;
    }),
  );
  const ids: number[] = [],
    starts: number[] = [],
    ends: number[] = [];
  const pieceSamples: Array<{ e: number; len: number; count: number }> = [];
  for (const t of tokenized) {
    if (!t) continue;
    for (const part of t) {
      const base = ids.length;
      for (let k = 0; k < part.ids.length; k++) {
        ids.push(part.ids[k]);
        starts.push(part.starts[k]);
        ends.push(part.ends[k]);
      }
      if (part.ids.length >= 2)
        pieceSamples.push({ e: base + part.ids.length - 1, len: part.suffixLen, count: part.count });
    }
  }
  const T = ids.length;
  const spanOf = (start: number, end: number, count: number): Span => ({
    start,
    end,
    q0: starts[start],
    q1: ends[end - 1],
    count,
    query: ids.slice(start, end),
  });
  // 2. samples every `stride` tokens, within the budget left after the tokens and the documents: planned from
  // the budget and the pieces, not from the calls made (answers from the cache must not move the samples)
  const planned = session.budget.limit - pieces.length;
  const sampleCalls = Math.max(0, planned - followUpReserve(planned));
  const stride = Math.max(MIN_STRIDE_TOKENS, Math.ceil(T / Math.max(1, sampleCalls)));
  const taken = new Set(pieceSamples.map((p) => p.e));
  const places: number[] = [];
  for (let e = stride; e < T; e += stride) {
    if (!pieceSamples.some((p) => Math.abs(p.e - e) < stride / 2)) places.push(e);
  }
  if (
    T > 1 &&
    !taken.has(T - 1) &&
    !places.includes(T - 1) &&
    (places.length === 0 || T - 1 - places[places.length - 1] >= stride / 2)
  )
    places.push(T - 1);
  // asked spread over the text, not in its order: a deadline leaves a spread of it unasked, never its end
  const sampled = await mapLimit(spreadOrder(places.length), ctx.config.concurrency, async (j) => {
    const e = places[j];
    if (!session.maySample()) return null;
    try {
      const a = await infgramProb(post, index, ids.slice(Math.max(0, e - SAMPLE_WINDOW), e + 1));
      return { e, len: a.suffixLen, count: a.promptCnt };
    } catch (err) {
      session.unusable(err);
      return null;
    }
  });
  const raw: RawSample[] = [
    ...pieceSamples,
    ...sampled.filter((s): s is { e: number; len: number; count: number } => s !== null),
  ].sort((x, y) => x.e - y.e);
  // matches that a line break of one side may have cut short: asked again in the other white-space form
  // (the tries shared out in the text's order, so the same text is asked the same calls whatever the timing)
  const short = raw.filter((r) => r.len >= SWAP_MIN_TOKENS && r.len < HIT_TOKENS && r.e >= 1);
  const quota = short.map(() => 0);
  // the sampling calls left over and half of those kept for the documents (planned, not counted: the same calls
  // whether answers come from the cache or not)
  let tries = Math.max(0, sampleCalls - places.length) + Math.floor(followUpReserve(planned) / 2);
  for (let round = 0; round < SWAP_TRIES && tries > 0; round++)
    for (let i = 0; i < short.length && tries > 0; i++, tries--) quota[i]++;
  await mapLimit(short, ctx.config.concurrency, async (r, i) => {
    let left = quota[i];
    // a retry is a sample: it stops where sampling stops, leaving the rest of the deadline for the documents
    const mayCall = () => left-- > 0 && session.maySample();
    try {
      r.alt = await acrossLineBreaks(post, index, text, 0, ends[r.e - 1], starts[r.e - r.len], mayCall);
    } catch (err) {
      session.unusable(err);
    }
  });
  const samples: Sample[] = raw.map(({ e, len, count, alt }) => ({
    at: ends[e - 1] ?? 0,
    hit: Math.max(len, alt?.len ?? 0) >= HIT_TOKENS,
    span: alt
      ? { start: lowerBound(starts, alt.q0), end: e, q0: alt.q0, q1: alt.q1, count: alt.count, query: alt.ids }
      : len > 0
        ? spanOf(e - len, e, count)
        : null,
  }));
  // 3. regions of the hits' matches; 4. their documents, aligned
  const regions = mergeRegions(
    samples.filter((s) => s.hit).map((s) => s.span!),
    GAP_TOKENS,
    (s) => [s.start, s.end],
  );
  const { passages, windows } = await followUp(ctx, session, text, regions, tokenWindow(post, index));
  // how far apart the places asked lie: wider than planned where the search was cut short
  const spacing = spacingAsked(
    raw.map((r) => r.e),
    pieceSamples.length + places.length,
    T,
    stride,
  );
  return { samples, stride: spacing, unit: 'tokens', passages, windows };
}

/** A sampled place: its token, the match ending there and its count, and the match in another white-space form. */
interface RawSample {
  readonly e: number;
  readonly len: number;
  readonly count: number;
  alt?: SwappedMatch | null;
}

/** One tokenized piece: ids with spans in the text, and the longest match ending at its last token. */
interface TokenizedPiece {
  ids: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
  suffixLen: number;
  count: number;
}

/**
 * Tokenize `text.slice(p.start, p.end)` with one `infgram_prob` call; a piece the server finds too long (more than
 * 500 tokens: characters of several tokens each) is split in two and tried again (at most 4 times deep).
 */
export async function tokenizePiece(
  post: (b: Record<string, unknown>) => Promise<CallAnswer>,
  index: string,
  text: string,
  p: { start: number; end: number },
  depth: number,
): Promise<TokenizedPiece[]> {
  const piece = text.slice(p.start, p.end);
  try {
    const a = await infgramProb(post, index, piece);
    const m = mapTokens(piece, p.start, a.tokenIds, a.tokens);
    return [{ ids: m.ids, starts: m.starts, ends: m.ends, suffixLen: a.suffixLen, count: a.promptCnt }];
  } catch (e) {
    const tooLong = e instanceof RemoteCallError && e.kind === 'rejected' && /limit your input/i.test(e.message);
    if (!tooLong || depth >= 4 || p.end - p.start < 8) throw e;
    const mid = cutAt(text, p.start, p.start + Math.floor((p.end - p.start) / 2));
    const [a, b] = await Promise.all([
      tokenizePiece(post, index, text, { start: p.start, end: mid.end }, depth + 1),
      tokenizePiece(post, index, text, { start: mid.next, end: p.end }, depth + 1),
    ]);
    return [...a, ...b];
  }
}

/**
 * The text in pieces for tokenization: each ≤ PIECE_CHARS characters and about PIECE_TOKENS tokens, starting at
 * a word and ending before the single space that precedes the next piece (the server's leading space stands for
 * it: {@link cutAt}); ` AND ` and ` OR ` are never inside a piece (a piece ends before them).
 */
export function textPieces(text: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let start = skipSpace(text, 0);
  while (start < text.length) {
    let limit = start,
      est = 0;
    while (limit < text.length && limit - start < PIECE_CHARS && est < PIECE_TOKENS) {
      est += text.charCodeAt(limit) < 0x80 ? 0.3 : 3;
      limit++;
    }
    const cnf = /\s(AND|OR)\s/.exec(text.slice(start, limit));
    if (cnf && cnf.index > 0) limit = start + cnf.index;
    if (limit >= text.length) {
      const end = trimEnd(text, start, text.length);
      if (end > start) out.push({ start, end });
      break;
    }
    const cut = cutAt(text, start, limit);
    if (cut.end > start) out.push({ start, end: cut.end });
    start = skipSpace(text, Math.max(cut.next, start + 1));
  }
  return out;
}

/**
 * Where to cut before `limit`, and where the next piece starts: at the last single space between two words after
 * `start` — the one place a cut loses no token, since the next piece's leading `▁` (the tokenizer's dummy prefix)
 * stands for exactly that space, while a newline (`<0x0A>`) or a second space (a lone `▁`) before it would be
 * lost — else at the last white space, else at `limit`.
 */
export function cutAt(text: string, start: number, limit: number): { end: number; next: number } {
  const half = start + (limit - start) / 2;
  for (let i = limit; i > half; i--) {
    if (text[i] === ' ' && !/\s/.test(text[i - 1]) && !/\s/.test(text[i + 1] ?? ' ')) return { end: i, next: i };
  }
  for (let i = limit; i > half; i--) {
    if (/\s/.test(text[i])) return { end: trimEnd(text, start, i), next: i };
  }
  let at = limit;
  if ((text.charCodeAt(at) & 0xfc00) === 0xdc00) at--; // never between the halves of a surrogate pair
  return { end: at, next: at };
}

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
};
const trimEnd = (text: string, start: number, end: number): number => {
  while (end > start && /\s/.test(text[end - 1])) end--;
  return end;
};

// ---------------------------------------------------------------------------------------------- infini-gram mini

async function searchTiles(ctx: SearchContext, session: Session, text: string, wordCount: number): Promise<Found> {
  const index = ctx.config.index;
  const post = (body: Record<string, unknown>) => session.call(body).then((b) => ({ body: b, ms: 0 }));
  const words = wordSpans(text);
  const tileCalls = Math.max(1, session.budget.limit - followUpReserve(session.budget.limit));
  const stride = Math.max(TILE_WORDS, Math.ceil(wordCount / tileCalls));
  const tiles: Array<{ start: number; end: number; q0: number; q1: number }> = [];
  for (let w = 0; w + Math.min(TILE_WORDS, words.length) <= words.length && words.length > 0; w += stride) {
    let last = Math.min(words.length, w + TILE_WORDS) - 1;
    while (last > w && words[last].end - words[w].start > LIMITS.queryChars) last--;
    tiles.push({
      start: w,
      end: last + 1,
      q0: words[w].start,
      q1: Math.min(words[last].end, words[w].start + LIMITS.queryChars),
    });
    if (last + 1 >= words.length) break;
  }
  // asked spread over the text, not in its order: a deadline leaves a spread of it unasked, never its end
  const sampled = await mapLimit(spreadOrder(tiles.length), ctx.config.concurrency, async (j) => {
    const t = tiles[j];
    if (!session.maySample()) return null;
    const query = text.slice(t.q0, t.q1);
    try {
      const f = await find(post, index, query);
      const span: Span = { start: t.start, end: t.end, q0: t.q0, q1: t.q1, count: f.cnt, query, found: f };
      return { at: t.q1, hit: f.cnt > 0, span } as Sample;
    } catch (e) {
      session.unusable(e);
      return null;
    }
  });
  const samples = sampled.filter((s): s is Sample => s !== null).sort((x, y) => x.at - y.at);
  // consecutive found tiles (at most one tile apart) make a region; its rarest tile gives the document
  const regions = mergeRegions(
    samples.filter((s) => s.hit).map((s) => s.span!),
    stride + TILE_WORDS,
    (s) => [s.start, s.end],
    true,
  );
  const { passages, windows } = await followUp(ctx, session, text, regions, charWindow(post, index));
  // how far apart the tiles asked lie: wider than planned where the search was cut short
  const spacing = spacingAsked(
    samples.map((s) => s.span!.end),
    tiles.length,
    words.length,
    stride,
  );
  return { samples, stride: spacing, unit: 'words', passages, windows };
}

/** Post through a search's session (its caches, budget and deadline). */
export type SessionPost = (body: Record<string, unknown>) => Promise<CallAnswer>;

/** infini-gram: the document window of a region: `find` its longest match, the window of its first occurrence. */
export function tokenWindow(post: SessionPost, index: string): (r: Region) => Promise<ShardWindow | null> {
  return async (r) => {
    const span = r.best;
    const f = span.found ?? (await find(post, index, span.query as number[]));
    const at = firstOccurrence(f);
    if (!at) return null;
    const reach = Math.max(span.start - r.start, r.end - span.start) + MARGIN_TOKENS;
    return documentByRank(post, index, at.s, at.rank, Math.min(LIMITS.maxDispLen, 2 * reach)).then((w) => ({
      ...w,
      shard: at.s,
      count: f.cnt,
    }));
  };
}

/**
 * infini-gram mini: the document window around the first occurrence of a region's rarest tile, wide enough for the
 * region, {@link MARGIN_CHARS} and the region's `reach` on each side (the bytes asked a fifth more than the characters
 * wanted). Without its `reach` the window was never twice the reach, so a sampled search's calibration passages were
 * always aligned right beside the passage found, where findability is like its own (./sampling.ts).
 */
export function charWindow(post: SessionPost, index: string): (r: Region) => Promise<ShardWindow | null> {
  return async (r) => {
    const span = r.best;
    const at = firstOccurrence(span.found!);
    if (!at) return null;
    const reach = Math.ceil(1.2 * (Math.max(span.q0 - r.q0, r.q1 - span.q1) + MARGIN_CHARS + (r.reach ?? 0)));
    // a window cut inside a multi-byte character is refused: one byte less on each side, up to three times
    for (let shrink = 0; ; shrink++) {
      try {
        const w = await documentByRankMini(
          post,
          index,
          span.query as string,
          at.s,
          at.rank,
          Math.min(LIMITS.maxCtxLen, reach) - shrink,
        );
        return { ...w, shard: at.s, count: span.count };
      } catch (e) {
        if (!isUtf8Cut(e) || shrink >= 3) throw e;
      }
    }
  };
}

/**
 * `fn` remembering its last answer: the corpora of one analysis search the same text at once, and a long work's
 * words and content-word pairs are worth computing once for all of them (the text is compared by identity first).
 */
function lastOf<R>(fn: (text: string) => R): (text: string) => R {
  let last: { text: string; value: R } | null = null;
  return (text) => {
    if (last === null || last.text !== text) last = { text, value: fn(text) };
    return last.value;
  };
}

/** The words of a text (runs of non-space) as UTF-16 spans (the caller must not change them). */
export const wordSpans: (text: string) => ReadonlyArray<{ readonly start: number; readonly end: number }> = lastOf(
  (text) => {
    const out: Array<{ start: number; end: number }> = [];
    for (const m of text.matchAll(/\S+/g)) out.push({ start: m.index, end: m.index + m[0].length });
    return out;
  },
);

/**
 * The words of a text (runs of non-space; ../util/space.ts, the one count), counted without going through
 * {@link wordSpans}: a count of a piece or a slice must not put out the work's own spans, which every corpus of a
 * search reads (through the remembered last text, a count between two reads made each corpus split the whole work
 * again).
 */
export { countWords };

// ---------------------------------------------------------------------------------------------- both engines

export const followUpReserve = (left: number): number =>
  Math.min(left, Math.max(FOLLOW_UP_MIN, Math.round(FOLLOW_UP_SHARE * left)));

/**
 * How far apart a search's samples lie, at the widest (the report's `sampled_every`): the planned `stride` when all
 * `planned` places were asked; else the widest gap between the places `asked` (sorted, in the stride's unit: tokens
 * or words), the text's start (0) and its `end` counting as asked. A search cut short (its deadline) asked a thinner
 * spread: between the places it asked the text was sampled that far apart, and a copy shorter than that may lie
 * unasked there — not the planned coverage of a search that asked everything.
 *
 * @example
 * spacingAsked([10, 20, 30, 40], 4, 40, 10) // 10: all asked
 * spacingAsked([10, 30, 40], 4, 40, 10) // 20
 * spacingAsked([], 4, 40, 10) // 40: nothing asked between the ends
 */
export function spacingAsked(asked: readonly number[], planned: number, end: number, stride: number): number {
  if (asked.length >= planned) return stride;
  let widest = stride;
  for (let i = 0; i <= asked.length; i++) widest = Math.max(widest, (asked[i] ?? end) - (asked[i - 1] ?? 0));
  return widest;
}

/**
 * Spans merged into regions where they overlap or lie within `gap` (in their own units); each region keeps its
 * longest span as `best` (the rarest, with `rarest`).
 */
export function mergeRegions(
  spans: Span[],
  gap: number,
  range: (s: Span) => [number, number],
  rarest = false,
): Region[] {
  const sorted = spans.slice().sort((x, y) => range(x)[0] - range(y)[0]);
  const out: Region[] = [];
  for (const s of sorted) {
    const [a, b] = range(s);
    const last = out.at(-1);
    if (last && a <= last.end + gap) {
      last.end = Math.max(last.end, b);
      last.q0 = Math.min(last.q0, s.q0);
      last.q1 = Math.max(last.q1, s.q1);
      const better = rarest
        ? s.count < last.best.count || (s.count === last.best.count && b - a > last.best.end - last.best.start)
        : b - a > last.best.end - last.best.start ||
          (b - a === last.best.end - last.best.start && s.count < last.best.count);
      if (better) last.best = s;
    } else {
      out.push({ q0: s.q0, q1: s.q1, best: s, start: a, end: b });
    }
  }
  return out;
}

/**
 * Fetch and align the regions, longest first, in waves of the endpoint's concurrency: a region inside a passage an
 * earlier wave found is not fetched. Stops when the budget cannot pay for another region or the search has ended.
 *
 * Each region is aligned with its own window, and its passages are kept beside those of other regions of the same
 * document, never dropped for lying close to them: the part of the work a region may align is bounded by the
 * passages already found in that document ({@link freeStretch}), so a document's passages never overlap in the work
 * (their content-word pairs and samples are counted once) and every region's own stretch is aligned. (Keeping only
 * the first of two alignments that overlapped — each reaches {@link MARGIN_CHARS} past its region — lost the second
 * region's passage wherever two found stretches of one document lay closer than twice that margin: in a sampled
 * 14,000-word work, half the documents fetched.)
 */
export async function followUp(
  ctx: SearchContext,
  session: Session,
  text: string,
  regions: Region[],
  fetch: (r: Region) => Promise<ShardWindow | null>,
): Promise<{ passages: Passage[]; windows: number }> {
  const order = regions.slice().sort((x, y) => y.best.end - y.best.start - (x.best.end - x.best.start) || x.q0 - y.q0);
  const query = workTokensOf(ctx.kit)(text);
  const passages: Passage[] = [];
  let windows = 0;
  const covered = (r: Region) =>
    passages.some((p) => p.match.query_start <= r.best.q0 && r.best.q1 <= p.match.query_end);
  while (order.length > 0 && !session.stopped) {
    const wave: Region[] = [];
    while (order.length > 0 && wave.length < ctx.config.concurrency) {
      const r = order.shift()!;
      if (!covered(r)) wave.push(r);
    }
    if (wave.length === 0) break;
    const fetched = await Promise.all(
      wave.map((r) =>
        fetch(r).catch((e) => {
          session.unusable(e);
          return null;
        }),
      ),
    );
    for (let i = 0; i < wave.length; i++) {
      const w = fetched[i];
      if (!w || session.stopped) continue;
      windows++;
      const free = freeStretch(passages, w, wave[i]);
      if (!free) continue; // the region lies inside a passage of this document found already
      let aligned: Passage[];
      try {
        aligned = alignRegion(ctx, text, query, wave[i], w, free);
      } catch (e) {
        // the window passed the answer checks but not the aligner's (a bug or an input it refuses): this corpus's
        // error, never the caller's request's
        session.unusable(e);
        continue;
      }
      for (const p of aligned) if (!passages.some((x) => sameMatch(x.match, p.match))) passages.push(p);
    }
  }
  return { passages: passages.sort((x, y) => x.match.query_start - y.match.query_start), windows };
}

/**
 * The stretch of the work a region may align with a window of a document (UTF-16, `lo`–`hi`): between the passages
 * already found in that document on each side of the region's middle. Null when one of them runs across the
 * region's middle: the region's stretch is aligned there already.
 *
 * @example
 * // a passage of the document at 0–900 and the region at 1,000–1,300: the region may align from 900 on
 * freeStretch([{ match: { doc_ix: 7, shard: 0, query_start: 0, query_end: 900 } }], { docIx: 7, shard: 0 }, { q0: 1000, q1: 1300 })
 * // → { lo: 900, hi: Infinity }
 */
export function freeStretch(
  passages: ReadonlyArray<{ readonly match: Pick<RemoteMatch, 'doc_ix' | 'shard' | 'query_start' | 'query_end'> }>,
  w: Pick<ShardWindow, 'docIx' | 'shard'>,
  r: Pick<Region, 'q0' | 'q1'>,
): { lo: number; hi: number } | null {
  const mid = (r.q0 + r.q1) / 2;
  let lo = 0,
    hi = Number.POSITIVE_INFINITY;
  for (const { match: m } of passages) {
    if (m.doc_ix !== w.docIx || m.shard !== w.shard) continue;
    if (m.query_end <= mid) lo = Math.max(lo, m.query_end);
    else if (m.query_start >= mid) hi = Math.min(hi, m.query_start);
    else return null;
  }
  return { lo, hi };
}

/**
 * The passages of one region against its document window (verbatim or edited, overlapping the region), aligned within
 * the stretch `free` of the work ({@link freeStretch}); each says whether it runs to an end of the window.
 */
function alignRegion(
  ctx: SearchContext,
  text: string,
  query: TokenizedText,
  r: Region,
  w: ShardWindow,
  free: { readonly lo: number; readonly hi: number },
): Passage[] {
  if (w.text.length === 0) return [];
  // a window shorter than twice the reach is a short document: aligned as closely as any region (a wider stretch of
  // the work only gives a short document's words more places to pair with)
  const reach = w.text.length >= 2 * (r.reach ?? 0) ? (r.reach ?? 0) : 0;
  const r0 = Math.max(r.q0 - reach, free.lo, 0),
    r1 = Math.min(r.q1 + reach, free.hi, text.length);
  if (r1 <= r0) return [];
  const out: Passage[] = [];
  for (const m of alignedOf(ctx, text, query, r0, r1, w.text, free)) {
    const match: RemoteMatch = {
      dataset_id: ctx.config.id,
      document_id: String(w.docIx),
      query_start: m.a0,
      query_end: m.a1,
      source_start: m.b0 - m.from,
      source_end: m.b1 - m.from,
      kind: 'remote',
      tokens: m.tokens,
      score: m.score,
      reuse: m.reuse,
      similarity: m.similarity,
      aligned: true,
      doc_ix: w.docIx,
      shard: w.shard,
      doc_length: w.docLen,
      source_text: w.text.slice(m.from, m.to),
      count_start: r.best.q0,
      count_end: r.best.q1,
      count: w.count,
      boilerplate: w.count >= ctx.config.boilerplateCount,
      metadata: w.metadata,
    };
    out.push({
      match,
      window: w,
      edges: { start: !hasLetter(w.text, 0, m.b0), end: !hasLetter(w.text, m.b1, w.text.length) },
    });
  }
  return out;
}

/** Whether `text.slice(a, b)` holds a letter or digit. */
const hasLetter = (text: string, a: number, b: number): boolean => /[\p{L}\p{N}]/u.test(text.slice(a, b));

/** A passage of a region aligned with a document's text: the spans in each and what the aligner measured. */
interface AlignedSpan {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
  /** The excerpt of the document kept with the match. */
  readonly from: number;
  readonly to: number;
  readonly tokens: number;
  readonly score: number;
  readonly reuse: RemoteMatch['reuse'];
  readonly similarity: number;
}

/**
 * The alignment of a document's text with the stretch `q0`–`q1` of the work, remembered for the work being searched
 * (per alignment kit, at most {@link ALIGNED_MEMO} entries): corpora searched at once often return the same
 * text — the same book in several training sets, or the same engine behind several names — and it is aligned once.
 */
function alignedOf(
  ctx: SearchContext,
  text: string,
  query: TokenizedText,
  q0: number,
  q1: number,
  document: string,
  free: { readonly lo: number; readonly hi: number } = { lo: 0, hi: Number.POSITIVE_INFINITY },
): AlignedSpan[] {
  let memo = alignedByKit.get(ctx.kit);
  if (!memo || memo.text !== text) {
    memo = { text, spans: new Map() };
    alignedByKit.set(ctx.kit, memo);
  }
  const key = `${q0}:${q1}:${free.lo}:${free.hi}:${document}`;
  const known = memo.spans.get(key);
  if (known) return known;
  const spans = alignStretch(ctx, text, query, q0, q1, document, free);
  if (memo.spans.size >= ALIGNED_MEMO) memo.spans.clear();
  memo.spans.set(key, spans);
  return spans;
}
/** Alignments remembered per work (a search's documents: ≤ 400 calls per corpus, a few corpora). */
const ALIGNED_MEMO = 2048;
const alignedByKit = new WeakMap<AlignmentKit, { text: string; spans: Map<string, AlignedSpan[]> }>();

/** The passages of the work's stretch `r0`–`r1` that a document's text holds (verbatim or edited). */
function alignStretch(
  ctx: SearchContext,
  text: string,
  query: TokenizedText,
  r0: number,
  r1: number,
  document: string,
  free: { readonly lo: number; readonly hi: number },
): AlignedSpan[] {
  const { alignTokens, COMPARE_DEFAULTS, cutAfter, cutBefore, reuseKind, sharedRuns, TokenizedText } = ctx.kit;
  const source = new TokenizedText(document);
  const alignWithin = (margin: number) => {
    // never into a passage of this document found already (`free`: its ends are word ends of the work)
    const q0 = Math.max(free.lo, cutBefore(text, r0 - margin)),
      q1 = Math.min(free.hi, cutAfter(text, r1 + margin));
    const found = alignTokens(ctx.core(), query.window(q0, q1), source.window(0, document.length), COMPARE_DEFAULTS);
    return { q0, spans: found.filter((s) => s.a_start + q0 < r1 && r0 < s.a_end + q0) };
  };
  // the region with a margin, so that a passage runs on past the samples that found it; a short passage among
  // unrelated text can fall below the alignment's score in that window (as in 200 or 80 characters), so then the
  // region alone: what the samples found, exactly, if not all of the passage around it
  let { q0, spans } = alignWithin(MARGIN_CHARS);
  if (spans.length === 0) ({ q0, spans } = alignWithin(0));
  const out: AlignedSpan[] = [];
  for (const s of spans) {
    const a0 = s.a_start + q0,
      a1 = s.a_end + q0;
    // a span is never past the window fetched: a word the window cuts ("improvement" of "improvement.") ends there
    const b0 = Math.min(s.b_start, document.length),
      b1 = Math.min(s.b_end, document.length);
    if (a1 <= r0 || r1 <= a0) continue; // another passage of the window: not what this region found
    const runs = sharedRuns(text.slice(a0, a1), document.slice(b0, b1));
    const reuse = reuseKind(runs.similarity);
    if (reuse === 'paraphrase') continue; // a window found by an exact match; a loose pairing is not evidence
    // the passage with some of the window around it, kept with the match: the spans point into this excerpt
    const from = cutBefore(document, b0 - SOURCE_CONTEXT_CHARS),
      to = cutAfter(document, b1 + SOURCE_CONTEXT_CHARS);
    out.push({
      a0,
      a1,
      b0,
      b1,
      from,
      to,
      tokens: runs.tokens,
      score: round4(s.score),
      reuse,
      similarity: round4(runs.similarity),
    });
  }
  return out;
}

/** The same passage found twice (two regions of one copy): same document, overlapping query spans. */
const sameMatch = (x: RemoteMatch, y: RemoteMatch): boolean =>
  x.doc_ix === y.doc_ix && x.shard === y.shard && x.query_start < y.query_end && y.query_start < x.query_end;

/** The counts of the evidence from what was found (see the module comment, step 5). */
export function evidenceOf(ctx: SearchContext, session: Session, text: string, found: Found): RemoteSearch {
  const matches = found.passages.map((p) => p.match);
  const boiler = matches.filter((m) => m.boilerplate);
  // samples of boilerplate passages say nothing either way: left out
  // nor do those of stretches found but not resolved into passages: neither evidence nor background
  const unresolved = found.unresolved ?? [];
  const samples = found.samples.filter(
    (s) =>
      !boiler.some((m) => m.query_start < s.at && s.at <= m.query_end) &&
      !unresolved.some((u) => u.q0 < s.at && s.at <= u.q1),
  );
  const evidence = found.passages.filter((p) => !p.match.boilerplate);
  const { outcome, message } = session.outcome();
  const transcript = session.transcriptDigest();
  const report: RemoteCorpusReport = {
    dataset_id: ctx.config.id,
    engine: ctx.config.kind,
    endpoint: ctx.config.endpoint,
    index: ctx.config.index,
    outcome,
    message,
    calls: session.budget.used,
    cached: session.cached,
    budget: session.budget.limit,
    ms: Date.now() - session.t0,
    samples: found.samples.length,
    sampled_every: found.stride,
    unit: found.unit,
    documents: found.windows,
    matches: matches.length,
    transcript: { calls: transcript.list.length, sha256: transcript.sha256 },
    ...(found.sampling ? { sampling: found.sampling } : {}),
  };
  return {
    transcript: transcript.list,
    samples: { at: Uint32Array.from(samples, (s) => s.at), hit: Uint8Array.from(samples, (s) => (s.hit ? 1 : 0)) },
    ...alignedCounts(ctx.kit, text, evidence),
    matches,
    report,
  };
}

/**
 * Per evidence passage: the distinct sampled content-word pairs of its query span, how many its source span holds,
 * and the background of its window: the share of the query's distinct pairs outside every passage that the window
 * holds (as an exact dataset's aligned passages, src/corpus/alignment.ts).
 */
function alignedCounts(
  kit: AlignmentKit,
  text: string,
  passages: readonly Passage[],
): Pick<RemoteSearch, 'passages' | 'queryPairs'> {
  if (passages.length === 0) return { passages: [], queryPairs: 0 };
  const { normalize, pairsOfNormalized, pairSet, sharedPairs, neighbourBackground, PAIR_BACKGROUND_FLOOR } = kit;
  const q = queryPairsOf(kit)(text);
  const memo = countsMemoOf(kit, text);
  const spansKey = passages.map(({ match }) => `${match.query_start}-${match.query_end}`).join(',');
  const outside = memo.once(`outside ${spansKey}`, () => outsidePairs(text, passages, q));
  // background null: nothing of the query is left outside the passages; each passage is measured on its neighbours
  const windows = new Map<ShardWindow, { index: number; background: number | null }>();
  for (const { window } of passages) {
    if (windows.has(window)) continue;
    const background = memo.once(`background ${spansKey} ${window.text}`, () => {
      // the window's distinct pairs that are among the query's outside the passages (the window is the smaller set)
      const held = new Set(pairsOfNormalized(normalize(window.text)).hashes);
      let n = 0;
      for (const h of held) if (outside.has(h)) n++;
      return outside.size < MIN_CONTROL_PAIRS ? null : Math.max(PAIR_BACKGROUND_FLOOR, n / outside.size);
    });
    windows.set(window, { index: windows.size, background });
  }
  return {
    queryPairs: q.distinct.length,
    passages: passages.map(({ match, window }) => {
      const { query_start: q0, query_end: q1, source_start: b0, source_end: b1 } = match;
      const key = `${q0}-${q1} ${b0}-${b1} ${match.source_text}`;
      const counted = memo.once(`pairs ${key}`, () => {
        const queryPairs = pairSet(normalize(text.slice(match.query_start, match.query_end)));
        const source = { b_start: match.source_start, b_end: match.source_end };
        return {
          shared: sharedPairs(queryPairs, normalize(match.source_text.slice(match.source_start, match.source_end))),
          neighbours: () => neighbourBackground(queryPairs, match.source_text, source),
        };
      });
      const background = windows.get(window)!.background;
      return {
        query_start: match.query_start,
        query_end: match.query_end,
        ...counted.shared,
        background: background ?? memo.once(`neighbours ${key}`, counted.neighbours),
        window: windows.get(window)!.index,
      };
    }),
  };
}

/**
 * The distinct content-word pairs of the query with an occurrence outside every passage (an even sample of at most
 * {@link BACKGROUND_PAIRS}): the background a window's share of pairs is measured against.
 */
function outsidePairs(text: string, passages: readonly Passage[], q: QueryPairs): Set<number> {
  // characters inside a passage, counted up to each place: a pair overlaps a passage when its span holds one
  const covered = new Int32Array(text.length + 1);
  for (const { match } of passages) {
    covered[Math.min(text.length, match.query_start)]++;
    covered[Math.min(text.length, match.query_end)]--;
  }
  for (let i = 1, depth = covered[0]; i <= text.length; i++) {
    const d = covered[i];
    covered[i] = covered[i - 1] + (depth > 0 ? 1 : 0);
    depth += d;
  }
  // the distinct pairs with an occurrence outside every passage, in the order of that occurrence (dense ids of the
  // query's pairs, once per text: a long work has a hundred thousand, and every corpus asks)
  const { ids, distinct } = q;
  const seen = new Uint8Array(distinct.length);
  const outsideAll: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (seen[id] === 0 && covered[q.ends[i]] - covered[q.starts[i]] === 0) {
      seen[id] = 1;
      outsideAll.push(distinct[id]);
    }
  }
  // a long work's pairs outside the passages are many: the background share is measured on an even sample of them
  // (at most BACKGROUND_PAIRS, a binomial share to ±0.007 at 95 %), the same sample for every window
  const step = Math.ceil(outsideAll.length / BACKGROUND_PAIRS);
  return new Set(step <= 1 ? outsideAll : outsideAll.filter((_, i) => i % step === 0));
}

/**
 * What the evidence counts of the work being searched (per alignment kit), remembered for every corpus that searches
 * it at once: corpora that return the same documents (the same book in several training sets) count them once.
 */
interface CountsMemo {
  once<T>(key: string, make: () => T): T;
}
const countsByKit = new WeakMap<AlignmentKit, { text: string; memo: CountsMemo }>();
/** Entries remembered per work at most (then it starts again). */
const COUNTS_MEMO = 4096;
function countsMemoOf(kit: AlignmentKit, text: string): CountsMemo {
  const known = countsByKit.get(kit);
  if (known && known.text === text) return known.memo;
  const values = new Map<string, unknown>();
  const memo: CountsMemo = {
    once<T>(key: string, make: () => T): T {
      if (values.has(key)) return values.get(key) as T;
      if (values.size >= COUNTS_MEMO) values.clear();
      const v = make();
      values.set(key, v);
      return v;
    },
  };
  countsByKit.set(kit, { text, memo });
  return memo;
}

/** The content-word pairs of a whole query with a dense id per distinct pair (`distinct[ids[i]]` is `hashes[i]`). */
type QueryPairs = ReturnType<AlignmentKit['pairsOfNormalized']> & {
  readonly ids: Int32Array;
  readonly distinct: readonly number[];
};

/**
 * The work's tokens for the aligner, once for all the corpora that search it (per alignment kit): its chunks are
 * tokenized as windows ask for them and kept, so seven corpora aligning their documents against the same work do not
 * tokenize the same chunks seven times (a tenth of the client's CPU with seven corpora, `bench/whole-works.mjs`).
 */
const workTokensByKit = new WeakMap<AlignmentKit, (text: string) => TokenizedText>();
function workTokensOf(kit: AlignmentKit): (text: string) => TokenizedText {
  let f = workTokensByKit.get(kit);
  if (!f) {
    f = lastOf((text) => new kit.TokenizedText(text));
    workTokensByKit.set(kit, f);
  }
  return f;
}

/** The content-word pairs of a whole query, once for all the corpora that search it (per alignment kit). */
const pairsByKit = new WeakMap<AlignmentKit, (text: string) => QueryPairs>();
function queryPairsOf(kit: AlignmentKit): (text: string) => QueryPairs {
  let f = pairsByKit.get(kit);
  if (!f) {
    f = lastOf((text) => {
      const pairs = kit.pairsOfNormalized(kit.normalize(text));
      const ids = new Int32Array(pairs.hashes.length);
      const idOf = new Map<number, number>();
      const distinct: number[] = [];
      for (let i = 0; i < pairs.hashes.length; i++) {
        const h = pairs.hashes[i];
        let id = idOf.get(h);
        if (id === undefined) {
          id = distinct.length;
          idOf.set(h, id);
          distinct.push(h);
        }
        ids[i] = id;
      }
      return { ...pairs, ids, distinct };
    });
    pairsByKit.set(kit, f);
  }
  return f;
}

/** A rough size of an answer for the memory cache (its strings and numbers). */
function approxSize(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce<number>((t, x) => t + approxSize(x) + 1, 2);
  if (v && typeof v === 'object')
    return Object.entries(v).reduce<number>((t, [k, x]) => t + k.length + approxSize(x) + 2, 2);
  return 8;
}
