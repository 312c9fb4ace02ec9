/**
 * engine.scan and engine.datasetDigest against an exact dataset kept in PostgreSQL: the digest is the one of the same
 * dataset in memory and of its file imported into PostgreSQL, and a scan gives the same hits as in memory.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createPostgresDataset, type PostgresDataset } from '../../src/node/index.js';
import { describePostgres } from '../pg/postgres.js';
import { archive, cleanOutputs, plantedOutputs } from '../fixtures/scan-plant.js';

describePostgres('scan against a PostgreSQL dataset', (db) => {
  const docs = archive().slice(0, 120);
  let memory: Engine, stored: Engine;
  const open: PostgresDataset[] = [];
  beforeAll(async () => {
    memory = await createEngine();
    await memory.addDataset({ id: 'archive' }, docs);
    stored = await createEngine();
    const ds = await createPostgresDataset({ url: db.url, schema: db.schema(), id: 'archive' });
    open.push(ds);
    await stored.attachDataset(ds);
    await stored.addDataset({ id: 'archive' }, docs);
  }, 120_000);
  afterAll(async () => {
    for (const d of open) await d.close();
  });

  it('has the digest of the same dataset in memory, and of its file imported into PostgreSQL', async () => {
    const digest = await memory.datasetDigest('archive');
    expect(await stored.datasetDigest('archive')).toBe(digest);
    const fromFile = await createPostgresDataset({ url: db.url, schema: db.schema(), id: 'archive', partitions: 4 });
    open.push(fromFile);
    const other = await createEngine();
    await other.attachDataset(fromFile);
    await other.importDataset(memory.exportDataset('archive'), { into: 'archive' });
    expect(await other.datasetDigest('archive')).toBe(digest);
  }, 120_000);

  it('gives the hits it gives in memory', async () => {
    const items = [
      ...plantedOutputs(docs, 30, 8).map((p, i) => ({ id: `p${i}`, text: p.text })),
      ...cleanOutputs(30, 9).map((text, i) => ({ id: `c${i}`, text })),
    ];
    const all = async (e: Engine) => {
      const hits = [];
      for await (const h of e.scan(items)) hits.push(h);
      return hits;
    };
    const inMemory = await all(memory);
    expect(inMemory.length).toBe(30);
    expect(await all(stored)).toEqual(inMemory);
  }, 120_000);
});
