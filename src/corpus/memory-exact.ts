/**
 * An exact dataset in memory (../datasets/exact.ts) as the corpus holds it (./loaded.ts): documents are winnowed
 * into its index, a search reads the index itself, and its content-word pair index (./content-words.ts) — built
 * from the kept texts on the first search that needs it, or by `prepareSearch`, in batches on a worker pool where
 * one is given (./pair-build.ts) — is kept here and shared by the searches that arrive while it is being built.
 */
import type { Core } from '../core/abi.js';
import type { ExactDataset, ExactSearch } from '../datasets/exact.js';
import type { PortraitBackground } from '../datasets/background.js';
import { DATASET_OPTIONS } from '../datasets/params.js';
import type { ExactDatasetData } from '../datasets/snapshot.js';
import type { ExactDatasetSource } from '../datasets/snapshot-stream.js';
import type { DatasetDescriptor } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import { withWinnowed } from '../fingerprint/fingerprint.js';
import type { Fingerprint } from '../types.js';
import { finish, nextMacrotask, sliced, type Pause, type Steps } from '../util/steps.js';
import type { ContentPairs } from './content-pairs.js';
import { coreTokens } from './content-pairs.js';
import { ContentWordIndex, type PairCandidate, type PairIndex } from './content-words.js';
import { exactDigest } from './digest.js';
import type { CopyTarget, DatasetLoad, LoadedDataset, PrepareRun } from './loaded.js';
import { checkExactJoin, HeldInMemory, notAPortrait, notStored } from './loaded.js';
import type { Fetch, LocalSearch } from './local-search.js';
import { BATCH_UNITS, BatchedPairBuild } from './pair-build.js';
import { EXACT_SIZE, EXACT_WINDOW, type ExactSearchSide, searchExactSteps } from './search-exact.js';
import type { Offload, PureWork } from './work.js';

/** A content-word pair index being built (see {@link MemoryExact.contentIndexSteps}). */
interface PairIndexBuild {
  /** The dataset's documents when the build began (the index covers these). */
  readonly documents: number;
  readonly steps: Steps<ContentWordIndex>;
  /** The index, once built. */
  index: ContentWordIndex | null;
  /** What the build threw, if it did. */
  failed?: { error: unknown };
}

/**
 * An exact dataset in memory, held by a corpus.
 * @example const d = new MemoryExact(new ExactDataset(core, { id: 'books' }, DATASET_PARAMS), () => engineCore)
 */
export class MemoryExact extends HeldInMemory<ExactDataset> implements LoadedDataset, ExactSearchSide<ExactDataset> {
  /** The content-word pair index, once built (for the documents it counts). */
  private pairIndexBuilt: ContentWordIndex | null = null;
  /** The content-word pair index being built, shared by the searches that need it meanwhile. */
  private pairBuild: PairIndexBuild | null = null;

  /** `core`: the engine's live core, whose tokenizer builds the content-word pair index. */
  constructor(
    dataset: ExactDataset,
    private readonly core: () => Core,
  ) {
    super(dataset);
  }

  get keepsText(): boolean {
    return this.dataset.keepsText;
  }

  checkJoin(descriptor: DatasetDescriptor): void {
    checkExactJoin(this, descriptor);
  }

  load(core: Core): DatasetLoad {
    const d = this.dataset;
    return {
      // the postings are copied from the core's memory straight into the dataset's staging
      add: (doc, text) => withWinnowed(core, text, DATASET_OPTIONS, (fp) => d.addDocument(doc, text, fp)),
      addFingerprinted: (doc, text, fp) => d.addDocument(doc, text, fp),
      end: async () => undefined,
      abort: async () => undefined,
    };
  }

  finalize(): void {
    this.dataset.finalize();
  }

  async prepareSearch(run: PrepareRun): Promise<void> {
    this.dataset.prepare();
    if (this.keepsText) {
      if (run.offload) this.startBatchedBuild(run.offload, run.lanes);
      await sliced(this.contentIndexSteps(), run.sliceMs);
    }
    await nextMacrotask();
  }

  *searchSteps(s: LocalSearch): Generator<Pause | PureWork | Fetch, void, unknown> {
    yield* searchExactSteps(this, s);
  }

  // biome-ignore lint/correctness/useYield: the index in memory is read as it is, with nothing to wait for
  *open(): Generator<Fetch, ExactDataset, unknown> {
    return this.dataset;
  }

  seedSteps(x: ExactDataset, fp: Fingerprint, minTokens: number): Steps<ExactSearch> {
    return x.searchSteps(fp, EXACT_WINDOW, EXACT_SIZE, minTokens);
  }

  *pairCandidateSteps(x: ExactDataset, pairs: ContentPairs, s: LocalSearch): Steps<PairCandidate[]> {
    const index = yield* this.contentIndexSteps();
    s.indexes.set(x, index);
    s.postings.set(x, yield* index.postingSteps(pairs));
    return yield* s.pairIndexOf(x).candidateSteps(pairs, s.postingsOf(x));
  }

