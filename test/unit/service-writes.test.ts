/**
 * Service operations that write several records write them as one unit (one store batch or
 * transaction: one log record in the file store, so all or nothing across a crash). A store that
 * records the keys of each write unit checks: createMonitor (monitor + its secret), registerWork
 * (work, hash index, text), a monitor evaluation (the monitor, its events and their webhook
 * deliveries), the receipt key, analyze.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { MemoryStore } from '../../src/store/index.js';
import type { BatchOp, Transaction } from '../../src/store/types.js';
import { passageAt } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';

/** A MemoryStore that records the keys written by each unit (put, delete, batch, transaction). */
class RecordingStore extends MemoryStore {
  readonly units: string[][] = [];

  override async put(key: string, value: unknown): Promise<void> {
    await super.put(key, value);
    this.units.push([key]);
  }

  override async delete(key: string): Promise<boolean> {
    const existed = await super.delete(key);
    this.units.push([key]);
    return existed;
  }

  override async batch(ops: readonly BatchOp[]): Promise<void> {
    await super.batch(ops);
    this.units.push(ops.map((op) => op.key));
  }

  override async transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T> {
    const keys: string[] = [];
    const result = await super.transaction((tx) =>
      fn({
        get: (key) => tx.get(key),
        scan: (prefix, options) => tx.scan(prefix, options),
        put: (key, value) => (keys.push(key), tx.put(key, value)),
        delete: (key) => (keys.push(key), tx.delete(key)),
      }),
    );
    if (keys.length > 0) this.units.push(keys);
    return result;
  }

  /** The units that wrote a key starting with `prefix`. */
  unitsWith(prefix: string): string[][] {
    return this.units.filter((u) => u.some((k) => k.startsWith(prefix)));
  }
}

const kinds = (unit: string[]): string[] => [...new Set(unit.map((k) => k.slice(0, k.indexOf('/'))))].sort();

describe('multi-record service writes are one unit each', () => {
  it('registerWork, createMonitor, an evaluation with events and deliveries, analyze', async () => {
    const store = new RecordingStore();
    const posted: string[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      posted.push(String(init.body));
      return new Response(null, { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    const engine = await createEngine({ store, webhooks: { fetch } });
    const text = passageAt(book('chesterton-thursday'), 40_000, 1_000).text;

    const w = await engine.registerWork({ content: text, owner: 'estate', title: 'Thursday' });
    expect(store.unitsWith('work/').map(kinds)).toEqual([['work', 'work-hash', 'work-text']]);
    expect(store.unitsWith('config/')).toHaveLength(1); // the receipt key: created once, in its own unit

    const m = await engine.createMonitor({
      work_id: w.work_id,
      models: ['meta/llama-7b'],
      webhook: { url: 'https://hooks.example/x', secret: 'whsec_0123456789abcdef' },
    });
    expect(store.unitsWith('monitor-secret/')).toEqual([[`monitor/${m.monitor_id}`, `monitor-secret/${m.monitor_id}`]]);

    const documents = [{ id: 'thursday', text: book('chesterton-thursday') }];
    await engine.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, documents);
    await engine.monitorsIdle();
    const events = await engine.listEvents({ monitor_id: m.monitor_id });
    expect(events.length).toBeGreaterThan(0);
    // the events, the monitor's new state and one delivery per event: one transaction
    const [evaluation, ...others] = store.unitsWith('event/');
    expect(others).toEqual([]);
    expect(kinds(evaluation)).toEqual(['delivery', 'delivery-due', 'event', 'monitor']);
    expect(evaluation.filter((k) => k.startsWith('delivery/'))).toHaveLength(events.length);
    expect(posted).toHaveLength(events.length); // and they were delivered
    expect((await engine.webhooks.list()).map((d) => d.state)).toEqual(events.map(() => 'delivered'));

    const before = store.units.length;
    await engine.analyze({ content: text.slice(0, 2000), content_type: 'text' });
    // the result, what is kept beside it (its text and transcripts) and its retention record, in one transaction
    expect(store.units.slice(before).map(kinds)).toEqual([['analysis', 'analysis-due', 'analysis-record']]);
    await engine.stopMonitoring();
  });
});
