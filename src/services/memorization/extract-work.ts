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
import type { TargetModel } from '../../models/types.js';
import type { Store } from '../../store/types.js';
import { round4 } from '../../util/round.js';
import { checkObject, fail, onlyKeys } from '../../util/validate.js';
import { checkRecordedCall, type ExtractionJournal, type RecordedCall } from './extraction-journal.js';
import { checkModel, intOption, resolveWork } from './inputs.js';
import {
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
import { isRefusal } from './refusal.js';
import { mapLimit, wordSpans, type TokenRun, type WordTokenSpans } from './text.js';

/** Words an answer must reproduce of the work where it was asked to continue, for a hit (or a loop step). */
export const HIT_WORDS = 20;
/** Calls that fail in a row (after the adapter's own retries) before the run stops with what it has. */
const MAX_FAILED_IN_A_ROW = 3;

/** A section of the work to spread the probes over (UTF-16 offsets into the text). */
export interface WorkSection {
  readonly start: number;
  readonly end: number;
  readonly title?: string;
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
   * Stops the run: once aborted no further call is made and the run rejects with the signal's reason (calls already
   * in flight finish and are journaled: they were paid for). A job's item passes its own (time limit, cancel, stop).
   */
  readonly signal?: AbortSignal;
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
  readonly refused: boolean;
  /** Words of the answer found in exact runs of the work where it was asked to continue. */
  readonly reproduced_words: number;
  /** The error code of a failed call. */
  readonly error?: string;
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
  readonly words: number;
  readonly probes: number;
  /** Words of the section inside blocks of ≥ 100 words, and their share. */
  readonly words_in_blocks: number;
  readonly nv_recall: number;
}

/** Result of {@link runWorkExtraction}. */
export interface WorkExtractionResult {
  readonly work_id: string | null;
  /** SHA-256 (hex) of the work's text as measured (UTF-8): the text the offsets refer to. */
  readonly text_sha256: string;
  readonly model: string;
  /** Words of the work (the engine's word tokens). */
  readonly words: number;
  /** Share of the work's words inside near-verbatim blocks of ≥ 100 words. */
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
  /** Why the run stopped: every probe and loop done, the budget spent, or calls failing in a row. */
  readonly stopped: 'done' | 'budget' | 'upstream_errors';
  /** What the budget (or the failures) left untried: probe positions and loop positions (UTF-16 offsets). */
  readonly untried: { readonly probes: number[]; readonly loops: number[] };
  /** Every call in order, and the SHA-256 of the transcript (the lines `id request_sha256 response_sha256`). */
  readonly record: { readonly transcript_sha256: string; readonly calls: ExtractionCall[] };
  readonly method: string;
}

const encoder = new TextEncoder();
const hex = (s: string) => sha256HexNow(encoder.encode(s));

/**
 * Run the two-phase extraction of a whole work.
 * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND, UPSTREAM_ERROR / UPSTREAM_TIMEOUT (only when no call at all
 *   succeeded: later failures stop the run with a partial result)
 */
