/**
 * An {@link ExtractionJournal} in a `Store` (memory, file or PostgreSQL): what an extraction run as a job keeps, so a
 * job resubmitted, or run again after a restart, replays every call already answered instead of making it again.
 * Each call is kept compact ({@link CompactCall}: its text and the digests of its wire bodies, not the bodies): a
 * model padding its answers to the cap grew the store by 0.1–0.56 MB a call, and every slice of a long item replayed
 * all of it. A job's journal is deleted with the job (./../jobs/attached.ts).
 */
import { TrainprintError } from '../../errors.js';
import { sha256HexNow } from '../../fingerprint/sha256.js';
import type { Store } from '../../store/types.js';
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
const enc = new TextEncoder();

/**
 * The store key prefix of a scope: the account (URI-encoded), then the SHA-256 of the service, model and work.
 * @example storeJournalPrefix({ account: 'acme', baseUrl: 'https://m.example/v1', model: 'm', text: '…' })
 */
export function storeJournalPrefix(scope: StoreJournalScope): string {
  const work = scope.workId !== undefined ? `work_id\n${scope.workId}` : `text\n${scope.text ?? ''}`;
  const digest = sha256HexNow(enc.encode(`${scope.baseUrl}\n${scope.model}\n${work}`));
  return `${PREFIX}${encodeURIComponent(scope.account)}/${digest}/`;
}

/**
 * The journal of `scope` in `store`: each answered call under `<prefix><request SHA-256>`, written before the run
 * goes on (a store's `put` is durable when it resolves).
 * @example await engine.memorization.extractWork({ text, model, journal: storeExtractionJournal(engine.store, scope) })
 */
export function storeExtractionJournal(store: Store, scope: StoreJournalScope): ExtractionJournal {
  const prefix = storeJournalPrefix(scope);
  const key = (k: string) => {
    // the run asks only with request digests; anything else would be a key outside the scope
    if (!isJournalKey(k)) throw new TrainprintError('INVALID_INPUT', 'a journal key is a SHA-256 in hex');
    return prefix + k;
  };
  const sha256Hex = (s: string) => sha256HexNow(enc.encode(s));
  return {
    compact: true,
    get: async (k) => (await store.get(key(k))) as CompactCall | undefined,
    put: async (k, call) => store.put(key(k), compactCall(call, sha256Hex)),
  };
}
