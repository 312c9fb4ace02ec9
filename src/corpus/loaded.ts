/**
 * A dataset as the corpus holds it, whatever its class: an exact index in memory (./memory-exact.ts), a portrait
 * (./memory-portrait.ts) or an exact dataset kept in a database (./stored.ts). Each class says here how documents
 * join it, how a search reads it, what it exports, copies, declares and digests — or which of these it refuses,
 * with what error — so that the corpus (./corpus.ts) asks the dataset instead of switching on its class. A new
 * class of dataset is a module implementing {@link LoadedDataset} and a line where the corpus makes it.
 */
import type { Core } from '../core/abi.js';
import type { PortraitBackground } from '../datasets/background.js';
import type { ExactDatasetData, PortraitDatasetData } from '../datasets/snapshot.js';
import type { ExactDatasetSource, PortraitDatasetSource } from '../datasets/snapshot-stream.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import type { DocumentFingerprint } from '../fingerprint/fingerprint.js';
import type { Pause } from '../util/steps.js';
import type { ContentPairs } from './content-pairs.js';
import type { Fetch, LocalSearch } from './local-search.js';
import type { Offload, PureWork } from './work.js';

/** One load of documents into a dataset (`addDataset`, `addFingerprintedDocuments`). */
export interface DatasetLoad {
  /** Fingerprint one document with the dataset's parameters and add it. */
  add(doc: DatasetDocument, text: string): void | Promise<void>;
  /** Add one document with its fingerprints already made (with the dataset's parameters). */
  addFingerprinted(doc: DatasetDocument, text: string, fp: DocumentFingerprint): void | Promise<void>;
  /** The documents are all in: what the load gathered becomes searchable. */
  end(): Promise<void>;
  /** A document failed: what came before it is kept (as a dataset in memory keeps it), then the failure reported. */
  abort(): Promise<void>;
}

/** A stored dataset as the target of a copy (`copyDataset`, `importDataset` with `into`). */
export interface CopyTarget {
  readonly descriptor: DatasetDescriptor;
  readonly keepsText: boolean;
  /** Append `source`'s documents and fingerprints after the stored ones. */
  copyFrom(source: ExactDatasetSource, pairsOf?: (text: string) => ContentPairs): Promise<void>;
  /** End the copy (also after a failure): the storage builds its indexes where missing. */
  finishLoad(): Promise<void>;
  stats(): DatasetStats;
}

/** What `prepareSearch` passes each dataset. */
export interface PrepareRun {
  readonly sliceMs: number;
  readonly offload?: Offload;
  /** Threads of `offload` a build may use besides this one. */
  readonly lanes: number;
}

/** What `measureBackground` asks (see `Corpus.measureBackground`). */
export interface BackgroundRequest {
  readonly corpus: string;
  readonly date?: string;
}