export async function runWorkExtraction(store: Store, request: ExtractWorkRequest): Promise<WorkExtractionResult> {
  const settings = await readExtraction(store, request);
  const { signal, model, budget, prefix, maxTokens, concurrency, journal, variants, text, work, n, plan } = settings;

  const index = new RunIndex(work.tokens);
  const owner = new Int32Array(n).fill(-1); // which loop has reproduced each word (loops stop where another went)
  const outputs: AlignedOutput[] = [];
  const records: ExtractionCall[] = [];
  const prompts = new Map<number, string>();
  const variantOf = new Map<number, string>();
  const untried = { probes: [] as number[], loops: [] as number[] };
  let made = 0,
    failedInARow = 0,
    anySuccess = false,
    firstError: unknown = null;
  let stopped: WorkExtractionResult['stopped'] = 'done';
  const halted = () => stopped === 'upstream_errors';

  /** The words of the work before word `w`: a prompt. */
  const workPrefix = (w: number) => text.slice(work.starts[Math.max(0, w - prefix)], work.ends[w - 1]);

  /**
   * One call asking for the continuation at work word `at` with prompt template `variant`; null when the budget is
   * spent or the run halted (no call made). Answered from the journal when it holds the request, else made and
   * journaled. The answer's chain is aligned in the window after `at`.
   */
  const inFlight = new Set<Promise<unknown>>();
  /** {@link callOnce}, tracked while it runs: a run that stops waits for the calls in flight to be journaled. */
  function call(...args: Parameters<typeof callOnce>): ReturnType<typeof callOnce> {
    const p = callOnce(...args);
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
    return p;
  }

  async function callOnce(
    prompt: string,
    at: number,
    phase: ExtractionCall['phase'],
    from: ExtractionCall['prompt_from'],
    variant: number,
  ): Promise<{ id: number; chain: TokenRun[]; out: WordTokenSpans; text: string; ok: boolean } | null> {
    if (made >= budget) {
      if (stopped === 'done') stopped = 'budget';
      return null;
    }
    if (halted()) return null;
    signal?.throwIfAborted();
    const id = made++;
    prompts.set(id, prompt);
    const template = variants[variant];
    const variantId = template === null ? PLAIN_PROMPT : template.id;
    variantOf.set(id, variantId);
    const messages = template === null ? undefined : template.messages(prompt);
    const canonical = canonicalRequest(model, prompt, maxTokens, messages);
    const key = hex(canonical);
    const position = at < n ? work.starts[at] : text.length;
    const base = { id, phase, position, prompt_from: from, variant: variantId, key };
    let wire: RecordedCall;
    let replayed = false;
    const kept = journal === null ? undefined : await journal.get(key);
    if (kept !== undefined) {
      wire = checkRecordedCall(kept, `journal entry ${key}`);
      replayed = true;
    } else {
      const t0 = Date.now();
      try {
        const g = model.generateCall
          ? await model.generateCall(prompt, { maxTokens, temperature: 0, ...(messages ? { messages } : {}) })
          : await plainCall(model, prompt, maxTokens, messages, canonical);
        wire = {
          text: g.text,
          request: g.request,
          response: g.response,
          ...(g.usage !== undefined ? { usage: g.usage } : {}),
          ...(g.model !== undefined ? { model: g.model } : {}),
          ...(g.finish_reason !== undefined ? { finish_reason: g.finish_reason } : {}),
          ...(g.refusal !== undefined ? { refusal: g.refusal } : {}),
          time: new Date(t0).toISOString(),
          ms: Date.now() - t0,
        };
      } catch (e) {
        if (!(e instanceof TrainprintError) || !e.code.startsWith('UPSTREAM_')) throw e;
        firstError ??= e;
        // a failed call is not journaled: a later run asks it again
        records.push({
          ...base,
          time: new Date(t0).toISOString(),
          ms: Date.now() - t0,
          request_sha256: key,
          response_sha256: null,
          refused: false,
          reproduced_words: 0,
          error: e.code,
        });
        if (++failedInARow >= MAX_FAILED_IN_A_ROW) stopped = 'upstream_errors';
        return { id, chain: [], out: wordSpans(''), text: '', ok: false };
      }
      if (journal !== null) await journal.put(key, wire);
    }
    failedInARow = 0;
    anySuccess = true;
    const out = wordSpans(wire.text);
    const window = Math.min(n, at + Math.ceil(out.tokens.length * 1.5) + HIT_WORDS);
    let chain = wire.refusal === undefined ? chainIn(index, out.tokens, at, window) : [];
    // a refusal is never text; an answer that continues the work where asked is never a refusal
    const continues = chain.length > 0 && chain[0].output_token <= 5 && chain[0].work_token <= at + 5;
    const refused = wire.refusal !== undefined || (!continues && isRefusal(wire.text));
    if (refused) chain = [];
    else if (chain.length) outputs.push({ call: id, text: wire.text, spans: out, runs: chain });
    records.push({
      ...base,
      time: wire.time,
      ms: wire.ms,
      ...(replayed ? { replayed: true as const } : {}),
      request_sha256: hex(wire.request),
      response_sha256: hex(wire.response),
      refused,
      reproduced_words: chainWords(chain),
      ...(wire.usage ?? {}),
      ...(wire.model !== undefined ? { model: wire.model } : {}),
    });
    return { id, chain, out, text: wire.text, ok: !refused };
  }

  /** Where an answer's chain continues the work from `at`: the word after its last run, or -1 when it does not. */
  const reached = (chain: readonly TokenRun[], at: number): number => {
    if (chainWords(chain) < HIT_WORDS || chain[0].work_token > at + HIT_WORDS) return -1;
    const last = chain[chain.length - 1];
    return last.work_token + last.tokens;
  };

  /** The model's own words as the next prompt when its answer stayed on the work to (nearly) its end, else null. */
  const nextOwnPrompt = (prompt: string, got: { chain: TokenRun[]; out: WordTokenSpans; text: string }) => {
    const last = got.chain[got.chain.length - 1];
    return got.out.tokens.length - (last.output_token + last.tokens) <= 10
      ? lastWords(`${prompt} ${got.text}`, prefix)
      : null;
  };

  /**
   * Best-of-N: the prompt in up to `tries` templates, from `first` on, until one continues the work from `at`; the
   * answer that did (or the last one), with where it reached (≤ at: it did not). Null when no call could be made.
   */
  const ask = async (
    prompt: string,
    at: number,
    phase: ExtractionCall['phase'],
    from: ExtractionCall['prompt_from'],
    first: number,
    tries = variants.length,
  ) => {
    let last: { got: NonNullable<Awaited<ReturnType<typeof call>>>; end: number; variant: number } | null = null;
    for (let k = 0; k < Math.min(tries, variants.length); k++) {
      const variant = (first + k) % variants.length;
      const got = await call(prompt, at, phase, from, variant);
      if (got === null) break;
      last = { got, end: reached(got.chain, at), variant };
      if (last.end > at) break;
    }
    return last;
  };

  // the phases: once one rejects (the signal aborted, a store failing), the calls still in flight finish and are
  // journaled before the run rejects, so a run started again asks none of them a second time
  const hits: Array<{ at: number; end: number; probe: number; next: string | null; variant: number }> = [];
  try {
    await phases();
  } catch (e) {
    while (inFlight.size) await Promise.allSettled([...inFlight]);
    throw e;
  }

  async function phases(): Promise<void> {
    // phase 1: the probes
    await mapLimit(plan.positions, concurrency, async (at, k) => {
      const prompt = workPrefix(at);
      const asked = await ask(prompt, at, 'probe', 'work', 0);
      if (asked === null) {
        untried.probes.push(work.starts[at]);
        return;
      }
      if (asked.end > at)
        hits.push({ at, end: asked.end, probe: k, next: nextOwnPrompt(prompt, asked.got), variant: asked.variant });
    });
    hits.sort((a, b) => a.at - b.at);

    // phase 2: from each hit, step back while probes still hit, then loop forward
    await mapLimit(hits, concurrency, async (hit, me) => {
      const claim = (a: number, b: number) => {
        for (let w = a; w < b; w++) if (owner[w] < 0) owner[w] = me;
      };
      claim(hit.at, hit.end);
      const floor = hit.probe > 0 ? plan.positions[hit.probe - 1] : prefix;
      let variant = hit.variant;
      for (let at = hit.at - prefix; at >= Math.max(prefix, floor); at -= prefix) {
        if (owner[at] >= 0 && owner[at] !== me) break;
        const asked = await ask(workPrefix(at), at, 'probe', 'work', variant);
        if (asked === null) {
          untried.probes.push(work.starts[at]);
          break;
        }
        const end = asked.end;
        if (end <= at) break;
        claim(at, end);
      }
      let at = hit.end,
        prompt = hit.next ?? workPrefix(hit.end),
        from: ExtractionCall['prompt_from'] = hit.next === null ? 'work' : 'model';
      while (at < n) {
        if (owner[at] >= 0 && owner[at] !== me) return; // another loop went on from here
        // the model's own words go to the template that brought it here; the work's text, best-of-N again
        const asked = await ask(prompt, at, 'loop', from, variant, from === 'model' ? 1 : variants.length);
        if (asked === null) {
          untried.loops.push(work.starts[at]);
          return;
        }
        const { got, end } = asked;
        if (end <= at) {
          if (from === 'work') return; // the work's own text did not bring it back: the block has ended
          prompt = workPrefix(at);
          from = 'work';
          continue;
        }
        variant = asked.variant;
        claim(at, end);
        // still near-verbatim to its end: its own words are the next prompt; else the work's, where it drifted
        const own = nextOwnPrompt(prompt, got);
        prompt = own ?? workPrefix(end);
        from = own === null ? 'work' : 'model';
        at = end;
      }
    });
  }

  if (!anySuccess && firstError !== null) throw firstError;
  records.sort((a, b) => a.id - b.id);
  return assembleResult(settings, { records, outputs, prompts, variantOf, hits: hits.length, stopped, untried });
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
}

