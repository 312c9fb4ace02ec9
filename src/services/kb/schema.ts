/**
 * The knowledge base's query, written once: the filter of `engine.models` (`KnowledgeBase.models`) and the query of
 * `GET /api/v1/kb/models`.
 */
import { partialObject } from '../../util/json-schema.js';
import { contract } from '../../util/schema-check.js';
import type { Disclosure, Modality } from './types.js';

/** Filter of `KnowledgeBase.models`; every field given must match. */
export interface ModelFilter {
  /** Provider id (`meta`) or display name (`Meta`). */
  readonly provider?: string;
  readonly modality?: Modality;
  readonly disclosure?: Disclosure;
  /** Dataset id or name: models with any link to it, of either modality. */
  readonly dataset?: string;
}

/**
 * The models' filter: a modality or a disclosure the knowledge base does not know is refused, naming the field, rather
 * than matching nothing. @example readThrough(LIST_MODELS_REQUEST, { disclosure: 'full' }, undefined)
 */
export const LIST_MODELS_REQUEST = contract<ModelFilter>(
  'listModels',
  partialObject({
    provider: { type: 'string' },
    modality: { enum: ['text', 'image'] },
    disclosure: { enum: ['full', 'partial', 'undisclosed'] },
    dataset: { type: 'string' },
  }),
);
