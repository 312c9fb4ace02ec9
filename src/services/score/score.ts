/**
 * `score(work_hash, target_model, jurisdiction)`: how likely it is that a model trained on a
 * registered work, with a 95 % interval, a tier, and — separately — the legal risk. Instead of
 * `work_hash`, the work may come as `content` (text, markup or a file, ./content.ts): it is read as
 * `registerWork` reads it and scored the same way, unregistered.
 *
 * 1. **Chunks.** The work's text is cut into chunks of {@link CHUNK_WORDS} word tokens (a short
 *    tail joins the previous chunk): the unit of evidence — membership signals are weak per passage
 *    and gain power over many chunks (Shi et al. 2024, arXiv:2310.16789; Maini et al. 2024, arXiv:2406.06443).
 * 2. **Datasets of the model.** The loaded datasets that sample a training dataset of the target
 *    model: by the knowledge base (`kb_dataset` linked to the model, with its link certainty) or by
 *    a declaration (`models` lists it; certainty 1). Other datasets say nothing about this model.
 * 3. **Per chunk and dataset**: the closed-form chance of the chunk's matches (as in `analyze`,
 *    src/services/analyze/evidence.ts). **Per dataset**, the chunks' chances c₍₁₎ ≤ … ≤ c₍ₙ₎ combine as order
 *    statistics: under the null hypothesis each is uniform, so P(j chunks at least this strong) =
 *    P(Binomial(n, c₍ⱼ₎) ≥ j), and chance = min(1, n · minⱼ of that). Calibrated like `analyze`
 *    (σ(a + b·strength), prior 0.5) and multiplied by the link certainty.
 * 4. **score** = 100 × the best dataset's value: P(the model trained on at least part of the work).
 *    **ci_95**: percentile bootstrap over chunks — 1,000 resamples of the n chunks with
 *    replacement, seeded by (work_hash, model), so the same inputs give the same interval.
 *    **reused_share**: chunks with any match in the model's datasets, k of n, with a Wilson interval.
 * 5. **tier**: `confirmed` — exact corpus evidence (a ≥ 50-word verbatim run, the 50-token
 *    criterion of Carlini et al. 2023) in a dataset the model's documentation names (link
 *    certainty ≥ 0.85); otherwise from the interval's LOWER bound: `strong` ≥ 80, `moderate` ≥ 50;
 *    `weak` when only the point reaches 50; else `inconclusive`. Fewer than
 *    {@link MIN_CHUNKS_FOR_TIER} chunks never get strong/moderate/weak (`short_text_low_power`).
 * 6. **legal_risk**: the jurisdiction's weight and modifiers (this project's heuristic, documented in
 *    docs/jurisdictions-and-revenue.md; legal sources in src/services/kb/factors.ts), scaled by
 *    the interval's lower bound when below 0.5 — a separate quantity: the jurisdiction never enters
 *    the probability.
 */
import type { CorpusView } from '../../corpus/types.js';
import { checkAccount } from '../../corpus/provenance.js';
import type { Offload } from '../../corpus/work.js';
import { resolveOptions } from '../../fingerprint/options.js';
import { DEFAULT_SLICE_MS, turnOf } from '../../util/steps.js';
import { TrainprintError } from '../../errors.js';
import { CALIBRATION } from '../analyze/calibration.js';
import {
  type EvidenceKind,
  evidenceKind,
  matchKind,
  MAX_STRENGTH,
  reportLimitations,
  unmeasured,
} from '../policy/kinds/index.js';
import { checkableMatches, countsAsEvidence } from '../policy/evidence-policy.js';
import type { DatasetStats, SearchMatch } from '../../datasets/types.js';
import type { RemoteCorpusReport } from '../../corpus/remote-types.js';
import { crawlLink, remoteIndex } from '../kb/remote-indexes.js';
import { assessRisk, type RiskResult } from '../analyze/risk.js';
import { chooseWorkType } from '../analyze/revenue.js';
import type { KnowledgeBase } from '../kb/kb.js';
import type { FactorCode } from '../kb/factors.js';
import { resolveJurisdiction } from '../kb/jurisdictions.js';
import type { KbModel } from '../kb/types.js';
import { wilsonInterval } from '../../stats/binomial.js';
import type { Store } from '../../store/types.js';
import { checkSignal } from '../../util/validate.js';
import { readRequest, readThroughFile } from '../../util/schema-check.js';
import { SCORE_REQUEST } from './schema.js';
import { workText, worksByHash, type Fingerprinter } from '../registry/works.js';
import { throwIfAborted } from '../../formats/limits.js';
import { fileLimitOption } from '../analyze/files.js';
import type { AnalysisExtraction, Declarations, WorkType } from '../analyze/types.js';
import { scoredContent } from './content.js';
import { CHUNK_WORDS, CONFIRM_WORDS, decideTier, MIN_CHUNKS_FOR_TIER } from './tier.js';
import { round1, round4 } from '../../util/round.js';
import { optOutStatus } from '../policy/opt-out.js';
import { BOOTSTRAP_RESAMPLES, bootstrapInterval, ChunkValues, type DatasetValue } from './order-statistic.js';
import type { ChunkEvidence, ScoreOptions, ScoreRequest, ScoreResult } from './types.js';

