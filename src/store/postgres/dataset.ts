/**
 * Exact datasets kept in PostgreSQL ({@link ExactStorage}, src/datasets/stored.ts): for reference
 * corpora whose index does not fit in one process's memory, and for several servers that share one.
 *
 * Layout, in a schema of their own (default `trainprint_datasets`): the catalog `datasets` (one row per
 * dataset: descriptor, params, partitions, counts; ./migrations.ts) and, per dataset, four tables named
 * after its catalog row (`d<n>_…`):
 *
 *   d<n>_documents     doc integer PK (0, 1, … in the order added), id text UNIQUE, chars, tokens, bytes,
 *                      meta bytea (msgpack), minhash bytea (128 u32 little-endian), text bytea (UTF-8;
 *                      NULL with keep_text false): TOAST compresses texts over ≈ 2 kB by itself
 *   d<n>_fingerprints  hash bigint, doc, start_at, end_at   PARTITION BY HASH (hash), `partitions` parts
 *   d<n>_pairs         hash integer, doc, at                 PARTITION BY HASH (hash), likewise
 *   d<n>_bands         band bigint, doc                      the LSH band keys of the signatures
 *
 * Loading appends batches (one transaction each, the catalog row locked so numbers stay dense) with
 * multi-row `INSERT … SELECT FROM unnest(arrays)`; the posting indexes are built once at the end of the
 * first load (`finishLoad`), which is several times faster than keeping them up to date row by row,
 * and kept up to date afterwards. A query is two statements: the postings of its keys (`= ANY` on the
 * partitioned tables, a LATERAL LIMIT per content-word pair) and the documents those name.
 *
 * Imports `pg` lazily (Node only): reachable only from the `trainprint/node` entry.
 */
import type { Pool, PoolClient } from 'pg';
import { TrainprintError } from '../../errors.js';
import type {
  ExactStorage,
  FetchedDocument,
  StoredBatch,
  StoredDatasetInfo,
  StoredDocuments,
  StoredDocumentsRequest,
  StoredLookup,
  StoredPostings,
} from '../../datasets/stored.js';
import { exactDescriptor } from '../../datasets/descriptor.js';
import { olderNormalizer } from '../../fingerprint/options.js';
import type { DatasetDescriptor } from '../../datasets/types.js';
import { decodeValue, encodeValue } from '../memory.js';
import {
  checkPoolSettings,
  checkSchema,
  inTransaction,
  lockId,
  openPool,
  parseTarget,
  quote,
  unavailable,
  type PostgresTarget,
} from './connection.js';
import { applyMigrations, DATASET_MIGRATIONS } from './migrations.js';

/**
 * Where the datasets are: a URL (this module makes and ends the pool) or the caller's pool.
 * @example await openPostgresDataset({ url: 'postgres://app@db/trainprint?schema=corpora', id: 'books' })
 */
export interface PostgresDatasetConnection {
  /**
   * `postgres://user:password@host:5432/database`; a `schema` parameter names the schema, a `dataset`
   * parameter the dataset (for the functions that take one).
   */
  readonly url?: string;
  /** A `pg` pool of the caller's instead of `url`: never ended by `close()`. */
  readonly pool?: Pool;
  /** The schema of the catalog and the datasets' tables. @default 'trainprint_datasets' */
  readonly schema?: string;
  /** Connections in the pool made from `url`. @default 10 */
  readonly maxConnections?: number;
  /** How long to wait for a connection before STORE_UNAVAILABLE, in ms. @default 10_000 */
  readonly connectTimeoutMs?: number;
}

/**
 * Options of {@link createPostgresDataset}: where, and the dataset's descriptor.
 * @example await createPostgresDataset({ url, id: 'books', kb_dataset: 'project-gutenberg', partitions: 32 })
 */
export interface CreatePostgresDatasetOptions extends PostgresDatasetConnection {
  /** Dataset id, 1–200 characters. */
  readonly id: string;
  readonly name?: string;
  /** Knowledge-base dataset the corpus samples (your declaration). */
  readonly kb_dataset?: string;
  /** Models you declare trained on it (`provider/model`). */
  readonly models?: readonly string[];
  /** Keep the documents' texts, so that analyze aligns edited and reworded reuse. @default true */
  readonly keep_text?: boolean;
  readonly meta?: unknown;
  /** Hash partitions of the fingerprint and content-word pair tables, 1..1024. @default 16 */
  readonly partitions?: number;
  /** Drop a dataset with this id first (its tables and rows). @default false */
  readonly replace?: boolean;
}

