/**
 * `analyze`: content → corpus evidence (search) → calibrated dataset confidence → attribution
 * sources through the knowledge base → overall confidence, risk, revenue, factor codes.
 * Every number in the result is recomputable from the `evidence` block and the tables it names.
 */
import type { CorpusView, DatasetSearchDetail, DetailedSearch } from '../../corpus/types.js';
import type { RemoteCorpusReport } from '../../corpus/remote-types.js';
import { extractOn } from '../../corpus/work.js';
import type { DocumentFormat } from '../../formats/types.js';
import { extractDocumentOn, extractionOf, fileLimitOption } from './files.js';
import { TrainprintError } from '../../errors.js';
import { knownOptions } from '../../util/known-options.js';
import type { ContentType } from '../../text/index.js';
import { startSha256Hex } from '../../fingerprint/sha256.js';
import type { KnowledgeBase } from '../kb/kb.js';
import { kbAuthor } from '../kb/authors.js';
import { publicDomainByTerm } from '../kb/copyright-terms.js';
import { componentOf, nameableComponents } from '../kb/corpus-components.js';
import { crawlLink, remoteIndex as knownRemoteIndex } from '../kb/remote-indexes.js';
import type { DatasetStats, SearchMatch } from '../../datasets/types.js';
import type { FactorCode } from '../kb/factors.js';
import type { Jurisdiction } from '../kb/jurisdictions.js';
import { CALIBRATION, datasetConfidence, highestConfidence } from './calibration.js';
import { evidenceKind, type KindCodes, matchKind, reportLimitations } from '../policy/kinds/index.js';
import {
  checkableMatches,
  countedMatches,
  corpusEvidence,
  countedStrength,
  countsAsEvidence,
  findingLimitations,
} from '../policy/evidence-policy.js';
import {
  ANSWERED_OUTCOMES,
  confidenceInterval,
  type SearchScope,
  searchScope,
  type UnansweredCorpus,
} from '../policy/search-scope.js';
import { assessRisk } from './risk.js';
import { chooseWorkType, estimateRevenue, type ProviderUse } from './revenue.js';
import { checkSignal, newId } from '../../util/validate.js';
import { type CheckedAnalyzeRequest as Checked, readAnalyzeSteps } from './request.js';
import { sharedTextSteps, type AnalyzedMatch, type SharedText } from './shared-text.js';
import { progressOf, type ProgressReporter } from './progress.js';
import { searchedDatasetIds, sectionCoverage } from './sections.js';
import { QUOTATION_RULE, type QuotationsMode, quotationsOf } from './quotations.js';
import { DEFAULT_SLICE_MS, sliced, turnOf } from '../../util/steps.js';
import type {
  AnalysisExtraction,
  AnalysisResult,
  AnalyzeOptions,
  AnalyzeRequest,
  AttributionSource,
  DatasetEvidence,
} from './types.js';
import { round1, round4, round6 } from '../../util/round.js';
import { optOutStatus } from '../policy/opt-out.js';
import { ANALYZE_MAX_BYTES } from './limits.js';

// the text limit lives in limits.ts (no imports), which the fingerprint entry names too
export { ANALYZE_MAX_BYTES };
/** Below this many words, `short_text_low_power`. */
export const SHORT_TEXT_WORDS = 50;
const NEXT_STEPS = Object.freeze({
  register_content: '/api/v1/content/register',
  setup_monitoring: '/api/v1/monitors/create',
} as const);

/**
 * What is kept with a stored analysis beside its result, for its report and evidence bundle: the text every span
 * points into (a file's extracted text, or the content) and, per remote corpus, the digests of every answer used.
 */
export interface AnalysisRecord {
  readonly text: string;
  readonly transcripts: Record<string, ReadonlyArray<{ readonly request: string; readonly answer: string }>>;
}

/**
 * An {@link AnalysisRecord} as it is stored: its text as UTF-8. A store checks every string it keeps and msgpack
 * encodes a string in JS a character at a time (≈ 0.13 ms for 10,000 words, as much as the rest of the store's
 * work), where bytes are copied as they are; for content the bytes are those its work hash was made of. An
 * analysed text is well formed (a lone surrogate is refused first), so they decode to the same text.
 */
export interface KeptRecord {
  readonly utf8: Uint8Array;
  readonly transcripts: AnalysisRecord['transcripts'];
}