export { CHUNK_WORDS, CONFIRM_WORDS, MIN_CHUNKS_FOR_TIER } from './tier.js';
export { BOOTSTRAP_RESAMPLES } from './order-statistic.js';

/** A match a score shows: one of `evidence.matches` (./types.ts). */
type ScoreMatch = ScoreResult['evidence']['matches'][number];

interface Linked {
  id: string;
  kind: DatasetStats['kind'];
  kb: string | null;
  link: 'kb' | 'declared';
  certainty: number;
  reason: string;
  /** Reached as a component of the dataset the model names. */
  component: boolean;
  pirated: boolean;
}

/** One chunk's search against one dataset, as a score reads it. */
interface ChunkFinding {
  /** The chunk's chance; 1 when it shows nothing checkable (the policy). */
  chance: number;
  /** A checkable match in the chunk. */
  flagged: boolean;
  /** Longest verbatim run, in words. */
  longest: number;
  /** Its longest checkable matches (at most {@link SHOWN_PER_CHUNK}), offsets in the work's text. */
  shown: ScoreMatch[];
  /** What stopped the chunk's alignment before its last candidate: its work budget, or the time limit. */
  alignmentCut?: 'budget' | 'time';
}

/** Chunk search results shared by several scores of one work (monitors score many models at once). */
export type ChunkCache = Map<string, ChunkFinding>;

/** Matches kept per chunk and dataset for `evidence.matches`. */
const SHOWN_PER_CHUNK = 3;

/**
 * One chunk's finding under the policy (src/services/policy): it is flagged, and its chance counts, only when it
 * shows something checkable beyond chance (a stock phrase is neither).
 */
function chunkFinding(checkable: readonly SearchMatch[], chance: number, chunk: number, offset: number): ChunkFinding {
  const strength = chance <= 0 ? MAX_STRENGTH : chance >= 1 ? 0 : -Math.log10(chance);
  const counts = countsAsEvidence({ checkable: checkable.length, found: checkable.length, strength });
  return {
    chance: counts ? chance : 1,
    flagged: counts,
    longest: counts ? checkable.reduce((x, m) => Math.max(x, matchKind(m).run(m)), 0) : 0,
    shown: counts ? shownOf(checkable, chunk, offset) : [],
  };
}

/** The longest checkable matches of a chunk, moved to the work's offsets. */
function shownOf(matches: readonly SearchMatch[], chunk: number, offset: number): ScoreMatch[] {
  return checkableMatches(matches)
    .slice()
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, SHOWN_PER_CHUNK)
    .map((m) => ({
      chunk,
      dataset_id: m.dataset_id,
      kind: m.kind,
      query_start: m.query_start + offset,
      query_end: m.query_end + offset,
      document_id: m.document_id,
      source_start: m.source_start,
      source_end: m.source_end,
      tokens: m.tokens,
    }));
}

