/**
 * extractWork: how much of a whole work a model writes out, in near-verbatim blocks of ≥ 100 words — the
 * two-phase procedure of Ahmed et al. 2026 (arXiv 2601.02671), measured as their nv-recall, after Cooper et al.
 * 2025 (arXiv 2505.12546), against OpenAI-compatible chat or completions endpoints (generations only: no
 * log-probabilities needed).
 *
 * Phase 1, the probe: prefixes of `prefix_words` words at evenly spaced positions of every section (probes shared
 * among sections by their length) ask the model to continue; an answer that continues the work there (≥
 * {@link HIT_WORDS} words in exact runs of the next words) is a hit. Phase 2, the loops: from each hit, the model's
 * own output (its last `prefix_words` words) is the next prompt while it stays on the work; when it drifts or
 * refuses, the work's own text at the point reached is the next prompt; a second failure in a row ends the block.
 * Before a loop runs forward, probes step back by `prefix_words` words from the hit while they still hit, so a
 * block is found from near where it begins rather than from the probe that fell inside it.
 *
 * Against a chat model each prompt is put in a few templates (prompt-variants.ts), tried in turn at temperature 0
 * until one continues the work (best-of-N): at every probe, and where a loop falls back to the work's text.
 *
 * Every call is counted against `budget_calls` before it is made, and recorded in order with the SHA-256 of the
 * request and of the answer as they went over the wire; refusals are detected ({@link isRefusal}, or the API's own
 * flag), counted, and never aligned. With a `journal` every answered call is kept under the SHA-256 of its
 * canonical request and replayed instead of being made again: a killed run started again with the same journal
 * repeats no answered call and ends with the same record. The measure is in nv-blocks.ts.
 */
import { TrainprintError } from '../../errors.js';
import { sha256HexNow } from '../../fingerprint/sha256.js';
import { MAX_CHARS_PER_TOKEN } from '../../models/openai.js';
import type { GenerationCall, TargetModel } from '../../models/types.js';
import type { Store } from '../../store/types.js';
import { round4 } from '../../util/round.js';
import { countWords } from '../../util/space.js';
import { fail } from '../../util/validate.js';
import {
  checkCompactCall,
  checkReplayedCall,
  type CompactCall,
  type ExtractionJournal,
  type RecordedCall,
} from './extraction-journal.js';
import { checkRunObjects, resolveWork } from './inputs.js';
import { MEMORIZATION_LIMITS } from './limits.js';
import {
  inOrderShare,
  chainIn,
  chainWords,
  NV_BLOCK_WORDS,
  NV_BLOCK_WORDS_SHORT,
  nearVerbatimBlocks,
  RunIndex,
  type AlignedOutput,
  type NearVerbatimBlock,
} from './nv-blocks.js';
import { PLAIN_PROMPT, PROMPT_VARIANTS, type PromptVariant } from './prompt-variants.js';
import { sectionsWithin } from './sections.js';
import { isRefusal } from './refusal.js';
import { runInRounds, type Ask } from './rounds.js';
import {
  restWrittenOut,
  SHORT_REST_DIGITS,
  SHORT_REST_WORDS,
  SHORT_WORK_WORDS,
  shortWorkSplits,
  type ShortSplit,
} from './short-work.js';
import { encoder, mapLimit, wordSpans, type TokenRun, type WordTokenSpans } from './text.js';
import { HIT_WORDS } from './constants.js';
import { extractionTranscriptSha256 } from './digests.js';

export { HIT_WORDS, extractionTranscriptSha256 };

/** Words of a refusal sentence an answer may open with before it writes out the continuation. */
const PREFACE_WORDS = 40;
/** Longest model name kept in a call's record. */
const MAX_FIELD_CHARS = 256;
/**
 * Most bytes a result may take, estimated before the run (every call's record, the blocks' text and prompts): a
 * request that could exceed it is refused with PAYLOAD_TOO_LARGE before any call.
 */
export const MAX_EXTRACTION_RESULT_BYTES = 64 * 1024 * 1024;
/** Words by which a step back's answer should overlap the words already covered (more than a block's gap). */
const STEP_OVERLAP = 12;
/** Calls that fail in a row (after the adapter's own retries) before the run stops with what it has. */
const MAX_FAILED_IN_A_ROW = 3;

/** A section of the work to spread the probes over (UTF-16 offsets into the text). */
export interface WorkSection {
  readonly start: number;
  readonly end: number;
  readonly title?: string;
}

/**
 * Refuses a run whose result could exceed {@link MAX_EXTRACTION_RESULT_BYTES} (every call's record, the text, the
 * blocks' prompts): known from the budget and the work before any call, so a job refuses it at submission too.
 * @throws PAYLOAD_TOO_LARGE
 * @example checkResultBound(1_000_000, text.length, words, 50) // throws: lower budget_calls
 */
export function checkResultBound(budget: number, chars: number, words: number, prefix: number): void {
  const estimate = budget * 1024 + chars * 4 + Math.ceil(words / NV_BLOCK_WORDS_SHORT) * prefix * 24;
  if (estimate > MAX_EXTRACTION_RESULT_BYTES)
    throw new TrainprintError(
      'PAYLOAD_TOO_LARGE',
      `a result of budget_calls ${budget} on a work of ${chars} characters could take ${estimate} bytes, over the ${MAX_EXTRACTION_RESULT_BYTES} a result may hold: lower budget_calls or split the work`,
    );
}

/** Request of {@link runWorkExtraction} (`engine.memorization.extractWork`). */
export interface ExtractWorkRequest {
  /** The model: `createOpenAICompatibleModel({ baseUrl, model, api: 'chat' })` or any {@link TargetModel}. */
  readonly model: TargetModel;
  /** The work's text; or `work_id` of a work registered with its content. */
  readonly text?: string;
  readonly work_id?: string;
  /** Sections (chapters) to spread the probes over, in order, not overlapping. @default the whole text as one */
  readonly sections?: readonly WorkSection[];
  /** Most calls made in all, every call counted (failed ones too). 1..1,000,000. @default 2000 */
  readonly budget_calls?: number;
  /**
   * Phase-1 probes. @default one per 250 words, their calls (every prompt variant) at most half the budget, at least
   * one per section when it fits
   */
  readonly probes?: number;
  /** Words of each prompt. 8..500. @default 50 */
  readonly prefix_words?: number;
  /** `max_tokens` of each call. 16..4096. @default 256 */
  readonly max_tokens?: number;
  /** Calls in flight. 1..64. @default 4 */
  readonly concurrency?: number;
  /**
   * The caller's price table, per million tokens (none is built in: prices change and differ by contract); with it
   * the result has `cost`, from the tokens the endpoint reported.
   */
  readonly prices?: ExtractionPrices;
  /**
   * Chat models: how many prompt templates to try, in order, until one continues the work (best-of-N). 1..3.
   * Completions models have one prompt, the prefix itself. @default 3 for a chat model
   */
  readonly prompt_variants?: number;
  /**
   * Where answered calls are kept and looked up before every call (keyed by the SHA-256 of the canonical request):
   * a run started again with the journal of a killed one replays what was answered and calls only the rest.
   */
  readonly journal?: ExtractionJournal;
  /**
   * Aborts the run: no further call is made, the calls in flight are aborted (their connections closed) and the run
   * rejects with the signal's reason; the calls answered before are journaled. A job's item passes its own (time
   * limit, cancel, shutdown).
   */
  readonly signal?: AbortSignal;
  /**
   * Ends the run between calls: no further call starts, the calls in flight finish and are journaled (they were paid
   * for), then the run rejects with the signal's reason. A job's time slice ends this way and the next slice resumes.
   */
  readonly stop?: AbortSignal;
}