/** The record of an analysis from its search (see {@link KeptRecord}). */
function recordOf(searched: Searched): KeptRecord {
  const transcripts: Record<string, ReadonlyArray<{ request: string; answer: string }>> = {};
  // the searches that called an engine carry their transcript (remote corpora); the others have none
  for (const [id, detail] of searched.details) {
    const transcript = (detail.search as { readonly transcript?: AnalysisRecord['transcripts'][string] }).transcript;
    if (transcript) transcripts[id] = transcript;
  }
  // the spans of a file point into its extracted text, those of Markdown and HTML into the content as sent
  return { utf8: searched.utf8 ?? utf8Of(searched.extracted.text), transcripts };
}

const encoder = new TextEncoder();
/** Texts up to this many UTF-16 units are encoded through one reused buffer (3 bytes a unit at most). */
const SCRATCH_UNITS = 1 << 16;
let scratch: Uint8Array | undefined;

/**
 * `text` as UTF-8, a fresh array: through a reused buffer when short, which is 2–3× faster than
 * `TextEncoder.encode` in Node 20 (it sizes and allocates its own array each time).
 */
function utf8Of(text: string): Uint8Array {
  if (text.length > SCRATCH_UNITS) return encoder.encode(text);
  scratch ??= new Uint8Array(SCRATCH_UNITS * 3);
  return scratch.slice(0, encoder.encodeInto(text, scratch).written);
}

/** Run one analysis against the corpus (see `engine.analyze`): its result and what is kept beside it. */
export async function runAnalysis(
  corpus: CorpusView,
  kb: KnowledgeBase,
  request: AnalyzeRequest,
  options: AnalyzeOptions = {},
  createdMs: number = Date.now(),
): Promise<{ readonly result: AnalysisResult; readonly record: KeptRecord }> {
  // the options first: a bad one is INVALID_OPTIONS, never a TypeError from deep inside
  const prior = checkOptions(options);
  // checking 10 MB takes a few tens of ms: in slices (the checks in their order; results as in one go)
  // an account's analyses take their turns of the event loop as one, beside other accounts' (ownerTurn)
  const turn = turnOf(typeof options.owner === 'string' ? options.owner : undefined);
  const req = await sliced(
    readAnalyzeSteps(request, fileLimitOption(options.maxFileBytes)),
    options.sliceMs ?? DEFAULT_SLICE_MS,
    turn,
  );
  if (options.sliceMs !== Infinity) await turn();
  // what follows is linear in the content too: a turn of the event loop between its larger pieces
  const breathe = options.sliceMs === Infinity ? async () => undefined : turn;
  const progress = progressOf(options.onProgress);
  const searched = await searchContent(corpus, req, options, breathe, progress);
  const acc = newFindings();
  for (const ds of corpus.datasets()) {
    const detail = searched.details.get(ds.id);
    if (detail) addDatasetFindings({ corpus, kb, prior, searched, acc, quotations: req.quotations }, ds, detail);
  }
  await breathe();
  // Ranked, and fed to revenue and risk, as probabilities (0..1); shown on the 0..100 scale below.
  const attribution = bestPerModel(acc.sources);
  addSearchLimitations(searched, req, acc.limitations);

  // ---- revenue
  const work = chooseWorkType(req.workType, searched.extracted.text, searched.fp.token_count);
  // no licensing revenue rests on a public-domain source (its texts have no licence market where they are free)
  const revenue = estimateRevenue(
    work.type,
    work.source,
    searched.fp.token_count,
    providerUse(attribution.filter((s) => (acc.publicDomain.get(s.dataset_id) ?? []).length === 0)),
  );
  for (const f of revenue.factors) acc.limitations.add(f);

  // ---- risk
  // models of unknown release year are left out of the rule here: the others decide
  const since = req.since?.getUTCFullYear() ?? null;
  const optOut = optOutStatus(req.optOut, since, acc.linkedReleaseYears, acc.limitations);
  const top = attribution[0];
  // the work's own term, by its author's year of death, in the year the analysis is made (so that it stays the same
  // answer when recomputed from the stored result)
  const publicDomain = req.author === undefined ? null : workPublicDomain(req.author, req.jurisdiction, createdMs);
  const risk = assessRisk({
    jurisdiction: req.jurisdiction,
    // risk rests on evidence that counts (the policy), not on a stock phrase shown for the record
    anyMatch: acc.evidence.some((e) => e.counted),
    attributionLow: top ? top.confidence_ci_95[0] : 0,
    optOut,
    pirated: acc.pirated,
    workType: work.type,
    publicDomainIn: publicDomainOnly(acc.publicDomain),
    term: publicDomain?.status ?? null,
  });

  if (searched.shared.shared.some(Boolean)) acc.factors.add('shared_text');
  if (searched.matches.some((m) => m.role === 'quotation')) acc.factors.add('quotes_known_text');
  const scope = searchScope(acc.evidence, searched.found.remote ?? []);
  const unanswered = unansweredCorpora(corpus, kb, searched.found.remote ?? []);
  // the headline names a dataset whose evidence counts, and reads no other: the others are not copied for it
  const headline = corpusEvidence(
    acc.evidence
      .filter((e) => e.counted)
      .map((e) => ({
        ...e,
        shown: countedMatches(
          searched.matches.filter((m) => m.dataset_id === e.dataset_id),
          req.quotations,
        ),
        public_domain_in: acc.publicDomain.get(e.dataset_id) ?? [],
      })),
    new Set(attribution.map((a) => a.dataset_id)),
    scope,
    { matches: searched.matches.filter((m) => m.role === 'quotation'), quotations: req.quotations },
    unanswered,
  );
  if (headline.strongest?.level === 'strong' && attribution.length === 0) {
    acc.limitations.add('corpus_evidence_without_model_link');
  }
  const result = await resultOf({
    req,
    searched,
    acc,
    attribution,
    headline,
    scope,
    unanswered,
    revenue,
    risk,
    publicDomain,
    prior,
    createdMs,
  });
  progress.phase('done');
  return { result, record: recordOf(searched) };
}

