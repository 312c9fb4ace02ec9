/**
 * probe: likelihood statistics of a work against a non-member reference set, dataset-inference
 * style (Maini et al. 2024, arXiv 2406.06443): the question is whether the model treats the work
 * as a *set* differently from comparable text it cannot have seen — never whether one chunk was
 * trained on (per-sentence membership is near chance on real LLMs; MIMIR, Duan et al. 2024).
 *
 * 1. Both sides are cut into chunks of `chunk_tokens` words (the tail dropped, so every chunk
 *    has the same length); each chunk is scored by the model separately.
 * 2. Per chunk: loss (mean negative log-likelihood, nats), zlib ratio (loss / DEFLATE bytes of the
 *    chunk; Carlini et al. 2021, as in MIMIR), Min-K% (mean log-prob of the lowest k = 20 % of
 *    tokens; Shi et al. 2024) and Min-K%++ (each token's log-prob standardised by the mean and
 *    standard deviation of log p under the model's next-token distribution, then Min-K%; Zhang et
 *    al. 2024) — exact with the full distribution, approximate from top-k alternatives
 *    (renormalised over the top k), absent otherwise.
 * 3. Effect size: the rank AUC over (work chunk, reference chunk) pairs with a 95 % interval,
 *    cluster-robust over reference documents (Obuchowski 1997).
 * 4. Verdict test: chunks of one document are correlated, so chunks are not independent units.
 *    Measured on the Brown corpus with an n-gram LM that saw neither side, a chunk-level
 *    Mann–Whitney test gave 25 % false positives at α = 0.05 (one document against 10). The
 *    verdict therefore rests on a one-sided pooled t-test of per-document means (one document
 *    against the reference documents' spread), with Holm's correction over the statistics; in the
 *    same experiment it gave 6–8 % at 0.05 and 2–2.7 % at 0.01 for one document, ≤ 1.7 % at 0.01
 *    for ≥ 3. The chunk-level Mann–Whitney p is reported as description only.
 * 5. No verdict below `min_chunks` chunks on either side or `min_reference_documents` reference
 *    documents (`insufficient_data`, `short_text_low_power`); `distribution_shift_risk` unless the
 *    reference set is declared a randomized split of one pool.
 * 6. Difficulty calibration (optional `reference_model`: a model that cannot have seen the work):
 *    every chunk is scored by both models and the verdict rests on the calibrated loss alone — the
 *    target's negative log-likelihood per character minus the reference model's. Text that any
 *    model finds easy (formulaic, common or often quoted wording) is easy to both and cancels out;
 *    what remains is what the target learned beyond the reference (Watson et al., ICLR 2022,
 *    arXiv 2111.08440; the reference-model ratio of Carlini et al., USENIX Security 2021,
 *    arXiv 2012.07805). Per character, so the two models may tokenize differently. The four
 *    uncalibrated statistics are still reported, as description (`in_verdict: false`).
 */
import { TrainprintError } from '../../errors.js';
import type { FactorCode } from '../kb/factors.js';
import type { TargetModel, TokenLogprobs } from '../../models/types.js';
import type { Store } from '../../store/types.js';
import { fail } from '../../util/validate.js';
import { checkModel, resolveWork } from './inputs.js';
import { PROBE_CHUNK_TOKENS, PROBE_MIN_CHUNKS, PROBE_MIN_REFERENCE_DOCUMENTS } from './constants.js';
import { loadReferenceSet } from './register.js';
import { aucInterval, fmtP, holm, mannWhitney, mean, median, pooledTTest } from './stats.js';
import { chunkDocuments, deflateLength, mapLimit, type TextChunk } from './text.js';
import type {
  ProbeChunk,
  ProbeRequest,
  ProbeResult,
  ProbeStatistic,
  ProbeStatisticName,
  ReferenceBasis,
} from './types.js';
import { round4 } from '../../util/round.js';

const STATS: ReadonlyArray<{ name: ProbeStatisticName; dir: 'lower' | 'higher' }> = [
  { name: 'loss', dir: 'lower' },
  { name: 'zlib_ratio', dir: 'lower' },
  { name: 'min_k', dir: 'higher' },
  { name: 'min_k_plus_plus', dir: 'higher' },
  { name: 'calibrated_loss', dir: 'lower' },
];

