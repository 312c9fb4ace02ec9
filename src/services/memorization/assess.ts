/**
 * assess: memorization risk of a work × model, combining
 * - corpus evidence (`engine.score`, when `kb_model` names a knowledge-base model),
 * - extraction (verbatim continuation ≥ 50 words = verified),
 * - the probe against a reference set (dataset-inference style, set-level),
 * - the work's canaries against their never-published controls,
 * into an evidence tier, factor codes and a risk level (src/services/analyze/risk.ts; the weights are this
 * project's heuristic, documented in docs/jurisdictions-and-revenue.md — not legal advice).
 *
 * Evidence tier and the attribution lower bound that scales the risk weight (as `score`'s
 * interval does): `confirmed` (verified extraction, detected canaries or a confirmed corpus
 * score) → 1; `strong` (significant probe against a randomized-split reference, or a corpus
 * interval ≥ 80) → 0.8; `moderate` (significant probe against a reference that may differ in
 * distribution → 0.4, or a corpus interval ≥ 50); else `inconclusive` (the corpus interval's
 * lower bound, or 0). A verified extraction adds the `verbatim_memorization` modifier
 * (+0.20, +0.30 in Germany: GEMA v OpenAI).
 */
import { chooseWorkType } from '../analyze/revenue.js';
import { assessRisk, riskLevel } from '../analyze/risk.js';
import type { MemorizationDeps } from './deps.js';
import { TrainprintError } from '../../errors.js';
import type { FactorCode } from '../kb/factors.js';
import { resolveJurisdiction, type Jurisdiction } from '../kb/jurisdictions.js';
import type { KbModel } from '../kb/types.js';
import type { TargetModel } from '../../models/types.js';
import { getWork, workText, type Work } from '../registry/works.js';
import type { ScoreResult } from '../score/types.js';
import type { Store } from '../../store/types.js';
import { fail, newId } from '../../util/validate.js';
import { runExtraction } from './extract.js';
import { checkModel } from './inputs.js';
import { runProbe, tokenLogprobs } from './probe.js';
import { findTracked } from './register.js';
import { aucInterval, fmtP, mannWhitney, mean } from './stats.js';
import { mapLimit } from './text.js';
import type { Assessment, AssessRequest, EvidenceTier, TrackedWork, TrapResult } from './types.js';
import { round4 } from '../../util/round.js';
import { optOutStatus } from '../policy/opt-out.js';
import { TIER_ATTRIBUTION } from './constants.js';

/** Run an assessment and keep it under `mem/assessment/<id>`. */
export async function runAssessment(deps: MemorizationDeps, store: Store, r: AssessRequest): Promise<Assessment> {
  // read through ASSESS_REQUEST by the caller (Memorization.assess)
  const model = checkModel(r.model);
  const work = await getWork(store, r.work_id);
  const text = await workText(store, work.work_id);
  if (text === null) fail(`work "${work.work_id}" was registered by fingerprint only: assess needs its text`);
  const jurisdiction = r.jurisdiction === undefined ? null : resolveJurisdiction(r.jurisdiction);
  const kbModel = r.kb_model === undefined ? null : deps.kb.model(r.kb_model);
  const trapAlpha = r.trap_alpha ?? 0.01;

  const factors = new Set<FactorCode>();
  const limitations = new Set<FactorCode>();
  const summary: string[] = [];

  const { corpus, pirated, extraction, probe, traps } = await gatherEvidence(
    { deps, store, r, model, work, kbModel, jurisdiction, trapAlpha },
    { factors, limitations, summary },
  );

  // tier and attribution bound
  const verified = (extraction?.summary.verified ?? 0) > 0;
  const probeSig = probe?.verdict === 'significant';
  const corpusLow = corpus ? corpus.ci_95[0] / 100 : 0;
  let tier: EvidenceTier = 'inconclusive';
  if (verified || traps?.detected || corpus?.tier === 'confirmed') tier = 'confirmed';
  else if ((probeSig && probe!.reference.matched) || corpusLow >= 0.8) tier = 'strong';
  else if (probeSig || corpusLow >= 0.5) tier = 'moderate';
  const tierLow =
    tier === 'inconclusive'
      ? 0
      : tier === 'moderate' && !(corpusLow >= 0.5)
        ? TIER_ATTRIBUTION.moderate
        : TIER_ATTRIBUTION[tier];
  const attributionLow = Math.max(corpusLow, tierLow);
  const anyMatch = verified || traps?.detected === true || probeSig || (corpus?.reused_share.flagged_chunks ?? 0) > 0;

  const { level, weight, modifiers, base, workType } = memorizationRisk(
    { work, text: text as string, kbModel, jurisdiction, anyMatch, attributionLow, pirated, verified },
    factors,
    limitations,
  );

  const assessment: Assessment = {
    assessment_id: newId('ma_'),
    created_at: new Date().toISOString(),
    work: {
      work_id: work.work_id,
      work_hash: work.work_hash,
      title: work.title,
      owner: work.owner,
      work_type: workType,
      tokens: work.tokens,
    },
    model: { id: model.id, access: model.access, kb_model: kbModel?.id ?? null },
    jurisdiction: jurisdiction?.code ?? null,
    level,
    evidence_tier: tier,
    risk: {
      score: round4(weight),
      base_weight: base.base_weight,
      modifiers,
      attribution_low: round4(attributionLow),
      attribution_scale: base.attribution_scale,
    },
    factors: [...factors],
    limitations: [...limitations],
    summary,
    corpus,
    extraction,
    probe,
    traps,
  };
  await store.put(`mem/assessment/${assessment.assessment_id}`, assessment);
  return assessment;
}