/** Prices per million tokens, in the caller's currency. */
export interface ExtractionPrices {
  readonly prompt_per_million: number;
  readonly completion_per_million: number;
  /** A label for the currency, e.g. `USD`. */
  readonly currency?: string;
}

/** One call of the run, as recorded. */
export interface ExtractionCall {
  /** Order in which the call was made (0, 1, …). */
  readonly id: number;
  readonly phase: 'probe' | 'loop';
  /** UTF-16 offset of the work where the prompt stops (where the model was asked to continue). */
  readonly position: number;
  /** Whether the prompt was the work's own text (probes, and loops after a drift) or the model's output. */
  readonly prompt_from: 'work' | 'model';
  /** The prompt template (`prefix` for a completions model). */
  readonly variant: string;
  /** SHA-256 (hex) of the canonical request (model, prompt or messages, max_tokens, temperature): the journal key. */
  readonly key: string;
  /** When the call was made (ISO 8601) and how long it took, in ms (a replayed call: as recorded). */
  readonly time: string;
  readonly ms: number;
  /** True when the answer came from the journal (a call made by an earlier run of the same extraction). */
  readonly replayed?: true;
  /** SHA-256 (hex) of the request body as sent (a model without a wire record: canonical JSON of the request). */
  readonly request_sha256: string;
  /** SHA-256 (hex) of the answer body as received (without a wire record: of the generated text); null on failure. */
  readonly response_sha256: string | null;
  /**
   * SHA-256 (hex) of the answer as read, JSON `[text, refusal]` (the generated text kept and the API's refusal or
   * null): what the run concluded from, the same in every run that got the same answer (a body's `id` and `created`
   * differ from run to run); null on failure. The transcript digest is over these.
   */
  readonly answer_sha256: string | null;
  readonly refused: boolean;
  /** Words of the answer found in exact runs of the work where it was asked to continue. */
  readonly reproduced_words: number;
  /** The error code of a failed call. */
  readonly error?: string;
  /** True when the answer held more text than `max_tokens` can produce and was cut there (the rest not read). */
  readonly truncated?: true;
  /** Requests sent for this call when more than one (the adapter's retries, each counted against the budget). */
  readonly attempts?: number;
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  /** The model name the endpoint reported. */
  readonly model?: string;
}

/** A section's share. */
export interface SectionRecall {
  readonly start: number;
  readonly end: number;
  readonly title?: string;
  /** Words of the section: its runs of non-space characters, as every other count of words (countWords). */
  readonly words: number;
  /** The engine's word tokens of the section, the unit of its blocks and its share. */
  readonly tokens: number;
  readonly probes: number;
  /** Tokens of the section inside blocks of ≥ 100 words, and their share of its tokens. */
  readonly tokens_in_blocks: number;
  readonly nv_recall: number;
}

/** Result of {@link runWorkExtraction}. */
export interface WorkExtractionResult {
  readonly work_id: string | null;
  /** SHA-256 (hex) of the work's text as measured (UTF-8): the text the offsets refer to. */
  readonly text_sha256: string;
  readonly model: string;
  /**
   * Words of the work: its runs of non-space characters, the number every other door shows for the same text
   * (countWords). Results made before this field's meaning was fixed (they have no `tokens`) hold the token count here.
   */
  readonly words: number;
  /**
   * The engine's word tokens of the work (a hyphen or an apostrophe parts a word into two): the unit the prompts,
   * the blocks and `nv_recall` count in. Never an input of the transcript digest.
   */
  readonly tokens: number;
  /** Share of the work's tokens inside near-verbatim blocks of ≥ 100 words. */
  readonly nv_recall: number;
  /** The same with blocks of ≥ 50 words. */
  readonly nv_recall_50: number;
  /** Every block of ≥ 50 words (those of ≥ 100 make `nv_recall`), in order of the work. */
  readonly blocks: Array<NearVerbatimBlock & { readonly prompt: string; readonly prompt_variant: string }>;
  readonly sections: SectionRecall[];
  /** Calls made (every one counted), refusals among them, failed calls. */
  readonly calls: number;
  readonly refusals: number;
  readonly failed_calls: number;
  /** Calls answered from the journal (made by an earlier run), among `calls`. */
  readonly replayed_calls: number;
  readonly budget_calls: number;
  /** The prompt templates tried (best-of-N), in order. */
  readonly prompt_variants: string[];
  /** The model names the endpoint reported in its answers (name and version as it gives them). */
  readonly reported_models: string[];
  /** Tokens the endpoint reported over the calls that reported them (null when none did). */
  readonly usage: { prompt_tokens: number; completion_tokens: number; calls_reporting: number } | null;
  /**
   * Money by the caller's `prices` over the calls that reported usage (`calls_priced`); null without prices. Calls
   * that reported no usage are not priced: compare `calls_priced` with `calls`.
   */
  readonly cost: { amount: number; currency: string | null; calls_priced: number } | null;
  /** Phase-1 hits. */
  readonly hits: number;
  /**
   * Why the run stopped: every probe and loop done, the budget spent, or calls failing in a row — or failing every
   * one, where the budget ran out first (no call answered).
   */
  readonly stopped: 'done' | 'budget' | 'upstream_errors';
  /**
   * The first failed call's error, when a call failed: its code and what the endpoint said (the URL, the status, the
   * body's type and length and the message of a JSON error body, cut at 300 characters; never the API key).
   */
  readonly error?: { readonly code: string; readonly message: string };
  /** What the budget (or the failures) left untried: probe positions and loop positions (UTF-16 offsets). */
  readonly untried: { readonly probes: number[]; readonly loops: number[] };
  /** Every call in order, and the SHA-256 of the transcript (the lines `id request_sha256 answer_sha256`). */
  readonly record: { readonly transcript_sha256: string; readonly calls: ExtractionCall[] };
  /**
   * Present for a work under 58 words, probed in splits (short-work.ts): its probes are prompts of its first words,
   * a hit writes out all the rest verbatim, and nv_recall (and nv_recall_50) is the share of its words written out.
   */
  readonly short_work?: true;
  readonly method: string;
}