/** Run the probe. */
export async function runProbe(store: Store, request: ProbeRequest): Promise<ProbeResult> {
  const o = probeOptions(request);
  const { model, referenceModel, chunkTokens, k, alpha, minChunks, minDocs } = o;
  const texts = await probeTexts(store, request);
  const matched = texts.basis === 'randomized_split';
  const factors: FactorCode[] = [];
  const limitations = new Set<FactorCode>();
  if (!matched) limitations.add('distribution_shift_risk');

  const sChunks = chunkDocuments(texts.suspect, chunkTokens);
  const rChunks = chunkDocuments(texts.reference, chunkTokens);
  const docsOf = (c: readonly TextChunk[]) => new Set(c.map((x) => x.document)).size;
  const source = texts.referenceSet === null ? ('texts' as const) : ('reference_set' as const);
  const base = {
    work_id: texts.workId,
    model: model.id,
    access: model.access,
    reference_model: referenceModel && { id: referenceModel.id, access: referenceModel.access },
    reference: { source, id: texts.referenceSet, basis: texts.basis, matched },
    chunk_tokens: chunkTokens,
    k,
    alpha,
    min_chunks: minChunks,
    min_reference_documents: minDocs,
    n_chunks: { suspect: sChunks.length, reference: rChunks.length },
    n_documents: { suspect: docsOf(sChunks), reference: docsOf(rChunks) },
    method: METHOD(chunkTokens, k, alpha, referenceModel?.id ?? null),
  };

  if (model.access === 'generations_only' || !model.logprobs) {
    limitations.add('no_logprob_access');
    return {
      ...base,
      distribution: 'none',
      verdict: 'not_applicable',
      statement: `The model gives no log-probabilities (access ${model.access}), so likelihood statistics cannot be computed. Extraction probes still apply.`,
      statistics: [],
      chunks: { suspect: [], reference: [] },
      factors,
      limitations: [...limitations],
    };
  }

  const jobs = [
    ...sChunks.map((c) => ({ c, texts: texts.suspect })),
    ...rChunks.map((c) => ({ c, texts: texts.reference })),
  ];
  const all = await mapLimit(jobs, o.concurrency, ({ c, texts }) =>
    scoreChunk(model, referenceModel, texts[c.document].slice(c.start, c.end), c, k),
  );
  const suspect = all.slice(0, sChunks.length),
    reference = all.slice(sChunks.length);
  const distribution: ProbeResult['distribution'] =
    all.length > 0 && all.every((c) => c.basis === 'full')
      ? 'full'
      : all.length > 0 && all.every((c) => c.basis !== 'none')
        ? 'top_k'
        : 'none';

  const enough = suspect.length >= minChunks && reference.length >= minChunks && base.n_documents.reference >= minDocs;
  if (!enough) limitations.add('short_text_low_power');
  const statistics: ProbeStatistic[] = [];
  const tests: Array<{ i: number; p: number }> = [];
  for (const stat of STATS) {
    if (all.length === 0 || all.some((c) => c.values[stat.name] === null)) continue;
    const compared = compareStatistic(stat, suspect, reference, {
      enough,
      distribution,
      withReference: referenceModel !== null,
      documents: base.n_documents,
    });
    if (compared.test !== null) tests.push({ i: statistics.length, p: compared.test });
    statistics.push(compared.statistic);
  }
  const adjusted = holm(tests.map((t) => t.p));
  tests.forEach((t, j) => {
    const s = statistics[t.i];
    statistics[t.i] = {
      ...s,
      document_test: { ...s.document_test!, p_holm: sig(adjusted[j]) },
      significant: adjusted[j] < alpha,
    };
  });
  const verdict: ProbeResult['verdict'] = !enough
    ? 'insufficient_data'
    : statistics.some((s) => s.significant)
      ? 'significant'
      : 'not_significant';
  return {
    ...base,
    distribution,
    verdict,
    statement: statement(
      verdict,
      statistics.filter((x) => x.in_verdict),
      base.n_chunks,
      base.n_documents,
      minChunks,
      minDocs,
      alpha,
      matched,
      referenceModel?.id ?? null,
    ),
    statistics,
    chunks: { suspect: suspect.map(toChunk), reference: reference.map(toChunk) },
    factors,
    limitations: [...limitations],
  };
}

