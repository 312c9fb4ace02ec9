/**
 * The analysis service: runs an analysis against the corpus and keeps the result in the store,
 * so `getAnalysis` (and `GET /attribution/{id}`) returns exactly what was computed.
 */
import type { CorpusView } from '../../corpus/types.js';
import { TrainprintError } from '../../errors.js';
import { alongsideOps } from '../../store/alongside.js';
import type { Store } from '../../store/types.js';
import { runAnalysis } from './analyze.js';
import type { AnalysisResult, AnalyzeOptions, AnalyzeRequest } from './types.js';

/** `analyze` and `getAnalysis` over one corpus and store. */
export interface AnalysisService {
  analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<AnalysisResult>;
  get(id: string): Promise<AnalysisResult>;
}

const ANALYSIS_ID = /^an_[0-9a-f]{32}$/;

/**
 * @example
 * const analyses = createAnalysisService({ corpus, store })
 * const r = await analyses.analyze({ content: text, content_type: 'text' })
 * await analyses.get(r.analysis_id)
 */
export function createAnalysisService(deps: { readonly corpus: CorpusView; readonly store: Store }): AnalysisService {
  const { corpus, store } = deps;
  return {
    async analyze(request, options) {
      if (typeof options?.records !== 'function') alongsideOps(options?.records, ''); // refuse bad records before the work
      const result = await runAnalysis(corpus, request, options);
      const extra = alongsideOps(options?.records, result.analysis_id);
      await store.batch([{ type: 'put', key: `analysis/${result.analysis_id}`, value: result }, ...extra]);
      return result;
    },
    async get(id) {
      const r = typeof id === 'string' && ANALYSIS_ID.test(id) ? await store.get(`analysis/${id}`) : undefined;
      if (!r) throw new TrainprintError('NOT_FOUND', `no analysis "${String(id)}"`);
      return r as AnalysisResult;
    },
  };
}
