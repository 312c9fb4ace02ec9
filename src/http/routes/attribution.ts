/**
 * Routes of the attribution group under `/api/v1/attribution/` (tag `attribution`, scope `analyze`):
 * analyze content against the reference datasets, read a stored analysis, align two texts, score a
 * work against a model, fingerprint content. Analyses and scores are the calling account's: an
 * analysis is stored with its owner, and a score names a work of the account by its `work_hash` (or
 * carries the work as `content`) and reads only the datasets every account shares and the account's
 * own. Analyze and score take files, in JSON (base64) or as a multipart upload, up to the plan's size.
 */
import {
  ANALYSIS_RESULT_SCHEMA,
  canonicalJson,
  extractText,
  evidenceRecord,
  loadReportKey,
  renderWorkReport,
  signedEvidence,
  sha256Hex,
  shingleCount,
  worthOffloading,
  type AnalyzeRequest,
  type ScoreRequest,
  readThrough,
  REQUESTS,
} from '../../library.js';
import { inGroup, type Route, type RouteContext } from '../context.js';
import * as S from '../schemas/attribution.js';
import { htmlReport } from '../respond.js';
import { account, ownWorkByHash, planFileLimit } from './caller.js';

/**
 * The attribution rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example ATTRIBUTION_ROUTES.map((r) => r.operationId) // ['analyze', 'getAnalysis', 'compare', …]
 */
