/**
 * `trainprint serve --workers 2 --store postgres://…` (the built CLI): one primary process makes the keys once and
 * forks two worker processes that serve on one port; a worker killed with SIGKILL is replaced while the service keeps
 * answering; SIGTERM to the primary drains and stops every process. `--workers 2` without a PostgreSQL store is a
 * usage error (a file or memory store belongs to one process). A `Prefer: respond-async` analysis submitted through
 * one worker is polled and read through either, and through the replacement of a killed one.
 *
 * Bounded: the server must print its URL within 60 s; waits are polled at most 30 s.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../pg/postgres.js';
import { cli, requireBuiltCli, startServe } from '../fixtures/serve-process.js';

let primary: ChildProcess | undefined;

beforeAll(() => {
  requireBuiltCli();
});
afterAll(() => {
  if (primary && primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
});

/** The pids of `pid`'s child processes (Linux /proc, through pgrep). */
function children(pid: number): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-P', String(pid)], (_err, stdout) => resolve(stdout.split('\n').filter(Boolean).map(Number)));
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

it('--workers 2 without a PostgreSQL store is a usage error', async () => {
  const code = await new Promise<number | null>((resolve) => {
    execFile(process.execPath, [cli, 'serve', '--workers', '2', '--port', '0'], { timeout: 30_000 }, (err) =>
      resolve(err ? ((err as { code?: number }).code ?? null) : 0),
    );
  });
  expect(code).toBe(2);
});

describePostgres('trainprint serve --workers 2 on PostgreSQL', (db) => {
  it('serves from two processes, keeps datasets as loaded, replaces a killed one, stops on SIGTERM', {
    timeout: 120_000,
  }, async () => {
    const store = new URL(db.url);
    store.searchParams.set('schema', db.schema());
    const args = ['--port', '0', '--packs', 'none', '--workers', '2', '--store', store.toString()];
    const served = await startServe(args, { startMs: 60_000 });
    const { child, url, dev: key } = served;
    primary = child;
    const out = served.out;
    expect(key).toBeDefined();
    expect(out()).toMatch(/2 worker processes/);
    expect((await children(child.pid!)).length).toBe(2);

    const analyze = async () =>
      (
        await fetch(`${url}/api/v1/attribution/analyze`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            content: 'Permission is hereby granted, free of charge, to any person',
            content_type: 'text',
          }),
        })
      ).status;
    const first = await Promise.all(Array.from({ length: 20 }, analyze));
    expect(first.every((s) => s === 200)).toBe(true);

    // a background analysis is a job in the store: submitted through one process, polled and read through either
    // (20 requests at once go over as many connections, which the primary deals to both workers in turn)
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const grant = { content: 'Permission is hereby granted, free of charge, to any person', content_type: 'text' };
    const accepted = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { ...headers, prefer: 'respond-async' },
      body: JSON.stringify(grant),
    });
    expect(accepted.status).toBe(202);
    const job = (await accepted.json()) as { job_id: string; status_url: string; results_url: string };
    const status = (path: string) => fetch(`${url}${path}`, { headers }).then((r) => r.json());
    const done = await until('the background analysis', async () => {
      const s = (await status(job.status_url)) as { state: string };
      return s.state === 'done' ? s : undefined;
    });
    const polls = await Promise.all(Array.from({ length: 20 }, () => status(`/api/v1/attribution/jobs/${job.job_id}`)));
    for (const p of polls) expect(p).toEqual(done);
    const resultLine = () => fetch(`${url}${job.results_url}`, { headers }).then((r) => r.text());
    const line = await resultLine();
    expect(JSON.parse(line)).toMatchObject({ index: 0, success: true });
    // the analysis the synchronous request answers, the same JSON but for its own id and time
    const sync = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers,
      body: JSON.stringify(grant),
    });
    const blank = (t: string) =>
      t.replace(/"an_[0-9a-f]{32}"/g, '"an_"').replace(/"created_at":"[^"]+"/, '"created_at":""');
    expect(blank(JSON.stringify({ success: true, ...JSON.parse(line).result }))).toBe(blank(await sync.text()));
    expect(await Promise.all(Array.from({ length: 20 }, resultLine))).toEqual(Array(20).fill(line));

    // each process loaded the datasets itself: a change through one would be missing in the other, so none is taken
    const writer = await new Promise<string>((resolve, reject) => {
      const argv = [
        cli,
        'keys',
        'create',
        '--store',
        store.toString(),
        '--account',
        'ops',
        '--scopes',
        'datasets:write',
      ];
      execFile(process.execPath, argv, { timeout: 30_000 }, (err, stdout) =>
        err ? reject(err) : resolve((JSON.parse(stdout) as { key: string }).key),
      );
    });
    const created = await fetch(`${url}/api/v1/datasets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'made-in-one-process' }),
    });
    expect(created.status).toBe(409);
    expect(((await created.json()) as { error: { message: string } }).error.message).toMatch(
      /2 processes each load them/,
    );

    // a worker dies: the primary forks another, and the service keeps answering meanwhile
    const [victim] = await children(child.pid!);
    process.kill(victim, 'SIGKILL');
    const replaced = await until('a replacement worker', async () => {
      const now = await children(child.pid!);
      return now.length === 2 && !now.includes(victim) ? now : undefined;
    });
    expect(replaced).not.toContain(victim);
    await until('the replacement serving', async () =>
      (await fetch(`${url}/readyz`)
        .then((r) => r.status)
        .catch(() => 0)) === 200
        ? true
        : undefined,
    );
    const second = await Promise.all(Array.from({ length: 20 }, analyze));
    expect(second.every((s) => s === 200)).toBe(true);
    // the replacement, started after the analysis was submitted, reads it as well
    expect(await Promise.all(Array.from({ length: 20 }, resultLine))).toEqual(Array(20).fill(line));
    expect(out()).toMatch(/worker \d exited \(SIGKILL\): starting another/);

    // SIGTERM to the primary stops everything
    const workers = await children(child.pid!);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow(); // gone
  });
});