const hex = (s: string) => sha256HexNow(encoder.encode(s));

/**
 * Run the two-phase extraction of a whole work.
 *
 * One answer whatever the concurrency: the probes, then the loops, run as lanes in rounds ({@link runInRounds}); a
 * round's calls get their ids in lane order, go out together (at most `concurrency` in flight) and are taken in id
 * order once all are answered, so the calls made, their ids, the blocks and the transcript digest depend on the
 * work, the options and the model's answers only.
 * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND (a failing model throws nothing: its calls stop the run with
 *   `stopped: 'upstream_errors'` and the first failure in `error`, even when none was answered)
 */
export async function runWorkExtraction(store: Store, request: ExtractWorkRequest): Promise<WorkExtractionResult> {
  return runSettled(await readExtraction(store, request));
}

/**
 * A catalogue audit's run of one of its works: a request whose every check the audit made before its first call —
 * its objects and its sections within the text (the audit's contract and rules), the work long enough for its prompt
 * and its result within bound under the whole budget (the audit's plan) — so none is made again per run.
 * @example const r = await runPlannedExtraction({ model, text: work.text, prefix_words: 40, probes: 4, budget_calls: 4 })
 */
export async function runPlannedExtraction(
  request: ExtractWorkRequest & { readonly text: string },
): Promise<WorkExtractionResult> {
  return runSettled(settle(request, request.text, null));
}

/** {@link runWorkExtraction}'s run once its request is settled. */
async function runSettled(settings: ExtractionSettings): Promise<WorkExtractionResult> {
  const run: RunState = {
    settings,
    index: new RunIndex(settings.work.tokens),
    owner: new Int32Array(settings.n).fill(-1),
    outputs: [],
    records: [],
    prompts: new Map(),
    variantOf: new Map(),
    untried: { probes: [], loops: [] },
    made: 0,
    requests: 0,
    failedInARow: 0,
    anySuccess: false,
    firstError: null,
    stopped: 'done',
  };
  const answer = (questions: readonly Question[]) => answerRound(run, questions);
  let hits: number;
  let short: ShortHit[] = [];
  if (settings.short) hits = (short = await shortLanes(run, answer)).length;
  else {
    const found = await probeLanes(run, answer);
    await loopLanes(run, found, answer);
    hits = found.length;
  }
  // a budget smaller than the failing streak ends the run before the streak stops it: with no call answered, the
  // result shows nothing of the model, and says so as a failing streak does
  if (!run.anySuccess && run.firstError !== null) run.stopped = 'upstream_errors';
  const { records, outputs, prompts, variantOf, stopped, untried } = run;
  const outcome = { records, outputs, prompts, variantOf, hits, stopped, untried, short };
  const result = assembleResult(settings, outcome);
  const e = run.firstError as TrainprintError | null;
  return e === null ? result : { ...result, error: { code: e.code, message: e.detail ?? e.message } };
}

/** One question of a round: the continuation at work word `at`, asked with prompt template `variant`. */
interface Question {
  readonly prompt: string;
  readonly at: number;
  readonly phase: ExtractionCall['phase'];
  readonly from: ExtractionCall['prompt_from'];
  readonly variant: number;
  /** A short work's split into a long number: the prompt holds the first `digits` digits of word `at`. */
  readonly digits?: number;
}

/**
 * A call's answer as a lane reads it: its chain aligned with the work after `at`, and for a short work the output word
 * where all the rest of the work starts (-1: not written out); null when no call was made.
 */
type Answer = { id: number; chain: TokenRun[]; out: WordTokenSpans; text: string; ok: boolean; rest: number } | null;

/** What a run has gathered so far; written only between rounds, in lane order, or in call-id order. */
interface RunState {
  readonly settings: ExtractionSettings;
  readonly index: RunIndex;
  /** Which loop has reproduced each word (loops stop where another went). */
  readonly owner: Int32Array;
  readonly outputs: AlignedOutput[];
  readonly records: ExtractionCall[];
  readonly prompts: Map<number, string>;
  readonly variantOf: Map<number, string>;
  readonly untried: { probes: number[]; loops: number[] };
  /** Calls given an id. */
  made: number;
  /** Requests counted against the budget: every call's first attempt and every retry. */
  requests: number;
  failedInARow: number;
  anySuccess: boolean;
  firstError: unknown;
  stopped: WorkExtractionResult['stopped'];
}

type AnswerRound = (questions: readonly Question[]) => Promise<readonly Answer[]>;

/** A hit of phase 1: where its probe asked, the answer's chain (from `start` to `end`), the next prompt from there. */
interface Hit {
  readonly at: number;
  readonly start: number;
  readonly end: number;
  /** Index of its probe in the plan's positions. */
  readonly probe: number;
  readonly next: string | null;
  readonly variant: number;
}

/**
 * Phase 1: a lane per probe, in the order that probes every section once before any twice (first probe of each
 * section, then the second of each, …), so a budget that cannot pay for all of them leaves whole rounds untried
 * rather than whole sections. Each lane tries the prompt templates in turn until one continues the work.
 */
async function probeLanes(run: RunState, answer: AnswerRound): Promise<Hit[]> {
  const { plan, sectionWords, work } = run.settings;
  const sectionOf = (w: number) => {
    let s = 0;
    while (s + 1 < sectionWords.length && sectionWords[s + 1][0] <= w) s++;
    return s;
  };
  const rank = new Map<number, number>();
  const lanes = plan.positions
    .map((at, k) => {
      const s = sectionOf(at);
      const r = rank.get(s) ?? 0;
      rank.set(s, r + 1);
      return { k, s, r };
    })
    .sort((x, y) => x.r - y.r || x.s - y.s)
    .map((l) => l.k);
  const hits: Hit[] = [];
  await runInRounds(
    lanes.length,
    async (lane, ask) => {
      const k = lanes[lane];
      const at = plan.positions[k];
      const prompt = workPrefix(run, at);
      const asked = await askVariants(run, ask, { prompt, at, phase: 'probe', from: 'work', variant: 0 });
      if (asked === null) {
        run.untried.probes.push(work.starts[at]);
        return;
      }
      if (asked.end > at)
        hits.push({
          at,
          start: asked.got.chain[0].work_token,
          end: asked.end,
          probe: k,
          next: nextOwnPrompt(run, prompt, asked.got),
          variant: asked.variant,
        });
    },
    answer,
  );
  return hits.sort((a, b) => a.at - b.at);
}

