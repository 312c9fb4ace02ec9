/**
 * The PostgreSQL kit of the store layer that the scan queue (src/node/queue/) shares: its own tables are
 * migrated, connected, named and locked as the store's are, and its failures of the database read as the store's
 * (STORE_UNAVAILABLE). Node-only, as store/node.ts is; not a name of the package.
 * @example
 * import { applyMigrations, openPool, parseTarget } from '../../store/node-kit.js'
 */
export { applyMigrations } from './postgres/migrations.js';
export type { Migration, MigrationSet } from './postgres/migrations.js';
export {
  checkSchema,
  inTransaction,
  isOutage,
  openPool,
  parseTarget,
  quote,
  unavailable,
} from './postgres/connection.js';
export type { PostgresTarget } from './postgres/connection.js';
export { waitOut } from './postgres/wait.js';
