/**
 * Remote corpora (infini-gram indexes, src/remote/search.ts): the chain statistic over what the engine's counts
 * give. The places tested are the sampled places of the query (a suffix-match length every few tokens, or a found
 * tile of words); a hit is a corpus match of ≥ 12 tokens ending there (or a tile found), q the hit rate of the
 * samples outside every passage — measured on the query against this corpus, so a web-scale corpus, where more of
 * any text occurs by chance, gives a higher q and weaker evidence for the same passage. Each aligned passage's
 * samples are its chain; its content-word pairs count against the background of the document window it was
 * aligned in. Passages whose span occurs ≥ `boilerplate_count` times in the corpus are left out, samples and all:
 * text that many documents share says nothing about this one. A corpus is searched once for a whole work; a score
 * reads that search chunk by chunk (`range`).
 */
import {
  FULL_COVERAGE_STRIDE,
  type RemoteCorpusReport,
  type RemoteOutcome,
  type RemoteSearch,
} from '../../../corpus/remote-types.js';
export { unmeasured } from '../../../corpus/remote-types.js';
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { RemoteMatch } from '../../../datasets/types.js';
import { componentOf } from '../../kb/corpus-components.js';
import type { FactorCode } from '../../kb/factors.js';
import { chainChance, type KindChance, withAligned } from './chance.js';
import { ALIGNED_EDGE_SLACK, type EvidenceKind, type MatchKind, reuseFactors, runFactors } from './kind.js';

type RemoteDetail = Extract<DatasetSearchDetail, { kind: 'remote' }>;

export const REMOTE: EvidenceKind<RemoteDetail> = {
  fit: 'exact', // the exact statistic over the engine's counts: bench/remote-corpus.mjs measures the fit on remote cases
  positions: true,
  wholeText: true,
  synchronous: false,
  chance: (detail, range) => remoteChance(detail.search, range),
  // a remote corpus's boilerplate passages are shown, not evidence: said whether or not anything else counts
  always: (_, f) => (f.checkable.length < f.own.length ? { factors: ['remote_boilerplate'] } : {}),
  counted: (_, f) => ({
    factors: [
      ...reuseFactors(f.passages),
      ...(f.passages.length > 0 ? (['remote_corpus_match'] as const) : []),
      ...runFactors(f),
    ],
  }),
  flaggedChunk: [],
  flaggedDataset: ['remote_corpus_match'],
  // a remote corpus's passages are its matches (RemoteMatch): the engine's metadata of their documents
  components: (_, passages) => passages.map((m) => (m as RemoteMatch).metadata),
  // passages in documents whose corpus component the model documents removing (the Pile's Books3 for "The Pile
  // (without Books3)") are left out; the others are kept, and the component link is noted
  forModel: (detail, kb, kbDataset, model, factors) => {
    if (kbDataset === null) return detail;
    const { search } = detail;
    const dropped = search.matches.filter((m) => {
      const c = componentOf(kbDataset, m.metadata, kb);
      if (!c?.kb_dataset) return false;
      const linked = kb.modelsTrainedOn(c.kb_dataset, { modality: 'any' }).some((l) => l.model.id === model.id);
      if (linked) factors.add('remote_corpus_component');
      return !linked;
    });
    if (dropped.length === 0) return detail;
    const out = (p: { query_start: number; query_end: number }) =>
      dropped.some((m) => m.query_start === p.query_start && m.query_end === p.query_end);
    return {
      ...detail,
      search: {
        ...search,
        matches: search.matches.filter((m) => !dropped.includes(m)),
        passages: search.passages.filter((p) => !out(p)),
      },
    };
  },
};

export const REMOTE_MATCH: MatchKind<RemoteMatch> = {
  headlineWords: (m) => m.tokens,
  edgeSlack: ALIGNED_EDGE_SLACK,
  passage: true,
  sharedDocuments: false,
  run: (m) => (m.reuse === 'verbatim' ? m.tokens : 0),
  describe: (m, where) => `a passage of ${m.tokens} words (${where}) is in corpus document ${m.document_id}`,
  document: () => null,
  reprinted: () => false,
};

/**
 * A remote corpus's chance (src/remote/search.ts gives the counts), in the form of an exact dataset's: its samples
 * are the places tested, each evidence passage's samples a chain of hits, and its aligned passages' content-word
 * pairs are counted against their document window's background. With `range` (a UTF-16 span of the query), only
 * the samples inside it and the passages that overlap it: a chunk's part of a search of the whole work (score).
 */
export function remoteChance(s: RemoteSearch, range?: readonly [number, number]): KindChance {
  const [from, to] = range ?? [0, Infinity];
  const keep: number[] = [];
  for (let i = 0; i < s.samples.at.length; i++) if (s.samples.at[i] > from && s.samples.at[i] <= to) keep.push(i);
  const hitAt = Uint8Array.from(keep, (i) => s.samples.hit[i]);
  const at = keep.map((i) => s.samples.at[i]);
  const passages = s.passages.filter((p) => p.query_start < to && from < p.query_end);
  const chains = passages
    .map((p) => {
      let first = -1,
        shingles = 0,
        hits = 0;
      at.forEach((x, k) => {
        if (x <= p.query_start || x > p.query_end) return;
        if (first < 0) first = k;
        shingles++;
        hits += hitAt[k];
      });
      return { first: Math.max(0, first), shingles, hits };
    })
    .filter((c) => c.shingles > 0);
  let hits = 0;
  for (const h of hitAt) hits += h;
  const seeds = chainChance({ tested: hitAt.length, hits, hitAt, chains });
  return withAligned(seeds, {
    documents: new Set(passages.map((p) => p.window)).size,
    queryPairs: s.queryPairs,
    passages: passages.map((p) => ({ pairs: p.pairs, shared: p.shared, background: p.background })),
  });
}

/**
 * What a remote corpus's search could not do, as limitation codes (analyze and score list them): its outcome when
 * not `searched`, and `remote_corpus_sampled` when it sampled the text more sparsely than full coverage.
 * @example reportLimitations({ outcome: 'rate_limited', sampled_every: 1, unit: 'token', … }) // ['remote_corpus_rate_limited']
 */
export function reportLimitations(r: RemoteCorpusReport): FactorCode[] {
  const out: FactorCode[] = [];
  if (r.outcome !== 'searched') out.push(REMOTE_OUTCOME_CODE[r.outcome]);
  if (r.sampled_every > FULL_COVERAGE_STRIDE[r.unit]) out.push('remote_corpus_sampled');
  return out;
}
const REMOTE_OUTCOME_CODE: Readonly<Record<Exclude<RemoteOutcome, 'searched'>, FactorCode>> = {
  unreachable: 'remote_corpus_unreachable',
  rate_limited: 'remote_corpus_rate_limited',
  budget_exhausted: 'remote_corpus_budget_exhausted',
  deadline_reached: 'remote_corpus_deadline_reached',
  rejected: 'remote_corpus_error',
  invalid_response: 'remote_corpus_error',
  cancelled: 'remote_corpus_cancelled',
};
