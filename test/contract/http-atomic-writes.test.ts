/**
 * Every HTTP operation that writes several records writes them in one store batch or transaction, so a crash
 * (kill -9) leaves all of them or none: a new analysis and a new monitor are stored together with the account's owner record.
 * Checked by recording the store's write calls around each request (a record written by its own `put` after the
 * main record would be a window in which a crash leaves an unowned analysis or a monitor its owner cannot see).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, MemoryStore, type BatchOp, type Engine, type Transaction } from '../../src/library.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { book, passageAt } from '../fixtures/http/harness.js';

class RecordingStore extends MemoryStore {
  readonly writes: string[][] = [];
  override async put(key: string, value: unknown): Promise<void> {
    this.writes.push([key]);
    return super.put(key, value);
  }
  override async batch(ops: readonly BatchOp[]): Promise<void> {
    this.writes.push(ops.map((o) => o.key));
    return super.batch(ops);
  }
  override async transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T> {
    const keys: string[] = [];
    const result = await super.transaction((tx) =>
      fn({
        get: (k) => tx.get(k),
        scan: (prefix, options) => tx.scan(prefix, options),
        put: (k, value) => (keys.push(k), tx.put(k, value)),
        delete: (k) => (keys.push(k), tx.delete(k)),
      }),
    );
    if (keys.length > 0) this.writes.push(keys);
    return result;
  }
}

let engine: Engine;
let store: RecordingStore;
let handler: (r: Request) => Promise<Response>;
let key: string;

const post = async (path: string, json: unknown) => {
  const res = await handler(
    new Request(`http://x${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    }),
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

beforeAll(async () => {
  store = new RecordingStore();
  engine = await createEngine({ store });
  await engine.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, [
    { id: 'persuasion', text: book('austen-persuasion') },
  ]);
  const keys = new KeyStore(store);
  ({ key } = await keys.createKey({
    account: 'acme',
    plan: 'pro',
    scopes: ['analyze', 'registry:read', 'registry:write', 'monitors'],
  }));
  handler = createHandler(engine, { keys });
});

/** The write call that stored `key`, and everything written with it. */
const writeOf = (k: string): string[] => store.writes.find((w) => w.includes(k)) ?? [];

describe('multi-record writes over HTTP are atomic', () => {
  it('analyze: the result and its owner record in one unit', async () => {
    const text = passageAt(book('austen-persuasion'), 50_000, 120).text;
    const r = await post('/api/v1/attribution/analyze', { content: text, content_type: 'text' });
    expect(r.status).toBe(200);
    const id = r.json.analysis_id as string;
    expect(writeOf(`analysis/${id}`)).toEqual(expect.arrayContaining([`analysis/${id}`, `analysis-by/${id}`]));
  });

  it('monitors/create: the monitor, its webhook secret and its owner record in one batch', async () => {
    const w = await post('/api/v1/content/register', {
      content: book('austen-persuasion').slice(0, 5000),
      title: 'Persuasion',
    });
    expect(w.status).toBeLessThan(300);
    const m = await post('/api/v1/monitors/create', {
      work_id: w.json.work_id,
      webhook: { url: 'https://hooks.example.org/trainprint', secret: 'whsec_0123456789abcdef' },
    });
    expect(m.status).toBe(201);
    const id = m.json.monitor_id as string;
    expect(writeOf(`monitor/${id}`)).toEqual(
      expect.arrayContaining([`monitor/${id}`, `monitor-secret/${id}`, `monitor-of/acme/${id}`]),
    );
  });
});