/**
 * Phase 2: a lane per hit, in the work's order; each steps back while probes still hit, then loops forward. Lanes
 * claim the words they reach; a lane stops where an earlier-woken lane has already gone (claims are made between
 * rounds in lane order, so which lane owns a word never depends on timing).
 */
async function loopLanes(run: RunState, hits: readonly Hit[], answer: AnswerRound): Promise<void> {
  const { plan, prefix, n, variants, work } = run.settings;
  const owner = run.owner;
  await runInRounds(
    hits.length,
    async (me, ask) => {
      const hit = hits[me];
      const claim = (a: number, b: number) => {
        for (let w = a; w < b; w++) if (owner[w] < 0) owner[w] = me;
      };
      claim(hit.start, hit.end);
      const floor = Math.max(prefix, hit.probe > 0 ? plan.positions[hit.probe - 1] : prefix);
      let variant = hit.variant;
      // step back by prefix words at most (a step past the block's start misses it), less when answers are short:
      // each answer, if it reproduces as much as the last, overlaps what is covered by STEP_OVERLAP words, so blocks
      // are found whole, not in pieces split by the gaps between answers
      for (let first = hit.start, reach = hit.end - hit.start; first > floor; ) {
        const at = Math.max(floor, first - Math.min(prefix, Math.max(STEP_OVERLAP, reach - STEP_OVERLAP)));
        if (owner[at] >= 0 && owner[at] !== me) break;
        const asked = await askVariants(run, ask, {
          prompt: workPrefix(run, at),
          at,
          phase: 'probe',
          from: 'work',
          variant,
        });
        if (asked === null) {
          run.untried.probes.push(work.starts[at]);
          break;
        }
        const start = asked.end > at ? asked.got.chain[0].work_token : first;
        if (start >= first) break; // it did not hit, or brought nothing before what is covered
        claim(start, asked.end);
        reach = asked.end - start;
        first = start;
      }
      let at = hit.end,
        prompt = hit.next ?? workPrefix(run, hit.end),
        from: ExtractionCall['prompt_from'] = hit.next === null ? 'work' : 'model';
      while (at < n) {
        if (owner[at] >= 0 && owner[at] !== me) return; // another loop went on from here
        // the model's own words go to the template that brought it here; the work's text, best-of-N again
        const tries = from === 'model' ? 1 : variants.length;
        const asked = await askVariants(run, ask, { prompt, at, phase: 'loop', from, variant }, tries);
        if (asked === null) {
          run.untried.loops.push(work.starts[at]);
          return;
        }
        const { got, end } = asked;
        if (end <= at) {
          if (from === 'work') return; // the work's own text did not bring it back: the block has ended
          prompt = workPrefix(run, at);
          from = 'work';
          continue;
        }
        variant = asked.variant;
        claim(got.chain[0].work_token, end);
        // still near-verbatim to its end: its own words are the next prompt; else the work's, where it drifted
        const own = nextOwnPrompt(run, prompt, got);
        prompt = own ?? workPrefix(run, end);
        from = own === null ? 'work' : 'model';
        at = end;
      }
    },
    answer,
  );
}

/** A split of a short work whose rest the model wrote out: the prompt's words, the call, where in its answer. */
interface ShortHit {
  readonly at: number;
  readonly digits: number;
  readonly id: number;
  readonly text: string;
  readonly out: WordTokenSpans;
  readonly rest: number;
}

/**
 * A short work (short-work.ts): a lane per split, in the plan's order (the splits' own: the first `k` of a work are the
 * same whatever `k`); each asks the work's first words in the prompt templates in turn until one writes out the rest.
 */
async function shortLanes(run: RunState, answer: AnswerRound): Promise<ShortHit[]> {
  const { plan, variants, work, text } = run.settings;
  const hits: ShortHit[] = [];
  await runInRounds(
    plan.positions.length,
    async (k, ask) => {
      const at = plan.positions[k];
      const digits = plan.digits?.[k] ?? 0;
      const prompt = text.slice(work.starts[0], digits > 0 ? work.starts[at] + digits : work.ends[at - 1]);
      for (let variant = 0; variant < variants.length; variant++) {
        const got = await ask({ prompt, at, digits, phase: 'probe', from: 'work', variant });
        if (got === null) {
          if (variant === 0) run.untried.probes.push(work.starts[at] + digits);
          return;
        }
        if (got.rest >= 0) {
          hits.push({ at, digits, id: got.id, text: got.text, out: got.out, rest: got.rest });
          return;
        }
      }
    },
    answer,
  );
  return hits.sort((a, b) => a.at - b.at || a.digits - b.digits || a.id - b.id);
}

/**
 * A short work's block: from the shortest prompt whose rest the model wrote out to the work's end (every rest runs to
 * the end, so theirs is the union), with that answer's words of the rest as the generated text.
 */
function shortBlocks(settings: ExtractionSettings, hits: readonly ShortHit[]): NearVerbatimBlock[] {
  if (hits.length === 0) return [];
  const { text, work, n } = settings;
  const h = hits[0];
  const generated = h.text.slice(h.out.starts[h.rest], h.out.ends[h.rest + n - h.at - 1]);
  const start = work.starts[h.at] + h.digits,
    end = work.ends[n - 1];
  // whole words written out: a number the prompt began is not counted (nv_recall counts words from the next)
  const words = n - h.at - (h.digits > 0 ? 1 : 0);
  const in_order_share = round4(inOrderShare(text.slice(start, end), generated));
  return [{ start, end, words, reproduced_words: words, in_order_share, generated, calls: [h.id] }];
}

/** The words of the work before word `w`: a prompt. */
function workPrefix(run: RunState, w: number): string {
  const { text, work, prefix } = run.settings;
  return text.slice(work.starts[Math.max(0, w - prefix)], work.ends[w - 1]);
}

/** Where an answer's chain continues the work from `at`: the word after its last run, or -1 when it does not. */
function reached(chain: readonly TokenRun[], at: number): number {
  if (chainWords(chain) < HIT_WORDS || chain[0].work_token > at + HIT_WORDS) return -1;
  const last = chain[chain.length - 1];
  return last.work_token + last.tokens;
}

