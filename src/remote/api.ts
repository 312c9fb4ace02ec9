/**
 * The requests this client makes of the two engines and the checked shapes of their answers. Both APIs take
 * one JSON object per POST (`index`, `query_type`, then the query and its parameters) and answer JSON:
 *
 * - **infini-gram** (Liu et al., COLM 2024, arXiv 2401.17377; api.infini-gram.io; source
 *   github.com/liujch1998/infini-gram `api/api_server.py`): token-level. `infgram_prob` gives the longest suffix
 *   of a prompt that occurs in the corpus (`suffix_len`) and its count (`prompt_cnt`); `find` gives a query's
 *   count and its suffix-array ranges per shard (`segment_by_shard`); `get_doc_by_rank` a window of the document
 *   at one rank, as decoded text spans with the query's occurrences labelled `"0"`. Every answer carries the
 *   query's `token_ids` and `tokens` (on document answers those fields hold the query's, not the document's).
 * - **infini-gram mini** (Xu et al., EMNLP 2025, arXiv 2506.12229; api.infini-gram-mini.io; source
 *   github.com/xuhaoxh/infini-gram-mini): character-level and case-sensitive, no tokens: `count`, `find`, and
 *   `get_doc_by_rank` with `max_ctx_len` bytes of context on each side.
 *
 * A document's `metadata` is a string: empty, or the indexer's JSON (`{"path", "linenum", "metadata": {…}}`)
 * and a newline; it is parsed here and kept as an object (null when absent or not JSON).
 */
import { RemoteCallError, type CallAnswer } from './transport.js';
import { isWellFormed } from '../util/validate.js';

/** The engines' limits on one query (the server's argparse defaults). */
export const LIMITS = Object.freeze({
  /** Characters of a string query. */
  queryChars: 1000,
  /** Tokens of a query (`query_ids` or a tokenized string). */
  queryTokens: 500,
  /** `max_disp_len` of a document window (tokens). */
  maxDispLen: 10_000,
  /** `max_ctx_len` of a mini document window (bytes on each side). */
  maxCtxLen: 10_000,
});

/** `infgram_prob`: the longest suffix of the prompt found in the corpus. */
export interface InfgramAnswer {
  readonly tokenIds: number[];
  readonly tokens: string[];
  /** Tokens of the longest suffix of the prompt (all ids but the last) that occurs in the corpus. */
  readonly suffixLen: number;
  /** Its count (0 when `suffixLen` is 0 and the corpus is empty). */
  readonly promptCnt: number;
}

/** `find`: a query's count and ranges [lo, hi) per shard. */
export interface FindAnswer {
  readonly cnt: number;
  readonly segments: ReadonlyArray<readonly [number, number]>;
}

/** A document window (`get_doc_by_rank`). */
export interface DocumentWindow {
  readonly docIx: number;
  /** Tokens (infini-gram) or bytes (mini) of the whole document. */
  readonly docLen: number;
  /** The window's text: the decoded spans joined. */
  readonly text: string;
  /** UTF-16 offset in `text` where the query's first occurrence starts (−1 when no span is labelled). */
  readonly needleAt: number;
  /** The indexer's metadata, parsed; null when absent or not JSON. */
  readonly metadata: Record<string, unknown> | null;
}

type Post = (body: Record<string, unknown>) => Promise<CallAnswer>;

const bad = (what: string): never => {
  throw new RemoteCallError('invalid_response', what);
};

/** A finite number ≥ 0 (counts beyond 2^53 arrive rounded, and stay usable as magnitudes). */
function count(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return bad(`${name} is not a count`);
  return v;
}
function int(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return bad(`${name} is not a non-negative integer`);
  return v;
}

