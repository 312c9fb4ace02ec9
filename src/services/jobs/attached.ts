/**
 * What a job's items keep outside the job's own keys (an extraction's or an audit's journal of model calls), attached
 * to the job so that it is deleted with the job: when the job is deleted, or when its retention ends (7 days after it
 * finished). A journal is shared by the account's jobs of the same model and works (a resubmission replays it), so
 * deleting one of them deletes it for the others too: they make those calls again.
 */
import { sha256HexNow } from '../../fingerprint/sha256.js';
import type { Store } from '../../store/types.js';
import { deleteStoreJournal, isStoreJournalPrefix } from '../memorization/store-journal.js';

const PREFIX = 'job-attached/';
const enc = new TextEncoder();

/**
 * Attaches the keys under `prefix` to the job `jobId` (once per prefix, whatever the calls).
 * @example await attachToJob(store, claim.job.id, storeJournalPrefix(scope))
 */
export async function attachToJob(store: Store, jobId: string, prefix: string): Promise<void> {
  const key = `${PREFIX}${jobId}/${sha256HexNow(enc.encode(prefix))}`;
  if ((await store.get(key)) === undefined) await store.put(key, prefix);
}

/**
 * Deletes what is attached to the job `jobId`, a page of keys at a time, then the attachments.
 * @example await deleteAttached(store, id) // in the job's purge
 */
export async function deleteAttached(store: Store, jobId: string): Promise<void> {
  for (const [key, prefix] of await store.scan(`${PREFIX}${jobId}/`)) {
    // a journal's bytes are taken off its account's count as it goes
    if (typeof prefix === 'string' && isStoreJournalPrefix(prefix)) await deleteStoreJournal(store, prefix);
    else if (typeof prefix === 'string' && prefix !== '') {
      for (;;) {
        const rows = await store.scan(prefix, { limit: 1000 });
        if (rows.length === 0) break;
        await store.batch(rows.map(([k]) => ({ type: 'delete' as const, key: k })));
      }
    }
    await store.delete(key);
  }
}