/** The result of a run: its blocks measured against the work and each section, its calls, usage, cost and method. */
function assembleResult(settings: ExtractionSettings, outcome: ExtractionOutcome): WorkExtractionResult {
  const { model, budget, prefix, maxTokens, prices, variants, text, workId, work, n, sections, sectionWords, plan } =
    settings;
  const { records, outputs, prompts, variantOf, hits, stopped, untried } = outcome;
  const blocks50 = nearVerbatimBlocks(text, work, outputs, NV_BLOCK_WORDS_SHORT);
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
    words: n,
    nv_recall: round4(inBlocks(NV_BLOCK_WORDS) / n),
    nv_recall_50: round4(inBlocks(NV_BLOCK_WORDS_SHORT) / n),
    blocks,
    sections: sections.map((s, k) => {
      const [w0, w1] = sectionWords[k];
      const inside = inBlocks(NV_BLOCK_WORDS, w0, w1);
      return {
        start: s.start,
        end: s.end,
        ...(s.title !== undefined ? { title: s.title } : {}),
        words: w1 - w0,
        probes: plan.perSection[k],
        words_in_blocks: inside,
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
    method:
      `two-phase extraction (Ahmed et al. 2026, arXiv 2601.02671): ${plan.positions.length} probes of ${prefix} words spread over ` +
      `${sections.length} section(s)${variants.length > 1 ? `, each in up to ${variants.length} chat templates until one continues the work (best-of-N)` : ''}; from each hit, continuation loops (the model's own last ${prefix} words as the next prompt while it ` +
      `stays on the work, the work's own text after a drift; a second failure in a row ends the block); greedy decoding, ≤ ${maxTokens} ` +
      `tokens a call, ≤ ${budget} calls. Outputs aligned with the work as exact word runs (≥ 5 words) merged across gaps of ≤ 8 words into ` +
      `blocks ≥ 90 % reproduced and in order; nv_recall = share of the work's words in blocks of ≥ ${NV_BLOCK_WORDS} words (Cooper et al. 2025, ` +
      `arXiv 2505.12546). Refusals counted, never aligned.`,
  };
}

/** The request's settings, checked, with the work resolved, split into words and its probe positions planned. */
interface ExtractionSettings {
  readonly signal: AbortSignal | undefined;
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
  readonly plan: { positions: number[]; perSection: number[] };
}

/**
 * Check the request of {@link runWorkExtraction} and resolve its work.
 * @throws INVALID_INPUT, INVALID_OPTIONS, NOT_FOUND
 */
async function readExtraction(store: Store, request: ExtractWorkRequest): Promise<ExtractionSettings> {
  const r = checkObject(request, 'the request');
  onlyKeys(
    r,
    [
      'model',
      'work_id',
      'text',
      'sections',
      'budget_calls',
      'probes',
      'prefix_words',
      'max_tokens',
      'concurrency',
      'prices',
      'prompt_variants',
      'journal',
      'signal',
    ],
    'extractWork',
  );
  const signal = r.signal as AbortSignal | undefined;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TrainprintError('INVALID_OPTIONS', 'signal must be an AbortSignal');
  const model = checkModel(r.model);
  const budget = intOption(r.budget_calls, 2000, 1, 1_000_000, 'budget_calls');
  const prefix = intOption(r.prefix_words, 50, 8, 500, 'prefix_words');
  const maxTokens = intOption(r.max_tokens, 256, 16, 4096, 'max_tokens');
  const concurrency = intOption(r.concurrency, 4, 1, 64, 'concurrency');
  const prices = checkPrices(r.prices);
  const journal = checkJournal(r.journal);
  const chat = model.chat === true;
  const variants = chat
    ? PROMPT_VARIANTS.slice(
        0,
        intOption(r.prompt_variants, PROMPT_VARIANTS.length, 1, PROMPT_VARIANTS.length, 'prompt_variants'),
      )
    : [null];
  if (!chat) intOption(r.prompt_variants, 1, 1, 1, 'prompt_variants (a completions model has one prompt)');
  const { text, workId } = await resolveWork(store, r);
  const work = wordSpans(text);
  const n = work.tokens.length;
  if (n < prefix + HIT_WORDS)
    fail(`the work has ${n} words: extraction needs more than prefix_words + ${HIT_WORDS} (${prefix + HIT_WORDS})`);
  const sections = checkSections(r.sections, text);
  const sectionWords = sections.map((s) => [wordAt(work, s.start), wordAt(work, s.end)] as const);
  const dflt = Math.max(1, Math.min(Math.ceil(n / 250), Math.floor(budget / (2 * variants.length))));
  const probes = intOption(r.probes, dflt, 1, 1_000_000, 'probes');
  const plan = probePositions(sectionWords, probes, prefix, n);
  return {
    signal,
    model,
    budget,
    prefix,
    maxTokens,
    concurrency,
    prices,
    journal,
    variants,
    text,
    workId,
    work,
    n,
    sections,
    sectionWords,
    plan,
  };
}

/**
 * The digest of an extraction's record: the SHA-256 (hex) of the lines `id request_sha256 response_sha256\n` of its
 * calls in order (`-` for a failed call's answer). Anyone holding the record recomputes it (`trainprint verify` does).
 * @example extractionTranscriptSha256(result.record.calls) === result.record.transcript_sha256 // true
 */
export function extractionTranscriptSha256(
  calls: ReadonlyArray<Pick<ExtractionCall, 'id' | 'request_sha256' | 'response_sha256'>>,
): string {
  return hex(calls.map((c) => `${c.id} ${c.request_sha256} ${c.response_sha256 ?? '-'}\n`).join(''));
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
}> {
  const text = await model.generate(prompt, { maxTokens, temperature: 0, ...(messages ? { messages } : {}) });
  if (typeof text !== 'string') throw new TypeError(`model ${model.id}: generate did not return a string`);
  return { text, request: canonical, response: text };
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

function checkJournal(v: unknown): ExtractionJournal | null {
  if (v === undefined) return null;
  const j = v as ExtractionJournal;
  if (!j || typeof j !== 'object' || typeof j.get !== 'function' || typeof j.put !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'journal must be an ExtractionJournal { get(key), put(key, call) }');
  return j;
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

function checkPrices(v: unknown): ExtractionPrices | null {
  if (v === undefined) return null;
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o))
    fail('prices must be an object { prompt_per_million, completion_per_million, currency? }');
  onlyKeys(o, ['prompt_per_million', 'completion_per_million', 'currency'], 'prices');
  for (const k of ['prompt_per_million', 'completion_per_million'] as const) {
    const x = o[k];
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0 || x > 1e6)
      throw new TrainprintError('INVALID_OPTIONS', `prices.${k} must be a number in 0..1,000,000 (per million tokens)`);
  }
  if (o.currency !== undefined && (typeof o.currency !== 'string' || o.currency.length === 0 || o.currency.length > 16))
    fail('prices.currency must be a string of 1..16 characters');
  return o as unknown as ExtractionPrices;
}

function checkSections(v: unknown, text: string): WorkSection[] {
  if (v === undefined) return [{ start: 0, end: text.length }];
  if (!Array.isArray(v) || v.length === 0 || v.length > 100_000) fail('sections must be a non-empty array');
  const out: WorkSection[] = [];
  let prev = 0;
  for (const [i, s] of (v as unknown[]).entries()) {
    const o = s as Record<string, unknown>;
    if (!o || typeof o !== 'object') fail(`sections[${i}] must be an object { start, end, title? }`);
    const { start, end, title } = o;
    if (
      !Number.isInteger(start) ||
      !Number.isInteger(end) ||
      (start as number) < prev ||
      (end as number) <= (start as number) ||
      (end as number) > text.length
    )
      fail(
        `sections[${i}]: start and end must be integers with ${prev} ≤ start < end ≤ ${text.length} (in order, not overlapping)`,
      );
    if (title !== undefined && typeof title !== 'string') fail(`sections[${i}].title must be a string`);
    out.push({
      start: start as number,
      end: end as number,
      ...(title !== undefined ? { title: title as string } : {}),
    });
    prev = end as number;
  }
  return out;
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