/** The probe's options with their defaults (the request read through PROBE_REQUEST by its caller), its models checked. */
function probeOptions(request: ProbeRequest) {
  const model = checkModel(request.model);
  const referenceModel =
    request.reference_model === undefined ? null : checkModel(request.reference_model, 'reference_model');
  if (referenceModel && !referenceModel.logprobs)
    fail(`reference_model "${referenceModel.id}" gives no log-probabilities: calibration needs them`);
  return {
    model,
    referenceModel,
    chunkTokens: request.chunk_tokens ?? PROBE_CHUNK_TOKENS,
    minChunks: request.min_chunks ?? PROBE_MIN_CHUNKS,
    minDocs: request.min_reference_documents ?? PROBE_MIN_REFERENCE_DOCUMENTS,
    k: request.k ?? 0.2,
    alpha: request.alpha ?? 0.01,
    concurrency: request.concurrency ?? 4,
  };
}

/** The suspect texts (the work's, a text, or texts) and the reference texts (given, or a stored reference set). */
async function probeTexts(
  store: Store,
  r: ProbeRequest,
): Promise<{
  suspect: string[];
  workId: string | null;
  reference: string[];
  basis: ReferenceBasis;
  referenceSet: string | null;
}> {
  let suspect: string[],
    workId: string | null = null;
  if ('texts' in r && r.texts !== undefined) suspect = [...r.texts];
  else {
    const w = await resolveWork(store, r as Record<string, unknown>);
    suspect = [w.text];
    workId = w.workId;
  }
  const ref = r.reference;
  if ('reference_set' in ref) {
    const set = await loadReferenceSet(store, ref.reference_set);
    return { suspect, workId, reference: set.texts, basis: set.info.basis, referenceSet: set.info.id };
  }
  return { suspect, workId, reference: [...ref.texts], basis: 'unverified', referenceSet: null };
}

/**
 * One statistic compared between the suspect and the reference chunks: AUC with its interval, Mann-Whitney, and
 * (with enough data) the document-level t-test whose p-value enters the verdict (`test`), Holm-adjusted later.
 */
function compareStatistic(
  { name, dir }: (typeof STATS)[number],
  suspect: readonly Scored[],
  reference: readonly Scored[],
  run: {
    readonly enough: boolean;
    readonly distribution: ProbeResult['distribution'];
    readonly withReference: boolean;
    readonly documents: { readonly suspect: number; readonly reference: number };
  },
): { statistic: ProbeStatistic; test: number | null } {
  const { enough } = run;
  // with a reference model the verdict is the calibrated loss alone: the others are confounded
  // by how predictable the text is to any model
  const inVerdict = !run.withReference || name === 'calibrated_loss';
  const sign = dir === 'lower' ? -1 : 1;
  const x = suspect.map((c) => sign * c.values[name]!),
    y = reference.map((c) => sign * c.values[name]!);
  const auc = aucInterval(x, y, {
    x: suspect.map((c) => c.chunk.document),
    y: reference.map((c) => c.chunk.document),
  });
  const mw = mannWhitney(x, y);
  const docMeans = (cs: readonly Scored[]) => {
    const by = new Map<number, number[]>();
    for (const c of cs) {
      const v = sign * c.values[name]!;
      const list = by.get(c.chunk.document);
      if (list) list.push(v);
      else by.set(c.chunk.document, [v]);
    }
    return [...by.values()].map(mean);
  };
  const t = enough ? pooledTTest(docMeans(suspect), docMeans(reference)) : null;
  const nat = (cs: readonly Scored[]) => cs.map((c) => c.values[name]!);
  const statistic: ProbeStatistic = {
    name,
    member_direction: dir,
    approximate: name === 'min_k_plus_plus' && run.distribution !== 'full',
    in_verdict: inVerdict,
    suspect: {
      chunks: x.length,
      documents: run.documents.suspect,
      mean: sig(mean(nat(suspect))),
      median: sig(median(nat(suspect))),
    },
    reference: {
      chunks: y.length,
      documents: run.documents.reference,
      mean: sig(mean(nat(reference))),
      median: sig(median(nat(reference))),
    },
    auc: round4(auc.auc),
    auc_ci_95: [round4(auc.ci_95[0]), round4(auc.ci_95[1])],
    auc_ci_method: auc.method,
    mann_whitney: { u: mw.u, p_value: enough ? sig(mw.p_value) : null, method: mw.method },
    document_test: t
      ? {
          t: sig(t.t),
          df: t.df,
          p_value: sig(t.p_value),
          p_holm: null,
          mean_difference: sig(sign * t.mean_difference),
          ci_95: sign > 0 ? [sig(t.ci_95[0]), sig(t.ci_95[1])] : [sig(-t.ci_95[1]), sig(-t.ci_95[0])],
        }
      : null,
    significant: false,
  };
  return { statistic, test: t && inVerdict ? t.p_value : null };
}

