/**
 * An {@link ExtractionJournal} in a `Store` (memory, file or PostgreSQL): what an extraction run as a job keeps, so a
 * job resubmitted, or run again after a restart, replays every call already answered instead of making it again.
 * Each call is kept compact ({@link CompactCall}: its text and the digests of its wire bodies, not the bodies): a
 * model padding its answers to the cap grew the store by 0.1–0.56 MB a call, and every slice of a long item replayed
 * all of it. A job's journal is deleted with the job (./../jobs/attached.ts).
 *
 * The bytes of an account's journals are counted against it (the UTF-8 of each call as JSON, under
 * `extraction-journal-bytes/<account>`, written with the call in one transaction and taken off when the journal is
 * deleted): past {@link JOURNAL_BYTES_PER_ACCOUNT} a call is not kept and the run fails with PAYLOAD_TOO_LARGE, so a
 * model padding its answers' text cannot grow the store without bound while the account's jobs are kept.
 */
import { TrainprintError } from '../../errors.js';
import { sha256HexNow, sha256HexOfParts } from '../../fingerprint/sha256.js';
import { counterValue } from '../../store/counter.js';
import type { Store, Transaction } from '../../store/types.js';
import { compactCall, isJournalKey, type CompactCall, type ExtractionJournal } from './extraction-journal.js';

/** Where a journal's calls live: the account, and what makes two runs the same extraction. */
export interface StoreJournalScope {
  /** The account whose calls these are (another account never replays them). */
  readonly account: string;
  /** The model service's base URL and model name (the canonical request names the model, not the service). */
  readonly baseUrl: string;
  readonly model: string;
  /** The work: its `work_id`, or its text. */
  readonly workId?: string;
  readonly text?: string;
}

const PREFIX = 'extraction-journal/';
const BYTES_PREFIX = 'extraction-journal-bytes/';
const enc = new TextEncoder();

/**
 * Bytes of journals of model calls an account may keep at once (its extract and audit jobs' together, until they are
 * deleted): 256 MiB, the bytes of analysed text it may keep. A call is a few hundred bytes beside its answer's text.
 */
export const JOURNAL_BYTES_PER_ACCOUNT = 256 * 1024 * 1024;

/** The bytes a kept call counts for: the UTF-8 of its JSON. */
const callBytes = (call: unknown) => enc.encode(JSON.stringify(call)).length;
const bytesKey = (account: string) => `${BYTES_PREFIX}${encodeURIComponent(account)}`;

/**
 * The bytes of the account's journals, as counted against it.
 * @example await journalBytes(engine.store, 'acme') // 0 for an account with no journal kept
 */
export async function journalBytes(store: Store, account: string): Promise<number> {
  return counterValue(bytesKey(account), await store.get(bytesKey(account)));
}

/**
 * The store key prefix of a scope: the account (URI-encoded), then the SHA-256 of the service, model and work.
 * @example storeJournalPrefix({ account: 'acme', baseUrl: 'https://m.example/v1', model: 'm', text: '…' })
 */
export function storeJournalPrefix(scope: StoreJournalScope): string {
  const work = scope.workId !== undefined ? `work_id\n${scope.workId}` : `text\n${scope.text ?? ''}`;
  return prefixOf(scope.account, sha256HexNow(enc.encode(`${modelHead(scope)}${work}`)));
}

/** What a scope's digest begins with: the model service and the model, a line each. */
const modelHead = (scope: Pick<StoreJournalScope, 'baseUrl' | 'model'>) => `${scope.baseUrl}\n${scope.model}\n`;
/** The store key prefix of an account's journal of the scope whose digest is `digest`. */
const prefixOf = (account: string, digest: string) => `${PREFIX}${encodeURIComponent(account)}/${digest}/`;

/**
 * {@link storeJournalPrefix} of a scope whose work is a text given in parts (their concatenation), hashed part by part
 * with `pause` between them: the same prefix as with the text whole, without making it. A catalogue's text is tens of
 * MB of JSON; made and hashed in one step it held the event loop for 0.2–0.5 s at each of the item's slices.
 * @example await storeJournalPrefixOfParts({ account: 'acme', baseUrl, model }, ['audit\n', '[…]'], turnsEvery(5))
 */
export function storeJournalPrefixOfParts(
  scope: Omit<StoreJournalScope, 'workId' | 'text'>,
  parts: Iterable<string>,
  pause: () => Promise<void> | void,
): Promise<string> {
  function* all() {
    yield `${modelHead(scope)}text\n`;
    yield* parts;
  }
  return sha256HexOfParts(all(), pause).then((digest) => prefixOf(scope.account, digest));
}

/**
 * The journal of `scope` in `store`: each answered call under `<prefix><request SHA-256>`, written before the run
 * goes on (a store's `put` is durable when it resolves).
 * @example await engine.memorization.extractWork({ text, model, journal: storeExtractionJournal(engine.store, scope) })
 */
export function storeExtractionJournal(
  store: Store,
  scope: StoreJournalScope,
  // `prefix`: the scope's storeJournalPrefix where the caller has it (a catalogue's is a digest of tens of MB)
  options: { readonly maxBytes?: number; readonly prefix?: string } = {},
): ExtractionJournal {
  const prefix = options.prefix ?? storeJournalPrefix(scope);
  const cap = options.maxBytes ?? JOURNAL_BYTES_PER_ACCOUNT;
  const counter = bytesKey(scope.account);
  const key = (k: string) => {
    // the run asks only with request digests; anything else would be a key outside the scope
    if (!isJournalKey(k)) throw new TrainprintError('INVALID_INPUT', 'a journal key is a SHA-256 in hex');
    return prefix + k;
  };
  const sha256Hex = (s: string) => sha256HexNow(enc.encode(s));
  return {
    compact: true,
    get: async (k) => (await store.get(key(k))) as CompactCall | undefined,
    put: async (k, call) => {
      const kept = compactCall(call, sha256Hex);
      const bytes = callBytes(kept);
      await store.transaction(async (tx) => {
        const old = await tx.get(key(k));
        const held = counterValue(counter, await tx.get(counter));
        const grown = held + bytes - (old === undefined ? 0 : callBytes(old));
        if (grown > cap && grown > held)
          throw new TrainprintError('PAYLOAD_TOO_LARGE', `the account's journals would pass ${cap} bytes`);
        tx.put(counter, Math.max(0, grown));
        tx.put(key(k), kept);
      });
    },
  };
}

/**
 * Deletes the journal under `prefix` (a {@link storeJournalPrefix}), a page at a time, each page's bytes taken off
 * its account's count in the same transaction.
 * @example await deleteStoreJournal(store, storeJournalPrefix(scope))
 */
export async function deleteStoreJournal(store: Store, prefix: string): Promise<void> {
  const account = decodeURIComponent(prefix.slice(PREFIX.length).split('/')[0] ?? '');
  const counter = bytesKey(account);
  for (;;) {
    const done = await store.transaction(async (tx: Transaction) => {
      const rows = await tx.scan(prefix, { limit: 500 });
      let bytes = 0;
      for (const [k, v] of rows) {
        bytes += callBytes(v);
        tx.delete(k);
      }
      const held = counterValue(counter, await tx.get(counter));
      if (rows.length > 0) tx.put(counter, Math.max(0, held - bytes));
      return rows.length === 0;
    });
    if (done) return;
  }
}

/** Whether `prefix` is a journal's ({@link storeJournalPrefix}). */
export const isStoreJournalPrefix = (prefix: string): boolean => prefix.startsWith(PREFIX);