const DEFAULT_SCHEMA = 'trainprint_datasets';
const DEFAULT_PARTITIONS = 16;
const MAX_PARTITIONS = 1024;
/** Advisory lock classes: "tp" + "dm" (catalog migrations) and "tp" + "dc" (creating and dropping datasets). */
const MIGRATION_LOCK_CLASS = 0x7470_646d;
const CATALOG_LOCK_CLASS = 0x7470_6463;
/** Rows per INSERT statement of a batch: a few MB of array text each. */
const ROWS_PER_STATEMENT = 100_000;

const noop = (): void => {};

/** The pool behind one or more datasets opened together: ended when the last of them closes. */
interface SharedPool {
  readonly pool: Pool;
  readonly owned: boolean;
  users: number;
}

/** The statements of one dataset, with its table names spliced in once. */
class DatasetSql {
  readonly documents: string;
  readonly fingerprints: string;
  readonly pairs: string;
  readonly bands: string;
  readonly fetch: string;
  /**
   * Statements are named, so each connection parses and plans them once (a one-key search spent more time
   * there than in its probe). Short: the server cuts names at 63 bytes.
   */
  readonly tag: string;
  readonly #lookups = new Map<number, string>();

  constructor(
    readonly schema: string,
    readonly prefix: string,
  ) {
    const t = (name: string) => this.table(name);
    this.tag = `tp${(lockId(schema) >>> 0).toString(36)}_${prefix}`;
    this.documents = t('documents');
    this.fingerprints = t('fingerprints');
    this.pairs = t('pairs');
    this.bands = t('bands');
    this.fetch = `SELECT 0 AS t, d.doc, d.id, d.chars, d.tokens, d.bytes,
        CASE WHEN d.doc = ANY($2::integer[]) THEN d.minhash END AS minhash,
        CASE WHEN d.doc = ANY($3::integer[]) THEN d.text END AS text, NULL::integer AS pair
        FROM ${this.documents} d WHERE d.doc = ANY($1::integer[])
      UNION ALL
      SELECT 1, p.doc, NULL, NULL, NULL, NULL, NULL, NULL, p.hash
        FROM ${this.pairs} p WHERE p.hash = ANY($4::integer[]) AND p.doc = ANY($3::integer[])`;
  }

  /**
   * The lookup statement for the lists that have keys (bit 0: shingles, 1: pairs, 2: bands): one statement,
   * one round trip, every posting of the shingles and band keys and at most the cap per pair. A list without
   * keys has no branch, as each branch costs its partitions' opening whether it finds anything or not.
   */
  lookup(lists: number): string {
    let sql = this.#lookups.get(lists);
    if (sql !== undefined) return sql;
    // Keys are probed one by one in a LATERAL subquery (OFFSET 0 keeps it from being flattened into a hash
    // join, which reads every partition in full; `hash = ANY(array)` on the partitioned table plans to a
    // scan of every partition too, and spends as long planning the pruning of a 10 k-key array), each
    // probe pruned to its partition at run time. The DISTINCT feeds the probes from a hash aggregate: fed
    // straight from unnest of a 10 k-key constant, the first probe waited ≈ 0.3 s (PostgreSQL 15).
    const keys = (param: number, type: string) => `(SELECT DISTINCT h FROM unnest($${param}::${type}[]) AS u(h)) AS q`;
    const branches: string[] = [];
    let n = 0;
    if (lists & 1) {
      branches.push(`SELECT 0 AS t, q.h::text AS k, f.doc, f.start_at AS a, f.end_at AS b FROM ${keys(++n, 'bigint')}
        CROSS JOIN LATERAL (SELECT doc, start_at, end_at FROM ${this.fingerprints} WHERE hash = q.h OFFSET 0) AS f`);
    }
    if (lists & 2) {
      const cap = ++n + 1;
      branches.push(`SELECT 1 AS t, q.h::text AS k, p.doc, p.at AS a, 0 AS b FROM ${keys(n++, 'integer')}
        CROSS JOIN LATERAL (SELECT doc, at FROM ${this.pairs} WHERE hash = q.h LIMIT $${cap}) AS p`);
    }
    if (lists & 4) {
      branches.push(`SELECT 2 AS t, b.band::text AS k, b.doc, 0 AS a, 0 AS b FROM ${this.bands} b
        WHERE b.band = ANY($${++n}::bigint[])`);
    }
    sql = branches.join('\n      UNION ALL\n      ');
    this.#lookups.set(lists, sql);
    return sql;
  }

  /** A table of the dataset, schema-qualified and quoted: `"schema"."d<n>_name"`. */
  table(name: string): string {
    return `${quote(this.schema)}.${quote(`${this.prefix}_${name}`)}`;
  }

