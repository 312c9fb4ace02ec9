/**
 * A long work against a remote corpus, by sampling. The full search (./search.ts) tokenizes the whole text and
 * samples it every few tokens: about 90 calls per 1,000 words, so a 100,000-word novel would need some 9,000 calls
 * per corpus. Past {@link SAMPLE_ABOVE_WORDS_PER_CALL} words per call of its budget, a work is searched instead by
 * passages drawn across it — the question a rights holder asks of a book is "how much of it is in this corpus, and
 * where", a share, which a sample answers with a known error:
 *
 * 1. *Draw.* {@link PASSAGE_WORDS}-word passages, stratified by section (a file's chapters; else ten equal parts)
 *    with allocation proportional to each section's words, placed systematically from a random start within each
 *    section. The random numbers are seeded by the SHA-256 of the text: the same work draws the same passages, so a
 *    second search answers from the cache and gives the same result.
 * 2. *Search.* infini-gram: one `infgram_prob` of the passage's text gives the longest run ending at its last word
 *    that the corpus holds; a passage is found when that run is ≥ {@link FOUND_TOKENS} tokens, after asking again
 *    with its line breaks in the other form where a shorter run stops at one (./line-breaks.ts). infini-gram mini:
 *    one `find` of the passage's last {@link MINI_FIND_WORDS} words, found when it occurs.
 * 3. *Passages with spans.* Found passages spread over the work are resolved as the full search resolves its regions
 *    — the document fetched, the stretch aligned — within the calls left ({@link followUpReserve}); the rest are
 *    counted as found without a document, and enter the share but no evidence.
 * 4. *Share.* src/corpus/share.ts: the estimate and its 95 % interval from found / passages and the search's measured
 *    sensitivity and false-found rate, in the report's `sampling` with the counts per section.
 */
import type { RemoteMatch } from '../datasets/types.js';
import type { RemoteSampling, RemoteSearch, RemoteSearchOptions } from '../corpus/remote-types.js';
import {
  estimateShare,
  SAMPLING_FALSE_FOUND,
  SAMPLING_SENSITIVITY,
  SAMPLING_SENSITIVITY_WORST,
} from '../corpus/share.js';
import { find, infgramProb } from './api.js';
import { LineBreakRetry, type SWAP_MIN_TOKENS, SWAP_TRIES } from './line-breaks.js';
import {
  charWindow,
  evidenceOf,
  type Found,
  followUp,
  followUpReserve,
  mapPool,
  type Region,
  type Sample,
  type SearchContext,
  Session,
  type SessionPost,
  type Span,
  tokenWindow,
  wordSpans,
} from './search.js';
import { mapTokens } from './token-map.js';
import { mulberry32 } from '../util/random.js';

/** Words of a sampled passage. */
export const PASSAGE_WORDS = 48;
/** infini-gram: a passage is found when the corpus holds a run of at least this many tokens ending at its end. */
export const FOUND_TOKENS = 20;
/** infini-gram mini: words at the end of a passage that `find` looks for, verbatim. */
export const MINI_FIND_WORDS = 16;
/**
 * A text with more words than this per call of its budget is sampled (12,000 words at the default 400 calls): below
 * it, the full search still samples every ≤ 72 tokens after tokenizing the text.
 */
export const SAMPLE_ABOVE_WORDS_PER_CALL = 30;
/** Strata of a text without sections. */
const PLAIN_STRATA = 10;
/** Calls a found passage costs to resolve into spans (a `find` and a document). */
const RESOLVE_CALLS = 2;
/**
 * infini-gram: calls planned per passage, line-break retries included (plans the number of passages): a corpus that
 * breaks its lines elsewhere than the work needs one or two more calls for each passage it holds.
 */
const CALLS_PER_PASSAGE = 2;
/**
 * infini-gram: a passage's run at least this long (tokens) that falls short of {@link FOUND_TOKENS} is asked again
 * with its line breaks changed: a run back from the passage's end stops at the corpus's last line break before it,
 * anywhere in the last line (so lower than the full search's {@link SWAP_MIN_TOKENS}).
 */
