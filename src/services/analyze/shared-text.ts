/**
 * Shared text: passages of the query that many documents of one dataset contain — licence disclaimers, Project
 * Gutenberg headers and footers, a wiki's navigation text. A match inside such a passage says the query uses a
 * common formula, not that it reuses one particular document, so it is counted once per passage rather than once
 * per document (`potential_matches`), and each match says how many documents share its passage
 * (`shared_documents`). The evidence statistics are not changed by this: they already test hit counts against
 * chance per dataset.
 */
import type { SearchMatch } from '../../datasets/types.js';
import { finish, PAUSE, type Steps } from '../../util/steps.js';
import { matchKind } from '../policy/kinds/index.js';
import type { MatchQuotation } from './quotations.js';

/**
 * A search match of an analysis (`matches` of the result); exact matches say how many documents of their dataset share
 * the passage; a match of text the work quotes says so (`role: 'quotation'`, ./quotations.ts).
 */
export type AnalyzedMatch = SearchMatch & {
  readonly shared_documents?: number;
  readonly role?: 'quotation';
  readonly quotation?: MatchQuotation;
};

/** A query character covered by matches of at least this many documents of one dataset is shared text. */
export const SHARED_MIN_DOCUMENTS = 4;
/** A match is shared text when at least this share of its characters is. */
const SHARED_SHARE = 0.8;

/** Per match (in the order given): the documents sharing its passage (1 = only its own), and whether it is shared. */
export interface SharedText {
  readonly shared_documents: readonly number[];
  readonly shared: readonly boolean[];
  /** Distinct sources of reuse: documents with a match outside shared text, plus one per shared passage. */
  readonly distinct_sources: number;
}

/**
 * Shared-text accounting of search matches (offsets into one query of `length` characters).
 * @example sharedText(found.matches, text.length).distinct_sources // the MIT licence text: 1, not 147
 */
export function sharedText(matches: readonly SearchMatch[], length: number): SharedText {
  return finish(sharedTextSteps(matches, length));
}

/**
 * {@link sharedText} as steps (src/util/steps.ts): it pauses between matches and every CHARS_PER_PAUSE
 * characters of the depth map, linear in the query's length (10 MB: tens of milliseconds).
 */
export function* sharedTextSteps(matches: readonly SearchMatch[], length: number): Steps<SharedText> {
  const sharedDocs = new Array<number>(matches.length).fill(1);
  const shared = new Array<boolean>(matches.length).fill(false);
  const byDataset = new Map<string, number[]>();
  matches.forEach((m, i) => {
    // near matches span whole texts, portrait matches name no document: only an exact dataset's count here
    if (!matchKind(m).sharedDocuments) return;
    const list = byDataset.get(m.dataset_id) ?? [];
    list.push(i);
    byDataset.set(m.dataset_id, list);
  });
  const sharedRegions: Array<[string, number, number]> = [];
  for (const [datasetId, idx] of byDataset) {
    const docs = new Set(idx.map((i) => matches[i].document_id));
    if (docs.size < SHARED_MIN_DOCUMENTS) continue;
    const depth = yield* documentDepth(
      idx.map((i) => matches[i]),
      length,
    );
    for (const i of idx) {
      yield PAUSE;
      const m = matches[i];
      let inShared = 0,
        most = 0;
      for (let c = m.query_start; c < m.query_end; c++) {
        if (depth[c] >= SHARED_MIN_DOCUMENTS) inShared++;
        if (depth[c] > most) most = depth[c];
      }
      sharedDocs[i] = Math.max(1, most);
      shared[i] = m.query_end > m.query_start && inShared >= SHARED_SHARE * (m.query_end - m.query_start);
      if (shared[i]) sharedRegions.push([datasetId, m.query_start, m.query_end]);
    }
  }
  // a near-duplicate of a document whose every exact match is shared text is one more copy of that text
  const ownText = new Set<string>(),
    anyExact = new Set<string>();
  matches.forEach((m, i) => {
    if (!matchKind(m).sharedDocuments) return;
    anyExact.add(`${m.dataset_id}\u0000${m.document_id}`);
    if (!shared[i]) ownText.add(`${m.dataset_id}\u0000${m.document_id}`);
  });
  matches.forEach((m, i) => {
    const doc = `${m.dataset_id}\u0000${m.document_id}`;
    if (!matchKind(m).passage && anyExact.has(doc) && !ownText.has(doc)) shared[i] = true;
  });
  const sources = new Set<string>();
  matches.forEach((m, i) => {
    if (!shared[i]) sources.add(`${m.dataset_id}\u0000${m.document_id ?? ''}`);
  });
  return { shared_documents: sharedDocs, shared, distinct_sources: sources.size + mergedCount(sharedRegions) };
}

/** Characters of the depth map's running sum between two pauses (about a millisecond). */
const CHARS_PER_PAUSE = 1 << 20;

/** For every query character, how many distinct documents have a match covering it. */
function* documentDepth(matches: readonly SearchMatch[], length: number): Steps<Int32Array> {
  const diff = new Int32Array(length + 1);
  const byDoc = new Map<string, Array<[number, number]>>();
  for (const m of matches) {
    const spans = byDoc.get(m.document_id ?? '') ?? [];
    spans.push([m.query_start, m.query_end]);
    byDoc.set(m.document_id ?? '', spans);
  }
  // each document counts once per character: merge its spans first
  for (const spans of byDoc.values()) {
    spans.sort((a, b) => a[0] - b[0]);
    let [s, e] = spans[0];
    for (const [a, b] of spans.slice(1)) {
      if (a <= e) e = Math.max(e, b);
      else {
        diff[s]++;
        diff[e]--;
        [s, e] = [a, b];
      }
    }
    diff[s]++;
    diff[e]--;
  }
  for (let from = 1; from <= length; from += CHARS_PER_PAUSE) {
    yield PAUSE;
    const to = Math.min(length, from + CHARS_PER_PAUSE - 1);
    for (let c = from; c <= to; c++) diff[c] += diff[c - 1];
  }
  return diff;
}

/** Number of passages after merging overlapping shared spans of the same dataset. */
function mergedCount(regions: Array<[string, number, number]>): number {
  regions.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  let n = 0,
    dataset = '',
    end = -1;
  for (const [d, s, e] of regions) {
    if (d !== dataset || s >= end) {
      n++;
      dataset = d;
      end = e;
    } else end = Math.max(end, e);
  }
  return n;
}