interface Scored {
  chunk: TextChunk;
  scored: number;
  basis: 'full' | 'top_k' | 'none';
  values: Record<ProbeStatisticName, number | null>;
}

/**
 * The log-probabilities of a text, which must have some: an answer with none scores nothing, and read as a loss of 0
 * (or a chunk left out) it made a probe "not significant" and canaries "not detected" from no measurement at all.
 * @throws UPSTREAM_ERROR (none given)
 */
export async function tokenLogprobs(model: TargetModel, text: string): Promise<TokenLogprobs> {
  const lp: TokenLogprobs = await model.logprobs!(text);
  if (!lp || !Array.isArray(lp.logprobs))
    throw new TypeError(`model ${model.id}: logprobs did not return { tokens, logprobs }`);
  if (!lp.logprobs.length) throw new TrainprintError('UPSTREAM_ERROR', `model ${model.id}: no log-probabilities`);
  return lp;
}

/**
 * Negative log-likelihood per character over the tokens the model scored (an unscored first token
 * of an echoed prompt is left out): comparable across tokenizers.
 */
function lossPerCharacter(lp: TokenLogprobs, text: string): number {
  let sum = 0;
  for (const v of lp.logprobs) if (Number.isFinite(v)) sum -= v;
  return sum / Math.max(1, text.length);
}

async function scoreChunk(
  model: TargetModel,
  referenceModel: TargetModel | null,
  text: string,
  chunk: TextChunk,
  k: number,
): Promise<Scored> {
  const [lp, referenceLp] = await Promise.all([
    tokenLogprobs(model, text),
    referenceModel ? tokenLogprobs(referenceModel, text) : null,
  ]);
  const values = lp.logprobs.map((v) => (Number.isFinite(v) ? v : -1e4));
  const n = values.length;
  const calibrated = referenceLp ? lossPerCharacter(lp, text) - lossPerCharacter(referenceLp, text) : null;
  const loss = -mean(values);
  const zlib = loss / Math.max(1, await deflateLength(text));
  const take = Math.max(1, Math.ceil(k * n));
  const minK = mean([...values].sort((a, b) => a - b).slice(0, take));
  // Min-K%++: (log p − μ) / σ per token, μ and σ of log p under the next-token distribution
  let basis: Scored['basis'] = 'none';
  const z: number[] = [];
  if (lp.moments && lp.moments.length === n) {
    basis = lp.full ? 'full' : 'top_k';
    lp.moments.forEach((m, i) => {
      if (m.variance > 0) z.push((values[i] - m.mean) / Math.sqrt(m.variance));
    });
  } else if (lp.top && lp.top.length === n) {
    basis = 'top_k';
    lp.top.forEach((alts, i) => {
      if (!alts || alts.length < 2) return;
      let w = 0,
        m1 = 0,
        m2 = 0;
      for (const a of alts) {
        const p = Math.exp(a.logprob);
        w += p;
        m1 += p * a.logprob;
        m2 += p * a.logprob * a.logprob;
      }
      if (!(w > 0)) return;
      const mu = m1 / w,
        v = m2 / w - mu * mu;
      if (v > 1e-12) z.push((values[i] - mu) / Math.sqrt(v));
    });
  }
  const mkpp = z.length > 0 ? mean(z.sort((a, b) => a - b).slice(0, Math.max(1, Math.ceil(k * z.length)))) : null;
  if (mkpp === null) basis = 'none';
  return {
    chunk,
    scored: n,
    basis,
    values: { loss, zlib_ratio: zlib, min_k: minK, min_k_plus_plus: mkpp, calibrated_loss: calibrated },
  };
}

