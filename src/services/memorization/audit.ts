/**
 * auditCatalogue: which works of a catalogue a model writes out, under one call budget for the whole catalogue. A
 * publisher holds thousands of titles and cannot spend an extraction's 2,000 calls on each: a first pass asks a few
 * probes of every work (`first_probes`, the same plan and the same calls as `extractWork` with that many probes),
 * then the rest of the budget goes, work after work, to the works whose probes hit (most hits first), each measured
 * with `extractWork` with probes one per 20 words while half its share pays for them (the first pass's calls that
 * fall on the same positions replayed from the shared journal, not paid twice).
 *
 * A work under 58 words (a poem, a canary sentence) holds no 50-word block after a prompt: it is probed in splits
 * (short-work.ts) — prompts of its first words, each a hit when the model writes out all the rest verbatim and the rest
 * could not be written by chance (≥ 20 words, or a number of ≥ 10 digits) — in the same two passes: its first splits
 * first, all of them once it hits.
 *
 * Per work a verdict: `reproduced` (a near-verbatim block of ≥ 50 words, or a short work's rest written out, with
 * nv_recall and the blocks) or `not_found`, with how likely a work reproduced at the stated `level` would have shown no
 * hit in the probes it got:
 * (1 − level)^probes (a work is "reproduced at level p" when the model continues it from a share p of its probe
 * positions). For the catalogue: the share of works reproduced with its 95 % Wilson interval, the calls and the cost.
 * Deterministic as `extractWork` is: the works are measured in catalogue order, each a function of its answers.
 */
import { TrainprintError } from '../../errors.js';
import type { TargetModel } from '../../models/types.js';
import { wilsonInterval } from '../../stats/binomial.js';
import { round4 } from '../../util/round.js';
import { countWords } from '../../util/space.js';
import { turnsEvery } from '../../util/steps.js';
import { memoryExtractionJournal, type ExtractionJournal } from './extraction-journal.js';
import { HIT_WORDS } from './constants.js';
import { checkRunObjects } from './inputs.js';
import { checkResultBound, runPlannedExtraction, type WorkExtractionResult, type WorkSection } from './extract-work.js';
import { MEMORIZATION_LIMITS } from './limits.js';
import { SHORT_WORK_WORDS, shortWorkSplits } from './short-work.js';
import { wordSpans } from './text.js';
import { auditDigest } from './digests.js';

export { auditDigest };

/** One work of a catalogue. */
export interface AuditWork {
  /** The work's name in the result (a file name, an ISBN). */
  readonly id: string;
  readonly text: string;
  /** Its sections (chapters), as `extractWork` takes them. */
  readonly sections?: readonly WorkSection[];
}

/** Request of {@link auditCatalogue}. */
export interface CatalogueAuditRequest {
  readonly model: TargetModel;
  readonly works: readonly AuditWork[];
  /** Calls for the whole catalogue, first pass included (each counted as `extractWork` counts). @default 2000 */
  readonly budget_calls?: number;
  /** Probes per work in the first pass. 1..50. @default 3 */
  readonly first_probes?: number;
  /** The level `not_found` is stated at: the share of probe positions a reproduced work hits. (0, 1). @default 0.5 */
  readonly level?: number;
  /** Words of each prompt. @default 50, or less for short works (≥ 8) */
  readonly prefix_words?: number;
  readonly max_tokens?: number;
  readonly concurrency?: number;
  readonly prompt_variants?: number;
  /** Where answered calls are kept (a catalogue-wide journal: a run started again replays them). @default in memory */
  readonly journal?: ExtractionJournal;
  readonly signal?: AbortSignal;
  /**
   * Names this catalogue's plan (each work's words and most probes) across runs of one audit in this process — a
   * job's slices: a run that finds the plan kept under it skips counting every work's words again (about a second of
   * work for 100,000 works, more on a busy server). Kept until a run with it ends otherwise than by `stop`; the
   * newest {@link PLANS_KEPT} names. It must name these works with these options: the plan kept is read as it is.
   */
  readonly plan_key?: string;
  /**
   * Ends the audit between calls, as `extractWork`'s `stop`: the calls in flight finish and are journaled, then it
   * rejects with the signal's reason; run again with the same journal, it replays them and goes on (a job's slices).
   */
  readonly stop?: AbortSignal;
}

