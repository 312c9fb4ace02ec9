/**
 * The index of an account's catalogue audits by the texts of their works (./stored-audits.ts): one key a text and an
 * audit, `<account prefix>t/<the text's SHA-256, base64url>/<stamp>/<the audit's ordinal, base 36>`, about 90
 * characters. Its keys are most of what a kept audit holds in a memory or file store's process (100,000 of them for a
 * catalogue of 100,000 works), so they are short: the text's digest in base64url (43 characters, not 64 hex), and the
 * audit named by an ordinal within the account (`…/n/<ordinal>` holds its digest, `…/o/<digest>` its ordinal) instead
 * of its 64 hex digits.
 *
 * Releases before this one wrote `<account prefix>text/<the text's SHA-256, hex>/<stamp>/<the audit's SHA-256, hex>`
 * (about 172 characters). Kept audits are stored data, so both forms are read, together, in the order they were kept;
 * a text's entries of both forms count toward its {@link STORED_AUDITS_PER_TEXT}, and an audit kept again leaves its
 * old-form entry for a new one. Nothing rewrites the old entries that stay.
 */
import { TrainprintError } from '../../errors.js';
import type { Store, Transaction } from '../../store/types.js';
import { stampAfter } from './kept-by-text.js';

/** Audits that measured one text an account keeps indexed at most: the newest replace the oldest past it. */
export const STORED_AUDITS_PER_TEXT = 16;

/** Where an account's audits are kept (every key of ./stored-audits.ts starts so). */
export const auditAccountPrefix = (account: string): string => `catalogue-audits/${encodeURIComponent(account)}/`;

const hexPrefix = (account: string, textSha256: string) => `${auditAccountPrefix(account)}text/${textSha256}/`;
const shortPrefix = (account: string, textSha256: string) =>
  `${auditAccountPrefix(account)}t/${hexToBase64url(textSha256)}/`;
const ordinalKey = (account: string, auditSha256: string) => `${auditAccountPrefix(account)}o/${auditSha256}`;
const digestKey = (account: string, ordinal: string) => `${auditAccountPrefix(account)}n/${ordinal}`;
const countKey = (account: string) => `${auditAccountPrefix(account)}ordinals`;