/** What scoring reads: the corpus and the engine's fingerprinting. */
export interface ScoreDeps {
  readonly corpus: CorpusView;
  readonly fingerprint: Fingerprinter;
  /** The knowledge base the engine was made with (`createEngine({ kb })`). */
  readonly kb: KnowledgeBase;
}

/**
 * Compute a score (see the module comment). The chunk searches share the thread as analyze's search does
 * (`run.sliceMs`, src/util/steps.ts): a turn of the event loop whenever that much work has passed since the last,
 * between chunks and inside each chunk's search; the work's word tokens (the chunking, linear in its length) are
 * found on `run.offload` when given. A chunk's own pure work stays in this thread: at 200 words it costs less
 * than a message to another thread. The result is the same whichever way it runs.
 */
export async function scoreWork(
  deps: ScoreDeps,
  store: Store,
  request: ScoreRequest,
  cache?: ChunkCache,
  run: ScoreOptions = {},
): Promise<ScoreResult> {
  const q = await checkScoreRequest(deps, store, request, run);
  const { model, text } = q;
  const factors = new Set<FactorCode>();
  const limitations = new Set<FactorCode>([
    'no_model_probe',
    'reference_sample_only',
    'calibrated_on_development_data',
  ]);
  if (model.disclosure === 'undisclosed') limitations.add('model_training_data_undisclosed');
  const consulted = linkedDatasets(deps.corpus, deps.kb, model, q.owner);
  if (consulted.length === 0) limitations.add('model_datasets_not_indexed');
  if (text === null) limitations.add('work_text_not_registered');

  const chunks = text === null ? [] : await chunkText(deps.fingerprint, text, run.offload);
  throwIfAborted(q.signal);
  const n = chunks.length;
  // the calibration reads the length of what was searched: the work's words
  const workWords = chunks.reduce((t, c) => t + c.tokens, 0);
  if (n > 0 && n < MIN_CHUNKS_FOR_TIER) limitations.add('short_text_low_power');
  const searches = { deps, q, linked: consulted, chunks, cache, factors, limitations };
  const remote = await searchRemoteCorpora(searches);
  // a linked remote corpus that answered nothing was not searched: no dataset entry or chunk chance rests on it, and
  // where none was searched (`unsearched`) the intervals say nothing is known
  const linked = consulted.filter((l) => !remote.reports.some((r) => r.dataset_id === l.id && unmeasured(r)));
  const unsearched = linked.length < consulted.length && linked.length === 0;
  const grid = await searchChunks({ ...searches, linked }, remote.chunks);
  throwIfAborted(q.signal);

  // per dataset: order-statistic chance → calibrated confidence × certainty, over the chunks and over resamples
  const values = linked.map((l, d) => new ChunkValues(grid.chances[d], grid.flagged[d], l, workWords));
  const perDataset = values.map((v) => v.over(new Int32Array(n).fill(1)));
  const point = n === 0 ? 0 : Math.max(0, ...perDataset.map((v) => v.value));
  const boot = bootstrapInterval(values, n, seedOf(`${q.workHash}\n${model.id}`));
  const { ci } = boot;

  // reused share and its Wilson interval
  const chunkEvidence = chunkEvidenceOf(grid, linked, chunks);
  const k = chunkEvidence.filter((c) => c.flagged).length;

  // tier, with its reasons
  const decision = decideTier({
    chunks: n,
    hasText: text !== null,
    point,
    lower: ci[0],
    unsearched,
    datasets: linked.map((l, d) => ({
      positions: evidenceKind(l.kind).positions,
      link: l.link,
      certainty: l.certainty,
      flagged: grid.flagged[d].reduce((t, x) => t + x, 0),
      longest: grid.longest[d].reduce((t, x) => Math.max(t, x), 0),
    })),
  });
  if (k > 0) addScoreFactors(grid, linked, model, k, decision.tier === 'confirmed', factors);
  else if (linked.length > 0 && n > 0) limitations.add('no_indexed_dataset_match');

  // legal risk (separate from the probability)
  const { declarations } = q;
  const since = declarations.since === undefined ? null : new Date(declarations.since).getUTCFullYear();
  const optOut = optOutStatus(declarations.tdm_opt_out === true, since, [model.release_year], limitations);
  const workType = q.workType ?? chooseWorkType(undefined, text ?? '', q.tokens ?? workWords).type;
  const risk = assessRisk({
    jurisdiction: q.jurisdiction,
    anyMatch: k > 0,
    attributionLow: ci[0],
    optOut,
    pirated: k > 0 && linked.some((l) => l.pirated),
    workType,
  });
  const found = { deps, q, linked, grid, perDataset, point, boot, chunkEvidence, decision, risk };
  return resultOf({ ...found, factors, limitations, remote: remote.reports, unsearched });
}