/** One work's verdict. */
export interface AuditedWork {
  readonly id: string;
  /** Words of the work: its runs of non-space characters, as every other door counts them (countWords). */
  readonly words: number;
  /** The engine's word tokens of the work, the unit of its prompts and blocks (absent from results made before). */
  readonly tokens?: number;
  /**
   * `too_short`: a work under 58 words with no split whose rest counts (under 21 words and no 10-digit number);
   * `untried`: the budget ended before its first pass; `unanswered`: every call for it failed (the first failure in
   * `error`) or was refused — no verdict either way, not counted as measured.
   */
  readonly verdict: 'reproduced' | 'not_found' | 'too_short' | 'untried' | 'unanswered';
  readonly nv_recall: number;
  readonly nv_recall_50: number;
  /** Blocks of ≥ 50 words: offsets into the work's text and their words. */
  readonly blocks: ReadonlyArray<{ readonly start: number; readonly end: number; readonly words: number }>;
  /**
   * Phase-1 probe positions the model answered and how many hit (first pass and measurement together): a failed or
   * refused call is no probe.
   */
  readonly probes: number;
  readonly hits: number;
  /** Calls this work cost the audit: its requests, each counted once (a run resumed from its journal: the same). */
  readonly calls: number;
  /** `not_found`: the chance that a work reproduced at `level` shows no hit in `probes` probes. */
  readonly miss_probability?: number;
  /** The transcript digest of its last extraction run. */
  readonly transcript_sha256?: string;
  /** A work under 58 words, probed in splits: `nv_recall` is the share of its words written out after a prompt. */
  readonly short_work?: true;
  /** Calls for it that failed (after the adapter's retries), where any did. */
  readonly failed_calls?: number;
  /** Calls for it the model refused (no text to measure), where it refused any. */
  readonly refused_calls?: number;
  /** `unanswered`: the first failure, as the extraction's result carries it. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * A catalogue's plan, in catalogue order: each work's words (as every door counts them), its tokens and the most probes
 * it can take (a short work's splits, else one per 20 words) — what depends on the texts alone; each work's prompt and
 * whether it is too short follow from them and `prefix_words`. Three numbers a work: 1.2 MB for 100,000 works.
 */
interface AuditPlan {
  readonly words: Uint32Array;
  readonly tokens: Uint32Array;
  readonly dense: Uint32Array;
}

/** The plans kept by `plan_key` (and `prefix_words`) in this process: the newest {@link PLANS_KEPT}. */
const keptPlans = new Map<string, AuditPlan>();
const PLANS_KEPT = 4;
const planKey = (request: Omit<CatalogueAuditRequest, 'model'>) =>
  request.plan_key === undefined ? undefined : `${request.plan_key}\n${request.prefix_words ?? ''}`;

/** Result of {@link auditCatalogue}. */
export interface CatalogueAuditResult {
  readonly model: string;
  readonly works: AuditedWork[];
  readonly catalogue: {
    readonly works: number;
    /** Works with a verdict (reproduced or not_found). */
    readonly measured: number;
    readonly reproduced: number;
    readonly share: number;
    readonly ci_95: [number, number];
    readonly level: number;
    readonly first_probes: number;
  };
  readonly calls: number;
  readonly budget_calls: number;
  readonly usage: { prompt_tokens: number; completion_tokens: number } | null;
  /**
   * Why it ended: every work audited (`done`), the budget spent (`budget`), or the model never answered
   * (`upstream_errors`: no call of the audit was answered, a refusal aside — an endpoint that cannot be reached, or
   * answers only errors; the first failure in `error`, the works after the first left `untried`). Nothing was measured
   * then: the share of 0 is no finding.
   */
  readonly stopped: 'done' | 'budget' | 'upstream_errors';
  /** `upstream_errors`: the first failure, as the works' `error`. */
  readonly error?: { readonly code: string; readonly message: string };
  /** SHA-256 of the lines `id transcript_sha256` of the works in order (`-` for none). */
  readonly audit_sha256: string;
  readonly method: string;
}

/**
 * Audit a catalogue under one budget: a request read through `AUDIT_REQUEST` (the library's `auditCatalogue` does).
 * @throws PAYLOAD_TOO_LARGE, UPSTREAM_*
 * @example
 * const r = await auditCatalogue({ model, works: [{ id: 'a.txt', text }], budget_calls: 2000 })
 * r.catalogue.share // share of the works reproduced, with r.catalogue.ci_95
 */
export async function auditCatalogue(request: CatalogueAuditRequest): Promise<CatalogueAuditResult> {
  try {
    return await runAudit(request);
  } finally {
    // kept only for the next run: this one ended at the end of its time slice
    const key = planKey(request);
    if (key !== undefined && !(request.stop?.aborted && !request.signal?.aborted)) keptPlans.delete(key);
  }
}

/** {@link auditCatalogue}'s run. */
async function runAudit(request: CatalogueAuditRequest): Promise<CatalogueAuditResult> {
  const { works, budget, first, level, planned } = await checkAuditSliced(request);
  const pause = turnsEvery(AUDIT_SLICE_MS);
  const journal = request.journal ?? memoryExtractionJournal();
  const variants = request.model.chat === true ? (request.prompt_variants ?? 3) : 1;
  // each run reads a member not given (undefined) as its default
  const { model, max_tokens, concurrency, prompt_variants, signal, stop } = request;
  const common = { model, journal, max_tokens, concurrency, prompt_variants, signal, stop };
  let left = budget;
  // the requests this audit has asked: what it pays is counted on them, not on what the journal happened to hold
  const asked = new Set<string>();
  let stopped: CatalogueAuditResult['stopped'] = 'done';
  const runs: AuditRun[] = [];
  // whether the model answered any call of a run (a refusal is an answer: the model was reached)
  const answered = (r: AuditRun) => r.result?.record.calls.some((c) => c.error === undefined) === true;
  // first pass: a few probes of every work, in catalogue order
  for (const [k, w] of works.entries()) {
    const { prefix, tooShort } = planned[k];
    const cost = first * variants;
    if (tooShort || cost > left) {
      if (!tooShort) stopped = 'budget';
      runs.push(planned[k]);
      await pause();
      continue;
    }
    const result = await runPlannedExtraction({
      ...common,
      text: w.text,
      ...(w.sections ? { sections: w.sections } : {}),
      prefix_words: prefix,
      probes: first,
      budget_calls: cost,
    });
    const calls = auditCalls(result, asked);
    left -= calls;
    runs.push({ ...planned[k], result, calls });
    // no call of the audit answered and this work's run stopped on failing calls: the model is not reached, and the
    // other works would only fail the same way (each after the adapter's retries); they are left untried
    if (result.stopped === 'upstream_errors' && !runs.some(answered)) {
      stopped = 'upstream_errors';
      runs.push(...planned.slice(runs.length));
      break;
    }
  }
  // then the works whose probes hit, most hits first, each given an even share of what is left
  const order = runs
    .map((r, k) => ({ k, hits: r.result?.hits ?? 0 }))
    .filter((c) => c.hits > 0)
    .sort((a, b) => b.hits - a.hits || a.k - b.k);
  for (const [i, { k }] of order.entries()) {
    const share = Math.floor(left / (order.length - i));
    if (share <= 0) {
      stopped = 'budget';
      break;
    }
    const run = runs[k];
    const before = run.result as WorkExtractionResult;
    const result = await runPlannedExtraction({
      ...common,
      text: works[k].text,
      ...(works[k].sections ? { sections: works[k].sections } : {}),
      prefix_words: run.prefix,
      // dense probes (one per 20 words, or every split of a short work) while half the share pays for them, never
      // fewer than the first pass's
      probes: Math.max(first, Math.min(run.dense, Math.floor(share / (2 * variants)))),
      budget_calls: before.calls + share,
    });
    const calls = auditCalls(result, asked);
    left -= calls;
    runs[k] = { ...run, result, calls: run.calls + calls };
  }
  return auditResult(request.model, works, runs, { budget, left, first, level, stopped }, pause);
}

/**
 * Work between two turns of the event loop in an audit's loops over its works, in ms. Longer than a search's 3 ms
 * slices: a turn on a busy server waits for every other callback queued, and a catalogue of 100,000 works is seconds
 * of such work, so 3 ms slices made hundreds more turns, each long under load, in an item that must end within its
 * time limit; 10 ms still answers another request well within the 200 ms aimed at.
 */
const AUDIT_SLICE_MS = 10;

/**
 * Each work's plan, once no measurement of a work — which may get the whole budget — could exceed the result a run may
 * hold, with a turn of the event loop every {@link AUDIT_SLICE_MS} ms of work (a catalogue of 100,000 works takes about
 * a second to plan), after its objects (the model, journal and signals: {@link checkRunObjects}); no run of a work checks
 * any of it again ({@link runPlannedExtraction}). The request was read through `AUDIT_REQUEST` (./schemas.ts) first: its schema and rules. The plan
 * kept under `request.plan_key` when there is one is read instead of counting the words again, else counted and kept
 * under it for the next run.
 * @throws PAYLOAD_TOO_LARGE (naming the work)
 * @example const { works, planned } = await checkAuditSliced({ model, works, budget_calls: 2000 })
 */
export async function checkAuditSliced(request: CatalogueAuditRequest) {
  checkRunObjects(request);
  const { works } = request;
  const budget = request.budget_calls ?? MEMORIZATION_LIMITS.audit.budget_calls.default;
  const first = request.first_probes ?? MEMORIZATION_LIMITS.audit.first_probes.default;
  const level = request.level ?? 0.5;
  const pause = turnsEvery(AUDIT_SLICE_MS);
  const n = works.length;
  const key = planKey(request);
  const kept = key === undefined ? undefined : keptPlans.get(key);
  const plan = kept?.tokens.length === n ? kept : null;
  const counted = plan ?? { words: new Uint32Array(n), tokens: new Uint32Array(n), dense: new Uint32Array(n) };
  const planned: AuditRun[] = [];
  for (const [k, w] of works.entries()) {
    const run = plan
      ? plannedRun(plan.words[k], plan.tokens[k], plan.dense[k], request.prefix_words)
      : unrun(w, request.prefix_words);
    counted.words[k] = run.words;
    counted.tokens[k] = run.tokens;
    counted.dense[k] = run.dense;
    // no measurement of the work — which may get the whole budget — may exceed what a run may hold
    try {
      if (!run.tooShort) checkResultBound(budget, w.text.length, run.tokens, run.prefix);
    } catch (e) {
      throw new TrainprintError('PAYLOAD_TOO_LARGE', `work ${JSON.stringify(w.id)}: ${(e as TrainprintError).detail}`);
    }
    planned.push(run);
    await pause();
  }
  if (key !== undefined && !plan) {
    keptPlans.delete(key);
    keptPlans.set(key, counted);
    for (const old of keptPlans.keys()) if (keptPlans.size > PLANS_KEPT) keptPlans.delete(old);
  }
  return { works, budget, first, level, planned };
}

/** A work of the audit before any run: its words, tokens, prompt, most probes, whether it is too short. */
function unrun(w: AuditWork, prefixWords: number | undefined): AuditRun {
  const spans = wordSpans(w.text);
  const tokens = spans.tokens.length;
  // the probes a work can take at most: a short work's splits; one per 20 words of a longer one
  const dense = tokens < SHORT_WORK_WORDS ? shortWorkSplits(spans, w.text).length : Math.ceil(tokens / 20);
  const words = countWords(w.text);
  return plannedRun(words, tokens, dense, prefixWords);
}

/** A work's run before any call, from its words, tokens and most probes ({@link AuditPlan}). */
function plannedRun(words: number, tokens: number, dense: number, prefixWords: number | undefined): AuditRun {
  const prefix = prefixWords ?? Math.max(8, Math.min(50, tokens - HIT_WORDS - 10));
  const tooShort = tokens < SHORT_WORK_WORDS ? dense === 0 : tokens < prefix + HIT_WORDS;
  return { words, tokens, prefix, dense, tooShort, result: null, calls: 0 };
}

/**
 * The calls a run costs the audit: each request it asked that no earlier run of this audit asked (the first pass's
 * calls that the measurement asks again are not paid twice), and every failed call. Counted on the requests, not on
 * which answers came from the journal, so an audit started again with its journal — after a kill, or after it
 * finished — spends its budget as the first run did and ends with the same record and digest.
 */
function auditCalls(result: WorkExtractionResult, asked: Set<string>): number {
  let calls = 0;
  for (const c of result.record.calls) {
    if (c.response_sha256 === null) calls++;
    else if (!asked.has(c.key)) {
      asked.add(c.key);
      calls++;
    }
  }
  return calls;
}

/**
 * One work of the audit as it goes: its words (counted once, in the plan), word tokens, prompt, most probes, whether it
 * is too short, its last run.
 */
interface AuditRun {
  readonly words: number;
  readonly tokens: number;
  readonly prefix: number;
  readonly dense: number;
  readonly tooShort: boolean;
  readonly result: WorkExtractionResult | null;
  readonly calls: number;
}

/** The audit's record from its runs (`pause` once per work: see {@link turnsEvery}). */
async function auditResult(
  model: TargetModel,
  works: readonly AuditWork[],
  runs: readonly AuditRun[],
  o: { budget: number; left: number; first: number; level: number; stopped: CatalogueAuditResult['stopped'] },
  pause: () => Promise<void> | void,
): Promise<CatalogueAuditResult> {
  const audited: AuditedWork[] = [];
  for (const [k, run] of runs.entries()) {
    audited.push(auditedWork(works[k], run, o.level));
    await pause();
  }
  return auditRecord(model, works.length, audited, runs, o);
}

/** One work's verdict from its last run. */
function auditedWork(work: AuditWork, run: AuditRun, level: number): AuditedWork {
  const r = run.result;
  const base = { id: work.id, words: run.words, tokens: run.tokens, calls: run.calls };
  if (r === null) return unmeasured(work, run, run.tooShort ? 'too_short' : 'untried');
  // a failed or refused call shows nothing of the model: only answered probes count, and a work none of whose calls
  // was answered gets no verdict (a dead endpoint or a refusal is not evidence that the model does not reproduce it)
  const answered = r.record.calls.filter((c) => c.error === undefined && !c.refused);
  const failed = r.record.calls.filter((c) => c.error !== undefined).length;
  const refused = r.record.calls.length - answered.length - failed;
  const failures = {
    ...(failed > 0 ? { failed_calls: failed } : {}),
    ...(refused > 0 ? { refused_calls: refused } : {}),
  };
  if (answered.length === 0)
    return {
      ...unmeasured(work, run, 'unanswered'),
      transcript_sha256: r.record.transcript_sha256,
      ...failures,
      error: r.error,
    };
  const probes = new Set(answered.filter((c) => c.phase === 'probe').map((c) => c.position)).size;
  const reproduced = r.nv_recall_50 > 0;
  return {
    ...base,
    ...failures,
    verdict: reproduced ? 'reproduced' : 'not_found',
    nv_recall: r.nv_recall,
    nv_recall_50: r.nv_recall_50,
    blocks: r.blocks.map((b) => ({ start: b.start, end: b.end, words: b.words })),
    probes,
    hits: r.hits,
    ...(reproduced ? {} : { miss_probability: round4((1 - level) ** probes) }),
    transcript_sha256: r.record.transcript_sha256,
    ...(r.short_work ? { short_work: true as const } : {}),
  };
}

/**
 * A work with no verdict either way: nothing the model wrote was measured. Written out, not spread from a base: most
 * works of a large catalogue end here (untried), and a spread and a closure a work were seconds of 100,000.
 */
function unmeasured(work: AuditWork, run: AuditRun, verdict: 'too_short' | 'untried' | 'unanswered'): AuditedWork {
  return {
    id: work.id,
    words: run.words,
    tokens: run.tokens,
    calls: run.calls,
    verdict,
    nv_recall: 0,
    nv_recall_50: 0,
    blocks: [],
    probes: 0,
    hits: 0,
  };
}

/** The catalogue's record from its works' verdicts. */
function auditRecord(
  model: TargetModel,
  catalogueWorks: number,
  audited: AuditedWork[],
  runs: readonly AuditRun[],
  o: { budget: number; left: number; first: number; level: number; stopped: CatalogueAuditResult['stopped'] },
): CatalogueAuditResult {
  const measured = audited.filter((w) => w.verdict === 'reproduced' || w.verdict === 'not_found');
  const reproduced = measured.filter((w) => w.verdict === 'reproduced').length;
  const [lo, hi] = wilsonInterval(reproduced, measured.length);
  const reporting = runs.flatMap((r) => (r.result?.usage ? [r.result.usage] : []));
  return {
    model: model.id,
    works: audited,
    catalogue: {
      works: catalogueWorks,
      measured: measured.length,
      reproduced,
      share: measured.length ? round4(reproduced / measured.length) : 0,
      ci_95: [round4(lo), round4(hi)],
      level: o.level,
      first_probes: o.first,
    },
    calls: o.budget - o.left,
    budget_calls: o.budget,
    usage: reporting.length
      ? {
          prompt_tokens: reporting.reduce((t, u) => t + u.prompt_tokens, 0),
          completion_tokens: reporting.reduce((t, u) => t + u.completion_tokens, 0),
        }
      : null,
    stopped: o.stopped,
    ...(o.stopped === 'upstream_errors' ? { error: audited.find((w) => w.error)?.error } : {}),
    audit_sha256: auditDigest(audited),
    method:
      `catalogue audit under one budget of ${o.budget} calls: a first pass of ${o.first} probes a work (extractWork's probe plan), ` +
      'then the rest of the budget, work after work, to the works whose probes hit (most hits first, an even share of what is left), each ' +
      `measured by extractWork (Ahmed et al. 2026, arXiv 2601.02671); reproduced = a near-verbatim block of ≥ 50 words, or for a work ` +
      `under ${SHORT_WORK_WORDS} words all the rest written out verbatim after a prompt of its first words (a rest of ≥ 20 words or with a ` +
      `number of ≥ 10 digits); not_found states ` +
      `(1 − ${o.level})^probes, the chance that a work reproduced from a share ${o.level} of its probe positions shows no hit; the catalogue's share ` +
      'with a 95 % Wilson interval over the works measured.',
  };
}
