import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, MemoryStore, type Engine } from '../../src/index.js';
import { resetEndpoints, sharedCache } from '../../src/remote/index.js';
import { book } from '../fixtures/texts/index.js';
import { closedPort } from '../fixtures/closed-port.js';

describe('score against a remote corpus that does not answer', () => {
  let engine: Engine;
  let workHash: string;
  let workId: string;
  beforeAll(async () => {
    sharedCache.clear();
    resetEndpoints();
    const endpoint = `http://127.0.0.1:${await closedPort()}/`;
    const remote = { id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint, maxRetries: 0 } as const;
    engine = await createEngine({ store: new MemoryStore(), remoteCorpora: [remote] });
    const w = await engine.registerWork({ content: book('blake-poems').slice(0, 8_000), owner: 'acme' });
    workHash = w.work_hash;
    workId = w.work_id;
  });
  afterAll(() => engine?.dispose());

  it('says the datasets were not searched, never that nothing matched, and gives no narrow interval', async () => {
    const s = await engine.score({ work_hash: workHash, target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' });
    expect(s.remote_corpora.map((r) => r.outcome)).toEqual(['unreachable']);
    expect(s.limitations).toContain('remote_corpus_unreachable');
    expect(s.limitations).not.toContain('no_indexed_dataset_match');
    const reasons = s.tier_reasons.map((r) => r.code);
    expect(reasons).toContain('model_datasets_not_searched');
    expect(reasons).not.toContain('no_match_in_model_datasets');
    expect(s.reused_share.n_chunks).toBeGreaterThan(2);
    expect(s.reused_share.ci_95).toEqual([0, 1]);
    expect(s.ci_95).toEqual([0, 100]);
  });

  it("a monitor's models are each left unevaluated, the second not scored from the first's failed search", async () => {
    const monitor = await engine.createMonitor({
      work_id: workId,
      models: ['eleutherai/pythia-6.9b', 'eleutherai/pythia-12b'],
    });
    expect(await engine.evaluateMonitors()).toEqual([]);
    expect((await engine.getMonitor(monitor.monitor_id)).last).toEqual({});
  });
});
