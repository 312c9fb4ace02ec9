/**
 * What the memorization operations need from the rest of the engine: its store, its knowledge base, the
 * registry, score and compare. Passed in as functions so this service never depends on the Engine.
 */
import type { CompareOptions, Comparison } from '../../align/compare.js';
import type { KnowledgeBase } from '../kb/kb.js';
import type { Store } from '../../store/types.js';
import type { ListWorksOptions, RegisterWorkRequest, RegisterWorkResult, WorkPage } from '../registry/works.js';
import type { ScoreRequest, ScoreResult } from '../score/types.js';

/** The engine's operations memorization calls (an `Engine` satisfies it). */
export interface MemorizationDeps {
  readonly store: Store;
  /** The knowledge base the engine was made with (`createEngine({ kb })`). */
  readonly kb: KnowledgeBase;
  registerWork(request: RegisterWorkRequest): Promise<RegisterWorkResult>;
  listWorks(options?: ListWorksOptions): Promise<WorkPage>;
  score(request: ScoreRequest): Promise<ScoreResult>;
  compare(a: string, b: string, options?: CompareOptions): Comparison;
}
