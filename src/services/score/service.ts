/** The score service: `score(work_hash or content, target_model, jurisdiction)` over one corpus and store. */
import type { CorpusView } from '../../corpus/types.js';
import type { Store } from '../../store/types.js';
import type { KnowledgeBase } from '../kb/kb.js';
import type { Fingerprinter } from '../registry/works.js';
import { scoreWork, type ChunkCache } from './score.js';
import type { ScoreOptions, ScoreRequest, ScoreResult } from './types.js';

/** Scores of registered works against knowledge-base models. */
export interface ScoreService {
  /**
   * `cache` shares chunk searches between scores of one work (monitors score many models at once); `run`: how
   * the searches share the thread (as analyze's, `engine.score`) and whose score it is (`owner`).
   */
  score(request: ScoreRequest, cache?: ChunkCache, run?: ScoreOptions): Promise<ScoreResult>;
}

/**
 * @example
 * const scores = createScoreService({ corpus, store, kb: knowledgeBase(), fingerprint: (t, o) => engine.fingerprint(t, o) })
 * await scores.score({ work_hash, target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' })
 */
export function createScoreService(deps: {
  readonly corpus: CorpusView;
  readonly store: Store;
  readonly fingerprint: Fingerprinter;
  readonly kb: KnowledgeBase;
}): ScoreService {
  const { store } = deps;
  return { score: (request, cache, run) => scoreWork(deps, store, request, cache, run) };
}
