/**
 * Knowledge-base types: models with their documented training data, and a curated table of
 * training datasets. Facts come from the models' own documentation — model cards, papers, dataset cards, court
 * records — cited per record in `sources` (src/services/kb/models.generated.ts); nothing here is inferred from
 * model behaviour.
 */

/**
 * How much of a model's pretraining data its provider names: `full` — every component is named and publicly
 * identifiable; `partial` — some composition is disclosed, at least one component is unnamed or not public;
 * `undisclosed` — only a generic statement or nothing.
 */
export type Disclosure = 'full' | 'partial' | 'undisclosed';

/** What a model consumes and produces; text analysis links `text` models only. */
export type Modality = 'text' | 'image';

/** Kind of a curated training dataset. */
export type KbDatasetKind =
  | 'web'
  | 'books'
  | 'code'
  | 'encyclopedia'
  | 'academic'
  | 'news'
  | 'forum'
  | 'math'
  | 'dialogue'
  | 'synthetic'
  | 'mixture'
  | 'image-text'
  | 'legal'
  | 'instruction';

/**
 * One record of the knowledge-base facts, verbatim (src/services/kb/models.generated.ts, and the hand-curated
 * src/services/kb/models-supplement.ts). `training_datasets` is
 * the provider's wording; {@link KbModel} carries the same entries resolved against the dataset table.
 */
export interface KbModelFact {
  readonly model: string;
  readonly provider: string;
  readonly release_year: number | null;
  readonly modality: Modality;
  readonly training_datasets: readonly string[];
  readonly training_tokens: string | null;
  readonly disclosure: Disclosure;
  readonly notes: string;
  readonly sources: readonly string[];
  readonly uncertain_fields: readonly string[];
}

/** A training dataset of the curated table, with a stable id. */
export interface KbDataset {
  /** Stable id, e.g. `the-pile`, `books3`, `c4`. */
  readonly id: string;
  /** Display name. */
  readonly name: string;
  readonly kind: KbDatasetKind;
  /** Other names it goes by (matched case-insensitively against documented names). */
  readonly aliases: readonly string[];
  /**
   * Ids of the datasets it was assembled from, whole or as a filtered selection (The Pile ⊃ Books3,
   * Project Gutenberg (PG-19), Wikipedia, …; C4 ⊃ Common Crawl). The relation is a DAG.
   */
  readonly components: readonly string[];
  /** Documented as assembled from a shadow library or pirated copies (Books3, LibGen). */
  readonly pirated: boolean;
  /**
   * Jurisdictions (ISO 3166 codes) where the dataset's texts are documented as public domain (Project Gutenberg's
   * eBooks: `['US']`); empty when not. Finding a text in such a dataset says it is in a training corpus, not that
   * anyone holds a claim to it there (factor `public_domain_source`).
   */
  readonly public_domain_in: readonly string[];
  /** One line on what it is. */
  readonly description: string;
  /** Where the facts come from. */
  readonly sources: readonly string[];
}

/** One training-data entry of a model, as documented, resolved against the dataset table. */
export interface KbModelDataset {
  /** The provider's wording, as in the KB facts (e.g. "The Pile (without Books3)", "C4 (15%)"). */
  readonly name: string;
  /**
   * Curated dataset ids this entry names (usually one; "Project Gutenberg + Books3" names two;
   * empty for undisclosed or unnamed data such as "curated corpora (not enumerated on the card)").
   */
  readonly datasets: readonly string[];
  /** Component ids the entry documents as removed (e.g. `books3` for "The Pile (without Books3)"). */
  readonly excludes: readonly string[];
  /** Mixture share where published, e.g. "15%". */
  readonly share: string | null;
  /**
   * Parents whose parts the entry names, not the whole: `['the-pile']` for OPT's "The Pile subset (Pile-CC, …)",
   * `['redpajama-v1']` for MPT's "RedPajama Wikipedia (4%)". Empty for most entries.
   */
  readonly subset_of: readonly string[];
}

/** A model with its documented training data: its fact record, with an id and the entries resolved. */
export interface KbModel extends Omit<KbModelFact, 'model' | 'training_datasets'> {
  /** `provider/model_name` in lower case, as in the KB facts (e.g. `eleutherai/pythia-6.9b`). */
  readonly id: string;
  /** The organisation that trained it (display name, e.g. "Meta" for `meta-llama/…` and `facebook/…`). */
  readonly provider: string;
  /** Slug of {@link provider} (e.g. `meta`, `allen-institute-for-ai`). */
  readonly provider_id: string;
  /** The fact's `training_datasets`, each resolved against the dataset table. */
  readonly training_datasets: readonly KbModelDataset[];
}

/** A provider and its models. */
export interface KbProvider {
  readonly id: string;
  readonly name: string;
  readonly models: readonly string[];
}

/**
 * "Model M documents training on dataset D": the link from a curated dataset to a model, with the
 * path that gives it and how certain it is.
 */
export interface ModelLink {
  readonly model: KbModel;
  /** The dataset asked about. */
  readonly dataset: string;
  /** The documented training-data entry that gives the link. */
  readonly entry: KbModelDataset;
  /**
   * Dataset ids from the one the entry names down to the one asked about: `['the-pile']` when
   * the entry names it, `['the-pile', 'books3']` when Books3 is reached as a component of The Pile,
   * and just the asked id when the model names only some of its parts (`relation: 'parts'`).
   */
  readonly via: readonly string[];
  /**
   * How the entry reaches the dataset: it names it (`named`), names a dataset that contains it
   * (`component`), or names some of its parts only (`parts`, e.g. OPT's "The Pile subset (…)").
   */
  readonly relation: 'named' | 'component' | 'parts';
  /** Parts of the asked dataset that the entry documents as removed (`['books3']` for "The Pile (without Books3)"). */
  readonly removed: readonly string[];
  /** Probability (0..1) that the model trained on text of the dataset, from the documentation alone. */
  readonly certainty: number;
  /** Why that certainty, in one sentence (disclosure level, component path, exclusions). */
  readonly reason: string;
}