export const ATTRIBUTION_ROUTES: readonly Route[] = inGroup('attribution', 'analyze', [
  {
    method: 'POST',
    path: '/api/v1/attribution/analyze',
    operationId: 'analyze',
    creates: true,
    summary: 'Analyse content against the reference datasets',
    body: 'json',
    files: true,
    requestSchema: REQUESTS.analyze.served,
    responseSchema: ANALYSIS_RESULT_SCHEMA,
    handler: async (ctx) => {
      // the analysis is the account's (stored with its owner); a client that goes away cancels the remote corpus
      // calls still in flight (the result is stored all the same)
      return ctx.engine.analyze(ctx.body as AnalyzeRequest, {
        owner: account(ctx),
        signal: ctx.request.signal,
        maxFileBytes: planFileLimit(ctx),
        ...ctx.services.work,
      });
    },
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/analyses/{analysis_id}',
    operationId: 'getAnalysis',
    summary: 'A stored analysis of the account',
    responseSchema: ANALYSIS_RESULT_SCHEMA,
    handler: (ctx) => ctx.engine.getAnalysis(ctx.params.analysis_id, { owner: account(ctx) }),
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/analyses/{analysis_id}/report',
    operationId: 'getAnalysisReport',
    summary:
      'The work report of an analysis of the account: one self-contained HTML page (`?format=json`: its signed ' +
      'evidence bundle instead, as `…/bundle` answers it)',
    querySchema: {
      type: 'object',
      additionalProperties: false,
      properties: { format: { enum: ['html', 'json'], description: 'html (the page) or json (the evidence bundle)' } },
    },
    responseSchema: S.WORK_REPORT_SCHEMA,
    responseType: 'html',
    alsoAnswers: { type: 'json', schema: S.EVIDENCE_BUNDLE_SCHEMA },
    handler: async (ctx) => {
      const { record, bundle } = await accountAnalysis(ctx);
      if (ctx.query.format === 'json') {
        return new Response(canonicalJson(bundle), {
          headers: { ...NOT_STORED, 'content-type': 'application/json; charset=utf-8' },
        });
      }
      return htmlReport(await renderWorkReport({ ...record, bundle }));
    },
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/analyses/{analysis_id}/bundle',
    operationId: 'getEvidenceBundle',
    summary: 'The signed evidence bundle of an analysis of the account, as canonical JSON',
    responseSchema: S.EVIDENCE_BUNDLE_SCHEMA,
    handler: async (ctx) => {
      // the bytes that verify: the bundle's canonical JSON, without the success envelope (a member more would be a
      // member the signature does not cover)
      const { bundle } = await accountAnalysis(ctx);
      return new Response(canonicalJson(bundle), {
        headers: { ...NOT_STORED, 'content-type': 'application/json; charset=utf-8' },
      });
    },
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/analyses/{analysis_id}/extractions',
    operationId: 'getAnalysisExtractions',
    summary: "The account's extractions of an analysis's text (what its bundle signs), without building the bundle",
    responseSchema: S.ANALYSIS_EXTRACTIONS_SCHEMA,
    handler: async (ctx) => {
      const owner = account(ctx);
      const record = await evidenceRecord(ctx.engine, ctx.params.analysis_id, owner);
      return {
        analysis_id: ctx.params.analysis_id,
        text_sha256: record.text_sha256 ?? null,
        extractions: record.model_extractions ?? [],
      };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/report-key',
    operationId: 'getReportKey',
    scope: null,
    summary: "The engine's Ed25519 public key, which signs the evidence bundles",
    responseSchema: S.REPORT_KEY_SCHEMA,
    handler: async (ctx) => ({ ...(await loadReportKey(ctx.engine.store)).publicKey }),
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/compare',
    operationId: 'compare',
    summary: 'Align two texts: reused passages with spans in both',
    body: 'json',
    requestSchema: REQUESTS.compare.served,
    responseSchema: S.COMPARISON_SCHEMA,
    handler: async (ctx) => {
      const { a, b } = readThrough(REQUESTS.compare, ctx.body, undefined);
      // a pure function of the two texts: on the handler's worker pool when it has one and the texts are long
      // enough to pay for the trip (the same result)
      const { offload } = ctx.services.work;
      const work = { kind: 'compare', a, b } as const;
      return offload && worthOffloading(work) ? offload.run(work) : ctx.engine.compare(a, b);
    },
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/score',
    operationId: 'score',
    summary: 'How likely a model trained on a work: registered by the account, or sent as content',
    body: 'json',
    files: true,
    requestSchema: REQUESTS.score.served,
    responseSchema: S.SCORE_RESULT_SCHEMA,
    handler: (ctx) => scoreOwned(ctx, ctx.body as ScoreRequest),
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/score',
    operationId: 'scoreByQuery',
    summary: 'The same score, with query parameters',
    querySchema: S.SCORE_QUERY_SCHEMA,
    responseSchema: S.SCORE_RESULT_SCHEMA,
    handler: (ctx) => scoreOwned(ctx, ctx.query as unknown as ScoreRequest),
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/fingerprint',
    operationId: 'fingerprint',
    summary: 'Fingerprint content: content id, work_hash, sketches',
    body: 'json',
    requestSchema: REQUESTS.fingerprint.served,
    responseSchema: S.FINGERPRINT_RESULT_SCHEMA,
    handler: fingerprintHandler,
  },
]);

// ------------------------------------------------------------------ helpers

async function scoreOwned(ctx: RouteContext, body: ScoreRequest): Promise<unknown> {
  // read through its contract before the work is looked up (its rules' 422 before a 404); the body's schema was checked
  const request = readThrough(REQUESTS.score, body, undefined);
  // a work named by its hash must be the account's; content sent is scored as it is
  if (request.work_hash !== undefined) await ownWorkByHash(ctx, request.work_hash);
  // the account's score reads the datasets every account shares and its own, never another account's; a client that
  // goes away aborts it, as it does an analysis (its remote calls, evidence searches and a file's extraction stop)
  return ctx.engine.score(request, {
    ...ctx.services.work,
    owner: account(ctx),
    signal: ctx.request.signal,
    maxFileBytes: planFileLimit(ctx),
  });
}

const NOT_STORED = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** The account's analysis as its report and bundle read it: one record for every door (`signedEvidence`). */
function accountAnalysis(ctx: RouteContext) {
  return signedEvidence(ctx.engine, ctx.params.analysis_id, account(ctx), () => new Date(ctx.now()));
}

async function fingerprintHandler(ctx: RouteContext): Promise<unknown> {
  // the size is bounded by the body limit (maxBodyBytes); fingerprinting has no limit of its own
  const b = readThrough(REQUESTS.fingerprint, ctx.body, undefined);
  const type = b.content_type ?? 'text';
  const x = extractText(b.content, type);
  // work_hash is of the bytes sent (markup included), as registerWork computes it
  const fp = await ctx.engine.fingerprint(x.text, { ...b.options, workHash: type === 'text' });
  const workHash = fp.work_hash ?? `sha256:${await sha256Hex(b.content)}`;
  const out: Record<string, unknown> = {
    version: fp.version,
    params: fp.params,
    fingerprint: fp.fingerprint,
    work_hash: workHash,
    byte_length: fp.byte_length,
    token_count: fp.token_count,
    shingle_count: shingleCount(fp.shingles),
    simhash: fp.simhash === undefined ? null : fp.simhash.toString(16).padStart(16, '0'),
    minhash: fp.minhash === undefined ? null : Array.from(fp.minhash),
  };
  if (b.include_winnow && fp.winnow) {
    const starts: number[] = [],
      ends: number[] = [];
    for (let i = 0; i < fp.winnow.hashes.length; i++) {
      const [s, e] = x.mapSpan(fp.winnow.starts[i], fp.winnow.ends[i]);
      starts.push(s);
      ends.push(e);
    }
    out.winnow = { hashes: Array.from(fp.winnow.hashes, (h) => h.toString(16).padStart(16, '0')), starts, ends };
  }
  return out;
}