/** What the search of one analysis gave: the content as searched, its matches and the fingerprint of the pass. */
interface Searched {
  readonly extracted: Awaited<ReturnType<typeof extractOn>>;
  readonly found: DetailedSearch['result'];
  readonly details: DetailedSearch['details'];
  readonly fp: DetailedSearch['fingerprint'];
  /** The work hash of the content as sent, being computed. */
  readonly workHash: Promise<string>;
  /** The content as sent, as UTF-8 (what its work hash is made of); null for a file. */
  readonly utf8: Uint8Array | null;
  readonly shared: SharedText;
  /** The matches with their spans in the content as sent (a file's: in its extracted text). */
  readonly matches: AnalyzedMatch[];
  /** How a file was extracted; null for text. */
  readonly extraction: AnalysisExtraction | null;
}

/** Extract, search (in slices, so a host's other requests are served meanwhile) and map the matches back. */
async function searchContent(
  corpus: CorpusView,
  req: Checked,
  options: AnalyzeOptions,
  breathe: () => Promise<unknown>,
  progress: ProgressReporter,
): Promise<Searched> {
  if (req.file) progress.phase('extracting');
  const document = req.file
    ? await extractDocumentOn(
        options.offload,
        req.file,
        req.type as DocumentFormat,
        { signal: options.signal, maxBytes: fileLimitOption(options.maxFileBytes) },
        options.owner,
      )
    : null;
  progress.phase('local');
  // a file's spans point into its extracted text: the identity map over it
  const extracted = document
    ? await extractOn(undefined, document.text, 'text')
    : await extractOn(options.offload, req.content, req.type as ContentType);
  // search first: it rejects on bad input before any other promise exists to be left unhandled; in slices,
  // so that a host's other requests are served while a large text is searched (results as in one go)
  // the query's fingerprint from the search pass: same normalisation and shingles, so the same content id
  const {
    result: found,
    details,
    fingerprint: fp,
    utf8: searchedUtf8,
  } = await corpus.searchDetailedAsync(
    extracted.text,
    {
      datasets: options.datasets,
      candidates: options.candidates,
      alignBudgetMs: options.alignBudgetMs,
      alignBudgetChars: options.alignBudgetChars,
      // an owner's analysis sees the shared datasets and its own, never another account's
      ...(options.owner !== undefined ? { account: options.owner } : {}),
      // the content leaves the machine only where the caller allows it (request and options both)
      remote: req.searchRemote && options.remote !== false,
      signal: options.signal,
      // a long work's passages are drawn chapter by chapter
      ...(document ? { sections: document.sections } : {}),
      ...(options.onProgress ? { onRemoteCall: progress.remoteCall } : {}),
    },
    // a text searched as sent: its UTF-8 as the search's tokenizer wrote it, for the work hash and the record
    { sliceMs: options.sliceMs, offload: options.offload, keepUtf8: !req.file && !req.utf8 },
  );
  await breathe();
  // the work is what was sent: a file's bytes, a text's UTF-8 (encoded once: the record keeps it too)
  const utf8 = req.file
    ? null
    : (req.utf8 ?? (searchedUtf8 && extracted.text === req.content ? searchedUtf8 : utf8Of(req.content)));
  const bytes = req.file ?? (utf8 as Uint8Array);
  const workHash = startSha256Hex(bytes);
  // passages many documents share (boilerplate) count once: offsets are the extracted text's, before mapping
  const shared = await sliced(
    sharedTextSteps(found.matches, extracted.text.length),
    options.sliceMs ?? DEFAULT_SLICE_MS,
    breathe,
  );
  await breathe();
  const mapped: AnalyzedMatch[] = found.matches.map((m, i) => {
    const [query_start, query_end] = extracted.mapSpan(m.query_start, m.query_end);
    const spans = { ...m, query_start, query_end };
    return matchKind(m).sharedDocuments ? { ...spans, shared_documents: shared.shared_documents[i] } : spans;
  });
  // the text the work quotes (./quotations.ts): read on the content as sent, a file's on its extracted text
  const quoted = req.file
    ? quotationsOf(extracted.text, 'text', mapped, fp.token_count, extracted)
    : quotationsOf(req.content, req.type as ContentType, mapped, fp.token_count, extracted);
  const matches = mapped.map((m, i): AnalyzedMatch => {
    const q = quoted[i];
    return q ? { ...m, role: 'quotation', quotation: q } : m;
  });
  const extraction = document ? extractionOf(document, bytes.length, req.includeText) : null;
  return { extracted, found, details, fp, workHash, utf8, shared, matches, extraction };
}

