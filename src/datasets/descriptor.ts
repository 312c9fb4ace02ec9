/**
 * The descriptor an exact dataset keeps, wherever it lives (in memory, in a snapshot, in a database):
 * only the documented fields, so a snapshot or a catalog row never carries what no reader checks.
 */
import type { DatasetDescriptor } from './types.js';

/**
 * The documented fields of `d` as an exact dataset's descriptor (`keep_text` only when false, its default
 * being true; `models` copied).
 * @example exactDescriptor({ id: 'books', keep_text: true }) // { id: 'books', kind: 'exact' }
 */
export function exactDescriptor(d: DatasetDescriptor): DatasetDescriptor & { kind: 'exact' } {
  const { id, name, models, kb_dataset, meta, keep_text } = d;
  return {
    id,
    kind: 'exact',
    ...(name === undefined ? {} : { name }),
    ...(keep_text === false ? { keep_text: false } : {}),
    ...(models === undefined ? {} : { models: [...models] }),
    ...(kb_dataset === undefined ? {} : { kb_dataset }),
    ...(meta === undefined ? {} : { meta }),
  };
}
