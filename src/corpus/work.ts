/**
 * The pure pieces of a search and of `compare`: functions of their inputs alone (no dataset, no
 * store), so a host may run them on another thread ({@link Offload}) while its event loop keeps
 * serving. {@link runWork} is the one implementation, used in-thread and by such a thread alike, so
 * offloaded results are the same values.
 */
import { compareTexts, type CompareOptions, type Comparison } from '../align/compare.js';
import type { Core } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import {
  fingerprintCore,
  shinglesReceived,
  shinglesToSend,
  type Columns,
  type SentShingles,
} from '../fingerprint/fingerprint.js';
import type { ResolvedOptions } from '../fingerprint/options.js';
import type { Fingerprint } from '../types.js';
import {
  extractText,
  fromParts,
  toParts,
  type ContentType,
  type ExtractedParts,
  type ExtractedText,
} from '../text/index.js';
import { coreTokens, pairsOfTokens, type ContentPairs } from './content-pairs.js';
import { pairPostings, type PairPostings } from './content-words.js';

/**
 * One piece of pure work: the fingerprint of a text with resolved options, the content-word pairs of
 * a text (the search's second stage), the content-word index postings of a stretch of a dataset's documents
 * (numbered from `first`), a whole `compare`, or the readable text of HTML or Markdown content with its offset
 * map (as plain data: {@link ExtractedParts}). A fingerprint's per-shingle columns are computed when first read
 * unless `columns` names them; on a worker pool's thread ({@link resultToSend}) only the columns it names come back
 * (every column when it names none), since the others could not be computed where the text's core is not.
 * @example const work: PureWork = { kind: 'compare', a: 'one text', b: 'another text' }
 */
export type PureWork =
  | {
      readonly kind: 'fingerprint';
      readonly text: string;
      readonly options: ResolvedOptions;
      readonly columns?: Columns;
    }
  | { readonly kind: 'pairs'; readonly text: string }
  | { readonly kind: 'pair-postings'; readonly texts: ReadonlyArray<string | null>; readonly first: number }
  | { readonly kind: 'compare'; readonly a: string; readonly b: string; readonly options?: CompareOptions }
  | { readonly kind: 'extract'; readonly content: string; readonly type: ContentType };

/**
 * What each kind of {@link PureWork} gives.
 * @example const c: WorkResult<{ kind: 'compare'; a: string; b: string }> = engine.compare(a, b)
 */
export type WorkResult<W extends PureWork> = W extends { kind: 'fingerprint' }
  ? Omit<Fingerprint, 'work_hash'>
  : W extends { kind: 'pairs' }
    ? ContentPairs
    : W extends { kind: 'pair-postings' }
      ? PairPostings
      : W extends { kind: 'extract' }
        ? ExtractedParts
        : Comparison;

/**
 * Runs pure work somewhere else (`trainprint/node`'s worker pool behind `serve`). It must resolve to
 * exactly what {@link runWork} gives and reject with the `TrainprintError` it would throw — but for a fingerprint's
 * per-shingle columns, of which it may give only those the work's `columns` names (as the pool does: a column that
 * is not there is NOT_SUPPORTED when read, see {@link resultReceived}).
 * @example
 * const offload: Offload = { run: (work) => pool.run(work) }
 * await engine.analyze(request, { offload })
 */
export interface Offload {
  run<W extends PureWork>(work: W): Promise<WorkResult<W>>;
}

/**
 * The most threads any pool may run — `trainprint/node`'s worker and document pools, a dataset build's or a file
 * scan's threads: the one bound of every `threads` option (1..MAX_THREADS).
 */
export const MAX_THREADS = 256;

/**
 * Pure work on texts shorter than this (UTF-16 units in all) runs in the caller's thread even where an
 * {@link Offload} is given: it takes well under a millisecond there, less than a message to another thread
 * and back (a copy of the text each way, two wake-ups). Measured on `serve --workers 2` with 2–6 KB analyses,
 * sending such work to the pool cost the server's processes CPU that the requests themselves needed.
 */
export const OFFLOAD_MIN_UNITS = 1 << 15;

/**
 * Whether `work` is long enough to be worth another thread ({@link OFFLOAD_MIN_UNITS}).
 * @example worthOffloading({ kind: 'pairs', text: 'A short query.' }) // false
 */
export function worthOffloading(work: PureWork): boolean {
  switch (work.kind) {
    case 'fingerprint':
    case 'pairs':
      return work.text.length >= OFFLOAD_MIN_UNITS;
    case 'extract':
      return work.content.length >= OFFLOAD_MIN_UNITS;
    case 'pair-postings':
      return work.texts.reduce((n, t) => n + (t?.length ?? 0), 0) >= OFFLOAD_MIN_UNITS;
    default:
      return work.a.length + work.b.length >= OFFLOAD_MIN_UNITS;
  }
}