/** What the datasets' findings add up to, as they are read one by one. */
interface Findings {
  readonly evidence: DatasetEvidence[];
  readonly sources: AttributionSource[];
  readonly factors: Set<FactorCode>;
  readonly limitations: Set<FactorCode>;
  pirated: boolean;
  readonly linkedReleaseYears: number[];
  /** Per dataset whose evidence counts: where its texts are public domain (empty: nowhere documented). */
  readonly publicDomain: Map<string, readonly string[]>;
}

function newFindings(): Findings {
  return {
    evidence: [],
    sources: [],
    factors: new Set<FactorCode>(),
    limitations: new Set<FactorCode>([
      'reference_sample_only',
      'paraphrase_not_detectable',
      'no_model_probe',
      'training_data_undisclosed',
      'calibrated_on_development_data',
    ]),
    pirated: false,
    linkedReleaseYears: [],
    publicDomain: new Map(),
  };
}

/** What reading one dataset's findings needs. */
interface FindingContext {
  readonly corpus: CorpusView;
  readonly kb: KnowledgeBase;
  readonly prior: number;
  readonly searched: Searched;
  readonly acc: Findings;
  readonly quotations: QuotationsMode;
}

/**
 * One dataset's evidence (its chance, whether it counts by the policy, its calibrated confidence), its factor codes,
 * and — when it counts — the attribution sources it links to.
 */
function addDatasetFindings(ctx: FindingContext, ds: DatasetStats, detail: DatasetSearchDetail): void {
  const { corpus, prior, acc } = ctx;
  const { found, fp } = ctx.searched;
  const { limitations } = acc;
  const descriptor = corpus.descriptor(ds.id);
  // the result's matches (spans in the content as sent; the roles of quotations)
  const own = ctx.searched.matches.filter((m) => m.dataset_id === ds.id);
  const kind = evidenceKind(detail.kind);
  const passages = own.filter((m) => matchKind(m).passage);
  const near = own.filter((m) => !matchKind(m).passage);
  const chance = kind.chance(detail);
  // the policy (src/services/policy): only what a person can check counts; scattered hits are not evidence; the
  // text the work quotes is not the work's unless the request counts quotations
  const checkable = countedMatches(own, ctx.quotations);
  const quoted = checkableMatches(own).filter((m) => m.role === 'quotation').length;
  const finding = { checkable: checkable.length, found: chance.found, strength: chance.strength, quoted };
  const conf = datasetConfidence(detail.kind, countedStrength(finding), prior, fp.token_count);
  const cov = found.coverage[ds.id];
  const { supplied_by } = corpus.provenance(ds.id);
  acc.evidence.push({
    dataset_id: ds.id,
    kind: detail.kind,
    supplied_by,
    kb_dataset: descriptor.kb_dataset ?? null,
    declared_models: descriptor.models ?? [],
    matches: passages.length,
    documents: new Set(passages.map((m) => m.document_id)).size,
    near_duplicates: near.length,
    checkable: checkable.length,
    quoted,
    counted: countsAsEvidence(finding),
    coverage: round4(cov.share),
    longest_run: cov.longest_run,
    ...chance,
    // 6 significant digits: Math.exp/log differ in the last bit between engines (V8 versions)
    chance: Number(chance.chance.toPrecision(6)),
    ...(chance.aligned ? { aligned: { ...chance.aligned, chance: Number(chance.aligned.chance.toPrecision(6)) } } : {}),
    background_rate: round6(chance.background_rate),
    strength: round4(chance.strength),
    confidence: round4(conf.p),
    confidence_ci_95: [round4(conf.lo), round4(conf.hi)],
  });
  for (const code of findingLimitations(finding)) limitations.add(code);
  // the evidence passages: checkable, no near duplicates (a remote corpus's boilerplate passages are shown, not evidence)
  const evidencePassages = checkable.filter((m) => matchKind(m).passage);
  const kindFinding = { own, checkable, passages: evidencePassages, near: near.length, runs: chance.runs };
  addCodes(acc, kind.always(detail, kindFinding));
  if (!countsAsEvidence(finding)) return;
  acc.publicDomain.set(
    ds.id,
    descriptor.kb_dataset === undefined ? [] : ctx.kb.dataset(descriptor.kb_dataset).public_domain_in,
  );
  addCodes(acc, kind.counted(detail, kindFinding));
  addSources(ctx, ds, detail, conf, evidencePassages);
}

