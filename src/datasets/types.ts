/**
 * Types shared by every dataset kind (exact: src/datasets/exact.ts, portrait: src/datasets/portrait.ts)
 * and by `Engine.search`.
 */
import type { PassageKind } from '../align/reuse.js';
import type { PortraitBackground } from './background.js';

/** What a dataset is: its id, its kind and the knowledge-base facts attached to it. */
export interface DatasetDescriptor {
  /** Stable id, 1–200 characters. */
  readonly id: string;
  readonly name?: string;
  /**
   * `'exact'`: winnowed fingerprints with postings (document and span of every match).
   * `'portrait'`: a compact membership filter of the winnowed fingerprints, ≈ 1.2 bytes per
   * stored n-gram and no positions: says *that* a passage is in the corpus, not where.
   * @default 'exact'
   */
  readonly kind?: 'exact' | 'portrait';
  /**
   * Portrait only: winnowing window over word 5-grams (1..64). Any shared run of
   * ≥ window + 4 words leaves at least one shared fingerprint; the index takes ≈ 1.2 B ×
   * 2 / (window + 1) per word. 8 (default) = the 12-word guarantee, ≈ 4–5 % of corpus bytes;
   * 12 = the 16-word guarantee, ≈ 3 %. A *reported* match needs more words than the guarantee: a run of
   * hits long enough to beat the portrait's measured background (src/datasets/portrait.ts) — with the
   * Gutenberg pack a 40-word quotation in 400 words 91 % of the time; `window: 3` (≈ 10.6 % of corpus
   * bytes) reports shorter overlaps.
   * @default 8
   */
  readonly window?: number;
  /**
   * Portrait only: how unrelated natural text hits it, measured on a background corpus kept out of it
   * (`engine.measureBackground`; the reference packs ship theirs). Its runs of hits are read against this null;
   * without it, against `DEFAULT_PORTRAIT_BACKGROUND` (limitation `portrait_background_not_measured`).
   */
  readonly background?: PortraitBackground;
  /**
   * Portrait only: also keep a locator (src/datasets/locator.ts, ≈ 0.57 bytes per stored n-gram), so that every
   * match names the document and the 4,096-word section its hits agree on. The reference packs locate.
   * @default false
   */
  readonly locate?: boolean;
  /**
   * Portrait that locates only: which n-grams its locator stores as common, no one document's evidence
   * (src/datasets/common.ts) — held by at least `min_holders` (default 3) documents (articles, in a document cut
   * into articles), or with `by: 'author'` distinct authors (`meta.author`; a book corpus, where editions and
   * collected works of one text count once). Read when the locator is built; the table keeps its minimum.
   * @example { kind: 'portrait', id: 'books', locate: true, common: { min_holders: 3, by: 'author' } }
   */
  readonly common?: { readonly min_holders?: number; readonly by?: 'document' | 'author' };
  /** Models documented to have trained on this dataset (`provider/model`). */
  readonly models?: readonly string[];
  /** Id of the dataset in the knowledge base. */
  readonly kb_dataset?: string;
  /**
   * Exact only: keep each document's text, so that `search` can align a query with the documents
   * it shares words with (spans of edited and reworded reuse, not only of exact runs). The text
   * costs its own size again (UTF-8 on disk; in memory 1 byte per character for Latin-1 text,
   * 2 otherwise); `false` keeps only fingerprints and reports seed matches.
   * @default true
   */
  readonly keep_text?: boolean;
  readonly meta?: unknown;
}

/** One reference document. */
export interface DatasetDocument {
  readonly id: string;
  readonly text: string;
  readonly meta?: unknown;
  /**
   * Where the document's parts begin (UTF-16 offsets into `text`, ascending, the first 0): the articles of a file
   * that holds many. A portrait that locates cuts its sections there, so that a match names the part (its title
   * from `meta.articles`, src/datasets/articles.ts) and the words in it. Other datasets ignore it.
   */
  readonly parts?: readonly number[];
}

