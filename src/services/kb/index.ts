/**
 * Knowledge base of AI models and their documented training datasets.
 *
 * @example
 * import { knowledgeBase } from '../../kb/kb/index.js'
 * const kb = knowledgeBase()
 * kb.modelsTrainedOn(kb.resolveDatasetName('The Pile')!).map((l) => `${l.model.id} ${l.certainty}`)
 */

export { KnowledgeBase, knowledgeBase, providerSlug, CERTAINTY, KB_MODEL_FACTS } from './kb.js';
export type { ModelFilter, TrainedOnOptions, KnowledgeBaseSource, KbExclusion } from './kb.js';
export { DATASETS, ENTRY_MAP, datasetKey } from './datasets.js';
export type { EntryMapping } from './datasets.js';
export { MODEL_FACTS, KB_FACTS_SOURCE } from './models.generated.js';
export { MODEL_FACTS_SUPPLEMENT } from './models-supplement.js';
export {
  REMOTE_INDEXES,
  DEFAULT_REMOTE_INDEXES,
  publicRemoteCorpora,
  remoteIndex,
  remoteModelIds,
} from './remote-indexes.js';
export type { PublicRemoteCorporaOptions, RemoteIndex, RemoteEngine, RemoteTokenizer } from './remote-indexes.js';
export { componentOf } from './corpus-components.js';
export type { CorpusComponent } from './corpus-components.js';
export { DEALS, DEAL_HARPERCOLLINS, DEAL_DEFINED_AI } from './deals.js';
export type { LicensingDeal, DealKind, DealSource } from './deals.js';
export type {
  Disclosure,
  Modality,
  KbDatasetKind,
  KbDataset,
  KbModelDataset,
  KbModel,
  KbModelFact,
  KbProvider,
  ModelLink,
} from './types.js';
