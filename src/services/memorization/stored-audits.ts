/**
 * The catalogue audits of an account, kept in a `Store`: what an audit job's item gave (`auditCatalogue`'s result),
 * under the account and its `audit_sha256`, and indexed by the SHA-256 of each of its works' texts. An analysis of one
 * of those texts finds them, so its evidence bundle signs them, as it signs the account's extractions of the text
 * (./stored-extractions.ts), whichever process ran the audit.
 *
 * A catalogue may hold 100,000 works, so nothing here is one long step: the works are kept in pages of
 * {@link AUDIT_WORKS_PER_PAGE} (read back page by page with {@link catalogueAuditWorks}), and the index is written in
 * short transactions of {@link AUDIT_INDEX_BATCH} texts with a turn of the event loop between them. One transaction
 * for the whole index held the store's write lock, and the event loop, for minutes: each text's read-modify-write
 * scanned the transaction's pending writes, so one transaction was quadratic in the works (40,000 works took 120 s);
 * now a batch reads every text's entries before it writes any.
 * The summary is written last: an audit is found only once all of it is kept (an index entry whose audit is not
 * there yet is skipped).
 */
import { TrainprintError } from '../../errors.js';
import type { BatchOp, Store } from '../../store/types.js';
import { nextMacrotask } from '../../util/steps.js';
import type { AuditedWork, CatalogueAuditResult } from './audit.js';
import { auditAccountPrefix, auditOrdinal, auditsOfText, indexAuditTexts } from './audit-text-index.js';
import { HEX64, keptStamp } from './kept-by-text.js';

export { STORED_AUDITS_PER_TEXT } from './audit-text-index.js';

/** Works of an audit kept in one page (one store value): a page of typical works is tens of KB. */
export const AUDIT_WORKS_PER_PAGE = 500;

/**
 * Texts indexed in one transaction: every text's entries read, then written (`indexAuditTexts`), a few milliseconds a
 * batch, so the store's write lock is never held long; and a commit a batch (391 commits of 256 for 100,000 texts
 * were 391 merges of new keys into a memory or file store's sorted keys, and as many fsyncs).
 */
export const AUDIT_INDEX_BATCH = 1024;

/** Pages of works written in one store write. */
const AUDIT_PAGES_PER_WRITE = 8;

/** The summary an audit is kept as: its result without the works, and how many pages hold them. */
interface StoredAudit extends Omit<CatalogueAuditResult, 'works'> {
  readonly work_pages: number;
}

const recordKey = (account: string, auditSha256: string) => `${auditAccountPrefix(account)}audit/${auditSha256}`;
const pageKey = (account: string, auditSha256: string, page: number) =>
  `${auditAccountPrefix(account)}works/${auditSha256}/${String(page).padStart(6, '0')}`;

/**
 * Keeps `result` as one of the account's audits, indexed under the SHA-256 (hex, UTF-8) of each work's text
 * (`textSha256s`, in the audit's order): the same audit kept twice is one entry. Past {@link STORED_AUDITS_PER_TEXT}
 * audits of one text the oldest leave its index. Written in short steps that give the event loop turns between them.
 * @example await storeCatalogueAudit(engine.store, 'acme', result, await Promise.all(works.map((w) => sha256Hex(w.text))))
 * @throws INVALID_INPUT when `result` has no audit digest or a text digest is not 64 hex digits
 */
export async function storeCatalogueAudit(
  store: Store,
  account: string,
  result: CatalogueAuditResult,
  textSha256s: readonly string[],
): Promise<void> {
  const digest = result?.audit_sha256;
  if (typeof digest !== 'string' || !HEX64.test(digest) || !textSha256s.every((t) => HEX64.test(t)))
    throw new TrainprintError('INVALID_INPUT', 'an audit to keep needs its audit_sha256 and its texts’ SHA-256');
  // what the audit's index entries name it by (./audit-text-index.ts)
  const ordinal = await auditOrdinal(store, account, digest);
  await nextMacrotask();
  const { works, ...summary } = result;
  const list = Array.isArray(works) ? works : [];
  const pages = Math.ceil(list.length / AUDIT_WORKS_PER_PAGE);
  // a few pages a write (a write is a commit: an fsync on a file store, a round trip on PostgreSQL)
  for (let p = 0; p < pages; p += AUDIT_PAGES_PER_WRITE) {
    const ops: BatchOp[] = [];
    for (let q = p; q < Math.min(pages, p + AUDIT_PAGES_PER_WRITE); q++) {
      const value = list.slice(q * AUDIT_WORKS_PER_PAGE, (q + 1) * AUDIT_WORKS_PER_PAGE);
      ops.push({ type: 'put', key: pageKey(account, digest, q), value });
    }
    await store.batch(ops);
    await nextMacrotask();
  }
  const stamp = keptStamp();
  const texts = [...new Set(textSha256s)];
  for (let i = 0; i < texts.length; i += AUDIT_INDEX_BATCH) {
    const batch = texts.slice(i, i + AUDIT_INDEX_BATCH);
    await store.transaction((tx) => indexAuditTexts(tx, account, batch, digest, ordinal, stamp));
    await nextMacrotask();
  }
  const stored: StoredAudit = { ...summary, work_pages: pages };
  await store.put(recordKey(account, digest), stored);
}

