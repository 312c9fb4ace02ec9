/**
 * A PostgreSQL connection cut while the store holds it checked out (the server stopping: `pg_ctl stop -m fast`)
 * says so with an `'error'` event on the client. Unheard, Node throws it and the process dies; the store's two
 * checkouts — a transaction and the migrations at start-up — must hear it, fail the call, and drop the connection.
 */
import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/store/postgres/connection.js';
import { applyMigrations } from '../../src/store/postgres/migrations.js';

/** A pool of one client whose connection is cut at its `cutAt`-th statement: the event first, then the failure. */
function cutPool(cutAt: number) {
  const client = new EventEmitter() as EventEmitter & {
    query: (sql: string) => Promise<{ rows: unknown[] }>;
    release: (err?: Error) => void;
    released?: Error | 'none';
    /** Whether anything listened for the event when the connection was cut (pg emits it from the socket's callback: unheard, an uncaught exception). */
    heard?: boolean;
  };
  let n = 0;
  client.query = async () => {
    n++;
    if (n >= cutAt) {
      const cut = new Error('terminating connection due to administrator command');
      client.heard = client.listenerCount('error') > 0;
      if (client.heard) client.emit('error', cut); // what pg does when the server ends the connection
      throw cut;
    }
    return { rows: [] };
  };
  client.release = (err?: Error) => {
    client.released = err ?? 'none';
  };
  const pool = { connect: async () => client } as unknown as Pool;
  return { pool, client };
}

describe('a connection cut while checked out', () => {
  it('fails the transaction and drops the connection, without an unheard error event', async () => {
    const { pool, client } = cutPool(2);
    await expect(inTransaction(pool, 'BEGIN', async (db) => db.query('SELECT 1'))).rejects.toThrow(/terminating/);
    expect(client.heard).toBe(true);
    expect(client.released).toBeInstanceOf(Error);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('fails the migrations at start-up and drops the connection, without an unheard error event', async () => {
    const { pool, client } = cutPool(1);
    const set = { migrations: [], table: 'schema_migrations', lockClass: 1 };
    await expect(applyMigrations(pool, 'trainprint', set)).rejects.toThrow(/terminating/);
    expect(client.heard).toBe(true);
    expect(client.released).toBeInstanceOf(Error);
    expect(client.listenerCount('error')).toBe(0);
  });
});