  /** The DDL of a new dataset's tables. */
  create(partitions: number): string[] {
    const parts = (name: string) =>
      Array.from(
        { length: partitions },
        (_, k) =>
          `CREATE TABLE ${this.table(`${name}_p${k}`)} PARTITION OF ${this.table(name)}
        FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${k})`,
      );
    return [
      `CREATE TABLE ${this.documents} (doc integer PRIMARY KEY, id text NOT NULL UNIQUE, chars integer NOT NULL,
        tokens integer NOT NULL, bytes integer NOT NULL, meta bytea, minhash bytea NOT NULL, text bytea)`,
      `CREATE TABLE ${this.fingerprints} (hash bigint NOT NULL, doc integer NOT NULL, start_at integer NOT NULL,
        end_at integer NOT NULL) PARTITION BY HASH (hash)`,
      ...parts('fingerprints'),
      `CREATE TABLE ${this.pairs} (hash integer NOT NULL, doc integer NOT NULL, at integer NOT NULL)
        PARTITION BY HASH (hash)`,
      ...parts('pairs'),
      `CREATE TABLE ${this.bands} (band bigint NOT NULL, doc integer NOT NULL)`,
    ];
  }

  /** The posting indexes, built after the first load. */
  indexes(): string[] {
    return [
      `CREATE INDEX IF NOT EXISTS ${quote(`${this.prefix}_fingerprints_hash`)} ON ${this.fingerprints} (hash)`,
      `CREATE INDEX IF NOT EXISTS ${quote(`${this.prefix}_pairs_hash`)} ON ${this.pairs} (hash, doc, at)`,
      `CREATE INDEX IF NOT EXISTS ${quote(`${this.prefix}_bands_band`)} ON ${this.bands} (band)`,
    ];
  }

  /** Every table of the dataset (partitions go with their parent). */
  tables(): string {
    return [this.documents, this.fingerprints, this.pairs, this.bands].join(', ');
  }
}

/** Fingerprints as PostgreSQL's signed bigint sees them: the same 64 bits (a view, no copy). */
const signed = (h: BigUint64Array): BigInt64Array => new BigInt64Array(h.buffer, h.byteOffset, h.length);
/**
 * A PostgreSQL array literal (bound as one text parameter: a hundred thousand values cost one native join,
 * where binding a JavaScript array would escape each value).
 */
const arrayOf = (values: { join(separator: string): string }): string => `{${values.join(',')}}`;
const buffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
/** A MinHash signature as bytes (little-endian u32, as in memory). */
const signatureBytes = (sig: Uint32Array): Buffer => Buffer.from(new Uint32Array(sig).buffer);

/**
 * An exact dataset in PostgreSQL: attach it to an engine (`engine.attachDataset`) to search it, and
 * load it with `engine.addDataset` / `engine.copyDataset` (or `trainprint index build --into`, `index
 * push`). Made by {@link createPostgresDataset} and {@link openPostgresDataset}.
 * @example
 * const books = await createPostgresDataset({ url: 'postgres://app@db/trainprint', id: 'books' })
 * await engine.attachDataset(books)
 */
export class PostgresDataset implements ExactStorage {
  readonly id: string;
  readonly label: string;
  /** Hash partitions of the fingerprint and pair tables. */
  readonly partitions: number;
  /** The schema and the name prefix of the dataset's tables (`d<n>`). */
  readonly schema: string;
  readonly tables: string;
  readonly #shared: SharedPool;
  readonly #target: PostgresTarget;
  readonly #sql: DatasetSql;
  readonly #catalog: string;
  #closing: Promise<void> | undefined;

  /** @internal use {@link createPostgresDataset} or {@link openPostgresDataset} */
  constructor(shared: SharedPool, target: PostgresTarget, schema: string, row: CatalogRow) {
    this.#shared = shared;
    this.#target = target;
    this.id = row.id;
    this.label = `${target.label} (schema ${schema})`;
    this.partitions = row.partitions;
    this.schema = schema;
    this.tables = row.tables;
    this.#sql = new DatasetSql(schema, row.tables);
    this.#catalog = `${quote(schema)}.datasets`;
  }