/** The model's own words as the next prompt when its answer stayed on the work to (nearly) its end, else null. */
function nextOwnPrompt(run: RunState, prompt: string, got: { chain: TokenRun[]; out: WordTokenSpans; text: string }) {
  const last = got.chain[got.chain.length - 1];
  return got.out.tokens.length - (last.output_token + last.tokens) <= 10
    ? lastWords(`${prompt} ${got.text}`, run.settings.prefix)
    : null;
}

/**
 * Best-of-N: the prompt in up to `tries` templates, from `q.variant` on, until one continues the work from `q.at`;
 * the answer that did (or the last one), with where it reached (≤ at: it did not). Null when no call could be made.
 */
async function askVariants(run: RunState, ask: Ask<Question, Answer>, q: Question, tries = Infinity) {
  const { variants } = run.settings;
  let last: { got: NonNullable<Answer>; end: number; variant: number } | null = null;
  for (let k = 0; k < Math.min(tries, variants.length); k++) {
    const variant = (q.variant + k) % variants.length;
    const got = await ask({ ...q, variant });
    if (got === null) break;
    last = { got, end: reached(got.chain, q.at), variant };
    if (last.end > q.at) break;
  }
  return last;
}

/**
 * One round: ids in question order while the budget lasts (null answers past that), the calls made with at most
 * `concurrency` in flight, and every answer taken in id order as soon as the answers before it are taken. Once the
 * calls taken so far have failed {@link MAX_FAILED_IN_A_ROW} times in a row the run halts: no further call starts,
 * and the answers of calls after that point (in flight at other concurrencies) are not taken either, so the record
 * ends at the same call whatever the concurrency. A call that throws anything but an upstream failure (the signal
 * aborted, the journal failing) rejects the round once its calls in flight are settled.
 */
async function answerRound(run: RunState, questions: readonly Question[]): Promise<readonly Answer[]> {
  const { signal, stop, budget, concurrency } = run.settings;
  signal?.throwIfAborted();
  stop?.throwIfAborted();
  const first = run.made;
  const asked: Question[] = [];
  for (const q of questions) {
    if (run.stopped === 'upstream_errors' || run.requests >= budget) break;
    run.requests++;
    run.made++;
    asked.push(q);
  }
  if (asked.length < questions.length && run.stopped === 'done') run.stopped = 'budget';
  const answers: Answer[] = new Array(questions.length).fill(null);
  const outcomes: Array<CallOutcome | { fatal: unknown } | typeof SKIPPED | undefined> = new Array(asked.length);
  let taken = 0,
    fatal: { fatal: unknown } | null = null;
  const takeReady = () => {
    for (; taken < asked.length && outcomes[taken] !== undefined; taken++) {
      const o = outcomes[taken] as CallOutcome | { fatal: unknown } | typeof SKIPPED;
      if (o === SKIPPED) continue;
      if ('fatal' in o) fatal ??= o;
      else if (fatal === null && run.stopped !== 'upstream_errors')
        answers[taken] = takeAnswer(run, asked[taken], first + taken, o);
    }
  };
  await mapLimit(asked, concurrency, async (q, i) => {
    const skip = fatal !== null || run.stopped === 'upstream_errors';
    outcomes[i] = skip ? SKIPPED : await makeCall(run, q);
    takeReady();
  });
  if (fatal !== null) throw (fatal as { fatal: unknown }).fatal;
  // calls given an id but never taken (the run halted before them) leave the record
  const kept = answers.filter((a) => a !== null).length;
  run.made = first + kept;
  return answers;
}

/** A call not made: the round had already halted or failed when its turn came. */
const SKIPPED = Symbol('skipped');

/** A call as made: the answer (journaled or replayed), an upstream failure, or what must stop the run. */
type CallOutcome =
  | {
      readonly key: string;
      readonly wire: RecordedCall | CompactCall;
      readonly replayed: boolean;
      readonly attempts: number;
    }
  | {
      readonly key: string;
      readonly failure: TrainprintError;
      readonly time: string;
      readonly ms: number;
      readonly attempts: number;
    };

/** The canonical request of a question (its SHA-256 is the journal key) and the messages sent for it. */
function requestOf(run: RunState, q: Question) {
  const { model, maxTokens, variants } = run.settings;
  const template = variants[q.variant];
  const messages = template === null ? undefined : template.messages(q.prompt);
  const canonical = canonicalRequest(model, q.prompt, maxTokens, messages);
  return { messages, canonical, key: hex(canonical), variantId: template === null ? PLAIN_PROMPT : template.id };
}

/** Answer a question from the journal, or call the model and journal its answer; never rejects. */
async function makeCall(run: RunState, q: Question): Promise<CallOutcome | { fatal: unknown }> {
  const { model, maxTokens, journal, signal, budget } = run.settings;
  const { messages, canonical, key } = requestOf(run, q);
  let attempts = 1;
  try {
    const kept = journal === null ? undefined : await journal.get(key);
    if (kept !== undefined) {
      // a compact entry (the service's own journal) is replayed from its digests; any other has its text re-derived
      const where = `journal entry ${key}`;
      const compact = journal?.compact === true && !('response' in kept);
      const wire = compact ? checkCompactCall(kept, where) : checkReplayedCall(kept, where);
      return { key, wire, replayed: true, attempts };
    }
    if (signal?.aborted) return { fatal: signal.reason };
    if (run.settings.stop?.aborted) return { fatal: run.settings.stop.reason };
    const t0 = Date.now();
    // every retry is a request: counted against the budget before it is sent, refused once it is spent
    const retry = () => {
      if (run.requests >= budget) return false;
      run.requests++;
      attempts++;
      return true;
    };
    let g: Awaited<ReturnType<typeof plainCall>> | GenerationCall;
    try {
      g = model.generateCall
        ? await model.generateCall(q.prompt, {
            maxTokens,
            temperature: 0,
            ...(messages ? { messages } : {}),
            ...(signal ? { signal } : {}),
            retry,
          })
        : await plainCall(model, q.prompt, maxTokens, messages, canonical);
    } catch (e) {
      if (signal?.aborted) return { fatal: signal.reason };
      if (!(e instanceof TrainprintError) || !e.code.startsWith('UPSTREAM_')) return { fatal: e };
      return { key, failure: e, time: new Date(t0).toISOString(), ms: Date.now() - t0, attempts };
    }
    const wire: RecordedCall = {
      text: g.text,
      ...(g.truncated ? { truncated: true as const } : {}),
      request: g.request,
      response: g.response,
      ...(g.usage !== undefined ? { usage: g.usage } : {}),
      ...(g.model !== undefined ? { model: g.model } : {}),
      ...(g.finish_reason !== undefined ? { finish_reason: g.finish_reason } : {}),
      ...(g.refusal !== undefined ? { refusal: g.refusal } : {}),
      time: new Date(t0).toISOString(),
      ms: Date.now() - t0,
    };
    if (journal !== null) await journal.put(key, wire);
    return { key, wire, replayed: false, attempts };
  } catch (e) {
    return { fatal: e };
  }
}