/** A kind's codes into the findings' factors and limitations, in its order. */
function addCodes(acc: Findings, codes: KindCodes): void {
  for (const f of codes.factors ?? []) acc.factors.add(f);
  for (const l of codes.limitations ?? []) acc.limitations.add(l);
}

/**
 * The attribution sources of a dataset whose evidence counts: every model the knowledge base links to its
 * knowledge-base dataset (or, for a remote corpus, to the components its matched documents name), and the models
 * its descriptor declares.
 */
function addSources(
  ctx: FindingContext,
  ds: DatasetStats,
  detail: DatasetSearchDetail,
  conf: { readonly p: number; readonly lo: number; readonly hi: number },
  evidencePassages: readonly SearchMatch[],
): void {
  const { kb, acc } = ctx;
  const { sources, factors } = acc;
  const descriptor = ctx.corpus.descriptor(ds.id);
  const { supplied_by } = ctx.corpus.provenance(ds.id);
  const before = sources.length;
  // a public index's corpus comes from the knowledge base's table of indexes, and a shipped pack's from the pack's
  // documented sources (packs/), not from anyone's declaration
  const declaredLink = ds.remote?.declared !== false && supplied_by !== 'shipped';
  const base = { dataset_id: ds.id, supplied_by, declared: declaredLink };
  const remoteIndex = ds.remote ? knownRemoteIndex(ds.remote.engine, ds.remote.index) : undefined;
  // a remote corpus's documents may name their component (the Pile's Books3): the models are linked through it
  const kind = evidenceKind(detail.kind);
  const named = kind.components?.(detail, evidencePassages) ?? [];
  for (const target of kbTargets(kb, descriptor.kb_dataset, named)) {
    const kbd = kb.dataset(target.kb);
    if (target.component) factors.add('remote_corpus_component');
    for (const link of kb.modelsTrainedOn(kbd.id)) {
      const { late, certainty, reason } = crawlLink(link, link.model, remoteIndex?.crawl);
      const c = round4(certainty);
      if (late) factors.add('remote_crawl_after_model_release');
      sources.push({
        ...base,
        provider: link.model.provider,
        model: link.model.id,
        confidence: round4(conf.p * c),
        confidence_ci_95: [round4(conf.lo * c), round4(conf.hi * c)],
        training_dataset: target.component
          ? `${target.component} (${kb.dataset(descriptor.kb_dataset!).name})`
          : kbd.name,
        kb_dataset: kbd.id,
        link: 'kb',
        link_certainty: c,
        link_reason: reason,
        disclosure: link.model.disclosure,
        citations: link.model.sources,
      });
      factors.add(
        link.via.length > 1 || target.component ? 'dataset_component_of_disclosed' : 'dataset_disclosed_by_provider',
      );
      if (link.model.disclosure === 'partial') factors.add('partial_disclosure');
      if (link.model.disclosure === 'full' && kind.positions) factors.add('exact_match_in_open_corpus');
      if ([kbd.id, ...link.via].some((id) => kb.dataset(id).pirated)) acc.pirated = true;
      if (link.model.release_year !== null) acc.linkedReleaseYears.push(link.model.release_year);
    }
    if (kb.exclusions(kbd.id).length) factors.add('dataset_excluded_by_provider');
  }
  for (const id of descriptor.models ?? []) {
    const model = kb.model(id);
    sources.push({
      ...base,
      provider: model.provider,
      model: model.id,
      confidence: round4(conf.p),
      confidence_ci_95: [round4(conf.lo), round4(conf.hi)],
      training_dataset: descriptor.name ?? ds.id,
      kb_dataset: descriptor.kb_dataset ?? null,
      link: 'declared',
      link_certainty: 1,
      link_reason: `declared in the descriptor of dataset "${ds.id}"`,
      disclosure: 'declared',
      citations: [],
    });
    if (model.release_year !== null) acc.linkedReleaseYears.push(model.release_year);
  }
  // a link the dataset's loader declared says so; a dataset that links to no model says that
  if (sources.length === before) factors.add('no_documented_model_link');
  else if (declaredLink) factors.add('declared_dataset_link');
}

