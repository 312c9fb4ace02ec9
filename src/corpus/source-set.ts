/**
 * The sources of a {@link Corpus} searched beside its loaded datasets: remote corpora (`addRemoteDataset`) and the
 * caller's evidence sources (`addEvidenceSource`, ./source.ts). They are kept apart from the loaded datasets because
 * they are searched by the async search only — all at once and beside the local search, a remote corpus within its
 * own budget and deadline — and each gives its own detail; a remote corpus also a report of what was sent where.
 */
import type { DatasetDescriptor, DatasetStats, SearchMatch } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import type { RemoteCorpusReport, RemoteSearchable } from './remote-types.js';
import { type EvidenceSource, searchSource, sourceStats } from './source.js';
import type { DatasetSearchDetail, DescriptorLinks, SearchOptions } from './types.js';

/** What the sources of one search found: per source its detail and matches, and the remote corpora's reports. */
export interface SourcesFound {
  readonly details: ReadonlyMap<string, DatasetSearchDetail>;
  readonly matches: ReadonlyMap<string, readonly SearchMatch[]>;
  readonly reports: RemoteCorpusReport[];
}

/** One attached source: a remote corpus or an evidence source of the caller's. */
type Attached =
  | { readonly remote: RemoteSearchable; readonly source?: undefined }
  | { readonly source: EvidenceSource; readonly remote?: undefined };

/** The sources of one corpus. */
export class SourceSet {
  private readonly byId = new Map<string, Attached>();

  constructor(private readonly links: DescriptorLinks) {}

  /**
   * Add a remote dataset (its configuration already checked by its module) or an evidence source (checked by
   * ./source.ts): the knowledge-base ids it declares must exist. ALREADY_EXISTS when `taken(id)` or it is here.
   */
  add(attached: Attached, taken: (id: string) => boolean): DatasetStats {
    const { id, kb_dataset, models } = attached.remote ? attached.remote.config : attached.source.descriptor;
    if (taken(id) || this.byId.has(id))
      throw new TrainprintError('ALREADY_EXISTS', `dataset "${id}" is already loaded`);
    if (kb_dataset !== undefined) this.links.dataset(kb_dataset);
    for (const m of models ?? []) this.links.model(m);
    const stats = attached.remote ? attached.remote.stats() : sourceStats(attached.source);
    this.byId.set(id, attached);
    return stats;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }
  /** Whether `id` is a remote corpus (its data stays with its engine). */
  isRemote(id: string): boolean {
    return this.byId.get(id)?.remote !== undefined;
  }
  delete(id: string): boolean {
    return this.byId.delete(id);
  }
  clear(): void {
    this.byId.clear();
  }
  ids(): string[] {
    return [...this.byId.keys()];
  }
  remotes(): RemoteSearchable[] {
    return [...this.byId.values()].flatMap((a) => (a.remote ? [a.remote] : []));
  }
  stats(): DatasetStats[] {
    return [...this.byId.values()].map((a) => (a.remote ? a.remote.stats() : sourceStats(a.source)));
  }

  /** The descriptor analyze and score read: name, knowledge-base dataset and declared models. */
  descriptor(id: string): DatasetDescriptor {
    const a = this.byId.get(id);
    if (!a) throw new TrainprintError('NOT_FOUND', `no dataset "${id}"`);
    const { name, kb_dataset, models } = a.remote ? a.remote.config : a.source.descriptor;
    return {
      id,
      ...(name === undefined ? {} : { name }),
      ...(kb_dataset === undefined ? {} : { kb_dataset }),
      ...(models === undefined ? {} : { models }),
    };
  }

  /**
   * The sources a search of `datasets` (all when undefined) covers; `remote: false` leaves the remote corpora out
   * (the text stays on this machine), not the evidence sources, which are the caller's own code.
   */
  targets(datasets: readonly string[] | undefined, remote: boolean | undefined): string[] {
    // not an array: the search's own check refuses it (INVALID_OPTIONS), which runs after this
    if (datasets !== undefined && !Array.isArray(datasets)) return [];
    const ids = datasets === undefined ? this.ids() : datasets.filter((id) => this.byId.has(id));
    return remote === false ? ids.filter((id) => !this.isRemote(id)) : ids;
  }

  /**
   * Search `query` in the sources `ids` at once. A remote corpus's failure is its report's outcome, never a
   * rejection; an evidence source's failure rejects (it is the caller's code). `signal` cancels the calls in flight.
   */
  async search(
    ids: readonly string[],
    query: string,
    options: Pick<SearchOptions, 'signal' | 'sections' | 'onRemoteCall'> & { persist?: boolean },
  ): Promise<SourcesFound> {
    const found = await Promise.all(
      ids.map(async (id): Promise<{ detail: DatasetSearchDetail; report?: RemoteCorpusReport }> => {
        const a = this.byId.get(id)!;
        if (a.remote) {
          const { onRemoteCall, ...rest } = options;
          const onCall = onRemoteCall && ((calls: number, budget: number) => onRemoteCall(id, calls, budget));
          const search = await a.remote.search(query, { ...rest, ...(onCall ? { onCall } : {}) });
          return { detail: { kind: 'remote', search }, report: search.report };
        }
        return { detail: { kind: 'source', search: await searchSource(a.source, query, options.signal) } };
      }),
    );
    const details = new Map<string, DatasetSearchDetail>();
    const matches = new Map<string, readonly SearchMatch[]>();
    ids.forEach((id, i) => {
      details.set(id, found[i].detail);
      matches.set(id, found[i].detail.search.matches);
    });
    return { details, matches, reports: found.flatMap((f) => (f.report ? [f.report] : [])) };
  }
}

/**
 * The sources' matches merged into a search's passage matches, which are sorted longest first: each goes before
 * the first passage shorter than it (ties keep the local order first), so the local order stays as it was.
 */
export function mergeSourceMatches<M extends { readonly tokens: number; readonly query_start: number }>(
  local: readonly M[],
  found: readonly SearchMatch[],
): Array<M | SearchMatch> {
  const sorted = found.slice().sort((a, b) => b.tokens - a.tokens || a.query_start - b.query_start);
  const out: Array<M | SearchMatch> = [];
  let j = 0;
  for (const m of local) {
    while (j < sorted.length && sorted[j].tokens > m.tokens) out.push(sorted[j++]);
    out.push(m);
  }
  while (j < sorted.length) out.push(sorted[j++]);
  return out;
}
