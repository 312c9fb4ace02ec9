/**
 * Evidence sources: what a kind of evidence the engine does not ship must provide to be searched beside the loaded
 * datasets — a live model's training log, a settlement or disclosure list, a private index. A source says which
 * passages of a text it holds and how likely findings that strong are in unrelated text (its own null, as a
 * portrait's background or an exact dataset's chains are theirs); the engine checks what it says, keeps the spans
 * the caller's, and reads the rest through the one evidence policy (src/services/policy) as it reads its own kinds.
 *
 * A source is registered with one line (`engine.addEvidenceSource(source)`) and is then searched by analyze, score
 * and monitors, listed by `datasets()` and removed by `removeDataset`. Sources are searched asynchronously only
 * (the sync `search` refuses them, as it refuses remote corpora).
 */
import { PASSAGE_KINDS } from '../align/reuse.js';
import type { DatasetDescriptor, DatasetStats, SourceMatch } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';

/** What an evidence source is called and what it samples, as a dataset's descriptor says it. */
export interface EvidenceSourceDescriptor extends Pick<DatasetDescriptor, 'id' | 'name' | 'kb_dataset' | 'models'> {
  /** What kind of source it is, in its own words (1–64 characters, e.g. `'passage-list'`): listed in `datasets()`. */
  readonly kind: string;
}

/**
 * One passage a source holds: its span in the query and in the source's document (UTF-16 offsets), the query words
 * inside it, and — when the source knows — how it was reused (default `'verbatim'`) and how similar the two passages
 * are (0..1, default 1).
 */
export type SourcePassage = Pick<
  SourceMatch,
  'document_id' | 'query_start' | 'query_end' | 'source_start' | 'source_end' | 'tokens'
> &
  Partial<Pick<SourceMatch, 'reuse' | 'similarity'>>;

/**
 * What a source found in one query, with the inputs of its chance: how many places of the query it tested, how
 * many it found, the background rate it measured them against, the independent runs its chance rests on, and the
 * chance itself — the probability of findings at least this strong if the query were unrelated to the source.
 * An honest source measures that null on natural text it does not hold, at every length.
 */
export interface SourceFindings {
  readonly passages: readonly SourcePassage[];
  readonly tested: number;
  readonly found: number;
  readonly background_rate: number;
  readonly runs: number;
  /** In [0, 1]. */
  readonly chance: number;
}

/**
 * A kind of evidence of the caller's (see the module comment).
 * @example
 * const quotes: EvidenceSource = {
 *   descriptor: { id: 'press-quotes', kind: 'passage-list', models: ['example/model-1'] },
 *   stats: () => ({ documents: 1, tokens: 120 }),
 *   search: (query) => findQuotes(query), // { passages, tested, found, background_rate, runs, chance }
 * }
 * engine.addEvidenceSource(quotes)
 */
export interface EvidenceSource {
  readonly descriptor: EvidenceSourceDescriptor;
  /** Its size as `datasets()` lists it. */
  stats(): { readonly documents: number; readonly tokens: number; readonly bytes?: number };
  /** What it holds of `query`. `signal` aborts when the caller gives up. */
  search(query: string, options: { readonly signal?: AbortSignal }): SourceFindings | Promise<SourceFindings>;
}

/** A source's findings as checked, with its passages as matches of the search. */
export interface SourceSearch extends Omit<SourceFindings, 'passages'> {
  readonly matches: SourceMatch[];
}

/** INVALID_OPTIONS unless `source` has the shape of an {@link EvidenceSource}. */
export function checkEvidenceSource(source: EvidenceSource): void {
  const bad = (what: string): never => {
    throw new TrainprintError('INVALID_OPTIONS', `evidence source: ${what}`);
  };
  if (source === null || typeof source !== 'object') bad('must be an object');
  const d = source.descriptor;
  if (d === null || typeof d !== 'object') bad('descriptor must be an object');
  if (typeof d.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(d.id))
    bad('descriptor.id must be 1–128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit');
  if (typeof d.kind !== 'string' || d.kind.length === 0 || d.kind.length > 64)
    bad('descriptor.kind must be a string of 1–64 characters');
  if (typeof source.search !== 'function' || typeof source.stats !== 'function')
    bad('search and stats must be functions');
}

/** The dataset stats of a source, from the sizes it reports (0 where it reports none that is valid). */
export function sourceStats(source: EvidenceSource): DatasetStats {
  const d = source.descriptor;
  const s = source.stats();
  const count = (x: unknown) => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : 0);
  return {
    id: d.id,
    name: d.name,
    kind: 'source',
    documents: count(s?.documents),
    tokens: count(s?.tokens),
    fingerprints: 0,
    bytes: count(s?.bytes),
    index_bytes: 0,
    params: `source:${d.kind}`,
    kb_dataset: d.kb_dataset ?? null,
    models: d.models ?? [],
    source: { kind: d.kind },
  };
}

/**
 * Search `source` for `query` and check its answer: spans inside the query and in order, counts that add up, a
 * chance in [0, 1]. A source that answers anything else is INVALID_INPUT naming it (its author's bug, not the
 * caller's), so no number of a result rests on an answer that cannot be read.
 */
export async function searchSource(
  source: EvidenceSource,
  query: string,
  signal: AbortSignal | undefined,
): Promise<SourceSearch> {
  const id = source.descriptor.id;
  const f = await source.search(query, { signal });
  const bad = (what: string): never => {
    throw new TrainprintError('INVALID_INPUT', `evidence source "${id}" gave findings that are not valid: ${what}`);
  };
  if (f === null || typeof f !== 'object' || !Array.isArray(f.passages)) bad('passages must be an array');
  const count = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (!count(f.tested) || !count(f.found) || !count(f.runs) || f.found > f.tested)
    bad('tested, found and runs must be integers ≥ 0, found ≤ tested');
  if (!(f.chance >= 0 && f.chance <= 1)) bad('chance must be a number in [0, 1]');
  if (!(f.background_rate >= 0 && f.background_rate <= 1)) bad('background_rate must be a number in [0, 1]');
  const matches = f.passages.map((p, i): SourceMatch => {
    const inQuery = count(p?.query_start) && count(p.query_end) && p.query_start < p.query_end;
    if (!inQuery || p.query_end > query.length) bad(`passage ${i}: its query span is not inside the query`);
    if (!count(p.source_start) || !count(p.source_end) || p.source_start > p.source_end)
      bad(`passage ${i}: source_start and source_end must be integers, start ≤ end`);
    if (typeof p.document_id !== 'string' || !count(p.tokens)) bad(`passage ${i}: document_id and tokens`);
    if (p.reuse !== undefined && !(PASSAGE_KINDS as readonly string[]).includes(p.reuse))
      bad(`passage ${i}: reuse must be one of ${PASSAGE_KINDS.join(', ')}`);
    const similarity = p.similarity ?? 1;
    if (!(similarity >= 0 && similarity <= 1)) bad(`passage ${i}: similarity must be in [0, 1]`);
    return {
      dataset_id: id,
      document_id: p.document_id,
      query_start: p.query_start,
      query_end: p.query_end,
      source_start: p.source_start,
      source_end: p.source_end,
      kind: 'source',
      tokens: p.tokens,
      score: similarity,
      reuse: p.reuse ?? 'verbatim',
      similarity,
      aligned: false,
    };
  });
  matches.sort((a, b) => b.tokens - a.tokens || a.query_start - b.query_start);
  return {
    matches,
    tested: f.tested,
    found: f.found,
    background_rate: f.background_rate,
    runs: f.runs,
    chance: f.chance,
  };
}
