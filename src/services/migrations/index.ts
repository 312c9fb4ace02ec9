/**
 * Store migrations, run by `createEngine` before it resolves: each step idempotent (several processes on one
 * PostgreSQL store may run it at once, and a step cut short by a crash is finished by the next start), and cheap when
 * there is nothing left to do.
 *
 * **Owners into the services** (this version): the HTTP service used to keep who owned an analysis or a monitor as
 * records of its own beside them, `http/owner/analysis/<id>` and `http/owner/monitor/<id>` → account. Ownership is
 * now the services': `analysis-by/<id>` → owner (./analyze/service.ts), the monitor's `owner` field with the index
 * `monitor-of/<owner>/<id>` (./monitors/monitors.ts). Each old record becomes the new ones, then is deleted, in one
 * batch; a monitor made before monitors recorded their owner takes it from the old record. Monitors that have an
 * owner but no index entry (made through the library by an earlier version) get one, and so do listings: the
 * marketplace now reads an owner's listings through `market/listing-by-owner/<owner>/<id>` (../market/keys.ts).
 */
import type { BatchOp, Store } from '../../store/types.js';
import { ANALYSIS_OWNER_PREFIX } from '../analyze/service.js';
import { K as MARKET } from '../market/keys.js';
import type { Listing } from '../market/types.js';
import { MONITOR_OWNER_PREFIX, type Monitor } from '../monitors/monitors.js';

/** Keys read per page while migrating (bounded memory on large stores). */
const PAGE = 1000;

/** What a run of {@link migrateStore} changed. */
export interface MigrationReport {
  readonly analyses: number;
  readonly monitors: number;
  readonly indexed: number;
  /** Listings given their owner's index entry. */
  readonly listings: number;
}

/** Every `[key, value]` under `prefix`, a page at a time. */
async function* pages(store: Store, prefix: string): AsyncGenerator<Array<[string, unknown]>> {
  let after: string | undefined;
  for (;;) {
    const page = await store.scan(prefix, after === undefined ? { limit: PAGE } : { after, limit: PAGE });
    if (page.length === 0) return;
    yield page;
    if (page.length < PAGE) return;
    after = page[page.length - 1][0];
  }
}

const monitorIndexKey = (owner: string, id: string): string =>
  `${MONITOR_OWNER_PREFIX}${encodeURIComponent(owner)}/${id}`;

/**
 * Bring a store written by an earlier version to this version's layout (see the module comment).
 * @example await migrateStore(await openFileStore('./data')) // { analyses: 2, monitors: 2, indexed: 0, listings: 0 }
 */
export async function migrateStore(store: Store): Promise<MigrationReport> {
  let analyses = 0;
  let monitors = 0;
  let indexed = 0;
  const OLD_ANALYSIS = 'http/owner/analysis/';
  for await (const page of pages(store, OLD_ANALYSIS)) {
    for (const [key, owner] of page) {
      const id = key.slice(OLD_ANALYSIS.length);
      const ops: BatchOp[] = [{ type: 'delete', key }];
      // an analysis that expired meanwhile leaves nothing to own
      if (typeof owner === 'string' && (await store.get(`analysis/${id}`)) !== undefined) {
        ops.unshift({ type: 'put', key: `${ANALYSIS_OWNER_PREFIX}${id}`, value: owner });
        analyses++;
      }
      await store.batch(ops);
    }
  }
  const OLD_MONITOR = 'http/owner/monitor/';
  for await (const page of pages(store, OLD_MONITOR)) {
    for (const [key, owner] of page) {
      const id = key.slice(OLD_MONITOR.length);
      await store.transaction(async (tx) => {
        const m = (await tx.get(`monitor/${id}`)) as Monitor | undefined;
        tx.delete(key);
        if (m === undefined || typeof owner !== 'string') return;
        // the record the monitor carries wins; one made before monitors kept their owner takes the adapter's
        const own = m.owner ?? owner;
        if (m.owner == null) tx.put(`monitor/${id}`, { ...m, owner: own });
        tx.put(monitorIndexKey(own, id), true);
        monitors++;
      });
    }
  }
  for await (const page of pages(store, 'monitor/')) {
    for (const [, value] of page) {
      const m = value as Monitor;
      if (typeof m.owner !== 'string') continue;
      const k = monitorIndexKey(m.owner, m.monitor_id);
      if ((await store.get(k)) === undefined) {
        await store.put(k, true);
        indexed++;
      }
    }
  }
  let listings = 0;
  for await (const page of pages(store, MARKET.LISTING)) {
    for (const [, value] of page) {
      const l = value as Listing;
      if (typeof l.owner !== 'string' || typeof l.listing_id !== 'string') continue;
      const k = MARKET.listingsOfOwner(l.owner) + l.listing_id;
      if ((await store.get(k)) === undefined) {
        await store.put(k, l.listing_id);
        listings++;
      }
    }
  }
  return { analyses, monitors, indexed, listings };
}