/** What an assessment reads about the work and the model before it decides. */
interface AssessContext {
  readonly deps: MemorizationDeps;
  readonly store: Store;
  readonly r: AssessRequest;
  readonly model: TargetModel;
  readonly work: Work;
  readonly kbModel: KbModel | null;
  readonly jurisdiction: Jurisdiction | null;
  readonly trapAlpha: number;
}

/** What an assessment collects as it goes: factor and limitation codes, and its summary's sentences. */
interface AssessNotes {
  readonly factors: Set<FactorCode>;
  readonly limitations: Set<FactorCode>;
  readonly summary: string[];
}

/** The four kinds of evidence, each where it can run: corpus evidence, extraction, the probe, the canaries. */
async function gatherEvidence(
  ctx: AssessContext,
  notes: AssessNotes,
): Promise<{
  corpus: Omit<ScoreResult, 'legal_risk'> | null;
  pirated: boolean;
  extraction: Assessment['extraction'];
  probe: Assessment['probe'];
  traps: TrapResult | null;
}> {
  const { deps, store, r, model, work, kbModel, jurisdiction, trapAlpha } = ctx;
  const { factors, limitations, summary } = notes;
  // corpus evidence
  let corpus: Omit<ScoreResult, 'legal_risk'> | null = null;
  let pirated = false;
  if (kbModel) {
    const s = await deps.score({
      work_hash: work.work_hash,
      target_model: kbModel.id,
      jurisdiction: jurisdiction?.code ?? 'US',
    });
    pirated = s.legal_risk.modifiers.some((m) => m.code === 'pirated_source_dataset');
    const { legal_risk: _drop, ...rest } = s;
    corpus = rest;
    for (const f of s.factors) factors.add(f);
    for (const l of s.limitations) if (l !== 'no_model_probe') limitations.add(l);
    summary.push(`Corpus evidence for ${kbModel.id}: score ${s.score} [${s.ci_95[0]}, ${s.ci_95[1]}], tier ${s.tier}.`);
  } else {
    summary.push('No corpus evidence was looked for (no knowledge-base model given).');
  }

  // extraction
  const extraction =
    r.extract === false
      ? null
      : await runExtraction(store, {
          ...(r.extract || {}),
          model,
          work_id: work.work_id,
        });
  if (extraction) {
    for (const f of extraction.factors) factors.add(f);
    for (const l of extraction.limitations) limitations.add(l);
    const s = extraction.summary;
    summary.push(
      s.verified > 0
        ? `The model reproduced ≥ 50 words of the work verbatim from ${s.verified} of ${s.attempts} prefixes (longest run ${s.longest_match_tokens} words): verbatim extraction verified.`
        : `Extraction: no verbatim continuation of ≥ 50 words from ${s.attempts} prefixes${s.refusals ? `, ${s.refusals} refused` : ''} (longest run ${s.longest_match_tokens} words). Memorization is sufficient evidence, its absence proves nothing.`,
    );
  }

  // probe
  let probe = null;
  if (model.access === 'generations_only') {
    limitations.add('no_logprob_access');
    summary.push('The model gives no log-probabilities: likelihood probes and canary tests could not run.');
  } else if (r.probe !== undefined && r.probe !== false) {
    probe = await runProbe(store, { ...r.probe, model, work_id: work.work_id });
    for (const f of probe.factors) factors.add(f);
    for (const l of probe.limitations) limitations.add(l);
    summary.push(`Probe (${probe.verdict.replace('_', ' ')}): ${probe.statement}`);
  } else {
    summary.push('No probe was run (no reference set given).');
  }

  // canaries
  const tracked = await findTracked(store, work.work_id);
  let traps: TrapResult | null = null;
  if (r.traps !== false && tracked && tracked.canaries.length > 0 && model.access !== 'generations_only') {
    traps = await testTraps(model, tracked, trapAlpha);
    if (traps.detected) factors.add('trap_sequence_detected');
    summary.push(
      traps.detected
        ? `The work's ${traps.canaries} canaries are more likely to the model than their ${traps.controls} never-published controls (AUC ${traps.auc.toFixed(3)}, p = ${fmtP(traps.p_value)}): trap sequences detected.`
        : `Canaries vs controls: no significant difference (AUC ${traps.auc.toFixed(3)}, p = ${fmtP(traps.p_value)}); traps need long sequences repeated many times to become detectable.`,
    );
  }
  return { corpus, pirated, extraction, probe, traps };
}