/** The result of a score from what it found; spans of markup sent as content go back to the content. */
function resultOf(r: {
  readonly deps: ScoreDeps;
  readonly q: CheckedScore;
  readonly linked: readonly Linked[];
  readonly grid: ChunkGrid;
  readonly perDataset: DatasetValue[];
  readonly point: number;
  readonly boot: ReturnType<typeof bootstrapInterval>;
  readonly chunkEvidence: ChunkEvidence[];
  readonly decision: ReturnType<typeof decideTier>;
  readonly risk: RiskResult;
  readonly factors: Set<FactorCode>;
  readonly limitations: Set<FactorCode>;
  readonly remote: RemoteCorpusReport[];
  readonly unsearched: boolean;
}): ScoreResult {
  const { q, linked, grid, perDataset, boot, chunkEvidence, risk } = r;
  const { ci } = boot;
  const n = chunkEvidence.length;
  const k = chunkEvidence.filter((c) => c.flagged).length;
  const shareCi = r.unsearched ? [0, 1] : wilsonInterval(k, n);
  const map = q.mapSpan;
  const chunks = map ? chunkEvidence.map((c) => spanMapped(c, 'start', 'end', map)) : chunkEvidence;
  const matches = map ? grid.shown.map((m) => spanMapped(m, 'query_start', 'query_end', map)) : grid.shown;
  return {
    work_hash: q.workHash,
    work_id: q.workId,
    ...(q.extraction ? { extraction: q.extraction } : {}),
    target_model: q.model.id,
    provider: q.model.provider,
    score: round1(r.point * 100),
    tier: r.decision.tier,
    tier_reasons: r.decision.reasons,
    to_raise: r.decision.to_raise,
    ci_95: r.unsearched ? [0, 100] : [round1(ci[0] * 100), round1(ci[1] * 100)],
    reused_share: {
      estimate: round4(n === 0 ? 0 : k / n),
      ci_95: [round4(shareCi[0]), round4(shareCi[1])],
      flagged_chunks: k,
      n_chunks: n,
    },
    legal_risk: {
      jurisdiction: q.jurisdiction.code,
      level: risk.level,
      weight: risk.score,
      base_weight: risk.base_weight,
      modifiers: risk.modifiers,
      attribution_scale: risk.attribution_scale,
      factors: risk.factors,
    },
    factors: [...r.factors],
    limitations: [...r.limitations],
    remote_corpora: r.remote,
    evidence: {
      method: `chunks of ${CHUNK_WORDS} words searched in the loaded datasets that sample the model's training data; per dataset the chunks' chances combine as order statistics (min over j of P(Binomial(n, c(j)) ≥ j), × n), calibrated (prior 0.5) and multiplied by the link certainty; score = the best dataset; ci_95 = percentile bootstrap over chunks (${BOOTSTRAP_RESAMPLES} resamples, seeded by work_hash and model); reused_share = flagged chunks with a Wilson interval`,
      chunk_words: CHUNK_WORDS,
      datasets: linked.map((l, d) => ({
        dataset_id: l.id,
        kind: l.kind,
        supplied_by: r.deps.corpus.provenance(l.id).supplied_by,
        kb_dataset: l.kb,
        link: l.link,
        link_certainty: l.certainty,
        link_reason: l.reason,
        flagged_chunks: grid.flagged[d].reduce((t, x) => t + x, 0),
        chance: sig6(perDataset[d].chance),
        strength: round4(perDataset[d].strength),
        confidence: round4(perDataset[d].confidence),
        value: round4(perDataset[d].value),
      })),
      chunks,
      matches,
      bootstrap: { resamples: boot.resamples, seed: boot.seed },
      calibration: CALIBRATION.id,
    },
  };
}

