/**
 * A long work against a remote corpus, by sampling. The full search (./search.ts) tokenizes the whole text and
 * samples it every few tokens: about 90 calls per 1,000 words, so a 100,000-word novel would need some 9,000 calls
 * per corpus. Past {@link SAMPLE_ABOVE_WORDS_PER_CALL} words per call of its budget, a work is searched instead by
 * passages drawn across it — the question a rights holder asks of a book is "how much of it is in this corpus, and
 * where", a share, which a sample answers with a known error. The corpus's copy seldom has the work's form (line
 * breaks, quotes, dashes: ./forms.ts), and an engine's answers are checked against its own documents:
 *
 * 1. *Draw.* {@link PASSAGE_WORDS}-word passages, stratified by section (a file's chapters; else ten equal parts)
 *    with allocation proportional to each section's words, placed systematically from a random start within each
 *    section. The random numbers are seeded by the SHA-256 of the text: the same work draws the same passages, so a
 *    second search answers from the cache and gives the same result. As many as the budget pays for with each asked
 *    all its calls, less the controls and a reserve for steps 3–4 (infini-gram a quarter of the budget; mini
 *    {@link CHAR_RESERVE_CALLS}): with none found, the share's upper end falls with their number (0.05 from 120).
 * 2. *Search*, a call after another until found, at most {@link TOKEN_QUERIES} (infini-gram) or {@link CHAR_WINDOWS}
 *    (mini) calls a passage, of short windows of it that a copy in another form most likely holds verbatim: inside
 *    one line of the work, free of quotes, dashes and sentence ends (./forms.ts `quietWindows`), so that their only
 *    exposure is a line break of the copy's own, which a window of a few words misses more often than not.
 *    infini-gram (a token index: a word after the copy's line break is another token than after a space): a `count`
 *    of up to {@link MAX_OR_TERMS} windows OR-ed (the API's CNF), found when any occurs — four windows in one call
 *    miss only where the copy breaks a line inside each; which one occurs is asked (`find`) only for a passage whose
 *    document is fetched. infini-gram mini (no OR, no CNF): `find` of one window after another, found when one occurs.
 *    First, {@link CANARY_CALLS} control calls of the same shape that no honest corpus answers found: windows of
 *    sampled passages with their words reversed (./forms.ts `canaryWindows`). An engine that reports them found
 *    reports found what nobody wrote (an engine echoing its queries): `invalid_response`, no share.
 * 3. *Documents.* An even spread of the found passages, as many as the calls left pay for (with the rate of step 4):
 *    the document of each fetched and the work aligned with it locally (the aligner reads words, not white space or
 *    quote forms); on infini-gram the window that occurs is found first, by `find` of each in turn.
 *    A document that does not hold the stretch the engine reported found, or aligns with the passage but with nothing
 *    of the work around it, contradicts the engine: past {@link CONTRADICTION_SHARE} of the documents, the corpus's
 *    outcome is `invalid_response` and it gets no share. A document that holds only the short window sent and none of
 *    the work's words beside it is a chance find (an ordinary phrase of a web-scale corpus, the controls answered
 *    honestly): that passage is not held there — not verified, like any other unverified find.
 *    A found passage counts where its document holds it, checked where the passage is ({@link check}: verified), and
 *    the found passages not fetched count at the rate the checked ones were verified; a document neither verified
 *    nor shown not to hold the passage is unchecked — no evidence either way.
 * 4. *Detection rate.* On each side of each verified passage, a passage of the aligned stretch — one the corpus is
 *    known to hold, in whatever form it holds it — {@link CALIBRATION_GAP_WORDS} words from it where the stretch
 *    reaches so far, is searched as the sample was, with the calls left: the share of those found is the search's
 *    detection rate in this corpus, measured in the same run: in rounds of as many passages as the calls left pay for
 *    at the most calls a passage, until the calls or the passages run out.
 * 5. *Share.* src/corpus/share.ts: the verified found share over the detection rate, with a 95 % interval that
 *    widens with each rate's own uncertainty and runs from none to all of the unchecked finds held; in the report's
 *    `sampling` with the counts per section.
 */
import type { RemoteMatch } from '../datasets/types.js';
import type { RemoteSampling, RemoteSearch, RemoteSearchOptions } from '../corpus/remote-types.js';
import {
  estimateShare,
  SAMPLING_FALSE_FOUND,
  SAMPLING_SENSITIVITY,
  SAMPLING_SENSITIVITY_WORST,
} from '../corpus/share.js';
import { countAny, find, MAX_OR_TERMS } from './api.js';
import {
  canaryWindows,
  holdsText,
  letters,
  quietWindows,
  windowTerms,
  WINDOW_MIN_WORDS,
  type Window,
} from './forms.js';
import {
  charWindow,
  countWords,
  evidenceOf,
  type Found,
  followUp,
  followUpReserve,
  type Passage,
  type Region,
  type Sample,
  type SearchContext,
  Session,
  type SessionPost,
  type ShardWindow,
  type Span,
  tokenWindow,
  wordSpans,
} from './search.js';
import { RemoteCallError } from './transport.js';
import { mulberry32 } from '../util/random.js';
import { mapLimit } from '../util/pool.js';
import { lowerBound } from '../util/sorted.js';

/** Words of a sampled passage. */
export const PASSAGE_WORDS = 48;
/**
 * infini-gram: calls at most per passage, each a `count` of up to {@link MAX_OR_TERMS} windows of it OR-ed (so
 * {@link TOKEN_QUERIES} × {@link MAX_OR_TERMS} windows in all).
 */
export const TOKEN_QUERIES = 2;
/**
 * infini-gram mini: windows at most per passage, one call each. A corpus holding nothing of the work answers every
 * window of every passage not found, so the passages a budget pays for are its calls over this: with none found, the
 * share's upper end is the Wilson upper end of 0 of n over the least detection rate measured (0.627), and it stays at
 * or under 0.05 from n = 120. With four (74 passages at 400 calls, the follow-up reserve of infini-gram kept back) it
 * was 0.079; with two (149 passages) 0.040, but the detection rate on dense text hard-wrapped fell to 0.70 and, at
 * 600-character documents, the estimate at half held to 0.30 (calibration passages beside found ones are found more
 * often than a held passage at random: the fewer windows, the more the difference counts). The windows are the
 * passage's first of its quiet windows in order ({@link quietWindows}); the detection rate is measured with as many.
 */