  /** The descriptor, counts and on-disk size of the posting tables. */
  async info(): Promise<StoredDatasetInfo> {
    this.#checkOpen();
    return this.#run(async () => {
      const sql = this.#sql;
      const r = await this.#shared.pool.query(
        `SELECT c.*, (SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i
            WHERE i.inhparent IN ($2::regclass, $3::regclass)) + pg_total_relation_size($4::regclass) AS index_bytes
          FROM ${this.#catalog} c WHERE c.id = $1`,
        [this.id, sql.fingerprints, sql.pairs, sql.bands],
      );
      if (r.rows.length === 0) throw new TrainprintError('NOT_FOUND', `no dataset "${this.id}" in ${this.label}`);
      return infoOf(r.rows[0] as CatalogRow & { index_bytes: string });
    });
  }

  /**
   * Appends one batch in one transaction (the catalog row is locked, so appends from several processes
   * take turns and document numbers stay dense).
   * @throws (rejects) CONFLICT (`first` is not the stored count), ALREADY_EXISTS (a document id),
   *   INVALID_INPUT (an id with U+0000, which PostgreSQL text cannot hold), STORE_UNAVAILABLE
   */
  async append(batch: StoredBatch): Promise<void> {
    this.#checkOpen();
    for (const d of batch.documents) {
      if (d.id.includes('\u0000')) {
        const id = JSON.stringify(d.id);
        throw new TrainprintError('INVALID_INPUT', `document id ${id}: PostgreSQL text cannot hold U+0000`);
      }
    }
    await this.#transaction(async (db) => {
      const r = await db.query(`SELECT documents, params FROM ${this.#catalog} WHERE id = $1 FOR UPDATE`, [this.id]);
      if (r.rows.length === 0) throw new TrainprintError('NOT_FOUND', `no dataset "${this.id}" in ${this.label}`);
      if (r.rows[0].params !== '' && r.rows[0].params !== batch.params) {
        const had = JSON.stringify(r.rows[0].params);
        const older = olderNormalizer(r.rows[0].params, batch.params);
        throw new TrainprintError(
          'PARAMS_MISMATCH',
          `dataset "${this.id}" holds fingerprints of params ${had}${older}`,
        );
      }
      const stored = Number(r.rows[0].documents);
      if (stored !== batch.first) {
        const why = `the batch starts at ${batch.first}: another writer appended`;
        throw new TrainprintError('CONFLICT', `dataset "${this.id}" has ${stored} documents, ${why}`);
      }
      await this.#insertDocuments(db, batch);
      await this.#insertRows(db, batch);
      const docs = batch.documents;
      const sum = (f: (d: (typeof docs)[number]) => number) => docs.reduce((a, d) => a + f(d), 0);
      await db.query(
        `UPDATE ${this.#catalog} SET documents = documents + $2, tokens = tokens + $3, bytes = bytes + $4,
          fingerprints = fingerprints + $5, text_bytes = text_bytes + $6, params = $7 WHERE id = $1`,
        [
          this.id,
          docs.length,
          sum((d) => d.tokens),
          sum((d) => d.bytes),
          batch.fingerprints.hash.length,
          sum((d) => (d.text === null ? 0 : d.bytes)),
          batch.params,
        ],
      );
    });
  }

  async #insertDocuments(db: PoolClient, batch: StoredBatch): Promise<void> {
    const docs = batch.documents;
    if (docs.length === 0) return;
    try {
      await db.query(
        `INSERT INTO ${this.#sql.documents} (doc, id, chars, tokens, bytes, meta, minhash, text)
          SELECT * FROM unnest($1::integer[], $2::text[], $3::integer[], $4::integer[], $5::integer[], $6::bytea[],
            $7::bytea[], $8::bytea[])`,
        [
          arrayOf(docs.map((_, i) => batch.first + i)),
          docs.map((d) => d.id),
          arrayOf(docs.map((d) => d.chars)),
          arrayOf(docs.map((d) => d.tokens)),
          arrayOf(docs.map((d) => d.bytes)),
          docs.map((d) => (d.meta === undefined ? null : buffer(encodeValue(d.meta)))),
          docs.map((d) => signatureBytes(d.minhash)),
          docs.map((d) => (d.text === null ? null : Buffer.from(d.text, 'utf8'))),
        ],
      );
    } catch (error) {
      const e = error as { code?: string; detail?: string };
      if (e?.code === '23505') {
        const which = /\(id\)=\((.*)\) already exists/.exec(e.detail ?? '')?.[1];
        const what = which === undefined ? 'a document id' : `document "${which}"`;
        throw new TrainprintError('ALREADY_EXISTS', `${what} is already in dataset "${this.id}"`, { cause: error });
      }
      throw error;
    }
  }

  async #insertRows(db: PoolClient, batch: StoredBatch): Promise<void> {
    const { fingerprints: f, pairs: p, bands: b } = batch;
    for (let from = 0; from < f.hash.length; from += ROWS_PER_STATEMENT) {
      const to = Math.min(f.hash.length, from + ROWS_PER_STATEMENT);
      const hashes = signed(f.hash.subarray(from, to));
      await db.query(
        `INSERT INTO ${this.#sql.fingerprints} (hash, doc, start_at, end_at)
          SELECT * FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::integer[])`,
        [
          arrayOf(hashes),
          arrayOf(f.doc.subarray(from, to)),
          arrayOf(f.start.subarray(from, to)),
          arrayOf(f.end.subarray(from, to)),
        ],
      );
    }
    for (let from = 0; from < p.hash.length; from += ROWS_PER_STATEMENT) {
      const to = Math.min(p.hash.length, from + ROWS_PER_STATEMENT);
      await db.query(
        `INSERT INTO ${this.#sql.pairs} (hash, doc, at)
          SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[])`,
        [
          arrayOf(new Int32Array(p.hash.subarray(from, to))),
          arrayOf(p.doc.subarray(from, to)),
          arrayOf(p.offset.subarray(from, to)),
        ],
      );
    }
    for (let from = 0; from < b.key.length; from += ROWS_PER_STATEMENT) {
      const to = Math.min(b.key.length, from + ROWS_PER_STATEMENT);
      await db.query(`INSERT INTO ${this.#sql.bands} (band, doc) SELECT * FROM unnest($1::bigint[], $2::integer[])`, [
        arrayOf(b.key.subarray(from, to)),
        arrayOf(b.doc.subarray(from, to)),
      ]);
    }
  }

  /**
   * Builds the posting indexes where missing (after the first load) and refreshes the planner's
   * statistics of the dataset's tables.
   */
  async finishLoad(): Promise<StoredDatasetInfo> {
    this.#checkOpen();
    await this.#run(async () => {
      const pool = this.#shared.pool;
      const r = await pool.query(`SELECT indexed FROM ${this.#catalog} WHERE id = $1`, [this.id]);
      if (r.rows.length === 0) throw new TrainprintError('NOT_FOUND', `no dataset "${this.id}" in ${this.label}`);
      if (!r.rows[0].indexed) {
        for (const statement of this.#sql.indexes()) await pool.query(statement);
        await pool.query(`UPDATE ${this.#catalog} SET indexed = true WHERE id = $1`, [this.id]);
      }
      await pool.query(`ANALYZE ${this.#sql.tables()}`);
    });
    return this.info();
  }

  /** The postings of a query's keys, in one statement. */
  async lookup(q: StoredLookup): Promise<StoredPostings> {
    this.#checkOpen();
    const shingleKeys = Array.from(signed(q.shingles), String);
    const pairKeys = Array.from(q.pairs, (h) => String(h | 0));
    const bandKeys = Array.from(q.bands, String);
    const lists = (shingleKeys.length ? 1 : 0) | (pairKeys.length ? 2 : 0) | (bandKeys.length ? 4 : 0);
    const values = [
      ...(lists & 1 ? [arrayOf(shingleKeys)] : []),
      ...(lists & 2 ? [arrayOf(pairKeys), q.pairCap] : []),
      ...(lists & 4 ? [arrayOf(bandKeys)] : []),
    ];
    const r =
      lists === 0
        ? { rows: [] }
        : await this.#run(() =>
            this.#shared.pool.query({
              name: `${this.#sql.tag}_l${lists}`,
              text: this.#sql.lookup(lists),
              values,
              rowMode: 'array',
            }),
          );
    const positions = [shingleKeys, pairKeys, bandKeys].map((keys) => new Map(keys.map((k, i) => [k, i])));
    const column = (): number[] => [];
    const found = [0, 1, 2].map(() => ({ at: column(), doc: column(), a: column(), b: column() }));
    for (const row of r.rows as Array<[number, string, number, number, number]>) {
      const list = found[row[0]];
      list.at.push(positions[row[0]].get(row[1])!);
      list.doc.push(row[2]);
      list.a.push(row[3]);
      list.b.push(row[4]);
    }
    const [s, p, b] = found;
    return {
      shingles: {
        at: Uint32Array.from(s.at),
        doc: Uint32Array.from(s.doc),
        start: Uint32Array.from(s.a),
        end: Uint32Array.from(s.b),
      },
      pairs: { at: Uint32Array.from(p.at), doc: Uint32Array.from(p.doc), offset: Uint32Array.from(p.a) },
      bands: { at: Uint32Array.from(b.at), doc: Uint32Array.from(b.doc) },
    };
  }

  /** The documents a query needs, with their signatures and texts as asked, in one statement. */
  async documents(request: StoredDocumentsRequest): Promise<StoredDocuments> {
    this.#checkOpen();
    const r = await this.#run(() =>
      this.#shared.pool.query({
        name: `${this.#sql.tag}_fetch`,
        text: this.#sql.fetch,
        values: [
          arrayOf(request.docs),
          arrayOf(request.signatures),
          arrayOf(request.texts),
          arrayOf(new Int32Array(request.commonPairs)),
        ],
        rowMode: 'array',
      }),
    );
    const docs = new Map<number, FetchedDocument>();
    const texts = new Set(request.texts);
    const pair: number[] = [],
      held: number[] = [];
    type Row = [number, number, string, number, number, number, Buffer | null, Buffer | null, number | null];
    for (const row of r.rows as Row[]) {
      if (row[0] === 1) {
        pair.push(row[8]! >>> 0);
        held.push(row[1]);
        continue;
      }
      const [, doc, id, chars, tokens, bytes, minhash, text] = row;
      docs.set(doc, {
        info: { id, chars, tokens, bytes },
        ...(minhash ? { minhash: new Uint32Array(new Uint8Array(minhash).buffer) } : {}),
        ...(texts.has(doc) ? { text: text === null ? null : text.toString('utf8') } : {}),
      });
    }
    return { docs, holds: { pair: Uint32Array.from(pair), doc: Uint32Array.from(held) } };
  }

  /** Drops the dataset: its tables and its catalog row. The object is closed. */
  async drop(): Promise<void> {
    this.#checkOpen();
    await this.#run(() => dropDataset(this.#shared.pool, this.schema, this.id));
    await this.close();
  }

  /** Ends the pool made from the URL (after the last dataset opened with it); idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (--this.#shared.users === 0 && this.#shared.owned) await this.#shared.pool.end();
    })();
    return this.#closing;
  }

  #checkOpen(): void {
    if (this.#closing) throw new TrainprintError('STORE_CLOSED', `dataset "${this.id}" was closed`);
  }

  /** Runs statements, turning "the database is not available" into STORE_UNAVAILABLE. */
  async #run<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw unavailable(error, this.#target) ?? error;
    }
  }

  async #transaction<T>(body: (db: PoolClient) => Promise<T>): Promise<T> {
    return this.#run(() => inTransaction(this.#shared.pool, 'BEGIN', body));
  }
}