/** `x` with its span `[x[from], x[to])` moved by `map`. */
function spanMapped<T extends object, F extends keyof T, E extends keyof T>(
  x: T,
  from: F,
  to: E,
  map: (start: number, end: number) => [number, number],
): T {
  const [start, end] = map(x[from] as number, x[to] as number);
  return { ...x, [from]: start, [to]: end };
}

/**
 * What a score reads: the work (a registered work's kept text, or content sent with the request), the model, the
 * place, and whose searches they are.
 */
interface CheckedScore {
  readonly owner: string | undefined;
  /** The corpus scope of the owner's searches. */
  readonly scope: { readonly account?: string };
  readonly sliceMs: number;
  /** What stops the score (ScoreOptions.signal). */
  readonly signal: AbortSignal | undefined;
  readonly workHash: string;
  /** The registered work; null for content sent with the request. */
  readonly workId: string | null;
  /** The key of the work's chunk searches in a {@link ChunkCache}. */
  readonly cacheKey: string;
  readonly declarations: Declarations;
  readonly workType: WorkType | null;
  /** The registry's word count of the work; null: count the chunks' words. */
  readonly tokens: number | null;
  readonly text: string | null;
  readonly extraction: AnalysisExtraction | null;
  /** Markup sent as content: a span of `text` → the same span of the content. */
  readonly mapSpan: ((start: number, end: number) => [number, number]) | null;
  readonly model: KbModel;
  readonly jurisdiction: ReturnType<typeof resolveJurisdiction>;
}

async function checkScoreRequest(
  deps: ScoreDeps,
  store: Store,
  request: ScoreRequest,
  run: ScoreOptions,
): Promise<CheckedScore> {
  const owner = run.owner === undefined ? undefined : checkAccount(run.owner, 'owner');
  const sliceMs = run.sliceMs ?? DEFAULT_SLICE_MS;
  if (typeof sliceMs !== 'number' || !(sliceMs >= 0))
    throw new TrainprintError('INVALID_OPTIONS', 'sliceMs must be a number ≥ 0');
  const maxFileBytes = fileLimitOption(run.maxFileBytes);
  const signal = checkSignal(run.signal);
  // a score already stopped does not read the registry or the content
  throwIfAborted(signal);
  // read through its contract within the file limit: the words of its refusals are every door's (a file's bytes stand
  // for the base64 JSON carries while the schema checks the rest; the rules read them)
  const r = readThroughFile(SCORE_REQUEST, readRequest(request, 'the request') as ScoreRequest | null, {
    maxFileBytes,
  });
  const workHash = r.content === undefined ? (r.work_hash as string) : null;
  const model = deps.kb.model(r.target_model);
  const jurisdiction = resolveJurisdiction(r.jurisdiction);
  const scope = owner === undefined ? {} : { account: owner };
  const base = { owner, scope, sliceMs, signal, model, jurisdiction };
  if (workHash !== null) return { ...base, ...(await registeredWork(store, workHash)) };
  const c = await scoredContent(r as unknown as Readonly<Record<string, unknown>>, {
    maxFileBytes,
    offload: run.offload,
    signal,
    owner,
  });
  return {
    ...base,
    ...c,
    workId: null,
    cacheKey: c.workHash,
    declarations: {},
    workType: null,
    tokens: null,
  };
}

/** The work registered with `workHash` (its first registration) and its kept text. @throws NOT_FOUND */
async function registeredWork(
  store: Store,
  workHash: string,
): Promise<Omit<CheckedScore, 'owner' | 'scope' | 'sliceMs' | 'signal' | 'model' | 'jurisdiction'>> {
  const works = await worksByHash(store, workHash);
  if (works.length === 0) throw new TrainprintError('NOT_FOUND', `no registered work with work_hash ${workHash}`);
  const work = works[0];
  return {
    workHash,
    workId: work.work_id,
    cacheKey: work.work_id,
    declarations: work.declarations,
    workType: work.work_type,
    tokens: work.tokens,
    text: (await workText(store, work.work_id)) ?? (await firstText(store, works)),
    extraction: null,
    mapSpan: null,
  };
}

