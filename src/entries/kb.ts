/**
 * `trainprint/kb` — the knowledge base and its lookups: which models were trained on which datasets (and who
 * says so), the providers, the factor codes that analyses and scores report, the jurisdiction table, the licensing
 * deals and the public remote corpora. An engine reads the knowledge base it is given (`createEngine({ kb })`);
 * `knowledgeBase()` is the shipped one.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { knowledgeBase, resolveJurisdiction } from 'trainprint/kb'
 * const engine = await createEngine({ kb: knowledgeBase() })
 * engine.model('eleutherai/pythia-6.9b').provider // 'eleutherai'
 * resolveJurisdiction('de').layers // ['EU', 'DE']
 */
export {
  KnowledgeBase,
  knowledgeBase,
  FACTORS,
  factorInfo,
  factorTable,
  resolveJurisdiction,
  jurisdictionTable,
  EU_MEMBERS,
  SUBDIVISIONS,
  DEALS,
  REMOTE_INDEXES,
  DEFAULT_REMOTE_INDEXES,
  remoteIndex,
  publicRemoteCorpora,
  type KnowledgeBaseSource,
  type EntryMapping,
  type KbDataset,
  type KbModel,
  type KbModelDataset,
  type KbModelFact,
  type KbProvider,
  type ModelLink,
  type Disclosure,
  type Modality,
  type FactorCode,
  type FactorInfo,
  type FactorCategory,
  type Jurisdiction,
  type JurisdictionFacts,
  type LicensingDeal,
  type DealKind,
  type DealSource,
  type RemoteIndex,
  type PublicRemoteCorporaOptions,
} from '../library.js';
