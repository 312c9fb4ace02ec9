/**
 * The audit log: one entry per change, written through the same {@link Op} (so the same
 * transaction) as the change itself — a change without its entry, or an entry without its change,
 * cannot be committed. Records:
 *   `audit/<at>-<seq>-<aud_id>`      the entry (`seq` zero-padded to 12 digits)
 *   `audit-by/<id>/<entry id>`       → entry id, for its entity and every related id
 *   `audit-head`                     `{ seq, at }` of the last entry
 * `at` never goes backwards (a clock step back reuses the last `at`) and `seq` counts up, so key
 * order is the order in which the changes were committed.
 */
import type { Store } from '../../store/types.js';
import { readThrough } from '../../util/schema-check.js';
import { newId } from '../../util/validate.js';
import type { Op } from './op.js';
import { PAGE_DEFAULT } from './page.js';
import { MARKET_REQUESTS } from './schema.js';
import type { AuditEntry, AuditFilter } from './types.js';

const HEAD = 'audit-head';
const LOG = 'audit/';
const BY = 'audit-by/';

/** An entry before the log gives it its place. */
export type AuditInput = Omit<AuditEntry, 'id' | 'seq' | 'at' | 'related' | 'details' | 'from' | 'to'> &
  Partial<Pick<AuditEntry, 'related' | 'details' | 'from' | 'to'>>;

/**
 * Append an entry inside the operation's transaction.
 * @example
 * await appendAudit(op, { actor: 'estate', action: 'listing.published', entity: 'listing', entity_id: id, from: 'draft', to: 'active' })
 */
export async function appendAudit(op: Op, input: AuditInput): Promise<AuditEntry> {
  const head = ((await op.get(HEAD)) as { seq: number; at: string } | undefined) ?? { seq: 0, at: '' };
  // biome-ignore lint/complexity/useMathMinMax: ISO timestamps, compared as strings
  const at = op.nowIso > head.at ? op.nowIso : head.at;
  const seq = head.seq + 1;
  const id = `${at}-${String(seq).padStart(12, '0')}-${newId('aud_')}`;
  const entry: AuditEntry = {
    id,
    seq,
    at,
    actor: input.actor,
    action: input.action,
    entity: input.entity,
    entity_id: input.entity_id,
    from: input.from ?? null,
    to: input.to ?? null,
    related: input.related ?? [],
    details: input.details ?? null,
  };
  op.put(HEAD, { seq, at });
  op.put(LOG + id, entry);
  for (const ref of new Set([entry.entity_id, ...entry.related])) op.put(`${BY}${ref}/${id}`, id);
  return entry;
}

/**
 * Read the log in commit order, optionally only about one entity.
 * @example
 * const { entries, next } = await readAudit(store, { entity_id: 'lst_…', limit: 50 })
 */
export async function readAudit(
  store: Store,
  filter: AuditFilter = {},
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const { entity_id, after, limit = PAGE_DEFAULT } = readThrough(MARKET_REQUESTS.auditLog, filter, undefined);
  let entries: AuditEntry[];
  if (entity_id !== undefined) {
    const prefix = `${BY}${entity_id}/`;
    const refs = await store.scan(prefix, {
      after: after === undefined ? undefined : prefix + after,
      limit: limit + 1,
    });
    entries = (await Promise.all(refs.map(([, id]) => store.get(LOG + (id as string))))).filter(
      (e): e is AuditEntry => e !== undefined,
    );
  } else {
    entries = (await store.scan(LOG, { after: after === undefined ? undefined : LOG + after, limit: limit + 1 })).map(
      ([, e]) => e as AuditEntry,
    );
  }
  const more = entries.length > limit;
  if (more) entries.length = limit;
  return { entries, next: more ? entries[entries.length - 1].id : null };
}