/** Hex digits (an even number) as base64url without padding (RFC 4648 §5): a SHA-256's 64 as 43. */
function hexToBase64url(hex: string): string {
  let bytes = '';
  for (let i = 0; i < hex.length; i += 2) bytes += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2), 16));
  return btoa(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** One index entry of a text: its key, when it was kept, and the audit it names (a hex digest or an ordinal). */
interface Entry {
  readonly key: string;
  readonly stamp: string;
  readonly audit: { readonly sha256: string } | { readonly ordinal: string };
}

/** The entries of a text under `prefix` (one form), from a scan's keys `<prefix><stamp>/<ref>`. */
function entriesOf(prefix: string, scanned: ReadonlyArray<[string, unknown]>, hex: boolean): Entry[] {
  return scanned.map(([key]) => {
    const rest = key.slice(prefix.length);
    const slash = rest.indexOf('/');
    const ref = rest.slice(slash + 1);
    return { key, stamp: rest.slice(0, slash), audit: hex ? { sha256: ref } : { ordinal: ref } };
  });
}

/**
 * Both forms' entries of one text, oldest first: the stamps are the same 15-digit milliseconds in both, and an old
 * entry goes first of two kept in the same millisecond (the sort is stable).
 */
async function entriesOfText(
  reader: Pick<Transaction, 'scan'>,
  account: string,
  textSha256: string,
  hexKept: boolean,
): Promise<Entry[]> {
  const short = shortPrefix(account, textSha256);
  const entries = entriesOf(short, await reader.scan(short), false);
  if (!hexKept) return entries;
  const hex = hexPrefix(account, textSha256);
  return [...entriesOf(hex, await reader.scan(hex), true), ...entries].sort((a, b) =>
    a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : 0,
  );
}

/**
 * Whether the account has any entry of the hex form: an account that never had one (every account since the short
 * keys) is read with one scan a text, not two (on PostgreSQL a scan is a round trip, 1,024 of them a batch).
 */
async function hexFormKept(reader: Pick<Transaction, 'scan'>, account: string): Promise<boolean> {
  return (await reader.scan(`${auditAccountPrefix(account)}text/`, { limit: 1 })).length > 0;
}

/**
 * The account's ordinal for the audit `auditSha256` (base 36): the one it was given when first indexed, or the next
 * of the account's, given now. Its own transaction, so that two audits indexed at once never share one.
 * @example const ordinal = await auditOrdinal(store, 'acme', result.audit_sha256) // '0' for the account's first
 */
export async function auditOrdinal(store: Store, account: string, auditSha256: string): Promise<string> {
  return store.transaction(async (tx) => {
    const held = await tx.get(ordinalKey(account, auditSha256));
    if (typeof held === 'string') return held;
    const count = await tx.get(countKey(account));
    const next = typeof count === 'number' ? count : 0;
    if (!Number.isSafeInteger(next) || next < 0)
      throw new TrainprintError('STORE_CORRUPT', `the count of an account's audits is ${String(count)}`);
    const ordinal = next.toString(36);
    tx.put(countKey(account), next + 1);
    tx.put(ordinalKey(account, auditSha256), ordinal);
    tx.put(digestKey(account, ordinal), auditSha256);
    return ordinal;
  });
}

/**
 * Indexes the audit (`auditSha256`, its ordinal `ordinal`) under each text of `textSha256s` (distinct), in `tx`:
 * every text's entries of both forms read before any is written (a transaction's scan walks its own pending writes,
 * so reads between writes cost n² key checks), then its entry of this audit replaced, the oldest past
 * {@link STORED_AUDITS_PER_TEXT} dropped, and the new entry written in the short form, stamped after the entries that
 * stay ({@link stampAfter}).
 * @example await store.transaction((tx) => indexAuditTexts(tx, 'acme', texts, digest, ordinal, keptStamp()))
 */
export async function indexAuditTexts(
  tx: Transaction,
  account: string,
  textSha256s: readonly string[],
  auditSha256: string,
  ordinal: string,
  stamp: string,
): Promise<void> {
  const hexKept = await hexFormKept(tx, account);
  const held: Entry[][] = [];
  for (const text of textSha256s) held.push(await entriesOfText(tx, account, text, hexKept));
  const same = (e: Entry) => ('sha256' in e.audit ? e.audit.sha256 === auditSha256 : e.audit.ordinal === ordinal);
  for (const [i, text] of textSha256s.entries()) {
    const others = held[i].filter((e) => !same(e));
    for (const e of held[i]) if (same(e)) tx.delete(e.key);
    const dropped = Math.max(0, others.length - (STORED_AUDITS_PER_TEXT - 1));
    for (const e of others.slice(0, dropped)) tx.delete(e.key);
    tx.put(
      `${shortPrefix(account, text)}${stampAfter(
        stamp,
        others.slice(dropped).map((e) => e.stamp),
      )}/${ordinal}`,
      1,
    );
  }
}

/**
 * The SHA-256 (hex) of each of the account's audits indexed under the text whose SHA-256 (hex) is `textSha256`,
 * oldest first, from entries of both forms; an ordinal whose digest is not kept is skipped.
 * @example const digests = await auditsOfText(store, 'acme', await sha256Hex(text))
 */
export async function auditsOfText(store: Store, account: string, textSha256: string): Promise<string[]> {
  const digests: string[] = [];
  const hexKept = await hexFormKept(store, account);
  for (const { audit } of await entriesOfText(store, account, textSha256, hexKept)) {
    if ('sha256' in audit) digests.push(audit.sha256);
    else {
      const digest = await store.get(digestKey(account, audit.ordinal));
      if (typeof digest === 'string') digests.push(digest);
    }
  }
  return digests;
}
