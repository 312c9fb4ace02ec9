/**
 * A portrait (../datasets/portrait.ts) as the corpus holds it (./loaded.ts): documents are winnowed with its window
 * into its open filter (merged when a load ends, sealed by `finalizeDataset`), a search reads its runs of hits
 * (./search-portrait.ts), and it is the one class whose background is measured. It keeps no text, names no
 * documents in its matches and has no digest.
 */
import type { Core } from '../core/abi.js';
import { BackgroundTally, checkPortraitBackground, type PortraitBackground } from '../datasets/background.js';
import { portraitFpr, type PortraitDataset } from '../datasets/portrait.js';
import type { PortraitDatasetData } from '../datasets/snapshot.js';
import type { ExactDatasetSource, PortraitDatasetSource } from '../datasets/snapshot-stream.js';
import type { DatasetDescriptor } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import { winnowCore } from '../fingerprint/fingerprint.js';
import type { Fingerprint } from '../types.js';
import { nextMacrotask, type Pause } from '../util/steps.js';
import type { BackgroundRequest, CopyTarget, DatasetLoad, LoadedDataset } from './loaded.js';
import { HeldInMemory, notInMemoryExact, notStored } from './loaded.js';
import type { Fetch, LocalSearch } from './local-search.js';
import { searchPortraitSteps } from './search-portrait.js';
import { runWork, type PureWork } from './work.js';

/**
 * A portrait, held by a corpus.
 * @example const d = new MemoryPortrait(new PortraitDataset(core, { id: 'books', kind: 'portrait' }))
 */
export class MemoryPortrait extends HeldInMemory<PortraitDataset> implements LoadedDataset {
  readonly keepsText = false;

  checkJoin(descriptor: DatasetDescriptor): void {
    const id = this.descriptor.id;
    if (descriptor.kind !== undefined && descriptor.kind !== 'portrait')
      throw new TrainprintError('INVALID_OPTIONS', `dataset "${id}" is of kind 'portrait'`);
    if (descriptor.window !== undefined && descriptor.window !== this.dataset.window) {
      throw new TrainprintError('INVALID_OPTIONS', `dataset "${id}" has window ${this.dataset.window}`);
    }
  }

  load(core: Core): DatasetLoad {
    const d = this.dataset;
    const options = d.options;
    return {
      add: (doc, text) => d.addDocument(doc, winnowCore(core, text, options), text),
      addFingerprinted: (doc, text, fp) => d.addDocument(doc, fp, text),
      // the open filter is rebuilt once per load, from all its kept keys (exactly sized)
      end: async () => d.merge(),
      abort: async () => undefined,
    };
  }

  finalize(): void {
    this.dataset.seal();
  }

  async prepareSearch(): Promise<void> {}

  *searchSteps(s: LocalSearch): Generator<Pause | PureWork | Fetch, void, unknown> {
    yield* searchPortraitSteps(this.dataset, s);
  }

  documentText(): string | null {
    return null;
  }

  toData(): PortraitDatasetData {
    return this.dataset.toData();
  }

  toSource(): PortraitDatasetSource {
    return this.dataset.toSource();
  }

  copySource(): () => ExactDatasetSource {
    throw notInMemoryExact(this.descriptor.id);
  }

  copyTarget(): CopyTarget {
    throw notStored(this.descriptor.id);
  }

  checkDeclarable(): void {}

  async digest(): Promise<string> {
    const id = this.descriptor.id;
    throw new TrainprintError('NOT_SUPPORTED', `dataset "${id}" is a portrait: a digest is made of exact datasets`);
  }

  async measureBackground(
    core: Core,
    texts: Iterable<string> | AsyncIterable<string>,
    request: BackgroundRequest,
  ): Promise<PortraitBackground> {
    if (request === null || typeof request !== 'object' || typeof request.corpus !== 'string')
      throw new TrainprintError('INVALID_OPTIONS', 'options.corpus must say what the background texts are');
    if (request.corpus.length === 0 || request.corpus.length > 2000)
      throw new TrainprintError('INVALID_OPTIONS', 'options.corpus must be 1 to 2000 characters');
    const d = this.dataset;
    const date = request.date ?? new Date().toISOString().slice(0, 10);
    const tally = new BackgroundTally();
    let n = 0;
    for await (const text of texts) {
      if (typeof text !== 'string') throw new TrainprintError('INVALID_INPUT', `background text ${n} is not a string`);
      const fp = runWork(core, { kind: 'fingerprint', text, options: d.options }) as Fingerprint;
      tally.add(d.hitsOf(fp), fp.winnow!.hashes);
      if (++n % 64 === 0) await nextMacrotask();
    }
    // the chain null is measured apart, on documents of the portrait's own kind: a new background keeps it
    const chains = d.descriptor.background?.chains;
    const background = checkPortraitBackground({
      ...tally.result(request.corpus, date, Math.max(d.fpr(), portraitFpr())),
      ...(chains && { chains }),
    });
    d.setBackground(background);
    return background;
  }
}