export const CHAR_WINDOWS = 3;
/**
 * infini-gram mini: windows at most per passage where the calls pay for one more window of every passage not found
 * after {@link CHAR_WINDOWS}, with infini-gram's follow-up reserve still left (./search.ts `followUpReserve`): where
 * most of the work is found, so that few windows are asked. The detection rate is then measured with as many. Fewer
 * windows miss more of the passages that are hard to find (dense text hard-wrapped), and the calibration passages,
 * beside found ones in short documents, are found more often than those: with 3 windows, dense text held whole in
 * 2,000-character documents on the real mini read 0.82–0.89 and its interval missed the truth in 2 draws of 10.
 */
export const CHAR_WINDOWS_MOST = 4;
/**
 * infini-gram mini: calls kept back from the draw for the follow-up (documents, detection rate). Less than
 * infini-gram's quarter of the budget: a passage found costs fewer windows than one not found (most are found at the
 * first), and what it leaves pays for its follow-up; a corpus holding nothing needs none. 124 passages at 400 calls:
 * none found, 374 calls and an upper end of 0.048.
 */
export const CHAR_RESERVE_CALLS = 24;
/** Words of a passage its document must align with for it to count (a stock phrase found by chance does not). */
export const VERIFY_WORDS = 20;
/** Words of the work beyond a verified passage its document must hold too (not only the text that was sent). */
export const BEYOND_WORDS = 10;
/** Rounds of calibration passages at most (each as many as the calls left pay for: ./sampling.ts step 4). */
export const CALIBRATION_WAVES = 4;
/**
 * Control calls (canaries) asked before the passages, of the budget: windows of the work with their words reversed,
 * which no honest corpus holds (./forms.ts `canaryWindows`) — on infini-gram up to {@link MAX_OR_TERMS} OR-ed a call,
 * on infini-gram mini one a call. An engine that reports every one of them found reports found what nobody wrote.
 */
export const CANARY_CALLS = 2;
/** Share of the fetched documents that may fail to hold what the engine reported found before its answers are void. */
export const CONTRADICTION_SHARE = 0.25;
/**
 * A text with more words than this per call of its budget is sampled (12,000 words at the default 400 calls): below
 * it, the full search still samples every ≤ 72 tokens after tokenizing the text.
 */
export const SAMPLE_ABOVE_WORDS_PER_CALL = 30;
/**
 * The calibration passages' design effect in the share's interval (src/corpus/share.ts): two from each fetched
 * document, found or missed together more often than two drawn apart.
 */
export const DETECTION_DESIGN_EFFECT = 2;
/** Strata of a text without sections. */
const PLAIN_STRATA = 10;
/**
 * infini-gram: tokens of document fetched on each side of a found run, and characters of the work aligned with it on
 * each side of the passage: room for calibration passages far from the passage that was found (step 4). Findability
 * varies along a work (a paragraph of code, of names, of dialogue), so a passage right beside a found one is found
 * more often than a held passage drawn at random: a rate measured there is too high and the share too low (measured:
 * text whose kind changes every 120 words, hard-wrapped, every passage held, the estimate 0.85 with the interval
 * below 1 in 40 draws of 40, calibration passages beside the found ones). The work is aligned that far only where the
 * window holds twice {@link DOCUMENT_REACH_CHARS} (./search.ts `alignRegion`), so the tokens must hold it on the densest
 * text: made-up words and code-like identifiers run at 1.8 characters a Llama-2 token (818,030 characters in 452,396
 * tokens), where 1,000 tokens a side held too little and the calibration passages were aligned right beside the found
 * one (real infini-gram, such a text hard-wrapped and held whole: 0.84 [0.72, 0.98] for a truth of 1.00).
 */
