/**
 * Monitors (src/services/monitors/monitors.ts) end to end: a registered work, a monitor with a webhook to a
 * real receiver on 127.0.0.1; adding a dataset that holds the work produces `match.found`, signed
 * and verified by the receiver; removing it produces `score.changed`; pause/resume/delete; bad input.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { verifySignature, SIGNATURE_HEADER } from '../../src/services/monitors/webhook.js';
import { passageAt } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';

const code = (c: string) => expect.objectContaining({ code: c });
const SECRET = 'whsec_monitor_test_secret_0123456789';

describe('monitors', () => {
  let server: Server;
  let url: string;
  const received: Array<{
    verified: boolean;
    body: { type: string; data: { model: string; flagged_chunks: number } };
  }> = [];
  let engine: Engine;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        const verified = await verifySignature(SECRET, body, String(req.headers[SIGNATURE_HEADER.toLowerCase()] ?? ''));
        received.push({ verified, body: JSON.parse(body) });
        res.writeHead(verified ? 200 : 400).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    engine = await createEngine();
  });
  afterAll(async () => {
    await engine.stopMonitoring();
    await new Promise((r) => server.close(r));
  });

  it('emits match.found when a dataset with the work arrives, score.changed when it goes; delivers them signed', async () => {
    const content = passageAt(book('chesterton-thursday'), 40_000, 1_000).text;
    const w = await engine.registerWork({ content, owner: 'estate' });
    const m = await engine.createMonitor({
      work_id: w.work_id,
      models: ['meta/llama-7b'],
      webhook: { url, secret: SECRET },
    });
    expect(m).toMatchObject({
      state: 'active',
      webhook: { url },
      events: ['match.found', 'score.changed'],
      jurisdiction: 'US',
    });
    expect(JSON.stringify(m)).not.toContain(SECRET);
    // nothing indexed yet: a baseline, no events
    expect(await engine.evaluateMonitors()).toEqual([]);
    await engine.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, [
      { id: 'thursday', text: book('chesterton-thursday') },
    ]);
    await engine.monitorsIdle();
    let events = await engine.listEvents({ monitor_id: m.monitor_id });
    expect(events.map((e) => e.type)).toEqual(['match.found', 'score.changed']);
    expect(events[0].data).toMatchObject({
      model: 'meta/llama-7b',
      trigger: 'pg',
      previous_flagged_chunks: 0,
      datasets: ['pg'],
      previous_tier: 'inconclusive',
      tier: 'confirmed',
    });
    expect(events[0].data.flagged_chunks).toBeGreaterThanOrEqual(4);
    expect(events[1].data.score).toBeGreaterThan(events[1].data.previous_score!);
    // deliveries run concurrently: compare as a set
    expect(received.map((r) => `${r.verified}:${r.body.type}`).sort()).toEqual([
      'true:match.found',
      'true:score.changed',
    ]);
    const deliveries = await engine.webhooks.list({ subscription_id: m.monitor_id });
    expect(deliveries.map((d) => d.state)).toEqual(['delivered', 'delivered']);
    // the same again: no new event
    expect(await engine.evaluateMonitors()).toEqual([]);
    // removed: the score drops
    engine.removeDataset('pg');
    await engine.monitorsIdle();
    events = await engine.listEvents({ monitor_id: m.monitor_id });
    expect(events.map((e) => e.type)).toEqual(['match.found', 'score.changed', 'score.changed']);
    expect(events[2].data.score).toBeLessThan(events[2].data.previous_score!);
    expect(received.map((r) => r.verified)).toEqual([true, true, true]);
  });

  it('pause, resume, delete; filters by dataset; validates', async () => {
    const w = await engine.registerWork({
      content: passageAt(book('austen-persuasion'), 10_000, 600).text,
      owner: 'o',
    });
    const m = await engine.createMonitor({
      work_hash: w.work_hash,
      models: ['meta/llama-7b'],
      datasets: ['only-this'],
      events: ['match.found'],
    });
    expect((await engine.pauseMonitor(m.monitor_id)).state).toBe('paused');
    await engine.addDataset({ id: 'only-this', kb_dataset: 'project-gutenberg' }, [
      { id: 'p', text: book('austen-persuasion') },
    ]);
    await engine.monitorsIdle();
    expect(await engine.listEvents({ monitor_id: m.monitor_id })).toEqual([]);
    expect((await engine.resumeMonitor(m.monitor_id)).state).toBe('active');
    const ev = await engine.evaluateMonitors();
    expect(ev.filter((e) => e.data.monitor_id === m.monitor_id).map((e) => e.type)).toEqual(['match.found']);
    expect((await engine.listMonitors({ work_id: w.work_id })).map((x) => x.monitor_id)).toEqual([m.monitor_id]);
    expect(await engine.deleteMonitor(m.monitor_id)).toBe(true);
    expect(await engine.deleteMonitor(m.monitor_id)).toBe(false);
    await expect(engine.getMonitor(m.monitor_id)).rejects.toEqual(code('NOT_FOUND'));
    const bad: unknown[] = [
      {},
      { work_id: w.work_id, work_hash: w.work_hash },
      { work_id: 'wk_' + '0'.repeat(32) },
      { work_id: w.work_id, models: [] },
      { work_id: w.work_id, models: ['acme/x'] },
      { work_id: w.work_id, webhook: { url: 'ftp://x', secret: SECRET } },
      { work_id: w.work_id, webhook: { url, secret: 'short' } },
      { work_id: w.work_id, events: ['match.lost'] },
      { work_id: w.work_id, jurisdiction: 'EU-DE' },
      { work_id: w.work_id, extra: 1 },
    ];
    for (const r of bad)
      await expect(engine.createMonitor(r as never), JSON.stringify(r)).rejects.toMatchObject({
        name: 'TrainprintError',
      });
    expect(() => engine.startMonitoring(1)).toThrow(code('INVALID_OPTIONS'));
  });
});