const PASSAGE_SWAP_MIN_TOKENS = 3;

/** Whether a text of `words` words is sampled under a budget of `budget` calls. */
export function sampledSearch(words: number, budget: number): boolean {
  return words > SAMPLE_ABOVE_WORDS_PER_CALL * budget;
}

/** A drawn passage: its section (stratum) and its UTF-16 span in the text. */
export interface DrawnPassage {
  readonly section: number;
  readonly q0: number;
  readonly q1: number;
}

/**
 * `n` passages of {@link PASSAGE_WORDS} words drawn across `text` (see the module comment, step 1): per section in
 * proportion to its words (largest remainders), systematically from a seeded random start; never overlapping.
 *
 * @example
 * drawPassages(book, [{ start: 0, end: book.length }], 100, 'a1b2c3d4e5f60718').length // 100 (or fewer: short text)
 */
export function drawPassages(
  text: string,
  sections: ReadonlyArray<{ readonly start: number; readonly end: number }>,
  n: number,
  seed: string,
): DrawnPassage[] {
  const words = wordSpans(text);
  const strata = sections.map((s) => {
    let lo = 0,
      hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (words[mid].start < s.start) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < words.length && words[end].start < s.end) end++;
    return { first: lo, count: end - lo };
  });
  const total = strata.reduce((t, s) => t + s.count, 0);
  if (total === 0 || n <= 0) return [];
  // proportional allocation, largest remainders first; a section holds at most as many passages as fit in it
  const room = strata.map((s) => Math.floor(s.count / PASSAGE_WORDS));
  const want = strata.map((s) => (n * s.count) / total);
  const take = want.map((w, i) => Math.min(room[i], Math.floor(w)));
  let left =
    Math.min(
      n,
      room.reduce((t, r) => t + r, 0),
    ) - take.reduce((t, k) => t + k, 0);
  const fraction = (i: number) => want[i] - Math.floor(want[i]);
  const order = want.map((_, i) => i).sort((a, b) => fraction(b) - fraction(a) || a - b);
  for (let pass = 0; left > 0 && pass < 2 * strata.length + 2; pass++) {
    for (const i of order) {
      if (left === 0) break;
      if (take[i] < room[i]) {
        take[i]++;
        left--;
      }
    }
  }
  const base = Number.parseInt(seed.slice(0, 8), 16) >>> 0;
  const out: DrawnPassage[] = [];
  strata.forEach((s, i) => {
    const k = take[i];
    if (k === 0) return;
    const rand = mulberry32(base ^ Math.imul(i + 1, 0x9e3779b1));
    const step = s.count / k; // ≥ PASSAGE_WORDS: k ≤ room
    const offset = rand() * (step - PASSAGE_WORDS);
    for (let j = 0; j < k; j++) {
      const w0 = s.first + Math.floor(offset + j * step);
      const w1 = Math.min(s.first + s.count, w0 + PASSAGE_WORDS);
      out.push({ section: i, q0: words[w0].start, q1: words[w1 - 1].end });
    }
  });
  return out;
}

/** What searching one passage gave: found or not, and the run that found it (to resolve into spans). */
interface Probed {
  readonly passage: DrawnPassage;
  readonly found: boolean;
  readonly span: Span | null;
  readonly best: Best | null;
}

/**
 * Search `text` in the corpus of `ctx` by sampling its passages (see the module comment). Never throws for the
 * corpus's failures: the report says what happened, and the share is over the passages that were asked.
 */