/** What the searches of one score share. */
interface ScoreSearches {
  readonly deps: ScoreDeps;
  readonly q: CheckedScore;
  readonly linked: readonly Linked[];
  readonly chunks: readonly { readonly start: number; readonly end: number; readonly tokens: number }[];
  readonly cache: ChunkCache | undefined;
  readonly factors: Set<FactorCode>;
  readonly limitations: Set<FactorCode>;
}

/**
 * A remote corpus is searched once for the whole work (its call budget is the text's), then read per chunk: the
 * chunks' findings (when no cache is passed) and what each search did (the work's text was sent to its endpoint).
 */
async function searchRemoteCorpora(s: ScoreSearches): Promise<{ chunks: ChunkCache; reports: RemoteCorpusReport[] }> {
  const { deps, q, linked, chunks, cache } = s;
  const remoteChunks: ChunkCache = new Map();
  const reports: RemoteCorpusReport[] = [];
  const n = chunks.length;
  for (let d = 0; d < linked.length && q.text !== null; d++) {
    const l = linked[d];
    const kind = evidenceKind(l.kind);
    if (!kind.wholeText || n === 0 || cache?.has(`${q.cacheKey}\u0000${0}\u0000${l.id}`)) continue;
    const { result, details } = await deps.corpus.searchDetailedAsync(
      q.text,
      { datasets: [l.id], persistRemote: true, signal: q.signal, ...q.scope },
      { sliceMs: q.sliceMs },
    );
    // a search the signal cut short reports `cancelled`: the score stops before that is read (or kept) as nothing found
    throwIfAborted(q.signal);
    for (const r of result.remote ?? []) {
      reports.push(r);
      for (const code of reportLimitations(r)) s.limitations.add(code);
    }
    const found = details.get(l.id);
    if (!found) continue;
    // a search that did not end `searched` (cut short) is this score's only: kept in the cache, it would answer the
    // next score (a monitor's next model of the same corpus) with what it found, and no outcome to say it was partial
    const keep = result.remote?.every((r) => r.outcome === 'searched') ? cache : undefined;
    const detail = kind.forModel?.(found, deps.kb, l.kb, q.model, s.factors) ?? found;
    const matches: readonly SearchMatch[] = detail.search.matches;
    for (let i = 0; i < n; i++) {
      const { start, end } = chunks[i];
      const own = checkableMatches(matches.filter((m) => m.query_start < end && start < m.query_end));
      const e = chunkFinding(own, own.length > 0 ? kind.chance(detail, [start, end]).chance : 1, i, 0);
      remoteChunks.set(`${q.cacheKey}\u0000${i}\u0000${l.id}`, e);
      keep?.set(`${q.cacheKey}\u0000${i}\u0000${l.id}`, e);
    }
  }
  return { chunks: remoteChunks, reports };
}

/** Per linked dataset (d) and chunk (i): the chunk's chance, whether it is flagged, its longest run; and what shows. */
interface ChunkGrid {
  readonly chances: Float64Array[];
  readonly flagged: Uint8Array[];
  readonly longest: Int32Array[];
  /** The checkable matches of the flagged chunks: what a score above inconclusive shows. */
  readonly shown: ScoreMatch[];
}

