/**
 * The storage layer, Node-only part: {@link openFileStore}, the durable store on a directory
 * (append-only log + snapshot + lock file), {@link openPostgresStore}, the store in a
 * PostgreSQL schema that several processes share, and {@link createPostgresDataset}, exact datasets
 * kept in PostgreSQL. Imports node:fs (and, when a PostgreSQL store is
 * opened, the `pg` driver), so it is reachable only from the `trainprint/node` entry, never from
 * the browser-safe main entry.
 *
 * @example
 * import { openFileStore } from './store/node.js'
 * const store = await openFileStore('./data')
 * await store.put('work/1', { title: 'Dune' })
 * await store.close()
 */
export { openFileStore } from './file.js';
export type { FileStore, FileStoreOptions } from './file.js';
export { openPostgresStore, PostgresStore } from './postgres/store.js';
export type { PostgresStoreOptions } from './postgres/store.js';
export { isPostgresUrl } from './postgres/connection.js';
export {
  createPostgresDataset,
  openPostgresDataset,
  openPostgresDatasets,
  PostgresDataset,
} from './postgres/dataset.js';
export type { CreatePostgresDatasetOptions, PostgresDatasetConnection } from './postgres/dataset.js';
