/**
 * The PostgreSQL store's own guarantees, beyond the contract it shares with the other stores
 * (store.test.ts): data outlives the store object, two stores on one schema (= two processes, each
 * with its own pool) serialise transactions and counters exactly, schemas isolate, migrations run
 * once and are recorded (and a schema of an earlier release is upgraded), key order is UTF-16
 * order at the byte level, and an unreachable or refusing database is STORE_UNAVAILABLE without
 * the password in the message.
 */
import { expect, it } from 'vitest';
import pg from 'pg';
import { openPostgresStore } from '../../src/store/node.js';
import { bytesKey, keyBytes, prefixEnd } from '../../src/store/postgres/key-bytes.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { TrainprintError, type ErrorCode } from '../../src/errors.js';
import { describePostgres } from '../pg/postgres.js';
import { closedPort } from '../fixtures/closed-port.js';

async function failure(p: Promise<unknown>): Promise<{ code: ErrorCode | 'resolved' | 'other'; message: string }> {
  try {
    await p;
    return { code: 'resolved', message: '' };
  } catch (e) {
    return { code: e instanceof TrainprintError ? e.code : 'other', message: String((e as Error).message) };
  }
}

it('key bytes: UTF-16BE order is JS order, also for astral characters against U+E000–U+FFFF', () => {
  const keys = ['a', 'b', '\ue000', '\uffff', '\ud83d\ude00', '\u{10000}', 'ab', 'a\u0000', 'é', ''];
  const byBytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(keyBytes(x)), Buffer.from(keyBytes(y))));
  expect(byBytes).toEqual([...keys].sort());
  for (const k of keys) expect(bytesKey(keyBytes(k))).toBe(k);
  expect(bytesKey(keyBytes('x'.repeat(10_000)))).toBe('x'.repeat(10_000));
  expect(prefixEnd(keyBytes(''))).toBeUndefined();
  expect(prefixEnd(new Uint8Array([0x00, 0xff, 0xff]))).toEqual(new Uint8Array([0x01]));
  expect(prefixEnd(new Uint8Array([0xff, 0xff]))).toBeUndefined();
});