/** A catalog row as the driver returns it (bigint counts as strings). */
interface CatalogRow {
  readonly id: string;
  readonly tables: string;
  readonly params: string;
  readonly descriptor: Buffer;
  readonly partitions: number;
  readonly documents: string;
  readonly tokens: string;
  readonly bytes: string;
  readonly fingerprints: string;
  readonly text_bytes: string;
}

function infoOf(row: CatalogRow & { index_bytes: string }): StoredDatasetInfo {
  return {
    descriptor: decodeValue(row.descriptor) as StoredDatasetInfo['descriptor'],
    params: row.params,
    documents: Number(row.documents),
    tokens: Number(row.tokens),
    bytes: Number(row.bytes),
    fingerprints: Number(row.fingerprints),
    text_bytes: Number(row.text_bytes),
    index_bytes: Number(row.index_bytes),
    storage: 'postgres',
  };
}

/** INVALID_OPTIONS unless `options` is an object. */
function checkObject(options: unknown): void {
  if (options === null || typeof options !== 'object') {
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  }
}

/** Where: the URL's target (its `dataset` parameter taken out) or the caller's pool. */
interface Place {
  readonly shared: SharedPool;
  readonly target: PostgresTarget;
  readonly schema: string;
  /** The URL's `dataset` parameter. */
  readonly dataset: string | undefined;
}