/** Record a call (in id order) and align its answer with the work after where it asked. */
function takeAnswer(run: RunState, q: Question, id: number, outcome: CallOutcome): Answer {
  const { work, n, text } = run.settings;
  const { variantId } = requestOf(run, q);
  run.prompts.set(id, q.prompt);
  run.variantOf.set(id, variantId);
  const position = q.at < n ? work.starts[q.at] + (q.digits ?? 0) : text.length;
  const base = { id, phase: q.phase, position, prompt_from: q.from, variant: variantId, key: outcome.key };
  const attempts = outcome.attempts > 1 ? { attempts: outcome.attempts } : {};
  if ('failure' in outcome) {
    // a failed call is not journaled: a later run asks it again
    run.firstError ??= outcome.failure;
    run.records.push({
      ...base,
      time: outcome.time,
      ms: outcome.ms,
      ...attempts,
      request_sha256: outcome.key,
      response_sha256: null,
      answer_sha256: null,
      refused: false,
      reproduced_words: 0,
      error: outcome.failure.code,
    });
    if (++run.failedInARow >= MAX_FAILED_IN_A_ROW) run.stopped = 'upstream_errors';
    return { id, chain: [], out: wordSpans(''), text: '', ok: false, rest: -1 };
  }
  const { wire, replayed } = outcome;
  run.failedInARow = 0;
  run.anySuccess = true;
  const out = wordSpans(wire.text);
  const window = Math.min(n, q.at + Math.ceil(out.tokens.length * 1.5) + HIT_WORDS);
  let chain = wire.refusal === undefined ? chainIn(run.index, out.tokens, q.at, window) : [];
  // a short work's answer counts only when it writes out all the rest (short-work.ts)
  let rest =
    run.settings.short && wire.refusal === undefined ? restWrittenOut(work.tokens, q.at, out.tokens, q.digits) : -1;
  // a refusal is never text; an answer that continues the work where asked is never a refusal, nor is one that
  // opens with a refusal sentence and then writes the continuation out (real chat models answer so)
  const continues =
    rest >= 0 ||
    (chain.length > 0 &&
      chain[0].work_token <= q.at + 5 &&
      (chain[0].output_token <= 5 || (chain[0].output_token <= PREFACE_WORDS && chainWords(chain) >= HIT_WORDS)));
  const refused = wire.refusal !== undefined || (!continues && isRefusal(wire.text));
  if (refused) (chain = []), (rest = -1);
  else if (chain.length && !run.settings.short)
    run.outputs.push({ call: id, text: wire.text, spans: out, runs: chain });
  run.records.push({
    ...base,
    time: wire.time,
    ms: wire.ms,
    ...(replayed ? { replayed: true as const } : {}),
    ...(wire.truncated ? { truncated: true as const } : {}),
    ...attempts,
    request_sha256: 'request_sha256' in wire ? wire.request_sha256 : hex(wire.request),
    response_sha256: 'response_sha256' in wire ? wire.response_sha256 : hex(wire.response),
    answer_sha256: hex(JSON.stringify([wire.text, wire.refusal ?? null])),
    refused,
    reproduced_words: rest >= 0 ? n - q.at - (q.digits ? 1 : 0) : chainWords(chain),
    ...(wire.usage ?? {}),
    ...(wire.model !== undefined ? { model: wire.model.slice(0, MAX_FIELD_CHARS) } : {}),
  });
  return { id, chain, out, text: wire.text, ok: !refused, rest };
}

/** What a run gathered: its calls in order, the answers aligned with the work, and how it ended. */
interface ExtractionOutcome {
  readonly records: ExtractionCall[];
  readonly outputs: readonly AlignedOutput[];
  /** Each call's prompt and prompt template, by call id. */
  readonly prompts: ReadonlyMap<number, string>;
  readonly variantOf: ReadonlyMap<number, string>;
  readonly hits: number;
  readonly stopped: WorkExtractionResult['stopped'];
  readonly untried: { probes: number[]; loops: number[] };
  /** A short work's splits whose rest was written out, shortest prompt first. */
  readonly short: readonly ShortHit[];
}

/** The result of a run: its blocks measured against the work and each section, its calls, usage, cost and method. */
function assembleResult(settings: ExtractionSettings, outcome: ExtractionOutcome): WorkExtractionResult {
  const { model, budget, prices, variants, text, workId, work, n, sections, sectionWords, plan } = settings;
  const { records, outputs, prompts, variantOf, hits, stopped, untried } = outcome;
  // a short work has no 50-word blocks: the rest it wrote out is its block, whatever its length (short-work.ts)
  const short = settings.short;
  const blocks50 = short
    ? shortBlocks(settings, outcome.short)
    : nearVerbatimBlocks(text, work, outputs, NV_BLOCK_WORDS_SHORT);
  const [minNv, min50] = short ? [0, 0] : [NV_BLOCK_WORDS, NV_BLOCK_WORDS_SHORT];
  const blocks = blocks50.map((b) => ({
    ...b,
    prompt: prompts.get(b.calls[0]) ?? '',
    prompt_variant: variantOf.get(b.calls[0]) ?? PLAIN_PROMPT,
  }));
  const inBlocks = (min: number, lo = 0, hi = n) => {
    let t = 0;
    for (const b of blocks50) {
      if (b.words < min) continue;
      const w0 = wordAt(work, b.start),
        w1 = wordAt(work, b.end);
      t += Math.max(0, Math.min(w1, hi) - Math.max(w0, lo));
    }
    return t;
  };
  const reporting = records.filter((c) => c.prompt_tokens !== undefined);
  const promptTokens = reporting.reduce((t, c) => t + (c.prompt_tokens ?? 0), 0);
  const completionTokens = reporting.reduce((t, c) => t + (c.completion_tokens ?? 0), 0);
  const refusals = records.filter((c) => c.refused).length;
  return {
    work_id: workId,
    text_sha256: hex(text),
    model: model.id,
    words: countWords(text),
    tokens: n,
    nv_recall: round4(inBlocks(minNv) / n),
    nv_recall_50: round4(inBlocks(min50) / n),
    blocks,
    sections: sections.map((s, k) => {
      const [w0, w1] = sectionWords[k];
      const inside = inBlocks(minNv, w0, w1);
      return {
        start: s.start,
        end: s.end,
        ...(s.title !== undefined ? { title: s.title } : {}),
        words: countWords(text, s.start, s.end),
        tokens: w1 - w0,
        probes: plan.perSection[k],
        tokens_in_blocks: inside,
        nv_recall: w1 > w0 ? round4(inside / (w1 - w0)) : 0,
      };
    }),
    calls: records.length,
    refusals,
    failed_calls: records.filter((c) => c.error !== undefined).length,
    replayed_calls: records.filter((c) => c.replayed).length,
    budget_calls: budget,
    prompt_variants: variants.map((v) => (v === null ? PLAIN_PROMPT : v.id)),
    reported_models: [...new Set(records.flatMap((c) => (c.model === undefined ? [] : [c.model])))].sort(),
    usage: reporting.length
      ? { prompt_tokens: promptTokens, completion_tokens: completionTokens, calls_reporting: reporting.length }
      : null,
    cost: prices
      ? {
          // to a millionth of the currency unit: sums of per-token prices need no more
          amount:
            Math.round(promptTokens * prices.prompt_per_million + completionTokens * prices.completion_per_million) /
            1e6,
          currency: prices.currency ?? null,
          calls_priced: reporting.length,
        }
      : null,
    hits,
    stopped,
    untried: { probes: untried.probes.sort((a, b) => a - b), loops: untried.loops.sort((a, b) => a - b) },
    record: {
      transcript_sha256: extractionTranscriptSha256(records),
      calls: records,
    },
    ...(short ? { short_work: true as const } : {}),
    method: short ? shortMethod(settings) : longMethod(settings),
  };
}

