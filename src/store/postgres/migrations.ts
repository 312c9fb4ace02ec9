/**
 * The PostgreSQL store's schema, as numbered migrations. `openPostgresStore` applies the ones a
 * schema lacks, in order, each in its own transaction, under a session advisory lock (so two
 * processes starting at once do not both apply one), and records each in `schema_migrations`.
 * A migration is never edited once released: a change is a new one with the next number.
 */

/** One step of the schema. `sql` receives the quoted schema name. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

/**
 * Every migration, oldest first; versions are 1, 2, 3, … without gaps.
 * @example MIGRATIONS.at(-1)!.version // the schema version this release writes
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'key-value table',
    // key: UTF-16BE bytes (see ./key-bytes.ts), value: msgpack bytes (see ../memory.ts encodeValue).
    sql: (s) => `CREATE TABLE ${s}.kv (key bytea PRIMARY KEY, value bytea NOT NULL)`,
  },
  {
    version: 2,
    name: 'counter decoding',
    // The non-negative integer a msgpack value holds (positive fixint, uint 8/16/32/64), NULL for
    // anything else: lets `increment` add to a counter in one statement while the value stays
    // ordinary msgpack that get and scan decode. Counters are written back as uint 64 (0xcf).
    sql: (s) => `CREATE FUNCTION ${s}.msgpack_uint(v bytea) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT AS $$
      SELECT CASE
        WHEN length(v) = 1 AND get_byte(v, 0) < 128 THEN get_byte(v, 0)::bigint
        WHEN length(v) = 2 AND get_byte(v, 0) = 204 THEN get_byte(v, 1)::bigint
        WHEN length(v) = 3 AND get_byte(v, 0) = 205 THEN (get_byte(v, 1)::bigint << 8) | get_byte(v, 2)
        WHEN length(v) = 5 AND get_byte(v, 0) = 206 THEN
          (get_byte(v, 1)::bigint << 24) | (get_byte(v, 2) << 16) | (get_byte(v, 3) << 8) | get_byte(v, 4)
        WHEN length(v) = 9 AND get_byte(v, 0) = 207 AND get_byte(v, 1) < 128 THEN
          ('x' || encode(substr(v, 2, 8), 'hex'))::bit(64)::bigint
      END $$`,
  },
  {
    version: 3,
    name: 'increments applied per statement',
    // How many of the increments coalesced into the row's last increment statement fitted under
    // their cap: set by that statement, read back by its RETURNING, meaningless otherwise.
    sql: (s) => `ALTER TABLE ${s}.kv ADD COLUMN applied bigint`,
  },
];
