/**
 * `kill -9` of `trainprint serve --store DIR` while monitors are being created: a monitor and its owner record
 * are written as one record, so after any number of kills
 *
 * - every monitor the server acknowledged (201) is listed for its owner after a restart, and
 * - the store holds no monitor without its owner record and no owner record without its monitor (an ownerless
 *   monitor would stay active and fire webhooks its owner can neither see, pause nor delete).
 *
 * A real server (dist/cli.js) on 127.0.0.1, killed at seeded random moments after its first acknowledged create;
 * bounded: CYCLES kills, a server must print its URL within 30 s, each create loop stops at the kill.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/store/node.js';
import { prng } from '../reference/core.js';
import { devFetch, exited, requireBuiltCli, startServe, type ServeProcess } from '../fixtures/serve-process.js';

const CYCLES = 10;
const IN_FLIGHT = 6;

const running: ChildProcess[] = [];
let dir = '';

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-kill-'));
});
afterAll(() => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const start = (store: string): Promise<ServeProcess> =>
  startServe(['--port', '0', '--packs', 'none', '--store', store], { running });

async function call(s: ServeProcess, method: string, path: string, json?: unknown) {
  const res = await devFetch(s, method, path, json);
  return { status: res.status, json: (await res.json()) as any };
}

describe('trainprint serve --store, killed while creating monitors', () => {
  it(`keeps every acknowledged monitor with its owner, and no monitor without one, over ${CYCLES} kills`, {
    timeout: 240_000,
  }, async () => {
    const store = join(dir, 'store');
    const rnd = prng(0xdead_5e7e);
    const acked = new Set<string>();
    let workId = '';
    let refusedOrCut = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const s = await start(store);
      if (!workId) {
        const w = await call(s, 'POST', '/api/v1/content/register', {
          content: 'A short essay its author monitors while the server that holds it is killed again and again.',
        });
        expect(w.status).toBe(201);
        workId = w.json.work_id;
      }
      let killed = false;
      let first = true;
      const killAfter = 20 + rnd() * 250;
      const worker = async (): Promise<void> => {
        while (!killed) {
          try {
            const r = await call(s, 'POST', '/api/v1/monitors/create', { work_id: workId });
            if (r.status === 201) {
              acked.add(r.json.monitor_id);
              if (first) {
                first = false;
                setTimeout(() => {
                  killed = true;
                  s.child.kill('SIGKILL');
                }, killAfter);
              }
            } else refusedOrCut++;
          } catch {
            refusedOrCut++; // the connection died with the server: not acknowledged
            if (killed) return;
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      await exited(s.child);
    }
    expect(acked.size).toBeGreaterThan(CYCLES);

    // a last start: every acknowledged monitor is the owner's
    const s = await start(store);
    const r = await call(s, 'GET', `/api/v1/monitors?work_id=${workId}`);
    expect(r.status).toBe(200);
    const listed = new Set<string>(r.json.monitors.map((m: { monitor_id: string }) => m.monitor_id));
    for (const id of acked) expect(listed.has(id), `acknowledged monitor ${id} is listed`).toBe(true);
    s.child.kill('SIGTERM');
    await exited(s.child);

    // and the store has no half-written pair
    const opened = await openFileStore(store);
    const monitors = new Set((await opened.scan('monitor/')).map(([k]) => k.slice('monitor/'.length)));
    // the owner index is `monitor-of/<owner>/<monitor_id>`: the id is the last segment
    const owners = new Set((await opened.scan('monitor-of/')).map(([k]) => k.slice(k.lastIndexOf('/') + 1)));
    await opened.close();
    expect([...monitors].filter((id) => !owners.has(id))).toEqual([]);
    expect([...owners].filter((id) => !monitors.has(id))).toEqual([]);
    expect(monitors.size).toBeGreaterThanOrEqual(acked.size);
    console.log(
      `serve-kill: ${CYCLES} kills, ${acked.size} acknowledged monitors, ${monitors.size} stored, ` +
        `${refusedOrCut} requests refused or cut by a kill`,
    );
  });
});
