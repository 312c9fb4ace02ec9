/**
 * The analysis service: runs an analysis against the corpus and keeps the result in the store,
 * so `getAnalysis` (and `GET /attribution/{id}`) returns exactly what was computed.
 */
import type { CorpusView } from '../../corpus/types.js';
import { TrainprintError } from '../../errors.js';
import type { Store } from '../../store/types.js';
import type { KnowledgeBase } from '../kb/kb.js';
import { type AnalysisRecord, type KeptRecord, runAnalysis } from './analyze.js';
import {
  countBytes,
  isExpired,
  keptBytes,
  releaseBytes,
  retainAfter,
  retentionOps,
  Sweeper,
  type RetentionRules,
} from './retention.js';
import type { AnalysisResult, AnalyzeOptions, AnalyzeRequest } from './types.js';

/** `analyze` and `getAnalysis` over one corpus and store. */
export interface AnalysisService {
  analyze(request: AnalyzeRequest, options?: AnalyzeOptions): Promise<AnalysisResult>;
  /** With `owner`, only that owner's analysis is found (another's is NOT_FOUND, as if it did not exist). */
  get(id: string, options?: { readonly owner?: string }): Promise<AnalysisResult>;
  /**
   * A stored analysis with what is kept beside it — the text its spans point into and the remote corpora's
   * transcripts — for its report and evidence bundle; NOT_FOUND as {@link get}.
   */
  record(id: string, options?: { readonly owner?: string }): Promise<StoredAnalysis>;
}

/** A stored analysis: its result and its record (the analysed text, the remote transcripts). */
export interface StoredAnalysis extends AnalysisRecord {
  readonly result: AnalysisResult;
}

/** `analysis-record/<id>` → the {@link AnalysisRecord} of an analysis (deleted with it, ./retention.ts). */
export const ANALYSIS_RECORD_PREFIX = 'analysis-record/';

const utf8Decoder = new TextDecoder();

/** A stored record's text: UTF-8 bytes ({@link KeptRecord}), or a string as records were first kept. */
function recordText(stored: Partial<KeptRecord & AnalysisRecord> | undefined): string {
  if (stored?.utf8 instanceof Uint8Array) return utf8Decoder.decode(stored.utf8);
  return typeof stored?.text === 'string' ? stored.text : '';
}

/** `analysis-by/<id>` → the owner of an analysis made with one (deleted with the analysis, ./retention.ts). */
export const ANALYSIS_OWNER_PREFIX = 'analysis-by/';

const ANALYSIS_ID = /^an_[0-9a-f]{32}$/;

/**
 * Stored results follow `retention` (./retention.ts): read back until their time to live ends, at
 * most `maxPerOwner` per owner.
 * @example
 * const analyses = createAnalysisService({ corpus, store, kb: knowledgeBase(), retention: retentionRules({ ttlDays: 30 }) })
 * const r = await analyses.analyze({ content: text, content_type: 'text' })
 * await analyses.get(r.analysis_id)
 */
export function createAnalysisService(deps: {
  readonly corpus: CorpusView;
  readonly store: Store;
  readonly kb: KnowledgeBase;
  readonly retention: RetentionRules;
}): AnalysisService {
  // deps.kb is read at each analysis, not here: the engine builds its knowledge base on first use
  const { corpus, store, retention } = deps;
  const sweeper = new Sweeper();
  let made = 0;
  const service: AnalysisService = {
    async analyze(request, options) {
      const owner = options?.owner;
      if (owner !== undefined && (typeof owner !== 'string' || owner.length === 0 || owner.length > 256)) {
        throw new TrainprintError('INVALID_OPTIONS', 'owner must be a string of 1..256 characters');
      }
      const createdMs = retention.now();
      const { result, record } = await runAnalysis(corpus, deps.kb, request, options, createdMs);
      const recordKey = `${ANALYSIS_RECORD_PREFIX}${result.analysis_id}`;
      // one atomic batch: the result, its owner and the retention records; then the count and the deletions it
      // causes (retention.ts says why these are not in the same transaction)
      const stored = { id: result.analysis_id, createdMs, order: made++, bytes: keptBytes(record) };
      // its bytes are counted first: a deletion never meets an analysis whose bytes are not (retention.ts)
      const bytes = await countBytes(store, stored, owner);
      try {
        await store.batch([
          { type: 'put', key: `analysis/${result.analysis_id}`, value: result },
          { type: 'put', key: recordKey, value: record },
          ...(owner === undefined
            ? []
            : [{ type: 'put' as const, key: `${ANALYSIS_OWNER_PREFIX}${result.analysis_id}`, value: owner }]),
          ...retentionOps(retention, stored, owner, [recordKey]),
        ]);
      } catch (error) {
        await releaseBytes(store, stored, owner);
        throw error;
      }
      await retainAfter(store, retention, sweeper, stored, owner, bytes);
      return result;
    },
    async record(id, options) {
      const result = await service.get(id, options);
      const key = `${ANALYSIS_RECORD_PREFIX}${result.analysis_id}`;
      const record = (await store.get(key)) as Partial<KeptRecord & AnalysisRecord> | undefined;
      // an analysis stored before records were kept: its spans without the text, no transcripts
      return { result, text: recordText(record), transcripts: record?.transcripts ?? {} };
    },
    async get(id, options) {
      const valid = typeof id === 'string' && ANALYSIS_ID.test(id);
      const r = valid ? await store.get(`analysis/${id}`) : undefined;
      if (r && options?.owner !== undefined && (await store.get(`${ANALYSIS_OWNER_PREFIX}${id}`)) !== options.owner) {
        throw new TrainprintError('NOT_FOUND', `no analysis "${String(id)}"`);
      }
      // past its time to live it is gone, whether or not a later analysis has deleted it yet
      if (!r || isExpired((r as AnalysisResult).created_at, retention.now(), retention)) {
        throw new TrainprintError('NOT_FOUND', `no analysis "${String(id)}"`);
      }
      return r as AnalysisResult;
    },
  };
  return service;
}