/** What the search as a whole could not do: remote corpora not searched or sampled, alignment, length, place. */
function addSearchLimitations(searched: Searched, req: Checked, limitations: Set<FactorCode>): void {
  const { found, details, fp } = searched;
  for (const r of found.remote ?? []) for (const code of reportLimitations(r)) limitations.add(code);
  if (found.alignment.without_text.length > 0) limitations.add('alignment_unavailable');
  if (found.alignment.budget_exhausted) limitations.add('alignment_budget_exhausted');
  if (found.alignment.time_limit_reached) limitations.add('alignment_time_limit_reached');
  // the datasets this analysis may search (an owner's: the shared ones and its own); a remote corpus that answered
  // nothing has no detail (src/corpus/corpus.ts): it was consulted, not searched — neither "none loaded" nor "no match"
  if (details.size > 0) {
    if (found.matches.length === 0) limitations.add('no_indexed_dataset_match');
  } else if (!found.remote?.length) limitations.add('no_datasets_loaded');
  if (fp.token_count < SHORT_TEXT_WORDS) limitations.add('short_text_low_power');
  if (!req.jurisdiction) limitations.add('jurisdiction_unspecified');
  else if (!req.jurisdiction.known) limitations.add('jurisdiction_not_in_table');
}

/** The result: every number from the evidence block and the tables it names, on the 0..100 scale where shown. */
async function resultOf(r: {
  readonly req: Checked;
  readonly searched: Searched;
  readonly acc: Findings;
  readonly attribution: AttributionSource[];
  readonly headline: AnalysisResult['corpus_evidence'];
  /** What was searched, and the remote corpora asked that did not answer (the interval's upper end). */
  readonly scope: SearchScope;
  readonly unanswered: readonly UnansweredCorpus[];
  readonly revenue: ReturnType<typeof estimateRevenue>;
  readonly risk: ReturnType<typeof assessRisk>;
  readonly publicDomain: WorkPublicDomain | null;
  readonly prior: number;
  readonly createdMs: number;
}): Promise<AnalysisResult> {
  const { req, searched, acc, attribution, revenue, risk } = r;
  // ---- overall confidence: the best-supported source (sources share the same corpus evidence,
  // so combining them as independent — noisy-OR — would overstate it)
  const top = attribution[0];
  const confidence = top ? percent(top.confidence) : 0;
  // the source's interval, or [0, 0]; its upper end raised to what a linked corpus that did not answer could have
  // named, and [0, 100] where nothing was searched (the policy: src/services/policy/search-scope.ts)
  const confidenceCi = confidenceInterval(
    top ? [percent(top.confidence_ci_95[0]), percent(top.confidence_ci_95[1])] : null,
    r.scope,
    r.unanswered,
    highestConfidence('remote', r.prior, searched.fp.token_count),
  );
  const named = {
    ...(req.title === undefined ? {} : { title: req.title }),
    ...(req.author === undefined ? {} : { author: req.author }),
  };
  return {
    success: true,
    analysis_id: newId('an_'),
    fingerprint: searched.fp.fingerprint,
    confidence,
    confidence_ci_95: confidenceCi,
    potential_matches: searched.shared.distinct_sources,
    corpus_evidence: r.headline,
    estimated_revenue: { monthly: revenue.monthly, currency: 'USD', basis: revenue.basis },
    attribution_sources: attribution.map((s) => ({
      ...s,
      confidence: percent(s.confidence),
      confidence_ci_95: [percent(s.confidence_ci_95[0]), percent(s.confidence_ci_95[1])] as const,
    })),
    risk_assessment: {
      level: risk.level,
      factors: [...acc.factors, ...risk.factors],
      score: risk.score,
      jurisdiction: req.jurisdiction?.code ?? null,
      base_weight: risk.base_weight,
      modifiers: risk.modifiers,
      attribution_scale: risk.attribution_scale,
      ...(r.publicDomain ? { public_domain: r.publicDomain } : {}),
    },
    next_steps: NEXT_STEPS,
    // the registration request comes prefilled with what the caller already told us about the work; kept out of
    // next_steps so that a client may follow every path there
    ...(Object.keys(named).length > 0 ? { register_prefill: named } : {}),
    content_type: req.type,
    ...(searched.extraction
      ? {
          extraction: searched.extraction,
          // a file's extracted text is searched as plain text: `extracted.text` is it, and every span points into it
          sections: sectionCoverage(
            { text: searched.extracted.text, sections: searched.extraction.sections },
            searched.matches,
            searchedDatasetIds(acc.evidence, searched.found.remote),
            searched.found.remote,
          ),
        }
      : {}),
    ...named,
    work_hash: `sha256:${await searched.workHash}`,
    tokens: searched.fp.token_count,
    matches: searched.matches,
    coverage: searched.found.coverage,
    evidence: {
      method: EVIDENCE_METHOD,
      datasets: acc.evidence,
      calibration: { id: CALIBRATION.id, prior: r.prior },
      quotations: req.quotations,
      quotation_rule: QUOTATION_RULE,
      ...(r.unanswered.length > 0 ? { unanswered_corpora: [...r.unanswered] } : {}),
      combination:
        'confidence = the highest attribution-source confidence, both on 0..100 (sources share the same ' +
        'corpus evidence, so they are not combined as independent); 0 without sources',
    },
    limitations: [...acc.limitations],
    remote_corpora: searched.found.remote ?? [],
    created_at: new Date(r.createdMs).toISOString(),
  };
}

