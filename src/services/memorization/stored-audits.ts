/**
 * The catalogue audits of an account, kept in a `Store`: what an audit job's item gave (`auditCatalogue`'s result),
 * under the account and its `audit_sha256`, and indexed by the SHA-256 of each of its works' texts. An analysis of one
 * of those texts finds them, so its evidence bundle signs them, as it signs the account's extractions of the text
 * (./stored-extractions.ts), whichever process ran the audit.
 */
import { TrainprintError } from '../../errors.js';
import type { Store } from '../../store/types.js';
import type { CatalogueAuditResult } from './audit.js';
import { HEX64, keepNewest, keptOfText, keptStamp } from './kept-by-text.js';

const PREFIX = 'catalogue-audits/';

/** Audits that measured one text an account keeps indexed at most: the newest replace the oldest past it. */
export const STORED_AUDITS_PER_TEXT = 16;

const accountPrefix = (account: string) => `${PREFIX}${encodeURIComponent(account)}/`;
const recordKey = (account: string, auditSha256: string) => `${accountPrefix(account)}audit/${auditSha256}`;
const textPrefix = (account: string, textSha256: string) => `${accountPrefix(account)}text/${textSha256}/`;

/**
 * Keeps `result` as one of the account's audits, indexed under the SHA-256 (hex, UTF-8) of each work's text
 * (`textSha256s`, in the audit's order): the same audit kept twice is one entry. Past {@link STORED_AUDITS_PER_TEXT}
 * audits of one text the oldest leave its index.
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
  const stamp = keptStamp();
  await store.transaction(async (tx) => {
    tx.put(recordKey(account, digest), result);
    for (const text of new Set(textSha256s))
      await keepNewest(tx, textPrefix(account, text), digest, 1, STORED_AUDITS_PER_TEXT, stamp);
  });
}

/**
 * The account's audits with a work whose text's SHA-256 (hex, UTF-8) is `textSha256`, oldest first.
 * @example const audits = await catalogueAuditsOfText(engine.store, 'acme', await sha256Hex(text))
 */
export async function catalogueAuditsOfText(
  store: Store,
  account: string,
  textSha256: string,
): Promise<CatalogueAuditResult[]> {
  const audits: CatalogueAuditResult[] = [];
  for (const [k] of await keptOfText(store, textSha256, (text) => textPrefix(account, text))) {
    const record = await store.get(recordKey(account, k.slice(k.lastIndexOf('/') + 1)));
    if (record !== undefined && record !== null) audits.push(record as CatalogueAuditResult);
  }
  return audits;
}