/** The method of a short work's probe, as the result states it. */
function shortMethod(settings: ExtractionSettings): string {
  const { plan, variants, maxTokens, budget } = settings;
  return (
    `short-work probe (a work under ${SHORT_WORK_WORDS} words holds no 50-word block after an 8-word prompt): ${plan.positions.length} ` +
    `prompts of the work's first words${variants.length > 1 ? `, each in up to ${variants.length} chat templates (best-of-N)` : ''}; ` +
    `a prompt hits when the answer writes out all the rest of the work verbatim (one exact run of word tokens starting within its ` +
    `first 40 words), and a rest counts only when it holds ≥ ${SHORT_REST_WORDS} words or a number of ≥ ${SHORT_REST_DIGITS} digits ` +
    `(a never-seen work passes with chance ≤ 10^−digits for a number the prompt does not predict); greedy decoding, ≤ ${maxTokens} ` +
    `tokens a call, ≤ ${budget} calls; nv_recall = share of the work's words written out (from the shortest prompt that hit). ` +
    'Refusals counted, never aligned.'
  );
}

/** The method of the two-phase extraction, as the result states it. */
function longMethod(settings: ExtractionSettings): string {
  const { plan, prefix, sections, variants, maxTokens, budget } = settings;
  return (
    `two-phase extraction (Ahmed et al. 2026, arXiv 2601.02671): ${plan.positions.length} probes of ${prefix} words spread over ` +
    `${sections.length} section(s)${variants.length > 1 ? `, each in up to ${variants.length} chat templates until one continues the work (best-of-N)` : ''}; from each hit, continuation loops (the model's own last ${prefix} words as the next prompt while it ` +
    `stays on the work, the work's own text after a drift; a second failure in a row ends the block); greedy decoding, ≤ ${maxTokens} ` +
    `tokens a call, ≤ ${budget} calls. Outputs aligned with the work as exact word runs (≥ 5 words) merged across gaps of ≤ 8 words into ` +
    `blocks ≥ 90 % reproduced and in order; nv_recall = share of the work's words in blocks of ≥ ${NV_BLOCK_WORDS} words (Cooper et al. 2025, ` +
    `arXiv 2505.12546). Refusals counted, never aligned.`
  );
}

/** The request's settings, checked, with the work resolved, split into words and its probe positions planned. */
interface ExtractionSettings {
  readonly signal: AbortSignal | undefined;
  readonly stop: AbortSignal | undefined;
  readonly model: TargetModel;
  readonly budget: number;
  readonly prefix: number;
  readonly maxTokens: number;
  readonly concurrency: number;
  readonly prices: ExtractionPrices | null;
  readonly journal: ExtractionJournal | null;
  /** The prompt templates tried in turn (best-of-N); `[null]` for a completions model (the prefix itself). */
  readonly variants: ReadonlyArray<PromptVariant | null>;
  readonly text: string;
  readonly workId: string | null;
  readonly work: WordTokenSpans;
  /** Words of the work. */
  readonly n: number;
  readonly sections: WorkSection[];
  /** Each section's first and end word. */
  readonly sectionWords: ReadonlyArray<readonly [number, number]>;
  readonly plan: { positions: number[]; perSection: number[]; digits?: number[] };
  /** A work under SHORT_WORK_WORDS words: probed in splits, `plan.positions` the prompts' words in the order asked. */
  readonly short: boolean;
}

/**
 * Check the request of {@link runWorkExtraction} and resolve its work: its objects (the model, journal and signals,
 * which its contract does not describe), then what only its text can say — enough words for the prompt, the sections
 * within it, a result within bound. The JSON members were read through `EXTRACT_WORK_REQUEST` (./schemas.ts) by
 * `extractWork`. Without a call: a job runs it at submission, so a request refused when run is refused before it is
 * charged.
 * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND, PAYLOAD_TOO_LARGE
 * @example await readExtraction(engine.store, { model, text, budget_calls: 500 })
 */
export async function readExtraction(store: Store, request: ExtractWorkRequest): Promise<ExtractionSettings> {
  checkRunObjects(request);
  const { text, workId } = await resolveWork(store, request as ExtractWorkRequest & Record<string, unknown>);
  // settled first (its plan is made whatever the sections), then checked on its own words, prefix and budget
  const settings = settle(request, text, workId);
  const { work, n, short, prefix, budget } = settings;
  if (short && shortWorkSplits(work, text).length === 0)
    fail(
      `the work has ${n} words and no ${SHORT_REST_DIGITS}-digit number: a work under ${SHORT_WORK_WORDS} words is probed with a rest of ≥ ${SHORT_REST_WORDS} words or one holding such a number after a prompt of its first words, so it needs ${SHORT_REST_WORDS + 1}`,
    );
  if (!short && n < prefix + HIT_WORDS)
    fail(`the work has ${n} words: extraction needs more than prefix_words + ${HIT_WORDS} (${prefix + HIT_WORDS})`);
  if (request.sections !== undefined) sectionsWithin(request.sections, text.length, 'sections');
  checkResultBound(budget, text.length, n, prefix);
  return settings;
}