function toChunk(s: Scored): ProbeChunk {
  const v = s.values;
  return {
    document: s.chunk.document,
    start: s.chunk.start,
    end: s.chunk.end,
    scored_tokens: s.scored,
    loss: sig(v.loss!),
    zlib_ratio: sig(v.zlib_ratio!),
    min_k: sig(v.min_k!),
    min_k_plus_plus: sig(v.min_k_plus_plus),
    calibrated_loss: sig(v.calibrated_loss),
  };
}

function statement(
  verdict: ProbeResult['verdict'],
  stats: readonly ProbeStatistic[],
  n: { suspect: number; reference: number },
  d: { suspect: number; reference: number },
  minChunks: number,
  minDocs: number,
  alpha: number,
  matched: boolean,
  referenceModel: string | null,
): string {
  const label: Record<ProbeStatisticName, string> = {
    loss: 'loss',
    zlib_ratio: 'zlib ratio',
    min_k: 'Min-K%',
    min_k_plus_plus: 'Min-K%++',
    calibrated_loss: `loss calibrated by ${referenceModel}`,
  };
  const best = [...stats].sort(
    (a, b) => (a.document_test?.p_holm ?? 1) - (b.document_test?.p_holm ?? 1) || b.auc - a.auc,
  )[0];
  const desc = best
    ? `${label[best.name]}: AUC ${best.auc.toFixed(3)} [${best.auc_ci_95[0].toFixed(3)}, ${best.auc_ci_95[1].toFixed(3)}]${best.document_test ? `, document-level p = ${fmtP(best.document_test.p_holm ?? best.document_test.p_value)} after Holm correction` : ''}`
    : '';
  const calibration = referenceModel
    ? ` The verdict rests on the loss calibrated by the reference model ${referenceModel}, which must not have seen the work: wording that any model finds predictable cancels out.`
    : '';
  const shift = matched
    ? calibration
    : `${calibration} The reference set is not declared a randomized split of one pool, so a difference in time, genre or style between the work and the reference text could produce the same result (distribution_shift_risk).`;
  switch (verdict) {
    case 'significant':
      return `Across ${n.suspect} chunks of the work and ${n.reference} chunks of ${d.reference} reference documents, the model finds the work systematically more likely than the reference text (${desc}). This is set-level evidence consistent with the model having trained on the work; it makes no claim about any single chunk.${shift}`;
    case 'not_significant':
      return `No statistic separates the work from the reference text at α = ${alpha} (best ${desc}). This is not evidence that the model did not train on the work: models that saw a text once or a few times often do not memorise it.${shift}`;
    default:
      return `Too little text for a verdict: ${n.suspect} work chunks and ${n.reference} reference chunks from ${d.reference} documents (at least ${minChunks} chunks on each side and ${minDocs} reference documents are needed). The statistics are descriptive only.`;
  }
}

const METHOD = (chunk: number, k: number, alpha: number, referenceModel: string | null) =>
  `chunks of ${chunk} words, each scored separately; per chunk loss (mean NLL), zlib ratio (loss / DEFLATE bytes), Min-K% and Min-K%++ (k = ${k})` +
  (referenceModel
    ? `, and the calibrated loss (NLL per character minus that of the reference model ${referenceModel}; Watson et al. 2022); `
    : '; ') +
  `effect size = rank AUC over chunk pairs with a 95 % interval clustered by reference document (Obuchowski 1997); ` +
  (referenceModel
    ? `verdict = one-sided pooled t-test of per-document means of the calibrated loss (work vs reference documents), α = ${alpha}; `
    : `verdict = one-sided pooled t-test of per-document means (work vs reference documents), Holm-corrected over the statistics, α = ${alpha}; `) +
  `the chunk-level Mann–Whitney p is descriptive (chunks of one document are correlated); dataset inference after Maini et al. 2024`;

/** Six significant digits; null and non-finite values as they are. */
const sig = <T extends number | null>(x: T): T => (Number.isFinite(x) ? (Number(x!.toPrecision(6)) as T) : x);