/** The query's ids and token strings of an infini-gram answer (flat queries only). */
function queryTokens(b: Record<string, unknown>): { tokenIds: number[]; tokens: string[] } {
  const ids = b.token_ids,
    tokens = b.tokens;
  if (!Array.isArray(ids) || !ids.every((x) => Number.isSafeInteger(x) && x >= 0))
    return bad('token_ids is not a list of ids');
  if (!Array.isArray(tokens) || tokens.length !== ids.length || !tokens.every((t) => typeof t === 'string')) {
    return bad('tokens is not a list of strings as long as token_ids');
  }
  return { tokenIds: ids as number[], tokens: tokens as string[] };
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * `infgram_prob` of a prompt and one continuation: a string query (tokenized by the server: the ids come back)
 * or the ids themselves (≥ 2: the last is the continuation).
 */
export async function infgramProb(
  post: Post,
  index: string,
  query: string | readonly number[],
): Promise<InfgramAnswer> {
  const q = typeof query === 'string' ? { query } : { query_ids: [...query] };
  const { body } = await post({ index, query_type: 'infgram_prob', ...q });
  const tokens = queryTokens(body);
  if (typeof query !== 'string' && !sameIds(tokens.tokenIds, query)) return bad('token_ids is not the query sent');
  const suffixLen = int(body.suffix_len, 'suffix_len');
  // the longest suffix of the prompt (every token but the continuation) found in the corpus
  if (suffixLen > Math.max(0, tokens.tokenIds.length - 1)) return bad('suffix_len is longer than the prompt');
  return { ...tokens, suffixLen, promptCnt: count(body.prompt_cnt, 'prompt_cnt') };
}

/** Terms at most of one disjunctive clause (infini-gram's `max_terms_per_clause`, api_server.py's default). */
export const MAX_OR_TERMS = 4;

/** `count` of a disjunction: the occurrences of any of its terms, and each term's token ids as the server read it. */
export interface CountAnyAnswer {
  readonly count: number;
  readonly termIds: number[][];
}

/**
 * infini-gram `count` of `terms[0] OR terms[1] OR …` (≤ {@link MAX_OR_TERMS}): the API reads a query holding
 * ` OR ` as one disjunctive clause of a CNF, tokenizes each term on its own and counts the occurrences of any
 * (`count_cnf`). One call asks several forms of a passage at once. A term must not itself hold ` OR ` or ` AND `
 * (the server would split it): such a term is refused here.
 *
 * @example
 * await countAny(post, 'v4_piletrain_llama', ['the cat sat on the mat', 'a dog lay by the door']) // { count, termIds }
 */
export async function countAny(post: Post, index: string, terms: readonly string[]): Promise<CountAnyAnswer> {
  if (terms.length === 0 || terms.length > MAX_OR_TERMS || terms.some((t) => !t.trim() || / (OR|AND) /.test(t)))
    throw new RangeError(`countAny takes 1 to ${MAX_OR_TERMS} terms without " OR " or " AND "`);
  const { body } = await post({ index, query_type: 'count', query: terms.join(' OR ') });
  const n = count(body.count, 'count');
  const ids = body.token_ids;
  // one term: a flat list of ids (no CNF); several: one clause of as many terms
  const termIds =
    terms.length === 1 ? [ids] : Array.isArray(ids) && ids.length === 1 && Array.isArray(ids[0]) ? ids[0] : null;
  if (
    !Array.isArray(termIds) ||
    termIds.length !== terms.length ||
    !termIds.every((t) => Array.isArray(t) && t.length > 0 && t.every((x) => Number.isSafeInteger(x) && x >= 0))
  )
    return bad('token_ids is not one clause of the terms sent');
  return { count: n, termIds: termIds as number[][] };
}

/** `find` of token ids (infini-gram) or a string (mini). */
export async function find(post: Post, index: string, query: string | readonly number[]): Promise<FindAnswer> {
  const q = typeof query === 'string' ? { query } : { query_ids: [...query] };
  const { body } = await post({ index, query_type: 'find', ...q });
  const cnt = count(body.cnt, 'cnt');
  const segs = body.segment_by_shard;
  if (!Array.isArray(segs)) return bad('segment_by_shard is not a list');
  const segments = segs.map((s, i) => {
    if (!Array.isArray(s) || s.length !== 2) return bad(`segment_by_shard[${i}] is not a pair`);
    const lo = int(s[0], 'a segment start'),
      hi = int(s[1], 'a segment end');
    if (hi < lo) return bad(`segment_by_shard[${i}] ends before it starts`);
    return [lo, hi] as const;
  });
  return { cnt, segments };
}

/**
 * The first occurrence of a `find` answer as (shard, rank), or null when there is none. Ranks of one shard are
 * sorted by the suffix that starts there, so the first rank of the first shard with any is as good as any other.
 */
export function firstOccurrence(f: FindAnswer): { s: number; rank: number } | null {
  for (let s = 0; s < f.segments.length; s++)
    if (f.segments[s][1] > f.segments[s][0]) return { s, rank: f.segments[s][0] };
  return null;
}

/**
 * `get_doc_by_rank` on infini-gram: the window of `maxDispLen` tokens around the occurrence at (s, rank). The
 * query sent is empty, so the server decodes the window as one span: it decodes each labelled span on its own,
 * and a SentencePiece decode drops the leading space of each, which would glue words together at the needle's
 * edges (the needle's place in the window is not needed: the whole window is aligned).
 */
export async function documentByRank(
  post: Post,
  index: string,
  s: number,
  rank: number,
  maxDispLen: number,
): Promise<DocumentWindow> {
  const { body } = await post({
    index,
    query_type: 'get_doc_by_rank',
    query_ids: [],
    s,
    rank,
    max_disp_len: Math.max(1, Math.min(LIMITS.maxDispLen, Math.round(maxDispLen))),
  });
  return windowOf(body);
}

/**
 * `get_doc_by_rank` on infini-gram mini: `maxCtxLen` bytes on each side of the occurrence of `query` at
 * (s, rank). A window that cuts a multi-byte character is refused by the server; the caller retries with
 * another length ({@link isUtf8Cut}).
 */
export async function documentByRankMini(
  post: Post,
  index: string,
  query: string,
  s: number,
  rank: number,
  maxCtxLen: number,
): Promise<DocumentWindow> {
  const { body } = await post({
    index,
    query_type: 'get_doc_by_rank',
    query,
    s,
    rank,
    max_ctx_len: Math.max(1, Math.min(LIMITS.maxCtxLen, Math.round(maxCtxLen))),
  });
  return windowOf(body);
}

/** True for the mini server's refusal of a window cut inside a UTF-8 character. */
export function isUtf8Cut(e: unknown): boolean {
  return e instanceof RemoteCallError && e.kind === 'rejected' && /decode document text with UTF-8/i.test(e.message);
}

/** A document answer: the spans joined (or mini's `text`), the needle's offset, the metadata parsed. */
function windowOf(b: Record<string, unknown>): DocumentWindow {
  const docIx = int(b.doc_ix, 'doc_ix');
  const docLen = int(b.doc_len, 'doc_len');
  let text = '';
  let needleAt = -1;
  if (Array.isArray(b.spans)) {
    for (const span of b.spans) {
      if (!Array.isArray(span) || typeof span[0] !== 'string' || (span[1] !== null && typeof span[1] !== 'string')) {
        return bad('spans is not a list of [text, label] pairs');
      }
      if (span[1] !== null && needleAt < 0) needleAt = text.length;
      text += span[0];
    }
  } else if (typeof b.text === 'string') {
    text = b.text;
  } else {
    return bad('a document answer has neither spans nor text');
  }
  if (typeof b.text === 'string' && Array.isArray(b.spans) && b.text !== text) {
    // mini sends both; the spans are cut from the text, so they must agree
    return bad('the spans of a document answer do not make up its text');
  }
  if (!isWellFormed(text)) return bad('a document answer holds a lone surrogate (its text is not Unicode)');
  return { docIx, docLen, text, needleAt, metadata: parseMetadata(b.metadata) };
}

/** The indexer's metadata string as an object, or null. */
export function parseMetadata(v: unknown): Record<string, unknown> | null {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v !== 'string' || v.trim() === '') return null;
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