/**
 * The remote corpora asked that did not answer, each with the most certain link through which it could have named a
 * source, by the rule of {@link addSources}: a model the knowledge base links to its knowledge-base dataset or to a
 * part its documents could name (at the certainty a late crawl halves), or one its configuration declares (1). Of
 * equally certain links the first is kept: the corpus's own dataset's, in the knowledge base's order, then its parts'.
 */
function unansweredCorpora(corpus: CorpusView, kb: KnowledgeBase, reports: RemoteCorpusReport[]): UnansweredCorpus[] {
  return reports
    .filter((r) => !ANSWERED_OUTCOMES.has(r.outcome))
    .map((r) => {
      const { kb_dataset: own, models = [] } = corpus.descriptor(r.dataset_id);
      const crawl = knownRemoteIndex(r.engine, r.index)?.crawl;
      // a declared model links at 1, more than any documented link: the knowledge base is not asked then
      let best = { model: models[0] ?? null, c: models.length > 0 ? 1 : 0 };
      for (const d of own === undefined || models.length > 0 ? [] : [own, ...nameableComponents(own, kb)])
        for (const link of kb.modelsTrainedOn(d)) {
          const c = round4(crawlLink(link, link.model, crawl).certainty);
          if (c > best.c) best = { model: link.model.id, c };
        }
      return { dataset_id: r.dataset_id, model: best.model, link_certainty: best.c };
    });
}

/**
 * The knowledge-base datasets the models are linked through: the dataset's own, or — where the evidence passages'
 * documents name a component the knowledge base knows (`named`: their metadata, a remote corpus's) — each such
 * component, and the dataset's own for passages that name none.
 */
function kbTargets(
  kb: KnowledgeBase,
  kbDataset: string | undefined,
  named: ReadonlyArray<Record<string, unknown> | null>,
): Array<{ kb: string; component: string | null }> {
  if (kbDataset === undefined) return [];
  const out = new Map<string, string | null>();
  for (const metadata of named) {
    const c = componentOf(kbDataset, metadata, kb);
    if (c?.kb_dataset) out.set(c.kb_dataset, c.name);
    else out.set(kbDataset, null);
  }
  if (out.size === 0) out.set(kbDataset, null);
  return [...out].map(([kb, component]) => ({ kb, component }));
}

/** The work's public-domain status by its author's year of death (`risk_assessment.public_domain`). */
type WorkPublicDomain = NonNullable<AnalysisResult['risk_assessment']['public_domain']>;

/**
 * The work's own public-domain status in the jurisdiction, from the author the request names: the knowledge base's
 * year of death for that name (src/services/kb/authors.ts) and the jurisdiction's term (copyright-terms.ts), in the
 * year the analysis is made.
 */
function workPublicDomain(author: string, jurisdiction: Jurisdiction | null, createdMs: number): WorkPublicDomain {
  const known = kbAuthor(author);
  const year = new Date(createdMs).getUTCFullYear();
  const term = publicDomainByTerm(jurisdiction, known?.died ?? null, year);
  return {
    status: term.status,
    author: known?.name ?? null,
    author_died: known?.died ?? null,
    public_domain_from: term.public_domain_from,
    rule: term.rule,
  };
}