/** Every chunk against every linked local dataset (a remote corpus's findings come from its one search). */
async function searchChunks(s: ScoreSearches, remoteChunks: ChunkCache): Promise<ChunkGrid> {
  const { deps, q, linked, chunks, cache } = s;
  const n = chunks.length;
  // a dataset kept in a database, and a kind searched asynchronously only (an evidence source), is never searched
  // synchronously
  const asyncOnly = new Set(
    deps.corpus
      .datasets()
      .filter((x) => x.storage === 'postgres' || !evidenceKind(x.kind).synchronous)
      .map((x) => x.id),
  );
  const grid: ChunkGrid = {
    chances: linked.map(() => new Float64Array(n).fill(1)),
    flagged: linked.map(() => new Uint8Array(n)),
    longest: linked.map(() => new Int32Array(n)),
    shown: [],
  };
  // an account's scores take their turns of the event loop as one, beside other accounts' (ownerTurn)
  const turn = turnOf(q.scope.account);
  let sliceStart = performance.now();
  for (let i = 0; i < n; i++) {
    let chunk: string | null = null;
    for (let d = 0; d < linked.length; d++) {
      const l = linked[d];
      const key = `${q.cacheKey}\u0000${i}\u0000${l.id}`;
      let e = cache?.get(key) ?? remoteChunks.get(key);
      const kind = evidenceKind(l.kind);
      if (!e && kind.wholeText) e = { chance: 1, flagged: false, longest: 0, shown: [] }; // no text, or not searched
      if (!e) {
        throwIfAborted(q.signal);
        if (performance.now() - sliceStart >= q.sliceMs) {
          await turn();
          sliceStart = performance.now();
        }
        chunk ??= q.text!.slice(chunks[i].start, chunks[i].end);
        // Infinity: in one go
        const { result, details } =
          q.sliceMs === Infinity && !asyncOnly.has(l.id)
            ? deps.corpus.searchDetailed(chunk, { datasets: [l.id], ...q.scope })
            : await deps.corpus.searchDetailedAsync(
                chunk,
                { datasets: [l.id], signal: q.signal, ...q.scope },
                { sliceMs: q.sliceMs },
              );
        // what an aborted search answered is neither read nor kept in the cache
        throwIfAborted(q.signal);
        const detail = details.get(l.id)!;
        e = chunkFinding(checkableMatches(result.matches), kind.chance(detail).chance, i, chunks[i].start);
        const { budget_exhausted: spent, time_limit_reached: late } = result.alignment;
        if (spent) e.alignmentCut = late ? 'time' : 'budget';
        // a finding the clock cut depends on the machine's load: not kept, the next score computes it again
        if (!late) cache?.set(key, e);
      }
      if (e.alignmentCut) s.limitations.add('alignment_budget_exhausted');
      if (e.alignmentCut === 'time') s.limitations.add('alignment_time_limit_reached');
      grid.chances[d][i] = e.chance;
      grid.flagged[d][i] = e.flagged ? 1 : 0;
      grid.longest[d][i] = e.longest;
      for (const m of e.shown) grid.shown.push({ ...m, chunk: i });
      if (e.flagged) for (const f of kind.flaggedChunk) s.factors.add(f);
    }
  }
  return grid;
}

/** Per chunk: whether any linked dataset flags it, the dataset with its lowest chance, its longest run. */
function chunkEvidenceOf(grid: ChunkGrid, linked: readonly Linked[], chunks: ScoreSearches['chunks']): ChunkEvidence[] {
  return chunks.map((c, i) => {
    let bestD = -1;
    for (let d = 0; d < linked.length; d++) if (bestD < 0 || grid.chances[d][i] < grid.chances[bestD][i]) bestD = d;
    const any = linked.some((_, d) => grid.flagged[d][i] === 1);
    return {
      index: i,
      start: c.start,
      end: c.end,
      tokens: c.tokens,
      flagged: any,
      dataset_id: bestD >= 0 && any ? linked[bestD].id : null,
      chance: bestD >= 0 ? sig6(grid.chances[bestD][i]) : 1,
      longest_run: bestD >= 0 ? Math.max(...linked.map((_, d) => grid.longest[d][i])) : 0,
    };
  });
}

