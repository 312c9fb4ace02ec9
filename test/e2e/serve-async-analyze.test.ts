/**
 * `POST /api/v1/attribution/analyze` with `Prefer: respond-async` against the built `trainprint serve`: the analysis
 * is a job in the store, so it outlives the process that accepted it. The first process's analysis waits on a remote
 * corpus engine that never answers; SIGTERM stops it with the job unfinished; a second process on the same store dir
 * runs the job and answers its status (at the job URL and at the old alias) and its result — the analysis the
 * synchronous request answers there, the same JSON but for the analysis's own id and time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, requireBuiltCli, startServe, stopProcess } from '../fixtures/serve-process.js';
import { type SilentEngine, startSilentEngine } from '../fixtures/silent-engine.js';

let silent: SilentEngine;
let dir = '';
const running: ChildProcess[] = [];

const TEXT = {
  content:
    'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
    'documentation files (the "Software"), to deal in the Software without restriction.',
  content_type: 'text',
};

/** An analysis's JSON with its own id and time blanked: what two analyses of the same request share. */
const sameAnalysis = (text: string) =>
  text.replace(/"an_[0-9a-f]{32}"/g, '"an_"').replace(/"created_at":"[^"]+"/, '"created_at":""');

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-async-'));
  // a remote corpus engine that reads each request and never answers
  silent = await startSilentEngine();
});
afterAll(async () => {
  for (const p of running) await stopProcess(p);
  await silent?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('serve: a background analysis across a restart', () => {
  it('is finished and read by the next process on the same store', async () => {
    const store = join(dir, 'store');
    const base = ['--packs', 'none', '--port', '0', '--store', store];
    const first = await startServe(
      [...base, '--infini-gram', 'v4_piletrain_llama', '--infini-gram-endpoint', silent.url],
      { startMs: 30_000, running },
    );
    const accepted = await fetch(`${first.url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.dev}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify(TEXT),
    });
    expect(accepted.status).toBe(202);
    const job = (await accepted.json()) as { job_id: string; status_url: string; results_url: string };
    expect(accepted.headers.get('location')).toBe(job.status_url);
    for (let i = 0; i < 1000 && silent.requests() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(silent.requests()).toBeGreaterThan(0); // the analysis is running: it waits on the silent engine
    const gone = exited(first.child);
    first.child.kill('SIGTERM');
    await gone;

    const second = await startServe(base, { startMs: 30_000, running });
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${second.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${second.dev}`, 'content-type': 'application/json', ...init.headers },
      });
    let state = '';
    for (let i = 0; i < 1500 && state !== 'done'; i++) {
      state = ((await (await call(job.status_url)).json()) as { state: string }).state;
      if (state !== 'done') await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('done');
    const alias = (await (await call(`/api/v1/attribution/jobs/${job.job_id}`)).json()) as Record<string, unknown>;
    expect(alias).toMatchObject({ job_id: job.job_id, type: 'analyze', state: 'done', done: 1, failed: 0 });
    const lines = (await (await call(job.results_url)).text()).split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { index: number; success: boolean; result: Record<string, unknown> };
    expect(line).toMatchObject({ index: 0, success: true });
    const sync = await call('/api/v1/attribution/analyze', { method: 'POST', body: JSON.stringify(TEXT) });
    expect(sync.status).toBe(200);
    expect(sameAnalysis(JSON.stringify({ success: true, ...line.result }))).toBe(sameAnalysis(await sync.text()));
  }, 120_000);
});