/** Connects (or takes the caller's pool), checks the options and applies the catalog's migrations. */
async function place(options: PostgresDatasetConnection): Promise<Place> {
  checkObject(options);
  const { url, pool } = options;
  if ((url === undefined) === (pool === undefined)) {
    throw new TrainprintError('INVALID_OPTIONS', 'give either url or pool');
  }
  let dataset: string | undefined;
  let target: PostgresTarget;
  if (url !== undefined) {
    const parsed = typeof url === 'string' && URL.canParse(url) ? new URL(url) : undefined;
    dataset = parsed?.searchParams.get('dataset') ?? undefined;
    parsed?.searchParams.delete('dataset');
    target = parseTarget(parsed ? parsed.toString() : url);
  } else {
    if (typeof pool?.query !== 'function' || typeof pool.connect !== 'function') {
      throw new TrainprintError('INVALID_OPTIONS', 'pool must be a pg Pool');
    }
    const o = (pool as { options?: { user?: string; host?: string; port?: number; database?: string } }).options ?? {};
    const where = `${o.host ?? 'localhost'}${o.port ? `:${o.port}` : ''}/${o.database ?? ''}`;
    const label = `postgres://${o.user ? `${o.user}@` : ''}${where}`;
    target = { connectionString: '', label, schema: undefined };
  }
  const schema = options.schema ?? target.schema ?? DEFAULT_SCHEMA;
  checkSchema(schema);
  checkPoolSettings(options);
  let shared: SharedPool;
  if (pool) shared = { pool, owned: false, users: 0 };
  else {
    // Generic plans for the named lookups: the choice between a custom and a generic plan re-plans a
    // statement over every partition on each call (a one-key lookup took 0.6 ms, 0.37 ms generic, 16 parts),
    // and a generic plan is the one wanted anyway (a probe per key, pruned at run time). Set as each session
    // starts, not by a statement that would race the pool's first query. Pools of the caller keep their settings
    // (set it there, or in the role: ALTER ROLE … SET plan_cache_mode).
    const made = await openPool(target, { ...options, sessionSettings: { plan_cache_mode: 'force_generic_plan' } });
    shared = { pool: made, owned: true, users: 0 };
  }
  try {
    await applyMigrations(shared.pool, schema, {
      migrations: DATASET_MIGRATIONS,
      table: 'dataset_migrations',
      lockClass: MIGRATION_LOCK_CLASS,
    });
  } catch (error) {
    if (shared.owned) await shared.pool.end().catch(noop);
    throw unavailable(error, target) ?? error;
  }
  return { shared, target, schema, dataset };
}