/** The factor codes of a score with `k` flagged chunks. */
function addScoreFactors(
  grid: ChunkGrid,
  linked: readonly Linked[],
  model: KbModel,
  k: number,
  documentedExact: boolean,
  factors: Set<FactorCode>,
): void {
  const { flagged, longest } = grid;
  const flaggedWith = (has: (k: EvidenceKind) => boolean) =>
    linked.some((l, d) => has(evidenceKind(l.kind)) && flagged[d].some((x) => x === 1));
  if (flaggedWith((k) => k.positions)) factors.add('verbatim_overlap');
  for (const l of linked.filter((_, d) => flagged[d].some((x) => x === 1)))
    for (const f of evidenceKind(l.kind).flaggedDataset) factors.add(f);
  if (longest.some((a) => a.some((x) => x >= CONFIRM_WORDS))) factors.add('long_verbatim_run');
  if (k >= 3) factors.add('multiple_independent_runs');
  for (const l of linked) {
    if (l.link === 'declared') factors.add('declared_dataset_link');
    else factors.add(l.component ? 'dataset_component_of_disclosed' : 'dataset_disclosed_by_provider');
  }
  if (model.disclosure === 'partial') factors.add('partial_disclosure');
  if (documentedExact && model.disclosure === 'full') factors.add('exact_match_in_open_corpus');
}

/** Loaded datasets that sample a training dataset of `model` (those `owner` may search), with the link's certainty. */
function linkedDatasets(corpus: CorpusView, kb: KnowledgeBase, model: KbModel, owner: string | undefined): Linked[] {
  const out: Linked[] = [];
  for (const s of corpus.datasets()) {
    if (owner !== undefined && !corpus.visibleTo(s.id, owner)) continue;
    const d = corpus.descriptor(s.id);
    let best: Linked | null = null;
    if (d.kb_dataset !== undefined) {
      const link = kb.modelsTrainedOn(d.kb_dataset, { modality: 'any' }).find((l) => l.model.id === model.id);
      if (link) {
        const pirated = [d.kb_dataset, ...link.via].some((id) => kb.dataset(id).pirated);
        const crawl = s.remote ? remoteIndex(s.remote.engine, s.remote.index)?.crawl : undefined;
        const { certainty, reason } = crawlLink(link, model, crawl);
        best = {
          id: s.id,
          kind: s.kind,
          kb: d.kb_dataset,
          link: 'kb',
          certainty,
          reason,
          component: link.via.length > 1,
          pirated,
        };
      }
    }
    if ((d.models ?? []).some((m) => m.toLowerCase() === model.id) && (!best || best.certainty < 1)) {
      best = {
        id: s.id,
        kind: s.kind,
        kb: d.kb_dataset ?? null,
        link: 'declared',
        certainty: 1,
        reason: `declared in the descriptor of dataset "${s.id}"`,
        component: false,
        pirated: best?.pirated ?? false,
      };
    }
    if (best) out.push(best);
  }
  return out;
}

/** A work's word tokens: its 1-word shingles, nothing else. */
const WORD_TOKENS = {
  shingle: { unit: 'word', size: 1 },
  winnow: false,
  minhash: false,
  simhash: false,
  workHash: false,
} as const;

/** Chunks of CHUNK_WORDS tokens as UTF-16 spans (a tail under half a chunk joins the previous one). */
async function chunkText(
  fingerprint: Fingerprinter,
  text: string,
  offload?: Offload,
): Promise<Array<{ start: number; end: number; tokens: number }>> {
  const { starts, ends } = offload
    ? (await offload.run({ kind: 'fingerprint', text, options: resolveOptions(WORD_TOKENS), columns: { spans: true } }))
        .shingles
    : (await fingerprint(text, WORD_TOKENS)).shingles;
  const n = starts.length;
  const out: Array<{ start: number; end: number; tokens: number }> = [];
  for (let i = 0; i < n; i += CHUNK_WORDS) {
    const j = Math.min(n, i + CHUNK_WORDS);
    if (out.length && j - i < CHUNK_WORDS / 2) {
      const last = out[out.length - 1];
      out[out.length - 1] = { start: last.start, end: ends[j - 1], tokens: last.tokens + (j - i) };
    } else out.push({ start: starts[i], end: ends[j - 1], tokens: j - i });
  }
  return out;
}

async function firstText(store: Store, works: readonly { work_id: string }[]): Promise<string | null> {
  for (const w of works) {
    const t = await workText(store, w.work_id);
    if (t !== null) return t;
  }
  return null;
}

/** 32-bit FNV-1a of a string: the bootstrap seed. */
function seedOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const sig6 = (x: number) => Number(x.toPrecision(6));
