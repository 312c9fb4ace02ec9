/**
 * Two engines on one store — two server processes on a PostgreSQL store — both load the dataset that
 * makes a monitor fire, and both evaluate it at once: its events are logged and delivered once, not
 * once per process (the later evaluation finds the monitor already evaluated and drops its own). On
 * one MemoryStore the two evaluations happen not to overlap; on PostgreSQL they do (without the
 * check, two match.found events).
 */
import { describe, expect, it } from 'vitest';
import { createEngine, MemoryStore } from '../../src/index.js';
import { openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import { passageAt } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';
import { describePostgres } from '../pg/postgres.js';

function sharedMonitors(name: string, open: () => Promise<[Store, Store, () => Promise<void>]>): void {
  describe(`${name}: monitors evaluated by two engines`, () => {
    it('emit and deliver each event once', async () => {
      const [a, b, close] = await open();
      const posted: string[] = [];
      const fetch = (async (_url: string, init: RequestInit) => {
        posted.push(String(init.body));
        return new Response(null, { status: 200 });
      }) as unknown as typeof globalThis.fetch;
      const [one, two] = await Promise.all([a, b].map((store) => createEngine({ store, webhooks: { fetch } })));
      const text = passageAt(book('chesterton-thursday'), 40_000, 1_000).text;
      const w = await one.registerWork({ content: text, owner: 'estate', title: 'Thursday' });
      const m = await one.createMonitor({
        work_id: w.work_id,
        models: ['meta/llama-7b'],
        webhook: { url: 'https://hooks.example/x', secret: 'whsec_0123456789abcdef' },
      });
      const documents = [{ id: 'thursday', text: book('chesterton-thursday') }];
      await Promise.all([one, two].map((e) => e.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, documents)));
      await Promise.all([one.monitorsIdle(), two.monitorsIdle()]);
      const events = await two.listEvents({ monitor_id: m.monitor_id });
      expect(events.length).toBeGreaterThan(0);
      expect(new Set(events.map((e) => e.type)).size).toBe(events.length); // no event twice
      await Promise.all([one.webhooks.runDue(), two.webhooks.runDue()]);
      expect(posted.length).toBe(events.length);
      await Promise.all([one.stopMonitoring(), two.stopMonitoring()]);
      await close();
    });
  });
}

sharedMonitors('MemoryStore', async () => {
  const s = new MemoryStore();
  return [s, s, () => s.close()];
});
describePostgres('PostgreSQL', (pg) => {
  sharedMonitors('PostgresStore', async () => {
    const schema = pg.schema();
    const [a, b] = await Promise.all([openPostgresStore(pg.url, { schema }), openPostgresStore(pg.url, { schema })]);
    return [
      a,
      b,
      async () => {
        await Promise.all([a.close(), b.close()]);
      },
    ];
  });
});