/**
 * Where all the evidence that counts is public domain: the jurisdictions its every dataset is documented as public
 * domain in (their intersection), or null when some counted evidence is not public domain (or none counts).
 */
function publicDomainOnly(byDataset: ReadonlyMap<string, readonly string[]>): string[] | null {
  let common: string[] | null = null;
  for (const where of byDataset.values()) {
    if (where.length === 0) return null;
    common = common === null ? [...where] : common.filter((j) => where.includes(j));
  }
  return common !== null && common.length > 0 ? common : null;
}

/** One source per model: the most confident. Sorted by confidence, then model id. */
function bestPerModel(sources: AttributionSource[]): AttributionSource[] {
  const best = new Map<string, AttributionSource>();
  for (const s of sources) {
    const b = best.get(s.model);
    if (!b || s.confidence > b.confidence) best.set(s.model, s);
  }
  return [...best.values()].sort((a, b) => b.confidence - a.confidence || (a.model < b.model ? -1 : 1));
}

/** P(used) per provider: its best source's [low, point, high]. */
function providerUse(sources: readonly AttributionSource[]): ProviderUse[] {
  const byProvider = new Map<string, ProviderUse>();
  for (const s of sources) {
    if (!byProvider.has(s.provider))
      byProvider.set(s.provider, {
        provider: s.provider,
        p_used: [s.confidence_ci_95[0], s.confidence, s.confidence_ci_95[1]],
      });
  }
  return [...byProvider.values()];
}

/** The options `analyze` takes (AnalyzeOptions): any other key is refused, as the request's are. */
const OPTION_KEYS = [
  'onProgress',
  'prior',
  'datasets',
  'candidates',
  'alignBudgetMs',
  'alignBudgetChars',
  'remote',
  'signal',
  'owner',
  'sliceMs',
  'offload',
  'maxFileBytes',
] as const;

/**
 * The options checked where a wrong one would otherwise surface as a TypeError far from the call (a null, a
 * non-signal `signal`, a string `sliceMs` …): INVALID_OPTIONS naming the option. `candidates`, `alignBudgetChars`
 * and `alignBudgetMs` are checked by the search they configure. Returns the prior.
 */
function checkOptions(options: AnalyzeOptions): number {
  const bad = (detail: string): never => {
    throw new TrainprintError('INVALID_OPTIONS', detail);
  };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) bad('options must be an object');
  knownOptions(options, OPTION_KEYS);
  const prior = options.prior ?? 0.5;
  if (typeof prior !== 'number' || !(prior > 0 && prior < 1)) bad('prior must be a number in (0, 1)');
  const { sliceMs, remote, signal, offload } = options;
  if (sliceMs !== undefined && (typeof sliceMs !== 'number' || !(sliceMs >= 0)))
    bad('sliceMs must be a number ≥ 0 (Infinity: in one go)');
  if (remote !== undefined && typeof remote !== 'boolean') bad('remote must be a boolean');
  const { datasets, owner } = options;
  if (datasets !== undefined && (!Array.isArray(datasets) || datasets.some((d) => typeof d !== 'string')))
    bad('datasets must be an array of dataset ids');
  if (owner !== undefined && (typeof owner !== 'string' || owner.length === 0 || owner.length > 256))
    bad('owner must be a string of 1..256 characters');
  checkSignal(signal);
  if (offload !== undefined && (offload === null || typeof (offload as { run?: unknown }).run !== 'function'))
    bad('offload must be an object with a run(work) function (a WorkerPool)');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    bad('onProgress must be a function');
  return prior;
}

/**
 * A probability (already rounded to 4 decimals) on the 0..100 scale with 1 decimal: the top-level
 * confidence and every source's confidence go through this one rounding, so the top-level figure is
 * exactly its best source's.
 */
const percent = (p: number) => round1(p * 100);

/** How `evidence` of an analysis is computed, in words: its `method` (also what the HTTP examples show). */
export const EVIDENCE_METHOD =
  'Per dataset: chance = the probability of shared text at least this strong if the content were unrelated ' +
  "(exact: binomial chains over the query's own background hit rate, Poisson over independent runs, and for " +
  "aligned passages binomial tails of shared content-word pairs at their document's background rate, Bonferroni " +
  'over both; ' +
  "portrait: runs of consecutive hits against the portrait's measured background, Poisson over independent runs; " +
  'scattered hits are not evidence); strength = −log10(chance), counted only when the dataset shows a checkable ' +
  'match with chance ≤ 0.05 (else 0); confidence = the calibration at that strength and the content length. Source ' +
  'confidence = 100 × dataset confidence × link certainty; a dataset whose evidence does not count gives no source.';
