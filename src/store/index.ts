/**
 * The storage layer, browser-safe part: the {@link Store} contract and {@link MemoryStore}. The
 * durable file store is Node-only and lives in `./node.ts` (exported from `trainprint/node`).
 *
 * @example
 * import { MemoryStore } from './store/index.js'
 * const store = new MemoryStore()
 * await store.batch([{ type: 'put', key: 'work/1', value: { title: 'Dune' } }, { type: 'delete', key: 'work/0' }])
 */
export { MemoryStore } from './memory.js';
export type { BatchOp, ScanOptions, Store, Transaction } from './types.js';