describePostgres('PostgresStore', (db) => {
  it('what one store object wrote, another one on the same schema reads; other schemas see nothing', async () => {
    const schema = db.schema();
    const a = await openPostgresStore(db.url, { schema });
    const dune = { title: 'Dune', bytes: new Uint8Array([1, 2]) };
    await a.batch([
      { type: 'put', key: 'work/1', value: dune },
      { type: 'put', key: 'work/2', value: 2 },
    ]);
    await a.close();
    const url = new URL(db.url);
    url.searchParams.set('schema', schema); // the URL parameter names the schema too
    const b = await openPostgresStore(url.toString());
    expect(await b.scan('work/')).toEqual([
      ['work/1', dune],
      ['work/2', 2],
    ]);
    const other = await openPostgresStore(db.url, { schema: db.schema() });
    expect(await other.scan('')).toEqual([]);
    await Promise.all([b.close(), other.close()]);
  });

  it('two stores on one schema (two pools, like two processes): transactions and counters stay exact', async () => {
    const schema = db.schema();
    const [a, b] = await Promise.all([openPostgresStore(db.url, { schema }), openPostgresStore(db.url, { schema })]);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).transaction(async (tx) => {
          const n = ((await tx.get('counter')) as number | undefined) ?? 0;
          await new Promise((r) => setTimeout(r, 0));
          tx.put('counter', n + 1);
        }),
      ),
    );
    expect(await a.get('counter')).toBe(100);
    const taken = await Promise.all(
      Array.from({ length: 150 }, (_, i) => (i % 2 ? a : b).increment('usage/acme', 1, 100)),
    );
    expect(taken.filter((r) => r.applied).length).toBe(100);
    expect(await b.get('usage/acme')).toBe(100);
    // one exclusive thing, claimed from both sides at once: exactly one claim wins
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).transaction(async (tx) => {
          if ((await tx.scan('claim/')).length > 0) return false;
          tx.put(`claim/${i}`, i);
          return true;
        }),
      ),
    );
    expect(claims.filter(Boolean).length).toBe(1);
    await Promise.all([a.close(), b.close()]);
  });

  it('a write never waits unbounded on a process that holds the lock: a paused holder is cut off, a busy one is a 503', async () => {
    const schema = db.schema();
    const b = await openPostgresStore(db.url, { schema, lockWaitMs: 60_000 });
    // a holder that sits in its transaction (a process paused inside a write): the server ends its session
    const paused = await openPostgresStore(db.url, { schema, idleInTransactionMs: 300 });
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const stuck = paused.transaction(async (tx) => {
      holding();
      await new Promise((r) => setTimeout(r, 3000));
      tx.put('late', 1);
    });
    await held;
    const t0 = Date.now();
    await b.put('after', 1);
    expect(Date.now() - t0).toBeLessThan(2500); // the lock went with the session, long before the holder woke
    expect(await failure(stuck)).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await b.get('late')).toBeUndefined();
    // a holder that does not let go in time: the waiter's refusal says so, as STORE_UNAVAILABLE (a 503)
    const busy = await openPostgresStore(db.url, { schema });
    const impatient = await openPostgresStore(db.url, { schema, lockWaitMs: 200 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    const holder = busy.transaction(async () => {
      inside();
      await gate;
    });
    await entered;
    const refused = await failure(impatient.put('x', 1));
    expect(refused.code).toBe('STORE_UNAVAILABLE');
    expect(refused.message).toContain("held the store's write lock");
    release();
    await holder;
    await impatient.put('x', 2);
    expect(await b.get('x')).toBe(2);
    await expect(openPostgresStore(db.url, { schema, lockWaitMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    await Promise.all([b.close(), paused.close(), busy.close(), impatient.close()]);
  });

  it('migrations: applied once under concurrent opens, recorded, and a newer schema is refused', async () => {
    const schema = db.schema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(db.url, { schema })));
    await Promise.all(stores.map((s) => s.close()));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const table = `"${schema}".schema_migrations`;
      const rows = (await client.query(`SELECT version, name FROM ${table} ORDER BY version`)).rows;
      expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      await client.query(`INSERT INTO ${table} (version, name) VALUES (${MIGRATIONS.length + 1}, 'from the future')`);
    } finally {
      await client.end();
    }
    const newer = await failure(openPostgresStore(db.url, { schema }));
    expect(newer.code).toBe('STORE_UNAVAILABLE');
    expect(newer.message).toContain(`version ${MIGRATIONS.length + 1}`);
  });

  it("opens a store's schema with a role given that schema and no more (no CREATE on the database)", async () => {
    const schema = db.schema();
    await (await openPostgresStore(db.url, { schema })).close(); // made by the operator
    const role = `tp_schema_only_${process.pid}`;
    const password = `pw${Date.now()}`;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
      const database = new URL(db.url).pathname.slice(1) || 'postgres';
      await admin.query(`REVOKE CREATE ON DATABASE "${database}" FROM PUBLIC`);
      await admin.query(`GRANT USAGE, CREATE ON SCHEMA "${schema}" TO ${role}`);
      await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
      const url = new URL(db.url);
      [url.username, url.password] = [role, password];
      const store = await openPostgresStore(url.toString(), { schema });
      await store.put('k', 1);
      expect(await store.get('k')).toBe(1);
      await store.close();
      // a schema it may not make is refused naming what the role lacks, not a raw driver error
      const refused = await failure(openPostgresStore(url.toString(), { schema: db.schema() }));
      expect([refused.code, refused.message]).toEqual(['STORE_UNAVAILABLE', expect.stringContaining('42501')]);
    } finally {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    }
  });

  it('a schema an earlier release made (migrations 1 and 2) is upgraded on open, its data kept', async () => {
    const schema = db.schema();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const s = `"${schema}"`;
      await client.query(`CREATE SCHEMA ${s}`);
      await client.query(`CREATE TABLE ${s}.schema_migrations
        (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      for (const m of MIGRATIONS.slice(0, 2)) {
        await client.query(m.sql(s));
        await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      }
      // a counter as release 2 wrote it: msgpack uint 64 (0xcf) of 41, key 'n' in UTF-16BE
      await client.query(`INSERT INTO ${s}.kv (key, value) VALUES ('\\x006e', '\\xcf0000000000000029')`);
    } finally {
      await client.end();
    }
    const store = await openPostgresStore(db.url, { schema });
    expect(await store.get('n')).toBe(41);
    const r = await Promise.all(Array.from({ length: 3 }, () => store.increment('n', 1, 42)));
    expect(r.filter((x) => x.applied)).toEqual([{ value: 42, applied: true }]);
    await store.close();
  });

  it('unreachable, refusing or missing databases are STORE_UNAVAILABLE; the password never shows', async () => {
    const url = new URL(db.url);
    const password = decodeURIComponent(url.password);
    const refused = new URL(db.url);
    refused.port = String(await closedPort());
    const wrongPassword = new URL(db.url);
    wrongPassword.password = 'not-the-password-42';
    const noDatabase = new URL(db.url);
    noDatabase.pathname = '/no_such_database';
    const cases = [
      [refused, 'ECONNREFUSED'],
      [wrongPassword, 'login'],
      [noDatabase, 'does not exist'],
    ] as const;
    for (const [u, says] of cases) {
      const f = await failure(openPostgresStore(u.toString(), { connectTimeoutMs: 5_000 }));
      expect([f.code, f.message]).toEqual(['STORE_UNAVAILABLE', expect.stringContaining(says)]);
      expect(f.message).not.toContain(password);
      expect(f.message).not.toContain('not-the-password-42');
    }
    for (const bad of ['mysql://x@y/z', 'postgres://user:hunter2@[bad', 42, `${db.url}?schema=Bad-Name`]) {
      const f = await failure(openPostgresStore(bad as string));
      expect(f.code).toBe('INVALID_OPTIONS');
      expect(f.message).not.toContain('hunter2');
      expect(f.message).not.toContain(password);
    }
    for (const options of [{ schema: 'x; DROP TABLE y' }, { maxConnections: 0 }, { connectTimeoutMs: -1 }]) {
      expect((await failure(openPostgresStore(db.url, options))).code).toBe('INVALID_OPTIONS');
    }
  });

  it('a store whose server went away answers STORE_UNAVAILABLE, not a crash', async () => {
    const schema = db.schema();
    const s = await openPostgresStore(db.url, { schema });
    await s.put('k', 1);
    // end this store's backends from outside, as a server restart would
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND datname = current_database() AND application_name = ''
        AND backend_type = 'client backend'`);
    } finally {
      await admin.end();
    }
    // the pool notices the broken idle connections and reconnects; a call either works or is STORE_UNAVAILABLE
    const after = await failure(s.get('k'));
    expect(['resolved', 'STORE_UNAVAILABLE']).toContain(after.code);
    expect(await s.get('k')).toBe(1);
    await s.close();
  });
});
