/**
 * Per-section coverage of a file's analysis (`sections` of the result): for each section of the extracted text
 * (`extraction.sections`), its words and, per searched dataset, the share of its characters inside that dataset's
 * matches. A pure function of what the result and the analysed text hold, so anyone with both can recompute it.
 */
import { countWords } from '../../formats/result.js';
import type { DocumentSection } from '../../formats/types.js';
import { type RemoteOutcome, unmeasured } from '../../corpus/remote-types.js';
import { round4 } from '../../util/round.js';

/**
 * One section of a file's extracted text (`extraction.sections`) and how much of it each searched dataset holds
 * ({@link sectionCoverage}).
 */
export interface SectionCoverage {
  readonly title: string;
  readonly start: number;
  readonly end: number;
  /** Whitespace-separated words of the section's text. */
  readonly words: number;
  /**
   * Per searched dataset id: the share of the section's characters inside that dataset's matches (the union of their
   * query spans), 0..1 rounded to 4 decimals, 0 without matches; for a remote corpus searched by sampling, the
   * section's found / passages — absent where a search cut short asked none of its passages (unknown, not 0).
   */
  readonly coverage: Record<string, number>;
}

/** A match as the coverage reads it: its dataset and its span in the extracted text (`matches[]`). */
export interface CoveredSpan {
  readonly dataset_id: string;
  readonly query_start: number;
  readonly query_end: number;
}

/** One section's part of a sampled search: `found` of the `passages` drawn from section `section` (0-based). */
export interface SectionSample {
  readonly section: number;
  readonly passages: number;
  readonly found: number;
}

/**
 * A remote corpus as the coverage reads it (`remote_corpora[]`): searched by sampling when `sampling` is present, and
 * cut short when its outcome is not `searched` with drawn passages left unasked (`skipped`).
 */
export interface SampledCorpus {
  readonly dataset_id: string;
  readonly outcome?: RemoteOutcome;
  readonly sampling?: { readonly sections?: readonly SectionSample[]; readonly skipped?: number };
}

/** The extracted text and its sections (`extraction.sections`, covering the text in order). */
export interface SectionedText {
  readonly text: string;
  readonly sections: readonly DocumentSection[];
}

/**
 * The datasets an analysis searched, each once, in the result's order: `evidence.datasets` then `remote_corpora`,
 * less the remote corpora that answered nothing (`unmeasured`: no coverage of 0 for a corpus that could not be
 * searched).
 *
 * @example
 * searchedDatasetIds([{ dataset_id: 'books' }], [{ dataset_id: 'pile' }]) // ['books', 'pile']
 * searchedDatasetIds([{ dataset_id: 'books' }], [{ dataset_id: 'pile', outcome: 'unreachable', samples: 0 }]) // ['books']
 */
export function searchedDatasetIds(
  evidence: ReadonlyArray<{ readonly dataset_id: string }>,
  remote: ReadonlyArray<{
    readonly dataset_id: string;
    readonly outcome?: RemoteOutcome;
    readonly samples?: number;
  }> = [],
): string[] {
  const searched = remote.filter((r) => !unmeasured(r));
  return [...new Set([...evidence, ...searched].map((d) => d.dataset_id))];
}

/**
 * Each section of `document` with its whitespace-separated words and, for every id of `datasetIds`, its coverage:
 * the share of the section's characters (UTF-16 units of `text.slice(start, end)`) inside the union of that
 * dataset's match spans (overlapping matches count once; a match crossing a section boundary counts in each section
 * for its part there), rounded to 4 decimals; 0 for a dataset without matches and for an empty section. A remote
 * corpus of `remote` with `sampling.sections` was searched by sampling, not passage by passage: its coverage is the
 * section's `found / passages` (0 where no passage was drawn from it), the section's estimate rather than a span
 * count. A sampled search cut short (its outcome not `searched`, passages it drew left unasked) gives no coverage
 * for a section where it asked no passage: that dataset is absent from the section's coverage — unknown, not a clean
 * 0 (the section's passages may all be among those unasked). Matches of datasets not in `datasetIds` are ignored.
 *
 * To recompute a result's `sections`: `document` = `{ text, sections: result.extraction.sections }` (the analysed
 * text, kept with the stored analysis), `matches` = `result.matches`, `datasetIds` =
 * {@link searchedDatasetIds}`(result.evidence.datasets, result.remote_corpora)`, `remote` = `result.remote_corpora`.
 *
 * @example
 * sectionCoverage(
 *   { text: 'one two three four', sections: [{ title: 'A', start: 0, end: 8 }, { title: 'B', start: 8, end: 18 }] },
 *   [{ dataset_id: 'books', query_start: 4, query_end: 13 }],
 *   ['books', 'web'],
 * )
 * // [{ title: 'A', start: 0, end: 8, words: 2, coverage: { books: 0.5, web: 0 } },
 * //  { title: 'B', start: 8, end: 18, words: 2, coverage: { books: 0.5, web: 0 } }]
 */
export function sectionCoverage(
  document: SectionedText,
  matches: readonly CoveredSpan[],
  datasetIds: readonly string[],
  remote: readonly SampledCorpus[] = [],
): SectionCoverage[] {
  const spans = new Map<string, Array<[number, number]>>(datasetIds.map((id) => [id, []]));
  for (const m of matches) if (m.query_end > m.query_start) spans.get(m.dataset_id)?.push([m.query_start, m.query_end]);
  const merged = new Map([...spans].map(([id, s]) => [id, union(s)]));
  const sampled = new Map<string, SampledCorpus>();
  for (const r of remote) if (r.sampling?.sections && merged.has(r.dataset_id)) sampled.set(r.dataset_id, r);
  return document.sections.map((s, i) => {
    const coverage: Record<string, number> = {};
    for (const id of datasetIds) {
      const r = sampled.get(id);
      const share = r ? sampleShare(r, i) : covered(merged.get(id)!, s.start, s.end);
      if (share !== null) coverage[id] = share;
    }
    return {
      title: s.title,
      start: s.start,
      end: s.end,
      words: countWords(document.text.slice(s.start, s.end)),
      coverage,
    };
  });
}

/** Disjoint spans, sorted, covering what `spans` cover. */
function union(spans: Array<[number, number]>): Array<[number, number]> {
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** The share of `[start, end)` that the disjoint sorted `spans` cover, rounded to 4 decimals (0 for an empty range). */
function covered(spans: ReadonlyArray<readonly [number, number]>, start: number, end: number): number {
  if (end <= start) return 0;
  // the first span ending after `start` (binary search: a book has thousands of matches and hundreds of sections)
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid][1] <= start) lo = mid + 1;
    else hi = mid;
  }
  let inside = 0;
  for (let i = lo; i < spans.length && spans[i][0] < end; i++)
    inside += Math.min(end, spans[i][1]) - Math.max(start, spans[i][0]);
  return round4(inside / (end - start));
}

/**
 * Section `i`'s found / passages of a sampled search, rounded to 4 decimals; 0 where none was drawn from it, and
 * null (unknown) where none was asked by a search cut short with passages unasked.
 */
function sampleShare(r: SampledCorpus, i: number): number | null {
  const s = r.sampling!.sections!.find((x) => x.section === i);
  if (s && s.passages > 0) return round4(s.found / s.passages);
  return r.outcome !== undefined && r.outcome !== 'searched' && (r.sampling!.skipped ?? 0) > 0 ? null : 0;
}