/**
 * {@link extractText}, on `offload` when one is given and the markup is long enough to be worth it (10 MB of
 * HTML takes 0.1–0.2 s, Markdown 0.3–0.4 s, one piece of work that does not slice): the same text and offset map.
 * @example (await extractOn(pool, html, 'html')).mapSpan(0, 4)
 */
export async function extractOn(
  offload: Offload | undefined,
  content: string,
  type: ContentType,
): Promise<ExtractedText> {
  const work = { kind: 'extract', content, type } as const;
  if (type === 'text' || !offload || !worthOffloading(work)) return extractText(content, type);
  return fromParts(await offload.run(work));
}

/**
 * A text's content-word pairs from `core`'s tokens (those of `contentPairs`, faster: see {@link runWork}).
 * @example pairsIn(core)('The quick brown fox jumps').hashes.length
 */
export const pairsIn =
  (core: Core) =>
  (text: string): ContentPairs =>
    runWork(core, { kind: 'pairs', text });

/**
 * Do one piece of pure work on `core` (sync).
 * @example runWork(core, { kind: 'pairs', text: 'The quick brown fox' }).hashes.length
 */
export function runWork<W extends PureWork>(core: Core, work: W): WorkResult<W> {
  checkTexts(work);
  switch (work.kind) {
    case 'fingerprint':
      return fingerprintCore(core, work.text, work.options, undefined, work.columns).fp as WorkResult<W>;
    case 'pairs':
      return coreTokens(core)(work.text, (t) => pairsOfTokens(work.text, t)) as WorkResult<W>;
    case 'pair-postings':
      return pairPostings(work.texts, work.first, coreTokens(core)) as WorkResult<W>;
    case 'extract':
      return toParts(extractText(work.content, work.type)) as WorkResult<W>;
    default:
      return compareTexts(core, work.a, work.b, work.options) as WorkResult<W>;
  }
}

/** What a fingerprint's work that names no columns gets from another thread: all of them, in its one pass. */
const EVERY_COLUMN: Columns = { hashes: true, spans: true };

/** The per-shingle columns a pool thread computes and sends for a fingerprint's work. */
const columnsSent = (work: FingerprintWork): Columns => work.columns ?? EVERY_COLUMN;

type FingerprintWork = Extract<PureWork, { kind: 'fingerprint' }>;

/**
 * `work` as a thread of a worker pool runs it: a fingerprint's work with the columns it will send computed in the
 * same pass (those `columns` names; every column when it names none).
 * @example engine.runWork(workToRun(task.work))
 */
export function workToRun<W extends PureWork>(work: W): W {
  return work.kind === 'fingerprint' ? { ...work, columns: columnsSent(work) } : work;
}

/**
 * The result of `work` (run as {@link workToRun} gives it) as it crosses to the thread that asked: a fingerprint with
 * its shingle count and only the per-shingle columns the work asked for — a caller that reads none, as a portrait's
 * search or a work's registration, is sent none (10 MB of English has 27 MB of them) — other results as they are.
 * @example port.postMessage({ id, result: resultToSend(work, engine.runWork(workToRun(work))) })
 */
export function resultToSend<W extends PureWork>(work: W, result: WorkResult<W>): unknown {
  if (work.kind !== 'fingerprint') return result;
  const fp = result as WorkResult<FingerprintWork>;
  return { ...fp, shingles: shinglesToSend(fp.shingles, columnsSent(work)) };
}

/**
 * A result sent by {@link resultToSend}, as the asking thread reads it: a fingerprint's shingle set with the columns
 * sent (reading another is NOT_SUPPORTED, naming it) and its count.
 * @example const fp = resultReceived(work, answer.result)
 */
export function resultReceived<W extends PureWork>(work: W, sent: unknown): WorkResult<W> {
  if (work.kind !== 'fingerprint') return sent as WorkResult<W>;
  const fp = sent as Omit<Fingerprint, 'work_hash' | 'shingles'> & { shingles: SentShingles };
  return { ...fp, shingles: shinglesReceived(fp.shingles) } as WorkResult<W>;
}

/**
 * The texts of content-word work must be strings (null: a document whose text is not kept), numbered from a
 * document number: the core's tokenizer would read anything else as some text.
 * @throws INVALID_INPUT
 */
function checkTexts(work: PureWork): void {
  const bad = (why: string) => new TrainprintError('INVALID_INPUT', `${work.kind} work: ${why}`);
  if (work.kind === 'pairs' && typeof work.text !== 'string') throw bad('text must be a string');
  if (work.kind !== 'pair-postings') return;
  if (!Array.isArray(work.texts) || !work.texts.every((t) => t === null || typeof t === 'string')) {
    throw bad('texts must be an array of strings and nulls');
  }
  if (!Number.isInteger(work.first) || work.first < 0 || work.first + work.texts.length > 0xffff_ffff) {
    throw bad('first must be a document number (an integer ≥ 0)');
  }
}