/** The risk of using the work as the evidence stands, with verbatim memorization's own modifier. */
function memorizationRisk(
  e: {
    readonly work: Work;
    readonly text: string;
    readonly kbModel: KbModel | null;
    readonly jurisdiction: Jurisdiction | null;
    readonly anyMatch: boolean;
    readonly attributionLow: number;
    readonly pirated: boolean;
    readonly verified: boolean;
  },
  factors: Set<FactorCode>,
  limitations: Set<FactorCode>,
) {
  const { work, text, kbModel, jurisdiction, anyMatch, attributionLow, pirated, verified } = e;
  // risk
  if (!jurisdiction) limitations.add('jurisdiction_unspecified');
  else if (!jurisdiction.known) limitations.add('jurisdiction_not_in_table');
  const since = work.declarations.since === undefined ? null : new Date(work.declarations.since).getUTCFullYear();
  const releaseYears = kbModel ? [kbModel.release_year] : [];
  const optOut = optOutStatus(work.declarations.tdm_opt_out === true, since, releaseYears, limitations);
  const workType = work.work_type ?? chooseWorkType(undefined, text as string, work.tokens).type;
  const base = assessRisk({ jurisdiction, anyMatch, attributionLow, optOut, pirated, workType });
  const modifiers = [...base.modifiers];
  if (verified) {
    const de = jurisdiction !== null && (jurisdiction.code === 'DE' || jurisdiction.code.startsWith('DE-'));
    // before attribution_uncertain, which scales the sum rather than adding to it
    const at = modifiers.findIndex((m) => m.code === 'attribution_uncertain');
    modifiers.splice(at < 0 ? modifiers.length : at, 0, { code: 'verbatim_memorization', delta: de ? 0.3 : 0.2 });
  }
  const sum = modifiers.reduce((t, m) => t + m.delta, 0);
  const weight = Math.min(1, Math.max(0, base.base_weight + sum)) * base.attribution_scale;
  const level = riskLevel(anyMatch, weight);
  for (const f of jurisdiction?.factors ?? []) factors.add(f);
  for (const m of modifiers) factors.add(m.code);
  return { level, weight, modifiers, base, workType };
}

/**
 * Canaries against their controls: loss of each sequence, one-sided Mann–Whitney (canaries more
 * likely). Canaries and controls were drawn the same way, and only the canaries were published,
 * so under "the model never saw them" the two sets are exchangeable and the test is exact.
 */
export async function testTraps(model: TargetModel, tracked: TrackedWork, alpha: number): Promise<TrapResult> {
  const loss = async (c: { text: string }) =>
    -mean((await tokenLogprobs(model, c.text)).logprobs.filter(Number.isFinite));
  const can = await mapLimit(tracked.canaries, 4, loss);
  const ctl = await mapLimit(tracked.controls, 4, loss);
  const mw = mannWhitney(
    can.map((v) => -v),
    ctl.map((v) => -v),
  );
  const auc = aucInterval(
    can.map((v) => -v),
    ctl.map((v) => -v),
  );
  return {
    canaries: can.length,
    controls: ctl.length,
    auc: round4(mw.auc),
    auc_ci_95: [round4(auc.ci_95[0]), round4(auc.ci_95[1])],
    p_value: Number(mw.p_value.toPrecision(6)),
    detected: mw.p_value < alpha,
    canary_loss: round4(mean(can)),
    control_loss: round4(mean(ctl)),
  };
}

/** A stored assessment. @throws NOT_FOUND */
export async function getAssessment(store: Store, id: unknown): Promise<Assessment> {
  const a =
    typeof id === 'string' && /^ma_[0-9a-f]{32}$/.test(id) ? await store.get(`mem/assessment/${id}`) : undefined;
  if (!a) throw new TrainprintError('NOT_FOUND', `no assessment "${String(id)}"`);
  return a as Assessment;
}