/** Size and content of a dataset (`engine.datasets()`). */
export interface DatasetStats {
  readonly id: string;
  readonly name: string | undefined;
  /**
   * `'remote'`: a corpus searched through an engine's API (`addRemoteDataset`); its sizes are the index's published
   * ones. `'source'`: an evidence source of the caller's (`addEvidenceSource`); its sizes are the ones it reports.
   */
  readonly kind: 'exact' | 'portrait' | 'remote' | 'source';
  readonly documents: number;
  /** Word tokens over all documents. */
  readonly tokens: number;
  /** Exact: winnowed fingerprints stored (postings). Portrait: distinct winnowed n-grams stored in the filter. */
  readonly fingerprints: number;
  /** UTF-8 bytes of the documents indexed. */
  readonly bytes: number;
  /**
   * Bytes the index itself takes. Exact: 20 per fingerprint (its key and posting), the prefix table
   * (0.5–1 byte per fingerprint), the 512-byte MinHash signature and the 256-byte LSH entries of every
   * document, and the spare capacity of what grows while documents are added (compacted by the next
   * search); within a few per cent of what the process holds for the index. Portrait: filter bits.
   */
  readonly index_bytes: number;
  readonly params: string;
  /** The declared knowledge-base dataset this dataset samples (`null` when none). */
  readonly kb_dataset: string | null;
  /** The declared models trained on it (empty when none). */
  readonly models: readonly string[];
  /**
   * Exact only: UTF-8 bytes of the document texts kept for alignment (0 when the dataset keeps
   * none; see `keep_text`).
   */
  readonly text_bytes?: number;
  /** Portrait only: the winnowing window. */
  readonly window?: number;
  /**
   * Where the index lives when not in the engine's memory: `'postgres'` for an exact dataset kept in
   * PostgreSQL (`createPostgresDataset`); absent otherwise.
   */
  readonly storage?: 'postgres';
  /**
   * Remote only: the engine, its endpoint and the index searched (`addRemoteDataset`); `declared` is false when the
   * dataset's `kb_dataset` comes from the knowledge base's table of public indexes, true when the caller gave it.
   */
  readonly remote?: {
    readonly engine: 'infini-gram' | 'infini-gram-mini';
    readonly endpoint: string;
    readonly index: string;
    readonly declared: boolean;
  };
  /** Evidence sources only: what kind of source it is, in its own words (`EvidenceSource.kind`). */
  readonly source?: { readonly kind: string };
  /** Portrait only: designed false-positive rate of one lookup against all of the dataset's filters. */
  readonly fpr?: number;
  /** Portrait only: number of filters in the chain (1 unless the dataset grew after a seal). */
  readonly filters?: number;
}

/** Where a passage lies: the dataset and document it is in, its span in the query and its span in that document. */
export interface DocumentSpans {
  readonly dataset_id: string;
  readonly document_id: string;
  /** Span in the query (UTF-16 offsets into the caller's string). */
  readonly query_start: number;
  readonly query_end: number;
  /** Span in the source document (UTF-16 offsets into the document's text as indexed). */
  readonly source_start: number;
  readonly source_end: number;
}

/** The fields of {@link DocumentSpans}, in the order the results and the scan's hit lines give them. */
export const DOCUMENT_SPAN_FIELDS = [
  'dataset_id',
  'document_id',
  'query_start',
  'query_end',
  'source_start',
  'source_end',
] as const satisfies readonly (keyof DocumentSpans)[];

/** The fields every match that points into a source document carries. */
interface DocumentMatchFields extends DocumentSpans {
  /** Query word tokens inside the match. */
  readonly tokens: number;
}

/** How a passage was reused: word for word, with word edits, reworded, or condensed (see {@link PassageKind}). */
export type ReuseKind = PassageKind;

/** A reused passage found in an exact dataset: spans in the query and in the source document. */
export interface ExactMatch extends DocumentMatchFields {
  readonly kind: 'exact';
  /**
   * Aligned passages (`aligned: true`): the alignment's similarity (tf-idf cosine of the two
   * passages, 1 for a word-for-word copy). Seed matches: density of the evidence, 0..1 — winnowed
   * source fingerprints found in the passage divided by the number expected for a verbatim copy
   * of that length (2 / (window + 1) per shingle).
   */
  readonly score: number;
  /**
   * Aligned passages: `'verbatim'` when ≥ 95 % of the passage's query words lie in word runs
   * (≥ 3 words) shared with the source passage, `'edited'` when ≥ 50 %, `'paraphrase'` below
   * (reworded, reordered, translated and back); `'summary'` when the aligner's summary mode found it
   * (the query passage condenses a source passage at least twice as long). Seed matches: `'verbatim'`
   * when `score` ≥ 0.9, else `'edited'`.
   */
  readonly reuse: ReuseKind;
  /**
   * Aligned passages: the share of the passage's query words in word runs (≥ 3 words) shared with
   * the source passage, 0..1. Seed matches: `score`.
   */
  readonly similarity: number;
  /**
   * True when the spans come from aligning the query with the document's text (the compare
   * algorithm); false for a chain of exact seed hits (a document beyond the alignment's
   * candidates, or a dataset that keeps no text).
   */
  readonly aligned: boolean;
}

/**
 * A passage of the query whose n-grams are in a portrait dataset. Portraits keep no positions,
 * so there is no document and no source span.
 */