/** A run's settings from a request whose checks are made: its defaults, its work's words, its plan of probes. */
function settle(r: ExtractWorkRequest, text: string, workId: string | null): ExtractionSettings {
  const { budget_calls: B, prefix_words: P, max_tokens: T, concurrency: C } = MEMORIZATION_LIMITS.extractWork;
  const model = r.model;
  const budget = r.budget_calls ?? B.default;
  const prefix = r.prefix_words ?? P.default;
  const variants = model.chat === true ? PROMPT_VARIANTS.slice(0, r.prompt_variants ?? PROMPT_VARIANTS.length) : [null];
  const work = wordSpans(text);
  const n = work.tokens.length;
  const short = n < SHORT_WORK_WORDS;
  const splits = short ? shortWorkSplits(work, text) : [];
  const sections = r.sections === undefined ? [{ start: 0, end: text.length }] : [...r.sections];
  const sectionWords = sections.map((s) => [wordAt(work, s.start), wordAt(work, s.end)] as const);
  // one probe a section at least: no chapter is left out of the plan by default (a budget too small for them all
  // leaves the rest untried, listed, and stops with 'budget')
  const dflt = short
    ? Math.max(1, Math.min(splits.length, Math.floor(budget / variants.length)))
    : Math.max(1, Math.min(Math.ceil(n / 250), Math.floor(budget / (2 * variants.length))), sections.length);
  const probes = r.probes ?? dflt;
  const plan = short
    ? shortPlan(sectionWords, splits.slice(0, probes))
    : probePositions(sectionWords, probes, prefix, n);
  return {
    signal: r.signal,
    stop: r.stop,
    model,
    budget,
    prefix,
    maxTokens: r.max_tokens ?? T.default,
    concurrency: r.concurrency ?? C.default,
    prices: r.prices ?? null,
    journal: r.journal ?? null,
    variants,
    text,
    workId,
    work,
    n,
    sections,
    sectionWords,
    plan,
    short,
  };
}

/** A short work's plan: its splits as asked, each counted in the section where its rest starts. */
function shortPlan(sections: ReadonlyArray<readonly [number, number]>, splits: readonly ShortSplit[]) {
  const positions = splits.map((s) => s.words);
  const perSection = sections.map(([a, b]) => positions.filter((p) => p >= a && p < b).length);
  return { positions, perSection, digits: splits.map((s) => s.digits) };
}

/** A call through `generate` only: the request recorded as its canonical JSON, the answer as its text. */
async function plainCall(
  model: TargetModel,
  prompt: string,
  maxTokens: number,
  messages: GenerateMessages | undefined,
  canonical: string,
): Promise<{
  text: string;
  request: string;
  response: string;
  usage?: undefined;
  model?: undefined;
  finish_reason?: undefined;
  refusal?: undefined;
  truncated?: true;
}> {
  const answer = await model.generate(prompt, { maxTokens, temperature: 0, ...(messages ? { messages } : {}) });
  if (typeof answer !== 'string') throw new TypeError(`model ${model.id}: generate did not return a string`);
  // what the output-token limit can produce, at most; the record's answer hash is of the text kept
  const most = maxTokens * MAX_CHARS_PER_TOKEN;
  const text = answer.length > most ? answer.slice(0, most) : answer;
  return { text, request: canonical, response: text, ...(text !== answer ? { truncated: true as const } : {}) };
}

type GenerateMessages = ReadonlyArray<{ readonly role: 'system' | 'user'; readonly content: string }>;

/**
 * The request as JSON with its keys in a fixed order: the model's id, the messages (chat) or the prompt, max_tokens
 * and temperature. Its SHA-256 is the journal key: the same request in any run, whatever the wire adds.
 */
function canonicalRequest(
  model: TargetModel,
  prompt: string,
  maxTokens: number,
  messages: GenerateMessages | undefined,
): string {
  return JSON.stringify(
    messages === undefined
      ? { model: model.id, prompt, max_tokens: maxTokens, temperature: 0 }
      : { model: model.id, messages, max_tokens: maxTokens, temperature: 0 },
  );
}

/** The last `k` words of `s` (the engine's word tokens), as written. */
function lastWords(s: string, k: number): string {
  const sp = wordSpans(s);
  const m = sp.tokens.length;
  return m <= k ? s.trim() : s.slice(sp.starts[m - k], sp.ends[m - 1]);
}

/** Index of the first word starting at or after UTF-16 offset `at` (n when none). */
function wordAt(work: WordTokenSpans, at: number): number {
  let lo = 0,
    hi = work.starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (work.starts[mid] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Probe positions (word indices, ascending): `probes` shared among the sections by their words (at least one each
 * while there are enough), evenly spaced inside each; a position needs `prefix` words before it and ≥ HIT_WORDS after.
 */
function probePositions(
  sections: ReadonlyArray<readonly [number, number]>,
  probes: number,
  prefix: number,
  n: number,
): { positions: number[]; perSection: number[] } {
  const lo = prefix,
    hi = n - HIT_WORDS;
  const usable = sections.map(([a, b]) => Math.max(0, Math.min(b, hi + 1) - Math.max(a, lo)));
  const total = usable.reduce((t, u) => t + u, 0);
  const per: number[] = usable.map((u) => (u > 0 && probes >= sections.length ? 1 : 0));
  let left = probes - per.reduce((t, c) => t + c, 0);
  if (total > 0 && left > 0) {
    const shares = usable.map((u) => (left * u) / total);
    shares.forEach((s, k) => {
      per[k] += Math.floor(s);
    });
    left = probes - per.reduce((t, c) => t + c, 0);
    // the remainder to the largest fractions
    const order = shares.map((s, k) => [s - Math.floor(s), k] as const).sort((a, b) => b[0] - a[0]);
    for (const [, k] of order) if (left > 0 && usable[k] > 0) per[k]++, left--;
  }
  const positions = new Set<number>();
  sections.forEach(([a], k) => {
    const start = Math.max(a, lo);
    for (let i = 0; i < per[k]; i++) positions.add(start + Math.floor(((i + 0.5) * usable[k]) / per[k]));
  });
  return { positions: [...positions].sort((x, y) => x - y), perSection: per };
}
