/**
 * The analysis service: runs an analysis against the corpus and keeps the result in the store,
 * so `getAnalysis` (and `GET /attribution/{id}`) returns exactly what was computed.
 */
import type { CorpusView } from '../../corpus/types.js';
import { TrainprintError } from '../../errors.js';
import { alongsideOps } from '../../store/alongside.js';
import type { Store } from '../../store/types.js';
import { runAnalysis } from './analyze.js';
import { isExpired, retainAfter, retentionOps, Sweeper, type RetentionRules } from './retention.js';
import type { AnalysisResult, AnalyzeOptions, AnalyzeRequest } from './types.js';

/** `analyze` and `getAnalysis` over one corpus and store. */
export interface AnalysisService {
  analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<AnalysisResult>;
  get(id: string): Promise<AnalysisResult>;
}

const ANALYSIS_ID = /^an_[0-9a-f]{32}$/;

/**
 * Stored results follow `retention` (./retention.ts): read back until their time to live ends, at
 * most `maxPerOwner` per owner.
 * @example
 * const analyses = createAnalysisService({ corpus, store, retention: retentionRules({ ttlDays: 30 }) })
 * const r = await analyses.analyze({ content: text, content_type: 'text' })
 * await analyses.get(r.analysis_id)
 */
export function createAnalysisService(deps: {
  readonly corpus: CorpusView;
  readonly store: Store;
  readonly retention: RetentionRules;
}): AnalysisService {
  const { corpus, store, retention } = deps;
  const sweeper = new Sweeper();
  let made = 0;
  return {
    async analyze(request, options) {
      if (typeof options?.records !== 'function') alongsideOps(options?.records, ''); // refuse bad records before the work
      const owner = options?.owner;
      if (owner !== undefined && (typeof owner !== 'string' || owner.length === 0 || owner.length > 256)) {
        throw new TrainprintError('INVALID_OPTIONS', 'owner must be a string of 1..256 characters');
      }
      const createdMs = retention.now();
      const result = await runAnalysis(corpus, request, options, createdMs);
      const extra = alongsideOps(options?.records, result.analysis_id);
      // one atomic batch: the result, the caller's records and the retention records; then the count and
      // the deletions it causes (retention.ts says why these are not in the same transaction)
      const stored = { id: result.analysis_id, createdMs, order: made++ };
      const keys = extra.map((op) => op.key);
      await store.batch([
        { type: 'put', key: `analysis/${result.analysis_id}`, value: result },
        ...extra,
        ...retentionOps(retention, stored, owner, keys),
      ]);
      await retainAfter(store, retention, sweeper, stored, owner);
      return result;
    },
    async get(id) {
      const r = typeof id === 'string' && ANALYSIS_ID.test(id) ? await store.get(`analysis/${id}`) : undefined;
      // past its time to live it is gone, whether or not a later analysis has deleted it yet
      if (!r || isExpired((r as AnalysisResult).created_at, retention.now(), retention)) {
        throw new TrainprintError('NOT_FOUND', `no analysis "${String(id)}"`);
      }
      return r as AnalysisResult;
    },
  };
}