/** The document a portrait match names: what its pack says about it. */
export interface PortraitDocument {
  /** The document's id in the pack (a manifest id such as `pg2701`). */
  readonly id: string;
  readonly title?: string;
  readonly author?: string;
  /** Project Gutenberg ebook number. */
  readonly ebook?: number;
  /** Where the text can be read. */
  readonly url?: string;
}

/** The article a portrait match names inside a document that holds many (see {@link PortraitMatch.article}). */
export interface PortraitArticle {
  readonly title: string;
  /** Where the article can be read (for Wikipedia: https://en.wikipedia.org/wiki?curid=<page id>). */
  readonly url?: string;
  /** Its key in the source: the Wikipedia page id. */
  readonly key: string;
  /** Word offsets [start, end) in the article of the section(s) holding the text. */
  readonly words: readonly [number, number];
}

/** Another document of a pack that holds the text a portrait match names (see {@link PortraitMatch.also_in}). */
export interface PortraitAlsoIn {
  readonly document_id: string;
  readonly document: PortraitDocument;
  /** Word offsets [start, end) of its sections holding the text. */
  readonly source_words: readonly [number, number];
  /**
   * Share of the named section's n-grams this document also holds (0..1): at least 0.2, and beyond the share the
   * pack's null gives by chance (its language's common n-grams: up to 0.39 for Japanese under `pack:aozora`).
   */
  readonly shared: number;
}

export interface PortraitMatch {
  readonly dataset_id: string;
  /**
   * The document the run's hits agree on, when the portrait locates (the reference packs do; src/datasets/locator.ts);
   * null for a portrait without a locator.
   */
  readonly document_id: string | null;
  /** What the pack says about that document. */
  readonly document?: PortraitDocument;
  /**
   * Word offsets [start, end) in the document of the section(s) the hits were first stored from: where to look
   * (sections of 4,096 words).
   */
  readonly source_words?: readonly [number, number];
  /**
   * Other documents of the pack that hold the text of the section(s) named (another edition, a collection and one of
   * its parts), best first: a portrait cannot tell identical text apart, so it names every document holding it.
   * Absent when none does.
   */
  readonly also_in?: readonly PortraitAlsoIn[];
  /**
   * The article of the document the hits agree on, for a document that holds many (the Wikipedia packs' extractor
   * files): its title, URL and key, and the word offsets [start, end) in the article of the section(s) holding the
   * text. Absent for documents that are one work each.
   */
  readonly article?: PortraitArticle;
  /** Hits of the run that agree with the document. */
  readonly agreeing?: number;
  /** Query fingerprints the run spans (agreeing hits, other hits and misses). */
  readonly fingerprints?: number;
  /**
   * Hits of the span whose n-gram many documents of the pack hold (at least 3 articles, or documents:
   * src/datasets/common.ts): they are no one document's evidence and neither agree with nor extend the chain. Absent
   * when there are none (and for packs built without the common n-grams).
   */
  readonly common_hits?: number;
  /**
   * The most documents (articles) of the pack holding one n-gram of the span (capped at 255): where it is high the
   * span holds text the pack has in many places (a formula, a widely reproduced passage). Absent with `common_hits`.
   */
  readonly held_by?: number;
  /** Span in the query covered by the run of hits (UTF-16 offsets into the caller's string). */
  readonly query_start: number;
  readonly query_end: number;
  readonly source_start: null;
  readonly source_end: null;
  readonly kind: 'portrait';
  /** Query word tokens inside the span (first hit's shingle to last hit's shingle). */
  readonly tokens: number;
  /**
   * 1 − the chance of this run alone: 1 − min(1, m · π(r)) for a run of r distinct consecutive hits among the
   * query's m winnowed fingerprints, π(r) = a · c₁ · cₜ^(r−2) under the portrait's measured background
   * (src/datasets/background.ts). The runs are reported together, when the chance of all the runs the evidence
   * rests on is ≤ `alpha` (default 1e-4): a copy with word edits shows many short runs, each weak alone.
   */
  readonly score: number;
}

/**
 * One run of consecutive query fingerprints found in a portrait, reportable or not (search
 * option `portraitHits`). Unrelated text hits a portrait too — the filter's false positives and the
 * common phrases of the language — so any run may be chance, with probability at most `chance`
 * under the portrait's measured background. Winnowing puts at least one fingerprint of every shared
 * run of ≥ window + 4 words in both texts, so every such overlap shows up here, as a run of ≥ 1 —
 * but only the runs the portrait's evidence rests on become matches.
 */