export async function sampleRemote(
  ctx: SearchContext,
  text: string,
  options: RemoteSearchOptions = {},
): Promise<RemoteSearch> {
  const limit = Math.min(options.maxCalls ?? Infinity, ctx.config.maxCalls);
  const session = new Session(ctx, limit, options);
  const seed = ctx.kit.sha256Text(text).slice(0, 16);
  const sections = options.sections?.length ? options.sections : plainStrata(text.length);
  const reserve = followUpReserve(limit);
  const perPassage = ctx.config.kind === 'infini-gram' ? CALLS_PER_PASSAGE : 1;
  const drawn = drawPassages(text, sections, Math.floor((limit - reserve) / perPassage), seed);
  // calls asked, answered from the cache or not: what plans the retries and fetches, so that a second search of the
  // same work, answered from the cache, asks exactly the same calls
  let asked = 0;
  const post: SessionPost = (body) => {
    asked++;
    return session.call(body).then((b) => ({ body: b, ms: 0 }));
  };
  let found: Found;
  try {
    // asked in a seeded random order: passages a deadline leaves unasked are a random few, not the last sections
    const order = shuffled(drawn, seed);
    const probed = await mapPool(order, ctx.config.concurrency, (p) =>
      session.maySample() ? probe(ctx, session, post, text, p) : Promise.resolve(null),
    );
    // runs cut short by a line break, asked again in the other form: the tries shared out in the draw's order, the
    // same for the same work whatever order the answers came in
    const short = probed.filter(
      (p): p is Probed & { best: Best } =>
        p !== null && !p.found && p.best !== null && p.best.len >= PASSAGE_SWAP_MIN_TOKENS,
    );
    // in rounds of one call each, longest runs first (most likely a held passage cut by a line break), while the
    // calls last: the same calls for the same work whatever order the answers come in
    short.sort((a, b) => b.best.len - a.best.len || a.passage.q0 - b.passage.q0);
    const retries = short.map((p) => new LineBreakRetry(text, p.passage.q0, p.passage.q1, p.best.q0));
    let tries = Math.max(0, limit - asked - reserve);
    for (let round = 0; round < SWAP_TRIES && tries > 0 && !session.stopped; round++) {
      // retries are samples: none once sampling's share of the deadline has passed
      if (!session.maySample()) break;
      const wanted = retries.filter((r) => !r.done && (r.best?.len ?? 0) < FOUND_TOKENS).slice(0, tries);
      tries -= wanted.length;
      await mapPool(wanted, ctx.config.concurrency, (r) =>
        r.step(post, ctx.config.index).catch((e) => {
          r.done = true;
          session.unusable(e);
        }),
      );
    }
    const retried = short.map((p, i) => (retries[i].best ? probedOf(p.passage, retries[i].best) : p));
    const again = new Map<Probed, Probed>(short.map((p, i) => [p, retried[i]]));
    const answered = probed
      .filter((p): p is Probed => p !== null)
      .map((p) => again.get(p) ?? p)
      .sort((a, b) => a.passage.q0 - b.passage.q0);
    const hits = answered.filter((p) => p.found && p.span);
    // resolve an even spread of the found passages within the calls left (a few kept for a mini window's retries)
    const room = Math.max(0, Math.floor((limit - asked - 4) / RESOLVE_CALLS));
    const chosen =
      hits.length <= room ? hits : Array.from({ length: room }, (_, j) => hits[Math.floor((j * hits.length) / room)]);
    const regions: Region[] = chosen.map(({ span }) => ({
      q0: span!.q0,
      q1: span!.q1,
      best: span!,
      start: span!.start,
      end: span!.end,
    }));
    const fetch =
      ctx.config.kind === 'infini-gram' ? tokenWindow(post, ctx.config.index) : charWindow(post, ctx.config.index);
    const { passages, windows } = await followUp(ctx, session, text, regions, fetch);
    const resolved = (p: Probed) => passages.some((x) => overlaps(x.match, p.passage));
    const samples: Sample[] = answered.map((p) => ({ at: p.passage.q1, hit: p.found, span: p.span }));
    found = {
      samples,
      stride: Math.round(wordSpans(text).length / Math.max(1, answered.length)),
      unit: 'words' as const,
      passages,
      windows,
      unresolved: hits.filter((p) => !resolved(p)).map((p) => p.passage),
      sampling: samplingOf(answered, drawn.length, sections.length, seed),
    };
  } finally {
    await session.end();
  }
  return evidenceOf(ctx, session, text, found);
}

