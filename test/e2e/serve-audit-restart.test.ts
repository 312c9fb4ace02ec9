/**
 * A catalogue audit sent without a key to `trainprint serve --store DIR` (a real process, dist/cli.js), against the
 * fixture chat model on 127.0.0.1 (test/fixtures/memorised-chat-server.ts): the server is killed (SIGKILL) once the
 * audit is under way and started again on the same store. The job resumes by itself — its item holds no secret, so
 * the new process builds its model from what was stored — and ends with the `audit_sha256` of one uninterrupted run
 * (the same catalogue audited in process against the same answers), no journaled call asked again (only those in
 * flight at the kill), charged once: the unit of the calls it made, not its budget twice.
 *
 * No clock decides anything here: the kill waits for the model's tenth answer, the new process takes the item once
 * the dead one's lease lapses, and the test waits for the job's end (its timeout only bounds a hang). The lease is
 * `--job-lease-s 10` rather than the default 60 s, which this test would otherwise wait out: renewed every 3.3 s, it
 * still outlasts a late renewal on a loaded machine, and the resume it proves is the same at any lease.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import { devFetch, exited, requireBuiltCli, startServe, type ServeProcess } from '../fixtures/serve-process.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const { words } = syntheticWork(3, 300, 13);
const works = [
  { id: 'held.txt', text: words.slice(0, 300).join(' ') },
  { id: 'unseen-1.txt', text: words.slice(300, 600).join(' ') },
  { id: 'unseen-2.txt', text: words.slice(600, 900).join(' ') },
];
const OPTIONS = { budget_calls: 150, first_probes: 3, prompt_variants: 1 } as const;
const CONCURRENCY = 4;
/** The lease of a chunk (see above): what the new process waits out after the kill. */
const LEASE = ['--job-lease-s', '10'];

const running: ChildProcess[] = [];
let dir = '';
let model: MemorisedServer;

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-audit-restart-'));
  // a model that takes its time: the audit is still under way when the server is killed
  model = await startMemorisedServer({ words, held: [0, 300], delayMs: 40 });
});
afterAll(async () => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const start = (): Promise<ServeProcess> =>
  startServe(
    ['--port', '0', '--packs', 'none', '--store', join(dir, 'store'), '--allow-private-model-hosts', ...LEASE],
    {
      running,
    },
  );

async function call(s: ServeProcess, method: string, path: string, json?: unknown) {
  const res = await devFetch(s, method, path, json);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The units left to the development key's account today (a read: not charged). */
const left = async (s: ServeProcess) =>
  Number((await call(s, 'GET', '/api/v1/jobs')).headers.get('ratelimit-remaining'));

/** Resolves once `check` holds, asking again after each model answer or store write settles (no deadline). */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describe('trainprint serve --store, killed mid-audit and started again', () => {
  it('resumes the audit without a key: one audit_sha256, no journaled call asked again, charged once', {
    timeout: 300_000,
  }, async () => {
    let s = await start();
    const before = await left(s);
    const item = {
      works,
      model: { base_url: model.baseUrl, model: 'fixture-memo-1', api: 'chat' },
      concurrency: CONCURRENCY,
      ...OPTIONS,
    };
    const submitted = await call(s, 'POST', '/api/v1/jobs', { type: 'audit', items: [item] });
    expect(submitted.status, submitted.text).toBe(202);
    const job = JSON.parse(submitted.text);
    expect(job.notice).toBeUndefined(); // no key: nothing held in memory only

    await until(() => model.requests() >= 10);
    s.child.kill('SIGKILL');
    await exited(s.child);
    const atKill = model.requests();

    s = await start();
    let state = '';
    await until(async () => {
      state = JSON.parse((await call(s, 'GET', job.status_url)).text).state;
      return ['done', 'failed', 'cancelled'].includes(state);
    });
    expect(state).toBe('done');
    const lines = (await call(s, 'GET', job.results_url)).text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line.success, JSON.stringify(line.error)).toBe(true);
    // the new process made the calls the dead one had not: nothing journaled was asked again
    expect(model.requests()).toBeGreaterThan(atKill);
    const asked = model.bodies();
    expect(asked.length - new Set(asked).size).toBeLessThanOrEqual(CONCURRENCY);
    // charged once, for the calls it made (fewer than 100: one unit of the two its budget reserved)
    expect(line.result.calls).toBeLessThan(100);
    expect(before - (await left(s))).toBe(1);

    // one uninterrupted run, in process, against the same answers: the same audit
    const engine = await createEngine();
    try {
      const local = await engine.memorization.auditCatalogue({
        model: createOpenAICompatibleModel({ baseUrl: model.baseUrl, model: 'fixture-memo-1', api: 'chat' }),
        works,
        concurrency: 1,
        ...OPTIONS,
      });
      expect(line.result.audit_sha256).toBe(local.audit_sha256);
    } finally {
      engine.dispose();
    }
    s.child.kill('SIGTERM');
    await exited(s.child);
  });
});