/**
 * Runs `body` with the place's pool; on failure a pool made here is ended. Failures of the database:
 * STORE_UNAVAILABLE.
 */
async function using<T>(p: Place, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (p.shared.owned && p.shared.users === 0) await p.shared.pool.end().catch(noop);
    throw unavailable(error, p.target) ?? error;
  }
}

/** The catalog row of `id`, or undefined. */
async function catalogRow(db: Pool | PoolClient, schema: string, id: string): Promise<CatalogRow | undefined> {
  const r = await db.query(`SELECT * FROM ${quote(schema)}.datasets WHERE id = $1`, [id]);
  return r.rows[0] as CatalogRow | undefined;
}

/** BEGIN and the schema's catalog lock: creating and dropping datasets take turns. */
const catalogBegin = (schema: string): string =>
  `BEGIN; SELECT pg_advisory_xact_lock(${CATALOG_LOCK_CLASS}, ${lockId(schema)})`;

async function dropDataset(pool: Pool, schema: string, id: string): Promise<boolean> {
  return inTransaction(pool, catalogBegin(schema), async (client) => {
    const row = await catalogRow(client, schema, id);
    if (row) {
      await client.query(`DROP TABLE IF EXISTS ${new DatasetSql(schema, row.tables).tables()} CASCADE`);
      await client.query(`DELETE FROM ${quote(schema)}.datasets WHERE id = $1`, [id]);
    }
    return row !== undefined;
  });
}

/** The stored descriptor of a new dataset: the documented fields only, as an in-memory one keeps them. */
function descriptorOf(o: CreatePostgresDatasetOptions): DatasetDescriptor & { kind: 'exact' } {
  const { id, name, models, kb_dataset, meta, keep_text } = o;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) {
    throw new TrainprintError('INVALID_INPUT', 'id must be a non-empty string of at most 200 characters');
  }
  if (name !== undefined && typeof name !== 'string') {
    throw new TrainprintError('INVALID_INPUT', 'name must be a string');
  }
  if (models !== undefined && (!Array.isArray(models) || models.some((m) => typeof m !== 'string'))) {
    throw new TrainprintError('INVALID_INPUT', 'models must be an array of strings');
  }
  if (kb_dataset !== undefined && typeof kb_dataset !== 'string') {
    throw new TrainprintError('INVALID_INPUT', 'kb_dataset must be a string');
  }
  if (keep_text !== undefined && typeof keep_text !== 'boolean') {
    throw new TrainprintError('INVALID_OPTIONS', 'keep_text must be a boolean');
  }
  return exactDescriptor({ id, name, models, kb_dataset, meta, keep_text });
}

/**
 * Create an empty exact dataset in PostgreSQL (Node): the catalog schema is created and migrated when
 * missing, the dataset's tables are made (fingerprints and content-word pairs partitioned by hash into
 * `partitions` parts). Attach it to an engine and load it with `addDataset` or `copyDataset`.
 * @throws (rejects) INVALID_OPTIONS (URL, schema, partitions, pool options), INVALID_INPUT (descriptor
 *   fields), ALREADY_EXISTS (the id exists and `replace` is not set), STORE_UNAVAILABLE (the database
 *   cannot be reached, refuses the login or lacks the database; the message never shows the password)
 * @example
 * import { createEngine } from 'trainprint'
 * import { createPostgresDataset } from 'trainprint/node'
 * const engine = await createEngine()
 * const url = 'postgres://app@db.internal/trainprint'
 * const books = await createPostgresDataset({ url, id: 'books', partitions: 32 })
 * await engine.attachDataset(books)
 * await engine.addDataset({ id: 'books' }, documents)   // fingerprints go to PostgreSQL
 */