const overlaps = (m: RemoteMatch, p: DrawnPassage): boolean => m.query_start < p.q1 && p.q0 < m.query_end;

/** `items` in an order seeded by `seed` (Fisher–Yates). */
function shuffled<T>(items: readonly T[], seed: string): T[] {
  const out = items.slice();
  const rand = mulberry32(Number.parseInt(seed.slice(8, 16), 16) >>> 0);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A text without sections in {@link PLAIN_STRATA} equal parts. */
function plainStrata(length: number): Array<{ start: number; end: number }> {
  return Array.from({ length: PLAIN_STRATA }, (_, i) => ({
    start: Math.floor((i * length) / PLAIN_STRATA),
    end: Math.floor(((i + 1) * length) / PLAIN_STRATA),
  }));
}

/** The longest run the corpus holds ending at a passage's end: its ids as the corpus holds them, span, count. */
interface Best {
  readonly ids: number[];
  readonly q0: number;
  readonly q1: number;
  readonly len: number;
  readonly count: number;
}

/** A passage with its best run: found when the run is long enough (infini-gram). */
function probedOf(passage: DrawnPassage, best: Best | null): Probed {
  const span: Span | null = best
    ? { start: 0, end: best.len, q0: best.q0, q1: best.q1, count: best.count, query: best.ids }
    : null;
  return { passage, found: (best?.len ?? 0) >= FOUND_TOKENS, span, best };
}

/** Search one passage with one call (see the module comment, step 2); null when a failure of the corpus ended it. */
async function probe(
  ctx: SearchContext,
  session: Session,
  post: SessionPost,
  text: string,
  p: DrawnPassage,
): Promise<Probed | null> {
  const index = ctx.config.index;
  try {
    if (ctx.config.kind !== 'infini-gram') {
      let q0 = p.q0;
      const ends = [...text.slice(p.q0, p.q1).matchAll(/\S+/g)];
      if (ends.length > MINI_FIND_WORDS) q0 = p.q0 + ends[ends.length - MINI_FIND_WORDS].index;
      const query = text.slice(q0, p.q1);
      const f = await find(post, index, query);
      const span: Span = { start: 0, end: MINI_FIND_WORDS, q0, q1: p.q1, count: f.cnt, query, found: f };
      return { passage: p, found: f.cnt > 0, span, best: null };
    }
    const piece = text.slice(p.q0, p.q1);
    const a = await infgramProb(post, index, piece);
    const m = mapTokens(piece, p.q0, a.tokenIds, a.tokens);
    const n = m.ids.length;
    const first = n - 1 - a.suffixLen;
    return probedOf(
      p,
      a.suffixLen > 0 && first >= 0
        ? {
            ids: Array.from(m.ids.subarray(first, n - 1)),
            q0: m.starts[first],
            q1: m.ends[n - 2],
            len: a.suffixLen,
            count: a.promptCnt,
          }
        : null,
    );
  } catch (e) {
    session.unusable(e);
    return null;
  }
}

/** The report's `sampling`: counts overall and per section, and the share with its interval. */
function samplingOf(asked: readonly Probed[], drawn: number, strata: number, seed: string): RemoteSampling {
  const found = asked.filter((p) => p.found).length;
  const sections = Array.from({ length: strata }, (_, section) => {
    const here = asked.filter((p) => p.passage.section === section);
    return { section, passages: here.length, found: here.filter((p) => p.found).length };
  });
  return {
    method: 'stratified_passages',
    passages: asked.length,
    passage_words: PASSAGE_WORDS,
    found,
    share: estimateShare({ passages: asked.length, found }),
    sensitivity: SAMPLING_SENSITIVITY,
    sensitivity_worst: SAMPLING_SENSITIVITY_WORST,
    false_found: SAMPLING_FALSE_FOUND,
    seed,
    skipped: drawn - asked.length,
    sections,
  };
}
