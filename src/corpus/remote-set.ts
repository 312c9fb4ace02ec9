/**
 * The remote corpora of a {@link Corpus} (`addRemoteDataset`): kept apart from the loaded datasets because they
 * are searched over the network — only by the async search, all at once and beside the local search, each
 * within its own budget and deadline — and give a report of what was sent where.
 */
import type { DatasetDescriptor, DatasetStats, RemoteMatch } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import type { RemoteCorpusReport, RemoteSearch, RemoteSearchable } from './remote-types.js';
import type { DescriptorLinks } from './types.js';

/** What the remote corpora of one search found. */
export interface RemoteFound {
  readonly searches: ReadonlyMap<string, RemoteSearch>;
  readonly reports: RemoteCorpusReport[];
}

/** The remote datasets of one corpus. */
export class RemoteSet {
  private readonly byId = new Map<string, RemoteSearchable>();

  constructor(private readonly links: DescriptorLinks) {}

  /**
   * Add a remote dataset (its configuration already checked by its module): the knowledge-base ids it declares
   * must exist. ALREADY_EXISTS when `taken(id)` or it is here.
   */
  add(remote: RemoteSearchable, taken: (id: string) => boolean): DatasetStats {
    const { id, kb_dataset, models } = remote.config;
    if (taken(id) || this.byId.has(id))
      throw new TrainprintError('ALREADY_EXISTS', `dataset "${id}" is already loaded`);
    if (kb_dataset !== undefined) this.links.dataset(kb_dataset);
    for (const m of models ?? []) this.links.model(m);
    this.byId.set(id, remote);
    return remote.stats();
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }
  get(id: string): RemoteSearchable | undefined {
    return this.byId.get(id);
  }
  delete(id: string): boolean {
    return this.byId.delete(id);
  }
  clear(): void {
    this.byId.clear();
  }
  all(): RemoteSearchable[] {
    return [...this.byId.values()];
  }

  /** The descriptor analyze and score read: name, knowledge-base dataset and declared models. */
  descriptor(id: string): DatasetDescriptor {
    const r = this.byId.get(id);
    if (!r) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    const { name, kb_dataset, models } = r.config;
    return {
      id,
      ...(name === undefined ? {} : { name }),
      ...(kb_dataset === undefined ? {} : { kb_dataset }),
      ...(models === undefined ? {} : { models }),
    };
  }

  /** The remote datasets a search of `datasets` (all when undefined) and `remote` (false: none) covers. */
  targets(datasets: readonly string[] | undefined, remote: boolean | undefined): RemoteSearchable[] {
    if (remote === false) return [];
    if (datasets === undefined) return this.all();
    return datasets.filter((id) => this.byId.has(id)).map((id) => this.byId.get(id)!);
  }

  /**
   * Search `query` in `targets` at once. A remote corpus's failure is its report's outcome, never a rejection;
   * `signal` cancels the calls in flight.
   */
  async search(
    targets: readonly RemoteSearchable[],
    query: string,
    options: { signal?: AbortSignal; persist?: boolean },
  ): Promise<RemoteFound> {
    const found = await Promise.all(targets.map((r) => r.search(query, options)));
    const searches = new Map<string, RemoteSearch>();
    targets.forEach((r, i) => {
      searches.set(r.config.id, found[i]);
    });
    return { searches, reports: found.map((f) => f.report) };
  }
}

/**
 * Remote matches merged into a search's passage matches, which are sorted longest first: each goes before the
 * first passage shorter than it (ties keep the local order first), so the local order stays as it was.
 */
export function mergeRemoteMatches<M extends { readonly tokens: number; readonly query_start: number }>(
  local: readonly M[],
  remote: readonly RemoteMatch[],
): Array<M | RemoteMatch> {
  const sorted = remote.slice().sort((a, b) => b.tokens - a.tokens || a.query_start - b.query_start);
  const out: Array<M | RemoteMatch> = [];
  let j = 0;
  for (const m of local) {
    while (j < sorted.length && sorted[j].tokens > m.tokens) out.push(sorted[j++]);
    out.push(m);
  }
  while (j < sorted.length) out.push(sorted[j++]);
  return out;
}