export async function createPostgresDataset(options: CreatePostgresDatasetOptions): Promise<PostgresDataset> {
  checkObject(options);
  const descriptor = descriptorOf(options);
  const partitions = options.partitions ?? DEFAULT_PARTITIONS;
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
    const got = String(partitions);
    throw new TrainprintError('INVALID_OPTIONS', `partitions must be an integer in 1..${MAX_PARTITIONS}, got ${got}`);
  }
  if (options.replace !== undefined && typeof options.replace !== 'boolean') {
    throw new TrainprintError('INVALID_OPTIONS', 'replace must be a boolean');
  }
  const descriptorBytes = buffer(encodeValue(descriptor));
  const p = await place(options);
  const row = await using(p, async () => {
    if (options.replace) await dropDataset(p.shared.pool, p.schema, descriptor.id);
    return inTransaction(p.shared.pool, catalogBegin(p.schema), async (client) => {
      if (await catalogRow(client, p.schema, descriptor.id)) {
        const where = `${p.target.label} (schema ${p.schema})`;
        throw new TrainprintError('ALREADY_EXISTS', `dataset "${descriptor.id}" already exists in ${where}`);
      }
      const n = (await client.query(`SELECT nextval('${quote(p.schema)}.dataset_tables') AS n`)).rows[0].n as string;
      const tables = `d${n}`;
      for (const statement of new DatasetSql(p.schema, tables).create(partitions)) await client.query(statement);
      const r = await client.query(
        `INSERT INTO ${quote(p.schema)}.datasets (id, tables, params, descriptor, partitions)
          VALUES ($1, $2, '', $3, $4) RETURNING *`,
        [descriptor.id, tables, descriptorBytes, partitions],
      );
      return r.rows[0] as CatalogRow;
    });
  });
  p.shared.users++;
  return new PostgresDataset(p.shared, p.target, p.schema, row);
}

/**
 * Open an exact dataset stored in PostgreSQL (Node), by `id` or by the URL's `dataset` parameter.
 * @throws (rejects) NOT_FOUND (no such dataset in the schema), INVALID_OPTIONS, STORE_UNAVAILABLE
 * @example
 * const books = await openPostgresDataset({ url: 'postgres://app@db.internal/trainprint?dataset=books' })
 * await engine.attachDataset(books)
 */
export async function openPostgresDataset(
  options: PostgresDatasetConnection & { readonly id?: string },
): Promise<PostgresDataset> {
  const p = await place(options);
  const id = options.id ?? p.dataset;
  if (typeof id !== 'string') {
    if (p.shared.owned) await p.shared.pool.end().catch(noop);
    throw new TrainprintError('INVALID_OPTIONS', 'name the dataset: id, or a dataset parameter in the URL');
  }
  const row = await using(p, async () => {
    const found = await catalogRow(p.shared.pool, p.schema, id);
    if (!found) throw new TrainprintError('NOT_FOUND', `no dataset "${id}" in ${p.target.label} (schema ${p.schema})`);
    return found;
  });
  p.shared.users++;
  return new PostgresDataset(p.shared, p.target, p.schema, row);
}

/**
 * Open the datasets of a schema (Node), all sharing one pool (ended when the last is closed): the one the
 * URL's `dataset` parameter names, or every one. What `trainprint serve --dataset postgres://…` attaches.
 * @throws (rejects) NOT_FOUND (the named dataset is not there), INVALID_OPTIONS, STORE_UNAVAILABLE
 * @example
 * const all = await openPostgresDatasets({ url: 'postgres://app@db.internal/trainprint' })
 * for (const ds of all) await engine.attachDataset(ds)
 */
export async function openPostgresDatasets(options: PostgresDatasetConnection): Promise<PostgresDataset[]> {
  const p = await place(options);
  const rows = await using(p, async () => {
    const r =
      p.dataset === undefined
        ? ((await p.shared.pool.query(`SELECT * FROM ${quote(p.schema)}.datasets ORDER BY id`)).rows as CatalogRow[])
        : [await catalogRow(p.shared.pool, p.schema, p.dataset)];
    if (r[0] === undefined && p.dataset !== undefined) {
      throw new TrainprintError('NOT_FOUND', `no dataset "${p.dataset}" in ${p.target.label} (schema ${p.schema})`);
    }
    return r as CatalogRow[];
  });
  if (rows.length === 0 && p.shared.owned) await p.shared.pool.end().catch(noop);
  p.shared.users += rows.length;
  return rows.map((row) => new PostgresDataset(p.shared, p.target, p.schema, row));
}