export interface PortraitHit {
  readonly dataset_id: string;
  /** Span in the query covered by the run (UTF-16 offsets into the caller's string). */
  readonly query_start: number;
  readonly query_end: number;
  /** Distinct fingerprints in the run. */
  readonly fingerprints: number;
  /** Query word tokens inside the span. */
  readonly tokens: number;
  /** min(1, m · π(r)): the chance of a run this long anywhere among the query's m fingerprints (see `score`). */
  readonly chance: number;
}

/**
 * A near-duplicate document found in an exact dataset (MinHash-LSH over word 5-gram shingle
 * sets, src/datasets/exact.ts): the whole query resembles the whole document. Reported in addition
 * to the exact passage matches, when the estimated Jaccard similarity is ≥ `near`.
 */
export interface NearMatch extends DocumentMatchFields {
  /** Always the whole query (0 and its length) and the whole document (0 and its length): the spans. */
  readonly kind: 'near';
  /**
   * Estimated Jaccard similarity of the query's and the document's sets of word 5-grams: the
   * share of equal positions of their one-permutation MinHash signatures (k = 128, standard
   * error ≈ sqrt(J(1 − J)/128), ≈ 0.04 at J = 0.5–0.7).
   */
  readonly score: number;
}

/**
 * A reused passage found in a remote corpus (an infini-gram or infini-gram mini index): the query span, the
 * document as the engine names it, and the span in the window of the document text the engine returned,
 * where the passage was aligned with the query (the compare algorithm). `count` says how often the span
 * that led to the document occurs in the corpus.
 */
export interface RemoteMatch extends DocumentMatchFields {
  readonly kind: 'remote';
  /** The engine's document number, as a string (`doc_ix`). */
  readonly document_id: string;
  /** Alignment similarity (tf-idf cosine of the two passages; 1 for a word-for-word copy). */
  readonly score: number;
  /** As {@link ExactMatch.reuse}: remote passages are reported only when verbatim or edited. */
  readonly reuse: ReuseKind;
  /** Share of the passage's query words in word runs (≥ 3 words) shared with the source passage. */
  readonly similarity: number;
  /** Always true: the spans come from aligning the query with the returned document text. */
  readonly aligned: true;
  /** The engine's document number and the shard it lies in. */
  readonly doc_ix: number;
  readonly shard: number;
  /** Length of the whole document: tokens (infini-gram) or bytes (infini-gram mini). */
  readonly doc_length: number;
  /**
   * The source passage with up to 200 characters of the document around it, as the engine returned it:
   * `source_start`/`source_end` are offsets into this excerpt (an engine sends a window of the document, not the
   * whole of it), so `source_text.slice(source_start, source_end)` is the source span.
   */
  readonly source_text: string;
  /** The span of the query whose occurrences led to the document: `count` is its corpus count. */
  readonly count_start: number;
  readonly count_end: number;
  /** How often that span occurs in the corpus (a number beyond 2^53 is rounded by JSON). */
  readonly count: number;
  /**
   * True when the span occurs so often (≥ the dataset's `boilerplate_count`) that it is text many documents
   * share (licences, navigation, quotations everyone repeats): reported, but left out of the evidence.
   */
  readonly boilerplate: boolean;
  /** The document's metadata as the index holds it (e.g. the Pile's `{ meta: { pile_set_name } }`); null without. */
  readonly metadata: Record<string, unknown> | null;
}

/**
 * A passage found by an evidence source of the caller's (`addEvidenceSource`): the query span and the span in the
 * source's document, as the source reported them (checked to lie inside the query).
 */
export interface SourceMatch extends DocumentMatchFields {
  readonly kind: 'source';
  /** The source's similarity of the two passages, 0..1 (1 when it gave none: a word-for-word find). */
  readonly score: number;
  /** As {@link ExactMatch.reuse}: `'verbatim'` when the source gave none. */
  readonly reuse: ReuseKind;
  /** As {@link ExactMatch.similarity}: `score`. */
  readonly similarity: number;
  /** Whether the source aligned the two texts (its own word). */
  readonly aligned: boolean;
}

/** One reused passage (or, `kind: 'near'`, one near-duplicate document) found by `search`. */
export type SearchMatch = ExactMatch | PortraitMatch | NearMatch | RemoteMatch | SourceMatch;

export interface DocInfo {
  readonly id: string;
  readonly chars: number;
  readonly tokens: number;
  readonly bytes: number;
  readonly meta?: unknown;
}

/** What `Corpus.declareDataset` sets: a knowledge-base dataset and/or models; `null` removes one. */
export type DatasetDeclaration = { readonly kb_dataset?: string | null; readonly models?: readonly string[] | null };