/** The audit kept under `auditSha256`, as its summary (works in pages) or, kept by an earlier release, whole. */
async function storedAudit(
  store: Store,
  account: string,
  auditSha256: string,
): Promise<StoredAudit | CatalogueAuditResult | undefined> {
  const record = await store.get(recordKey(account, auditSha256));
  return record === undefined || record === null ? undefined : (record as StoredAudit | CatalogueAuditResult);
}

/** Pages `[first, last]` of a paged audit's works, in order. */
async function pagesOf(store: Store, account: string, digest: string, first: number, last: number) {
  const works: AuditedWork[] = [];
  for (let p = first; p <= last; p++) {
    const page = await store.get(pageKey(account, digest, p));
    if (Array.isArray(page)) works.push(...(page as AuditedWork[]));
  }
  return works;
}

/**
 * The account's audits with a work whose text's SHA-256 (hex, UTF-8) is `textSha256`, oldest first, each whole.
 * @example const audits = await catalogueAuditsOfText(engine.store, 'acme', await sha256Hex(text))
 */
export async function catalogueAuditsOfText(
  store: Store,
  account: string,
  textSha256: string,
): Promise<CatalogueAuditResult[]> {
  const audits: CatalogueAuditResult[] = [];
  if (!HEX64.test(textSha256)) return audits;
  for (const digest of await auditsOfText(store, account, textSha256)) {
    const record = await storedAudit(store, account, digest);
    if (record === undefined) continue;
    if (!('work_pages' in record)) {
      audits.push(record);
      continue;
    }
    const { work_pages: pages, ...summary } = record;
    audits.push({ ...summary, works: await pagesOf(store, account, digest, 0, pages - 1) } as CatalogueAuditResult);
  }
  return audits;
}

/** One page of an audit's works: {@link catalogueAuditWorks}. */
export interface CatalogueAuditWorksPage {
  /** The audit without its works. */
  readonly audit: Omit<CatalogueAuditResult, 'works'>;
  /** Works `after` … `after + limit − 1` of the catalogue, in its order. */
  readonly works: AuditedWork[];
  /** The `after` of the next page, or null at the end. */
  readonly next: number | null;
}

/**
 * A page of the works of the account's audit `auditSha256` (`limit` works after the first `after`, at most 1,000),
 * so that a catalogue of 100,000 works is read without holding it whole; undefined when the account has no such audit.
 * @example const page = await catalogueAuditWorks(engine.store, 'acme', result.audit_sha256, { after: 0, limit: 100 })
 * @throws INVALID_INPUT when `after` or `limit` is not a whole number in range
 */
export async function catalogueAuditWorks(
  store: Store,
  account: string,
  auditSha256: string,
  options: { readonly after?: number; readonly limit?: number } = {},
): Promise<CatalogueAuditWorksPage | undefined> {
  const after = options.after ?? 0;
  const limit = options.limit ?? 100;
  if (!Number.isSafeInteger(after) || after < 0 || !Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    throw new TrainprintError('INVALID_INPUT', 'after must be a whole number ≥ 0 and limit one in 1–1000');
  if (!HEX64.test(auditSha256)) return undefined;
  const record = await storedAudit(store, account, auditSha256);
  if (record === undefined) return undefined;
  let works: AuditedWork[];
  let total: number;
  let audit: Omit<CatalogueAuditResult, 'works'>;
  if ('work_pages' in record) {
    const { work_pages: pages, ...summary } = record;
    audit = summary;
    total = summary.catalogue.works;
    const first = Math.floor(after / AUDIT_WORKS_PER_PAGE);
    const last = Math.min(pages - 1, Math.floor((after + limit - 1) / AUDIT_WORKS_PER_PAGE));
    const held = await pagesOf(store, account, auditSha256, first, last);
    works = held.slice(after - first * AUDIT_WORKS_PER_PAGE, after - first * AUDIT_WORKS_PER_PAGE + limit);
  } else {
    const { works: all, ...summary } = record;
    audit = summary;
    total = all.length;
    works = all.slice(after, after + limit);
  }
  return { audit, works, next: after + works.length < total && works.length > 0 ? after + works.length : null };
}