/** A dataset the corpus holds (see the module comment). */
export interface LoadedDataset {
  /** Its descriptor (`declareDataset` replaces it). */
  descriptor: DatasetDescriptor;
  /** The parameter id of its fingerprints. */
  readonly params: string;
  /** It keeps its documents' texts, so a search aligns its candidates (a portrait keeps none). */
  readonly keepsText: boolean;
  stats(): DatasetStats;
  /** INVALID_OPTIONS unless documents sent under `descriptor` may join it (the same kind, window, keep_text). */
  checkJoin(descriptor: DatasetDescriptor): void;
  /** Begin adding documents; `core` fingerprints those that come without fingerprints. */
  load(core: Core): DatasetLoad;
  /** `finalizeDataset`: seal what is open, sort what is staged (nothing for a dataset in a database). */
  finalize(): void;
  /** `prepareSearch`: build now what its first search would build first (nothing where there is nothing). */
  prepareSearch(run: PrepareRun): Promise<void>;
  /** Its part of a search: its matches, coverage, detail and alignment candidates added to `s`. */
  searchSteps(s: LocalSearch): Generator<Pause | PureWork | Fetch, void, unknown>;
  /**
   * The text of a document as indexed, null where none is kept.
   * @throws NOT_FOUND (no such document), NOT_SUPPORTED (not readable synchronously)
   */
  documentText(documentId: string): string | null;
  /** As plain data, for `exportDataset`. @throws NOT_SUPPORTED where the database is its copy */
  toData(): ExactDatasetData | PortraitDatasetData;
  /** As an export source read a chunk at a time, for `exportDatasetStream`. @throws NOT_SUPPORTED as toData */
  toSource(): ExactDatasetSource | PortraitDatasetSource;
  /** Its documents to copy into a stored dataset, read when called. @throws INVALID_OPTIONS unless it can be copied */
  copySource(): () => ExactDatasetSource;
  /** It as the target of a copy. @throws INVALID_OPTIONS unless it is kept in a database */
  copyTarget(): CopyTarget;
  /** NOT_SUPPORTED unless `declareDataset` may replace its declarations. */
  checkDeclarable(): void;
  /** Its content digest (./digest.ts). @throws (rejects) NOT_SUPPORTED where there is none, STORE_UNAVAILABLE */
  digest(): Promise<string>;
  /**
   * Measure its background from `texts` (a portrait's; ../datasets/background.ts), keep it and return it.
   * @throws (rejects) INVALID_OPTIONS (not a portrait, a bad request), INVALID_INPUT (a text that is not a string)
   */
  measureBackground(
    core: Core,
    texts: Iterable<string> | AsyncIterable<string>,
    request: BackgroundRequest,
  ): Promise<PortraitBackground>;
}

/** What `measureBackground` refuses for a dataset that is not a portrait. */
export function notAPortrait(id: string): TrainprintError {
  return new TrainprintError('INVALID_OPTIONS', `dataset "${id}" is not a portrait: only portraits are measured`);
}

/** What a copy refuses to read from a dataset that is not an exact one in memory. */
export function notInMemoryExact(id: string): TrainprintError {
  return new TrainprintError('INVALID_OPTIONS', `dataset "${id}" is not an exact dataset in memory`);
}

/** What a copy refuses to write into a dataset that is not kept in a database. */
export function notStored(id: string): TrainprintError {
  return new TrainprintError('INVALID_OPTIONS', `dataset "${id}" is not a stored dataset (attachDataset)`);
}

/**
 * {@link LoadedDataset.checkJoin} of the exact classes (in memory, in a database): INVALID_OPTIONS unless documents
 * sent under `descriptor` may join `dataset` — an exact dataset of its keep_text.
 */
export function checkExactJoin(
  dataset: { readonly descriptor: DatasetDescriptor; readonly keepsText: boolean },
  descriptor: DatasetDescriptor,
): void {
  const id = dataset.descriptor.id;
  if (descriptor.kind !== undefined && descriptor.kind !== 'exact')
    throw new TrainprintError('INVALID_OPTIONS', `dataset "${id}" is of kind 'exact'`);
  if (descriptor.keep_text !== undefined && descriptor.keep_text !== dataset.keepsText) {
    throw new TrainprintError('INVALID_OPTIONS', `dataset "${id}" has keep_text ${dataset.keepsText}`);
  }
}

/**
 * The part of the classes in memory (./memory-exact.ts, ./memory-portrait.ts) that is their dataset's: its
 * descriptor, parameters and stats.
 */
export abstract class HeldInMemory<
  D extends { descriptor: DatasetDescriptor; readonly params: string; stats(): DatasetStats },
> {
  constructor(readonly dataset: D) {}

  get descriptor(): DatasetDescriptor {
    return this.dataset.descriptor;
  }

  set descriptor(descriptor: DatasetDescriptor) {
    this.dataset.descriptor = descriptor as D['descriptor'];
  }

  get params(): string {
    return this.dataset.params;
  }

  stats(): DatasetStats {
    return this.dataset.stats();
  }
}