  /** The content-word pair index (built now if missing or stale). */
  pairIndex(): PairIndex {
    return finish(this.contentIndexSteps());
  }

  /** {@link pairIndex} as the index itself, whose columns a file holds (./content-index-file.ts). */
  contentIndex(): ContentWordIndex {
    return finish(this.contentIndexSteps());
  }

  /** Each document's length in UTF-16 units: what a content index file's offsets are checked against. */
  documentChars(): Uint32Array {
    return Uint32Array.from(this.dataset.docs, (d) => d.chars);
  }

  /**
   * Takes `index`, read from a file made for these documents (./content-index-file.ts), as the content-word pair
   * index, so that no search builds it. A build under way goes on for the searches that wait on it (it makes the
   * same index); the searches after take this one.
   */
  adoptContentIndex(index: ContentWordIndex): void {
    if (index.documents !== this.dataset.docs.length)
      throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', 'content index file refused: made for other documents');
    this.pairIndexBuilt = index;
  }

  documentText(documentId: string): string | null {
    const i = this.dataset.documentIndex(documentId);
    if (i < 0) throw new TrainprintError('NOT_FOUND', `no document "${documentId}" in dataset "${this.descriptor.id}"`);
    return this.dataset.documentText(i);
  }

  toData(): ExactDatasetData {
    return this.dataset.toData();
  }

  toSource(): ExactDatasetSource {
    return this.dataset.toSource();
  }

  copySource(): () => ExactDatasetSource {
    return () => this.dataset.toSource();
  }

  copyTarget(): CopyTarget {
    throw notStored(this.descriptor.id);
  }

  checkDeclarable(): void {}

  digest(): Promise<string> {
    return exactDigest(this.dataset);
  }

  async measureBackground(): Promise<PortraitBackground> {
    throw notAPortrait(this.descriptor.id);
  }

  /**
   * The content-word pair index as steps: building it pauses (./content-words.ts). Searches that need the index
   * while it is being built share that build: each moves it on by its own steps, so it is built once however many
   * searches arrive at once (a server's first requests after a start), and finishes even if the search that began
   * it is dropped.
   */
  *contentIndexSteps(): Steps<ContentWordIndex> {
    const documents = this.dataset.docs.length;
    const index = this.pairIndexBuilt;
    if (index && index.documents === documents) return index;
    let build = this.pairBuild;
    if (!build || build.documents !== documents) build = this.beginPairBuild();
    for (;;) {
      if (build.index) return build.index;
      if (build.failed) throw build.failed.error; // in another search's step: every search sharing it fails
      let next: IteratorResult<Pause, ContentWordIndex>;
      try {
        next = build.steps.next();
      } catch (error) {
        build.failed = { error };
        if (this.pairBuild === build) this.pairBuild = null; // the next search starts afresh
        throw error;
      }
      if (!next.done) {
        yield next.value;
        continue;
      }
      build.index = next.value;
      this.pairIndexBuilt = next.value;
      if (this.pairBuild === build) this.pairBuild = null;
    }
  }

  /**
   * Begin building the content-word index in batches on `lanes` threads of `offload` besides this one
   * (./pair-build.ts), unless it is built or being built, or too small to gain from it. The build is the one
   * searches share ({@link contentIndexSteps}): their steps and the caller's make batches too.
   */
  private startBatchedBuild(offload: Offload, lanes: number): void {
    const documents = this.dataset.docs.length;
    if (this.pairIndexBuilt?.documents !== documents && this.pairBuild?.documents !== documents) {
      this.beginPairBuild({ offload, lanes });
    }
  }

  /**
   * Begin (and record, for the searches that come meanwhile) building the content-word index from the kept texts:
   * in steps in this thread, or with `on`, in batches on `on.lanes` threads of `on.offload` as well, when the texts
   * are long enough for batches to gain (a few batches: in one thread).
   */
  private beginPairBuild(on?: { offload: Offload; lanes: number }): PairIndexBuild {
    const d = this.dataset;
    const texts = d.docs.map((_, i) => d.documentText(i));
    const tokens = coreTokens(this.core());
    const batched =
      on && texts.reduce((n, t) => n + (t?.length ?? 0), 0) >= 4 * BATCH_UNITS
        ? new BatchedPairBuild(texts, tokens)
        : null;
    const steps = batched ? batched.steps() : ContentWordIndex.buildSteps(texts, tokens);
    const build: PairIndexBuild = { documents: texts.length, steps, index: null };
    this.pairBuild = build;
    // more lanes than batches would find nothing to take
    if (batched && on) for (let k = 0; k < Math.min(on.lanes, batched.batches); k++) void batched.runOn(on.offload);
    return build;
  }
}