export const DOCUMENT_REACH_TOKENS = 2_000;
/** Words between a found passage and a calibration passage, where the document's stretch reaches so far. */
const CALIBRATION_GAP_WORDS = 100;
/** Characters of the work aligned beyond a found passage's region on each side (./search.ts `Region.reach`). */
export const DOCUMENT_REACH_CHARS = 3_500;

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
  const starts = words.map((w) => w.start);
  const strata = sections.map((s) => {
    const first = lowerBound(starts, s.start);
    return { first, count: lowerBound(starts, s.end, first) - first };
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

/** A passage's search: found or not, and the stretch that found it (to fetch its document by). */
interface Probed {
  readonly passage: DrawnPassage;
  found: boolean;
  span: Span | null;
  /** The canonical text of the stretch found (what its document must hold). */
  stretch: string;
  /** Calls asked for it. */
  calls: number;
  /** No more calls: found, or nothing left to ask. */
  done: boolean;
  /** A call failed: the passage is not in the sample (a failure is no "not found"). */
  failed: boolean;
  /** infini-gram mini: its windows, asked in turn. */
  windows: Window[];
  /** infini-gram: the terms of each call (windows of the passage in the forms a copy may have them), asked in turn. */
  batches: Term[][];
  /**
   * infini-gram: the terms of the call that found the passage, with their token ids: which of them occurs is
   * learnt only when its document is fetched ({@link resolveTerm}); null until found, or once resolved.
   */
  terms: Array<Term & { readonly ids: readonly number[] }> | null;
}

/** A window of a passage and one form of it to ask for. */
interface Term {
  readonly window: Window;
  readonly query: string;
}

/** A found passage whose document was asked for: what the document showed. */
interface Checked {
  readonly probed: Probed;
  /** The engine's document holds the stretch it reported found, and more of the work than was sent where it aligns. */
  readonly held: boolean;
  /** The work aligns with the document over at least {@link VERIFY_WORDS} words of the passage. */
  readonly verified: boolean;
  /**
   * The document holds the stretch sent and not the work's word on either side of it: it shows only what was asked,
   * so the passage is not held there (a chance find; without answered control calls, from a quarter of the passages
   * asked: the engine's answers are void).
   */
  readonly refuted: boolean;
  /**
   * Of the refuted: the document holds the stretch where another place of the work has it ({@link placeReach}),
   * a true copy of that place — not evidence of an engine echoing its queries.
   */
  readonly elsewhere: boolean;
  /** The aligned stretch of the work around the passage (for a calibration passage), or null. */
  readonly aligned: { readonly q0: number; readonly q1: number } | null;
  /** The document's text where it was fetched for this passage (not where another's window covered it). */
  readonly document?: string;
}

/**
 * Search `text` in the corpus of `ctx` by sampling its passages (see the module comment). Never throws for the
 * corpus's failures: the report says what happened; a corpus whose documents contradict its answers gets no share.
 */
export async function sampleRemote(
  ctx: SearchContext,
  text: string,
  options: RemoteSearchOptions = {},
): Promise<RemoteSearch> {
  const limit = Math.min(options.maxCalls ?? Infinity, ctx.config.maxCalls);
  const session = new Session(ctx, limit, options);
  const plan = planOf(text);
  const seed = plan.once('seed', () => ctx.kit.sha256Text(text).slice(0, 16));
  const sections = options.sections?.length ? options.sections : plainStrata(text.length);
  const tokens = ctx.config.kind === 'infini-gram';
  const reserve = tokens ? followUpReserve(limit) : Math.min(limit, CHAR_RESERVE_CALLS);
  const perPassage = tokens ? TOKEN_QUERIES : CHAR_WINDOWS;
  const n = Math.max(0, Math.floor((limit - reserve - CANARY_CALLS) / perPassage));
  const drawn = plan.once(`drawn ${n} ${seed} ${sections.map((s) => `${s.start}-${s.end}`).join(',')}`, () =>
    drawPassages(text, sections, n, seed),
  );
  // calls asked, answered from the cache or not: what plans the later steps, so that a second search of the same
  // work, answered from the cache, asks exactly the same calls
  let asked = 0;
  const post: SessionPost = (body) => {
    asked++;
    return session.call(body).then((b) => ({ body: b, ms: 0 }));
  };
  const probe = prober(ctx, session, post);
  let found: Found;
  try {
    // asked in a seeded random order: passages a deadline leaves unasked are a random few, not the last sections
    const order = shuffled(drawn, seed).map((p) => startProbe(text, p, tokens));
    const control = await askCanaries(ctx, session, post, text, drawn);
    await probeRounds(ctx, session, order, probe, perPassage);
    // mini: a window more for every passage not found, where the calls pay for it with the follow-up reserve left
    const depth = tokens
      ? perPassage
      : await oneWindowMore(ctx, session, order, probe, limit - asked - followUpReserve(limit));
    const answered = order
      .filter((p) => p.calls > 0 && p.done && !p.failed)
      .sort((a, b) => a.passage.q0 - b.passage.q0);
    const hits = answered.filter((p) => p.found && p.span);
    // 3. documents of an even spread of the found passages, as many as the calls left pay for with the rate
    // measured on up to two passages beside each: mini, a call for the document and one or two a passage (a third
    // of the calls left); infini-gram, a `find` of each term of the call that found it until one occurs (about two),
    // the document, and about one a passage
    const perDocument = tokens ? 5 : 3;
    const room = Math.max(0, Math.floor((limit - asked) / perDocument));
    const chosen =
      hits.length <= room ? hits : Array.from({ length: room }, (_, j) => hits[Math.floor((j * hits.length) / room)]);
    const got = new Map<Region, ShardWindow | null>();
    const regions: Region[] = chosen.map(({ span, passage }) => ({
      q0: Math.min(passage.q0, span!.q0),
      q1: Math.max(passage.q1, span!.q1),
      reach: DOCUMENT_REACH_CHARS,
      best: span!,
      start: span!.start - DOCUMENT_REACH_TOKENS,
      end: span!.end + DOCUMENT_REACH_TOKENS,
    }));
    const byRegion = new Map(regions.map((r, i) => [r, chosen[i]]));
    const { passages, windows } = await followUp(ctx, session, text, regions, documentOf(ctx, post, byRegion, got));
    const checked: Checked[] = session.stopped
      ? []
      : regions.map((r) => check(text, byRegion.get(r)!, got.has(r) ? got.get(r)! : undefined, passages));
    const contradicted = checked.filter((c) => !c.held).length;
    if (contradicted > 0 && contradicted >= CONTRADICTION_SHARE * checked.length) {
      session.unusable(
        new RemoteCallError(
          'invalid_response',
          `the documents the engine returned do not hold ${contradicted} of the ${checked.length} passages it reported found`,
        ),
      );
    }
    // documents that hold only what was sent: chance finds of short windows (a web-scale corpus holds many) where the
    // control queries were answered as an honest corpus answers them — not verified, so they lower the verified rate.
    // Without an answered control (no window to reverse), for a quarter of the passages asked or more: an engine
    // echoing its queries
    const refuted = checked.filter((c) => c.refuted && !c.elsewhere).length;
    if (!control && !session.stopped && refuted > 0 && refuted >= CONTRADICTION_SHARE * answered.length) {
      session.unusable(
        new RemoteCallError(
          'invalid_response',
          `the documents the engine returned hold only the stretch sent, nothing of the work around it, for ${refuted} of the ${answered.length} passages searched`,
        ),
      );
    }
    // 4. the detection rate, measured: passages the documents show the corpus holds, searched as the sample was
    const calibration = session.stopped
      ? { hits: 0, trials: 0 }
      : await measureDetection(ctx, session, text, checked, probe, {
          left: () => limit - asked,
          perPassage: depth,
          tokens,
        });
    const rejected = new Set(checked.filter((c) => !c.verified).map((c) => c.probed));
    const resolved = (p: Probed) => passages.some((x) => overlaps(x.match, p.passage));
    // a found passage its document does not hold is not a hit of the evidence either
    const samples: Sample[] = answered.map((p) => ({
      at: p.passage.q1,
      hit: p.found && !rejected.has(p),
      span: p.span,
    }));
    found = {
      samples,
      stride: Math.round(wordSpans(text).length / Math.max(1, answered.length)),
      unit: 'words' as const,
      passages,
      windows,
      unresolved: hits.filter((p) => !resolved(p)).map((p) => p.passage),
      sampling: samplingOf(answered, rejected, checked, calibration, drawn.length, sections.length, seed),
    };
  } finally {
    await session.end();
  }
  const result = evidenceOf(ctx, session, text, found);
  // an engine whose answers could not be used is given no share: what it said cannot be counted
  if (result.report.outcome === 'invalid_response' && result.report.sampling) {
    const { sampling: _, ...report } = result.report;
    return { ...result, report };
  }
  return result;
}

/**
 * The detection rate, measured (step 4 of {@link sampleRemote}): passages beside the verified ones, which the
 * fetched documents show the corpus holds, searched as the sample was. In waves: each takes as many passages as the
 * calls left pay for at the most calls a passage (so every one is searched to its end, none cut short by the
 * budget), an even spread of those not yet searched; a passage found at its first call leaves calls for the next
 * wave (a rate measured on few passages is a wide interval).
 */
async function measureDetection(
  ctx: SearchContext,
  session: Session,
  text: string,
  checked: readonly Checked[],
  probe: ReturnType<typeof prober>,
  calls: { readonly left: () => number; readonly perPassage: number; readonly tokens: boolean },
): Promise<{ hits: number; trials: number }> {
  const calibration = { hits: 0, trials: 0 };
  // never two overlapping: found passages of one stretch of a document give it the same far passages, and the same
  // call asked twice at once would be answered once or twice, by the cache or not, as the timing goes
  const kept: DrawnPassage[] = [];
  // the fetched documents' letters: a passage aligned in a window fetched for another found passage is checked there
  const documents = checked.flatMap((c) => (c.document === undefined ? [] : [letters(c.document)]));
  for (const c of checked) {
    if (!c.verified || !c.aligned) continue;
    for (const p of calibrationPassages(text, c.probed.passage, c.aligned))
      if (!kept.some((k) => k.q0 < p.q1 && p.q0 < k.q1) && holdsOwnQuarter(text, p, documents)) kept.push(p);
  }
  let left = kept;
  for (let wave = 0; wave < CALIBRATION_WAVES && left.length > 0 && !session.stopped; wave++) {
    const fits = Math.max(0, Math.floor(calls.left() / calls.perPassage));
    if (fits === 0) break;
    const picked =
      left.length <= fits ? left : Array.from({ length: fits }, (_, j) => left[Math.floor((j * left.length) / fits)]);
    const taken = new Set(picked);
    left = left.filter((p) => !taken.has(p));
    const trials = picked.map((p) => startProbe(text, p, calls.tokens));
    await probeRounds(ctx, session, trials, probe, calls.perPassage);
    for (const t of trials) {
      if (t.calls === 0 || !t.done || t.failed) continue;
      calibration.trials++;
      if (t.found) calibration.hits++;
    }
  }
  return calibration;
}

const overlaps = (m: RemoteMatch, p: { q0: number; q1: number }): boolean => m.query_start < p.q1 && p.q0 < m.query_end;

/**
 * What a found passage's document showed (see {@link Checked}); `window` undefined: not fetched (already covered).
 *
 * The passage is verified against its own place in the document: the passages aligned in that document (each region
 * aligned with its own window, ./search.ts `followUp`) are joined where they follow each other in the work
 * ({@link alignedChains}), and the chain that holds most of the passage is what the document holds there. Verified:
 * - the chain holds ≥ {@link VERIFY_WORDS} words of the passage and ≥ {@link BEYOND_WORDS} of the work beyond it;
 * - or the document ends inside the passage (the chain runs to an edge of the window there: a short document, the
 *   rest of the passage in the next one) and the chain holds ≥ {@link WINDOW_MIN_WORDS} words of the passage, the
 *   stretch found among them, and ≥ {@link BEYOND_WORDS} of the work beyond it;
 * - or the chain holds ≥ {@link VERIFY_WORDS} words of the passage and runs to an edge of the window (the document
 *   ends there, the work's words beyond in the next one).
 * Contradicted (not held): the document does not hold the stretch found, or the chain holds ≥ {@link VERIFY_WORDS}
 * words of the passage, fewer than {@link BEYOND_WORDS} beyond, and the window runs on past it on both sides (only
 * what was sent: an engine echoing its queries). Refuted: it holds the stretch found without the work's words beside
 * it ({@link refutesStretch}). Anything else is unchecked: the document holds the stretch with the work around it but
 * too little of the passage aligned to verify it (the passage runs into other text after a few words, or only a few
 * of its words are in this document) — no evidence either way (src/corpus/share.ts `verifiedShare`).
 */
function check(text: string, probed: Probed, window: ShardWindow | null | undefined, passages: Passage[]): Checked {
  const held = window === undefined || (window !== null && holdsText(window.text, probed.stretch));
  const p = probed.passage;
  const mine = passages.filter((x) => !window || (x.match.doc_ix === window.docIx && x.match.shard === window.shard));
  const wordsIn = (a: number, b: number) => (b > a ? countWords(text.slice(a, b)) : 0);
  const inPassage = (c: Chain) => wordsIn(Math.max(c.q0, p.q0), Math.min(c.q1, p.q1));
  const chain = alignedChains(text, mine).sort((x, y) => inPassage(y) - inPassage(x) || x.q0 - y.q0)[0];
  const within = chain ? inPassage(chain) : 0;
  // words of the work the chain holds beyond the passage: a real document runs on past a 48-word passage on one side
  const beyond = chain ? wordsIn(chain.q0, p.q0) + wordsIn(p.q1, chain.q1) : 0;
  const best = chain && within >= VERIFY_WORDS ? chain : undefined;
  const endsInside =
    chain !== undefined &&
    ((chain.start && chain.q0 > p.q0) || (chain.end && chain.q1 < p.q1)) &&
    within >= WINDOW_MIN_WORDS &&
    probed.span !== null &&
    chain.q0 <= probed.span.q0 &&
    probed.span.q1 <= chain.q1 &&
    beyond >= BEYOND_WORDS;
  // a document that aligns with the passage but with nothing of the work around it, inside a window that runs on past
  // it on both sides, holds only what was sent: an engine echoing its queries, not a copy. Where the chain runs to an
  // edge of the window, the document ends there (a short document: a paragraph, a passage cut in two): the work's
  // words beyond are in the next document, and the passage is verified
  const short = best !== undefined && beyond < BEYOND_WORDS;
  // unless the document holds the work's word beside the chain there (the aligner paired no more than the passage —
  // a paragraph of repeated names — though the document runs on with the work)
  const echo = short && !chain.start && !chain.end && !(window && holdsNeighbour(text, chain, window.text));
  const verified = held && ((best !== undefined && !echo) || endsInside);
  const aligned = best ?? (endsInside ? chain : undefined);
  // a stretch the work repeats, held in the document as another place of the work has it: a true copy of that place,
  // not of this one — the passage is not held here, and the engine contradicted nothing (for an echo: the chain it
  // aligned is that other place's text)
  const stretch = echo ? chain : probed.span;
  const reach =
    window != null && held && !verified && stretch ? placeReach(text, stretch.q0, stretch.q1, window.text) : null;
  const elsewhere = reach !== null && reach.other > reach.own + CONTEXT_LETTERS;
  // a find that agrees with this place only over phrases the work repeats: a chance find of them (unrelated code with
  // the same stock lines), not evidence of this place — not held, where it would have been left unchecked
  const common =
    window != null &&
    held &&
    !verified &&
    !echo &&
    probed.span !== null &&
    !agreesOwnWord(text, probed.span.q0, probed.span.q1, window.text);
  return {
    probed,
    held: held && (!echo || elsewhere),
    verified,
    elsewhere,
    refuted:
      elsewhere ||
      common ||
      (window != null &&
        held &&
        !verified &&
        !echo &&
        probed.span !== null &&
        refutesStretch(text, probed.span.q0, probed.span.q1, window.text)),
    aligned: aligned ? { q0: aligned.q0, q1: aligned.q1 } : null,
    document: window?.text,
  };
}

/** Words of a stretch's edge tested with the work's word beside it ({@link holdsNeighbour}). */
const NEIGHBOUR_TEST_WORDS = 3;

/**
 * Whether `document` holds the work's word before the stretch `c` followed by its first words, or its last words
 * followed by the work's word after it (letters and digits compared: forms aside).
 *
 * @example
 * holdsNeighbour('a b c d e f', { q0: 2, q1: 7 }, 'x a b c d y') // true: "a" then "b c d"
 */
export function holdsNeighbour(text: string, c: { q0: number; q1: number }, document: string): boolean {
  const inside = text.slice(c.q0, c.q1).match(/\S+/g) ?? [];
  const before = /(\S+)\s+$/u.exec(text.slice(Math.max(0, c.q0 - 200), c.q0));
  const after = /^\s+(\S+)/u.exec(text.slice(c.q1, c.q1 + 200));
  const head = inside.slice(0, NEIGHBOUR_TEST_WORDS).join(' '),
    tail = inside.slice(-NEIGHBOUR_TEST_WORDS).join(' ');
  return (
    inside.length > 0 &&
    ((before !== null && holdsText(document, `${before[1]} ${head}`)) ||
      (after !== null && holdsText(document, `${tail} ${after[1]}`)))
  );
}

/** Passages of one document that follow each other in the work, joined: its span and whether it runs to an edge. */
interface Chain {
  q0: number;
  q1: number;
  /** It starts (ends) at the start (end) of its window: the document starts (ends) there. */
  start: boolean;
  end: boolean;
}

/** Words of the work at most between two passages of a document for them to make one chain (an alignment's edge). */
const CHAIN_GAP_WORDS = 3;

/**
 * The passages of a document joined into chains where they follow each other in the work (at most
 * {@link CHAIN_GAP_WORDS} words apart): the stretches of the work the document holds, as its regions aligned them.
 */
export function alignedChains(text: string, passages: ReadonlyArray<Pick<Passage, 'match' | 'edges'>>): Chain[] {
  const sorted = passages.slice().sort((x, y) => x.match.query_start - y.match.query_start);
  const out: Chain[] = [];
  for (const { match: m, edges } of sorted) {
    const last = out.at(-1);
    if (last && m.query_start - last.q1 <= 0) {
      if (m.query_end > last.q1) [last.q1, last.end] = [m.query_end, edges?.end ?? false];
    } else if (last && countWords(text.slice(last.q1, m.query_start)) <= CHAIN_GAP_WORDS) {
      [last.q1, last.end] = [Math.max(last.q1, m.query_end), edges?.end ?? false];
    } else {
      out.push({ q0: m.query_start, q1: m.query_end, start: edges?.start ?? false, end: edges?.end ?? false });
    }
  }
  return out;
}

/**
 * Whether a document refutes a found stretch of the work (`q0`–`q1`): it holds the stretch, but not with the work's
 * two words before it nor with the two after it (one where the work or the document has only one), and not as another
 * place of the work has it either (letters and digits compared: forms aside). A copy of the work holds its neighbours
 * on one side at least; a document holding only the stretch — a stock phrase, or an engine echoing its queries — does
 * not. One word beside it would be matched by chance too often: a line of another text begins or ends with "of", "and"
 * or "I" as often as the work does. A phrase the work repeats can be found first at its other place (seen on the real
 * infini-gram mini: a copy's document holding the stretch with the words another chapter has around it): that document
 * is a copy too, and refutes nothing. False where the work has no word on either side to test.
 *
 * @example
 * const work = 'It was the best of times and the worst of times that year.';
 * refutesStretch(work, 7, 24, 'Notes: the best of times\n\nother words') // true: only what was sent
 * refutesStretch(work, 7, 24, 'it was the best of times and') // false: the work's neighbours
 * refutesStretch(work, 7, 24, 'the best of times and then') // true: "and" alone is chance
 */
export function refutesStretch(text: string, q0: number, q1: number, document: string): boolean {
  const before = /(\S+\s+)?(\S+)\s+$/u.exec(text.slice(Math.max(0, q0 - 200), q0));
  const after = /^\s+(\S+)(\s+\S+)?/u.exec(text.slice(q1, q1 + 200));
  if (!before && !after) return false;
  const stretch = text.slice(q0, q1);
  // two words beside it, or the one word between it and the document's edge (a copy cut into short documents)
  const doc = letters(document);
  const holds = (t: string) => doc.includes(letters(t));
  if (
    (before && (holds(`${before[0]}${stretch}`) || doc.startsWith(letters(`${before[2]} ${stretch}`)))) ||
    (after && (holds(`${stretch}${after[0]}`) || doc.endsWith(letters(`${stretch} ${after[1]}`))))
  )
    return false;
  // the stretch with the document's own letters around it, looked for in the whole work
  const s = letters(stretch);
  const at = doc.indexOf(s);
  if (at < 0 || s.length === 0) return false;
  const around = doc.slice(Math.max(0, at - CONTEXT_LETTERS), at + s.length + CONTEXT_LETTERS);
  return around.length === s.length || !lettersOfWork(text).includes(around);
}

/** Fewest letters of a word of the work that tells its place ({@link agreesOwnWord}): "13" or "if" tells none. */
const OWN_WORD_LETTERS = 4;

/**
 * Whether a document holding a stretch of the work (`q0`–`q1`) agrees with this place of the work over a word the
 * work has nowhere else (its letters, ≥ {@link OWN_WORD_LETTERS}, once in the work's letters): the stretch and as far
 * on each side as the document runs on as the work does here (up to {@link PLACE_LETTERS} a side). A copy of this
 * place agrees over its own identifiers, names and rare words; a document that agrees only over what the work
 * repeats — stock lines of code around a number, a phrase and its common neighbours — found the stretch by chance
 * (measured on the fixture infini-gram, code a tenth held in 2,000-character documents beside other code: every
 * unchecked find was such a document, each counted at the verified rate, the estimate 0.11–0.14 for 0.098).
 *
 * @example
 * const work = 'a ctxFoo12 = 3; if (ctx == NULL) { return; } b segBar7 = 9; if (ctx == NULL) { return; }';
 * agreesOwnWord(work, 12, 30, 'z = 3; if (ctx == NULL) { return; }') // false: only what the work repeats
 */
export function agreesOwnWord(text: string, q0: number, q1: number, document: string): boolean {
  const s = letters(text.slice(q0, q1));
  const work = lettersOfWork(text);
  const [left, right] = sidesOf(text, q0, q1);
  const words = (text.slice(Math.max(0, q0 - 2 * PLACE_LETTERS), q1 + 2 * PLACE_LETTERS).match(/\S+/g) ?? [])
    .map(letters)
    .filter((w) => w.length >= OWN_WORD_LETTERS && onceIn(work, w));
  return runsOn(letters(document), s, left, right).some(([l, r]) => {
    const agreed = left.slice(left.length - l) + s + right.slice(0, r);
    return words.some((w) => agreed.includes(w));
  });
}

/** Letters of the work and of a document compared on each side of a stretch the work repeats. */
const PLACE_LETTERS = 400;

/**
 * How far (in letters and digits, both sides together) a document holding a stretch of the work (`q0`–`q1`) runs on
 * as this place of the work does (`own`) and, at best, as another place holding the same stretch does (`other`, 0
 * where the work has it once); null where the document does not hold it. Up to {@link PLACE_LETTERS} a side.
 *
 * Code and refrains repeat stretches longer than a search's window: a copy of another place is found, but it does not
 * hold this occurrence. Where `other` runs further than `own` by more than {@link CONTEXT_LETTERS}, the document holds
 * that place, not this one: the passage is not held there (an unheld function found through the stock lines it
 * shares with a held one), and the engine contradicted nothing — it returned a true copy of the stretch. A copy of
 * this place runs on with it as far as the document goes; where two places run on alike, nothing tells them apart.
 *
 * @example
 * placeReach('ab cd ef. xy cd zz.', 3, 5, 'ab cd ef') // { own: 4, other: 0 }: "ab" and "ef", this place's
 */
export function placeReach(
  text: string,
  q0: number,
  q1: number,
  document: string,
): { own: number; other: number } | null {
  const s = letters(text.slice(q0, q1));
  const doc = letters(document);
  if (s.length === 0 || !doc.includes(s)) return null;
  const work = lettersOfWork(text);
  // how far the document runs on as a place of the work does, on both sides of the stretch, at best
  const reach = (left: string, right: string) => Math.max(0, ...runsOn(doc, s, left, right).map(([l, r]) => l + r));
  const [ownLeft, ownRight] = sidesOf(text, q0, q1);
  const own = reach(ownLeft, ownRight);
  // every other place of the work with the stretch
  let other = 0;
  for (let i = work.indexOf(s); i >= 0; i = work.indexOf(s, i + 1)) {
    const left = work.slice(Math.max(0, i - PLACE_LETTERS), i);
    const right = work.slice(i + s.length, i + s.length + PLACE_LETTERS);
    if (left !== ownLeft.slice(-left.length || ownLeft.length) || right !== ownRight.slice(0, right.length))
      other = Math.max(other, reach(left, right));
  }
  return { own, other };
}

/** The work's letters on each side of `q0`–`q1`, {@link PLACE_LETTERS} a side at most. */
const sidesOf = (text: string, q0: number, q1: number): [string, string] => [
  letters(text.slice(Math.max(0, q0 - 2 * PLACE_LETTERS), q0)).slice(-PLACE_LETTERS),
  letters(text.slice(q1, q1 + 2 * PLACE_LETTERS)).slice(0, PLACE_LETTERS),
];

/** At each place `doc` holds `s`, how many letters of `left` (its end) and of `right` (its start) it runs on with. */
function runsOn(doc: string, s: string, left: string, right: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let j = doc.indexOf(s); j >= 0 && s.length > 0; j = doc.indexOf(s, j + 1)) {
    let l = 0,
      r = 0;
    while (l < left.length && doc[j - 1 - l] === left[left.length - 1 - l]) l++;
    while (r < right.length && doc[j + s.length + r] === right[r]) r++;
    out.push([l, r]);
  }
  return out;
}

/** Whether `work` holds `l` at one place only. */
const onceIn = (work: string, l: string): boolean => l.length > 0 && work.indexOf(l) === work.lastIndexOf(l);

/** Letters of the document on each side of a stretch it holds that the work must have there too (two words or so). */
const CONTEXT_LETTERS = 8;

/** The letters and digits of the work (./forms.ts `letters`), remembered for the last work. */
let workLetters: { text: string; letters: string } | null = null;
function lettersOfWork(text: string): string {
  if (workLetters === null || workLetters.text !== text) workLetters = { text, letters: letters(text) };
  return workLetters.letters;
}

/**
 * Passages of {@link PASSAGE_WORDS} words inside `aligned` (a stretch of the work a fetched document holds) on each
 * side of the sampled passage `p` that has room, a word apart from it: passages the corpus is known to hold, to
 * measure the detection rate on (none, one or two).
 */
function calibrationPassages(text: string, p: DrawnPassage, aligned: { q0: number; q1: number }): DrawnPassage[] {
  const wordsIn = (a: number, b: number) =>
    [...text.slice(a, b).matchAll(/\S+/g)].map((m) => ({ start: a + m.index, end: a + m.index + m[0].length }));
  // a word between them and the sampled passage; the words at the stretch's edges may hang over it: dropped
  const before = wordsIn(aligned.q0, p.q0).slice(1, -1);
  const after = wordsIn(p.q1, aligned.q1).slice(1, -1);
  const out: DrawnPassage[] = [];
  // {@link CALIBRATION_GAP_WORDS} from the passage found where the stretch reaches so far, else as far as it reaches
  // (what is found right beside a find is found more often: {@link DOCUMENT_REACH_CHARS})
  if (before.length >= PASSAGE_WORDS) {
    const end = Math.max(PASSAGE_WORDS, before.length - CALIBRATION_GAP_WORDS);
    const w = before.slice(end - PASSAGE_WORDS, end);
    out.push({ section: p.section, q0: w[0].start, q1: w[w.length - 1].end });
  }
  if (after.length >= PASSAGE_WORDS) {
    const start = Math.min(after.length - PASSAGE_WORDS, CALIBRATION_GAP_WORDS);
    const w = after.slice(start, start + PASSAGE_WORDS);
    out.push({ section: p.section, q0: w[0].start, q1: w[w.length - 1].end });
  }
  return out;
}

/**
 * Whether one of the fetched documents (`documents`: their letters, ./forms.ts `letters`) holds a quarter of the
 * passage `p` (its words in four runs, letters and digits compared) that the work holds nowhere else: that the corpus
 * holds this place of the work, not only an alignment that ran on over the work's stock lines. A calibration passage
 * must (./sampling.ts step 4) — any fetched document, for one window often covers several found passages: the aligner
 * pairs the stock lines of code past a held stretch's end with those of the unrelated code after it, and a passage
 * drawn there is not held, not found, and lowered the rate measured (fixture infini-gram, code a quarter held in
 * 2,000-character documents: 11 of 184 calibration passages not held; held passages found 0.97, the rate 0.91).
 * A quarter, not the whole: an edited copy changes a word in twenty, and its passages must be measured too.
 *
 * @example
 * holdsOwnQuarter(work, { section: 0, q0: 100, q1: 400 }, [letters(documentText)]) // true where a copy of that place
 */
export function holdsOwnQuarter(text: string, p: DrawnPassage, documents: readonly string[]): boolean {
  const words = text.slice(p.q0, p.q1).match(/\S+/g) ?? [];
  const work = lettersOfWork(text);
  const size = Math.ceil(words.length / 4);
  for (let i = 0; i < words.length; i += size) {
    const l = letters(words.slice(i, i + size).join(' '));
    if (onceIn(work, l) && documents.some((d) => d.includes(l))) return true;
  }
  return false;
}

/**
 * What the sampled search plans from the work alone — its seed, passages and their windows — kept for the last work
 * searched: every corpus searching it at once draws the same passages (the seed is the work's) and asks the same
 * windows, so they are planned once.
 */
interface Plan {
  once<T>(key: string, make: () => T): T;
}
let lastPlan: { text: string; plan: Plan } | null = null;
function planOf(text: string): Plan {
  if (lastPlan === null || lastPlan.text !== text) {
    const known = new Map<string, unknown>();
    lastPlan = {
      text,
      plan: {
        once<T>(key: string, make: () => T): T {
          if (!known.has(key)) known.set(key, make());
          return known.get(key) as T;
        },
      },
    };
  }
  return lastPlan.plan;
}

/**
 * A passage's quiet windows (./forms.ts), those the work holds once first ({@link ownWindows}), planned once per work
 * ({@link planOf}); the caller must not change them.
 */
const windowsOf = (text: string, p: DrawnPassage, count: number): Window[] =>
  planOf(text).once(`windows ${p.q0} ${p.q1} ${count}`, () =>
    ownWindows(quietWindows(text, p.q0, p.q1, PASSAGE_WORDS), lettersOfWork(text)).slice(0, count),
  );

/**
 * Of `windows`, those whose letters the work holds once; all of them where none is. A window the work repeats — a
 * stock line of code, a refrain — is found wherever another place of the work is held, and its document then holds
 * that place, not this one: the find says nothing of this passage. Self-repeating code asked with its stock lines
 * among its windows (OR-ed on infini-gram) was found at 471 of 685 passages its corpus did not hold (fixture
 * infini-gram, a quarter held in 2,000-character documents), and its verified rate fell with every document of
 * another place.
 *
 * @example
 * ownWindows([{ q0: 0, q1: 9, query: 'a b c' }, { q0: 10, q1: 19, query: 'x y z' }], 'abcxyzabc') // [the second]
 */
export function ownWindows(windows: readonly Window[], workLetters: string): Window[] {
  const once = windows.filter((w) => onceIn(workLetters, letters(w.query)));
  return once.length > 0 ? once : windows.slice();
}
/**
 * The control calls ({@link CANARY_CALLS}): reversed windows of passages spread across the draw, OR-ed on
 * infini-gram, one a call on mini. An engine that reports every call found is `invalid_response` (the session
 * stops). True when they were answered as an honest corpus answers; false when none could be made or asked.
 */
async function askCanaries(
  ctx: SearchContext,
  session: Session,
  post: SessionPost,
  text: string,
  drawn: readonly DrawnPassage[],
): Promise<boolean> {
  const tokens = ctx.config.kind === 'infini-gram';
  const perCall = tokens ? MAX_OR_TERMS : 1;
  const queries = planOf(text).once(`canaries ${drawn.length} ${tokens}`, () => {
    const spread = Math.min(drawn.length, 4 * CANARY_CALLS * perCall);
    const windows = Array.from(
      { length: spread },
      (_, j) => windowsOf(text, drawn[Math.floor((j * drawn.length) / spread)], 1)[0],
    ).filter((w) => w !== undefined);
    return canaryWindows(windows, lettersOfWork(text), CANARY_CALLS * perCall);
  });
  const calls = Array.from({ length: Math.ceil(queries.length / perCall) }, (_, i) =>
    queries.slice(i * perCall, (i + 1) * perCall),
  );
  if (calls.length === 0 || !session.maySample()) return false;
  try {
    const found = await Promise.all(
      calls.map(async (terms) =>
        tokens
          ? (await countAny(post, ctx.config.index, terms)).count > 0
          : (await find(post, ctx.config.index, terms[0])).cnt > 0,
      ),
    );
    if (found.every(Boolean)) {
      session.unusable(
        new RemoteCallError(
          'invalid_response',
          `the engine reported found ${queries.length} control windows that no text holds (windows of the work with their words reversed)`,
        ),
      );
    }
    return true;
  } catch (e) {
    session.unusable(e);
    return false;
  }
}

/** A passage's search before its first call. */
function startProbe(text: string, passage: DrawnPassage, tokens: boolean): Probed {
  return {
    passage,
    found: false,
    span: null,
    stretch: '',
    calls: 0,
    done: false,
    failed: false,
    windows: tokens ? [] : windowsOf(text, passage, CHAR_WINDOWS_MOST),
    batches: tokens ? termBatches(text, passage) : [],
    terms: null,
  };
}

/**
 * infini-gram: the calls of a passage's search, each up to {@link MAX_OR_TERMS} terms: its quiet windows
 * (./forms.ts) in turn, each in every form a copy may spell it ({@link windowTerms}), a window's forms in one call.
 */
function termBatches(text: string, passage: DrawnPassage): Term[][] {
  const batches: Term[][] = [];
  let batch: Term[] = [];
  for (const window of windowsOf(text, passage, TOKEN_QUERIES * MAX_OR_TERMS)) {
    const terms = windowTerms(window).slice(0, MAX_OR_TERMS);
    if (batch.length + terms.length > MAX_OR_TERMS) {
      batches.push(batch);
      batch = [];
    }
    if (batches.length === TOKEN_QUERIES) break;
    batch.push(...terms.map((query) => ({ window, query })));
  }
  if (batch.length > 0 && batches.length < TOKEN_QUERIES) batches.push(batch);
  return batches;
}

/**
 * infini-gram mini: the passages searched {@link CHAR_WINDOWS} windows deep and not found asked one window more each
 * ({@link CHAR_WINDOWS_MOST}), all of them or none: only where `left` calls pay for every one. Returns the windows a
 * passage was searched with at most, for the detection rate to be measured with as many.
 */
async function oneWindowMore(
  ctx: SearchContext,
  session: Session,
  order: Probed[],
  probe: (p: Probed) => Promise<void>,
  left: number,
): Promise<number> {
  const missed = order.filter((p) => !p.found && !p.failed && p.done && p.calls === CHAR_WINDOWS);
  const more = missed.filter((p) => p.windows.length > CHAR_WINDOWS);
  if (more.length > left || session.stopped) return CHAR_WINDOWS;
  for (const p of more) p.done = false;
  await probeRounds(ctx, session, more, probe, CHAR_WINDOWS_MOST);
  return CHAR_WINDOWS_MOST;
}

/**
 * Each passage searched to its end, one query after another, at most `rounds` calls, `concurrency` passages at a
 * time, while sampling may go on: each passage's next query depends on its own answers only, so the same work asks the
 * same calls whatever order the answers come in, and no passage waits for the slowest answer of another.
 */
async function probeRounds(
  ctx: SearchContext,
  session: Session,
  probes: Probed[],
  step: (p: Probed) => Promise<void>,
  rounds: number,
): Promise<void> {
  await mapLimit(probes, ctx.config.concurrency, async (p) => {
    while (!p.done && p.calls < rounds && session.maySample()) {
      const before = p.calls;
      await step(p);
      if (p.calls === before) break; // nothing asked: nothing left to ask
    }
  });
  for (const p of probes) if (!p.found && p.calls >= rounds) p.done = true;
}

/**
 * One call of a passage's search (see the module comment, step 2). infini-gram: `count` of its next windows OR-ed,
 * found when the count is above 0 (the terms kept, to resolve when its document is fetched). infini-gram mini: `find`
 * of the next quiet window (./forms.ts), found when it occurs.
 */
function prober(ctx: SearchContext, session: Session, post: SessionPost): (p: Probed) => Promise<void> {
  const index = ctx.config.index;
  return async (p) => {
    try {
      if (ctx.config.kind !== 'infini-gram') {
        const w = p.windows[p.calls];
        if (!w) {
          p.done = true;
          return;
        }
        p.calls++;
        const f = await find(post, index, w.query);
        if (f.cnt > 0) {
          p.found = p.done = true;
          p.stretch = w.query;
          p.span = { start: 0, end: WINDOW_MIN_WORDS, q0: w.q0, q1: w.q1, count: f.cnt, query: w.query, found: f };
        }
        if (p.calls >= p.windows.length) p.done = true;
        return;
      }
      const batch = p.batches[p.calls];
      if (!batch) {
        p.done = true;
        return;
      }
      p.calls++;
      const a = await countAny(
        post,
        index,
        batch.map((t) => t.query),
      );
      if (a.count > 0) {
        p.found = p.done = true;
        p.terms = batch.map((t, i) => ({ ...t, ids: a.termIds[i] }));
        // the passage's windows asked, until the document says which of them occurs (resolveTerm)
        const q0 = Math.min(...batch.map((t) => t.window.q0)),
          q1 = Math.max(...batch.map((t) => t.window.q1));
        p.span = { start: 0, end: a.termIds[0].length, q0, q1, count: a.count, query: a.termIds[0] };
      }
      if (p.calls >= p.batches.length) p.done = true;
    } catch (e) {
      session.unusable(e);
      p.done = p.failed = true;
    }
  };
}

/**
 * The document of a chosen found passage's region (step 3 of {@link sampleRemote}), kept in `got` (null: none). On
 * infini-gram the window that occurs is found first ({@link resolveTerm}); an engine that counted a call's windows
 * but finds none of them contradicts itself: null.
 */
function documentOf(
  ctx: SearchContext,
  post: SessionPost,
  byRegion: ReadonlyMap<Region, Probed>,
  got: Map<Region, ShardWindow | null>,
): (r: Region) => Promise<ShardWindow | null> {
  const fetch =
    ctx.config.kind === 'infini-gram' ? tokenWindow(post, ctx.config.index) : charWindow(post, ctx.config.index);
  return async (r) => {
    const probed = byRegion.get(r)!;
    if (probed.terms) {
      const span = await resolveTerm(post, ctx.config.index, probed);
      if (!span) {
        got.set(r, null);
        return null;
      }
      r.best = span;
    }
    const w = await fetch(r);
    got.set(r, w);
    return w;
  };
}

/**
 * infini-gram: which term of the call that found `p` occurs — a `find` of each in turn until one does — made the
 * passage's span (with the `find` answer, for its document) and its stretch. Null when none does.
 */
async function resolveTerm(post: SessionPost, index: string, p: Probed): Promise<Span | null> {
  const terms = p.terms ?? [];
  p.terms = null;
  for (const t of terms) {
    const f = await find(post, index, t.ids);
    if (f.cnt === 0) continue;
    p.stretch = t.query;
    p.span = { start: 0, end: t.ids.length, q0: t.window.q0, q1: t.window.q1, count: f.cnt, query: t.ids, found: f };
    return p.span;
  }
  return null;
}

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

/** The report's `sampling`: counts overall and per section, what the documents showed, and the share. */
function samplingOf(
  asked: readonly Probed[],
  rejected: ReadonlySet<Probed>,
  checked: readonly Checked[],
  detection: { hits: number; trials: number },
  drawn: number,
  strata: number,
  seed: string,
): RemoteSampling {
  const found = asked.filter((p) => p.found).length;
  const counts = (p: Probed) => p.found && !rejected.has(p);
  const sections = Array.from({ length: strata }, (_, section) => {
    const here = asked.filter((p) => p.passage.section === section);
    return { section, passages: here.length, found: here.filter(counts).length };
  });
  const documents = {
    fetched: checked.length,
    verified: checked.filter((c) => c.verified).length,
    contradicted: checked.filter((c) => !c.held).length,
    refuted: checked.filter((c) => c.refuted).length,
    // held with the work around it but not aligned long enough to verify: no evidence either way (the interval
    // runs from none of them held to all of them)
    unchecked: checked.filter((c) => c.held && !c.verified && !c.refuted).length,
  };
  return {
    method: 'stratified_passages',
    passages: asked.length,
    passage_words: PASSAGE_WORDS,
    found,
    documents,
    detection,
    share: {
      ...estimateShare({
        passages: asked.length,
        found,
        fetched: documents.fetched,
        verified: documents.verified,
        unchecked: documents.unchecked,
        detection,
        detectionDesignEffect: DETECTION_DESIGN_EFFECT,
      }),
      ci_rule: 'joint',
    },
    sensitivity: SAMPLING_SENSITIVITY,
    sensitivity_worst: SAMPLING_SENSITIVITY_WORST,
    false_found: SAMPLING_FALSE_FOUND,
    seed,
    skipped: drawn - asked.length,
    sections,
  };
}
