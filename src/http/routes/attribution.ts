/**
 * Routes of the attribution group under `/api/v1/attribution/` (tag `attribution`, scope `analyze`):
 * analyze content against the reference datasets, read a stored analysis, align two texts, score a
 * registered work against a model, fingerprint content. Analyses and scores are the calling
 * account's: an analysis is stored with its owner, and a score names a work of the account by its
 * `work_hash` and reads only the datasets every account shares and the account's own.
 */
import {
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  extractText,
  sha256Hex,
  worthOffloading,
  type AnalyzeRequest,
  type ContentType,
  type FingerprintOptions,
  type ScoreRequest,
} from '../../library.js';
import type { Route, RouteContext } from '../context.js';
import * as S from '../schemas/attribution.js';
import { account, ownWorkByHash } from './caller.js';

/**
 * The attribution rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example ATTRIBUTION_ROUTES.map((r) => r.operationId) // ['analyze', 'getAnalysis', 'compare', …]
 */
export const ATTRIBUTION_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/v1/attribution/analyze',
    operationId: 'analyze',
    tag: 'attribution',
    scope: 'analyze',
    creates: true,
    summary: 'Analyse content against the reference datasets',
    body: 'json',
    requestSchema: ANALYZE_REQUEST_SCHEMA,
    responseSchema: ANALYSIS_RESULT_SCHEMA,
    handler: async (ctx) => {
      // the analysis is the account's (stored with its owner); a client that goes away cancels the remote corpus
      // calls still in flight (the result is stored all the same)
      return ctx.engine.analyze(ctx.body as AnalyzeRequest, {
        owner: account(ctx),
        signal: ctx.request.signal,
        ...ctx.services.work,
      });
    },
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/analyses/{analysis_id}',
    operationId: 'getAnalysis',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'A stored analysis of the account',
    responseSchema: ANALYSIS_RESULT_SCHEMA,
    handler: (ctx) => ctx.engine.getAnalysis(ctx.params.analysis_id, { owner: account(ctx) }),
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/compare',
    operationId: 'compare',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'Align two texts: reused passages with spans in both',
    body: 'json',
    requestSchema: S.COMPARE_REQUEST_SCHEMA,
    responseSchema: S.COMPARISON_SCHEMA,
    handler: async (ctx) => {
      const { a, b } = ctx.body as { a: string; b: string };
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
    tag: 'attribution',
    scope: 'analyze',
    summary: 'How likely a model trained on a registered work of the account',
    body: 'json',
    requestSchema: S.SCORE_REQUEST_SCHEMA,
    responseSchema: S.SCORE_RESULT_SCHEMA,
    handler: (ctx) => scoreOwned(ctx, ctx.body as ScoreRequest),
  },
  {
    method: 'GET',
    path: '/api/v1/attribution/score',
    operationId: 'scoreByQuery',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'The same score, with query parameters',
    querySchema: S.SCORE_REQUEST_SCHEMA,
    responseSchema: S.SCORE_RESULT_SCHEMA,
    handler: (ctx) => scoreOwned(ctx, ctx.query as unknown as ScoreRequest),
  },
  {
    method: 'POST',
    path: '/api/v1/attribution/fingerprint',
    operationId: 'fingerprint',
    tag: 'attribution',
    scope: 'analyze',
    summary: 'Fingerprint content: content id, work_hash, sketches',
    body: 'json',
    requestSchema: S.FINGERPRINT_REQUEST_SCHEMA,
    responseSchema: S.FINGERPRINT_RESULT_SCHEMA,
    handler: fingerprintHandler,
  },
];

// ------------------------------------------------------------------ helpers

async function scoreOwned(ctx: RouteContext, request: ScoreRequest): Promise<unknown> {
  await ownWorkByHash(ctx, request.work_hash);
  // the account's score reads the datasets every account shares and its own, never another account's
  return ctx.engine.score(request, { ...ctx.services.work, owner: account(ctx) });
}

async function fingerprintHandler(ctx: RouteContext): Promise<unknown> {
  // the size is bounded by the body limit (maxBodyBytes); fingerprinting has no limit of its own
  const b = ctx.body as {
    content: string;
    content_type?: ContentType;
    options?: FingerprintOptions;
    include_winnow?: boolean;
  };
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
    shingle_count: fp.shingles.hashes.length,
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
