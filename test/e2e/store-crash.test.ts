/**
 * The file store's crash test: a child process writes the deterministic stream of
 * test/fixtures/store-stream.ts (single puts and deletes, batches, transactions; 4 units in flight,
 * so group commit is on; compaction every 50 records) and prints each key right after the write
 * holding it resolved. The parent SIGKILLs it after a random delay (seeded; sometimes during
 * start-up and recovery, sometimes within a few ms of `ready`, sometimes later), reopens the store
 * (recovering the dead child's lock) and checks the model:
 *
 * - every acknowledged put whose deleting unit has not started is present, with its exact value;
 * - every acknowledged delete is absent;
 * - every present key belongs to a started unit and holds exactly its value (nothing torn or stale).
 *
 * Then the next child continues from the first unit the killed one had not finished (re-running a
 * unit is idempotent). No timing is asserted; the counts of interesting kill points are reported.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileStore } from '../../src/store/node.js';
import { isTrainprintError } from '../../src/errors.js';
import { prng } from '../reference/core.js';
import { bundleStoreChild } from '../fixtures/store-child-bundle.js';
import { isValueFor, unitAt, unitOfKey } from '../fixtures/store-stream.js';

const ITERATIONS = 220;
const COMPACT_EVERY = 50;
const LOCK_STALE_MS = 100;

async function generationOf(path: string): Promise<number | undefined> {
  const bytes = await readFile(path).catch(() => undefined);
  return bytes && bytes.length >= 12 ? bytes.readUInt32LE(8) : undefined;
}

describe('FileStore crash safety', () => {
  it(`every acknowledged write survives ${ITERATIONS} SIGKILLs`, { timeout: 150_000 }, async () => {
    const t0 = performance.now();
    const root = await mkdtemp(join(tmpdir(), 'trainprint-crash-'));
    const dir = join(root, 'store');
    const child = await bundleStoreChild(root);
    const rnd = prng(0x5eed_c0de);

    /** Key numbers that must be present: put acknowledged, deleting unit not started. */
    const live = new Set<number>();
    /** Key numbers whose delete was acknowledged: must be absent forever. */
    const deleted = new Set<number>();
    let maxStarted = -1;
    let nextUnit = 0;
    const stats = {
      kills: 0,
      killedBeforeReady: 0,
      ackedPuts: 0,
      ackedDeletes: 0,
      checks: 0,
      staleLocks: 0,
      unreadableLocks: 0,
      interruptedCompactions: 0,
      supersededLogs: 0,
      tornTails: 0,
      compactions: 0,
    };

    async function verify(): Promise<void> {
      const logBefore = (await stat(join(dir, 'store.log')).catch(() => undefined))?.size;
      let store: Awaited<ReturnType<typeof openFileStore>>;
      for (let attempt = 0; ; attempt++) {
        try {
          store = await openFileStore(dir, { compactEvery: COMPACT_EVERY, lockStaleMs: LOCK_STALE_MS });
          break;
        } catch (error) {
          // killed between creating the LOCK and filling it: stale once older than lockStaleMs
          if (!isTrainprintError(error, 'STORE_LOCKED') || !/unreadable/.test(error.message) || attempt > 0)
            throw error;
          stats.unreadableLocks++;
          await new Promise((r) => setTimeout(r, LOCK_STALE_MS + 50));
        }
      }
      const logAfter = (await stat(join(dir, 'store.log'))).size;
      if (logBefore !== undefined && logAfter < logBefore) stats.tornTails++;
      const present = new Map<number, unknown>();
      for (const [key, value] of await store.scan('k/')) present.set(Number(key.slice(2)), value);
      await store.close();
      for (const [n, value] of present) {
        if (deleted.has(n)) throw new Error(`k/${n}: its delete was acknowledged, yet it is present`);
        if (unitOfKey(n) > maxStarted) throw new Error(`k/${n}: present but its unit never started`);
        if (!isValueFor(value, n)) throw new Error(`k/${n}: wrong value ${JSON.stringify(value)}`);
      }
      for (const n of live) if (!present.has(n)) throw new Error(`k/${n}: acknowledged but missing`);
      stats.checks += live.size + deleted.size;
    }

    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const runStarted = new Set<number>();
      const runDone = new Set<number>();
      const proc = spawn(
        process.execPath,
        [child, 'write', dir, String(nextUnit), String(COMPACT_EVERY), String(LOCK_STALE_MS)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const kill = () => proc.kill('SIGKILL');
      const r = rnd();
      // 15%: any time from spawn (start-up, lock, recovery); else after `ready`: 40% within 3 ms, else up to 80 ms
      const killAfterReady = r >= 0.15;
      const delay = !killAfterReady ? rnd() * 90 : r < 0.49 ? rnd() * 3 : rnd() * 80;
      if (!killAfterReady) setTimeout(kill, delay);
      let ready = false;
      let buf = '';
      proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line === 'ready') {
            ready = true;
            if (killAfterReady) setTimeout(kill, delay);
          } else if (line.startsWith('s ')) {
            const u = Number(line.slice(2));
            runStarted.add(u);
            maxStarted = Math.max(maxStarted, u);
            for (const n of unitAt(u).deletes) live.delete(n); // may now be deleted or not
          } else if (line.startsWith('d ')) runDone.add(Number(line.slice(2)));
          else if (line.startsWith('+k/')) {
            live.add(Number(line.slice(3)));
            stats.ackedPuts++;
          } else if (line.startsWith('-k/')) {
            deleted.add(Number(line.slice(3)));
            stats.ackedDeletes++;
          } else throw new Error(`unexpected child output ${line}`);
        }
      });
      const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
        proc.on('close', (_code, sig) => resolve(sig)),
      );
      expect(signal).toBe('SIGKILL'); // it never stops by itself
      stats.kills++;
      if (!ready) stats.killedBeforeReady++;

      const files = await readdir(dir).catch(() => [] as string[]);
      if (files.length === 0) continue; // killed before it even created the directory
      if (files.includes('LOCK')) stats.staleLocks++;
      if (files.some((f) => f.endsWith('.tmp'))) stats.interruptedCompactions++;
      const [snapGen, logGen] = await Promise.all([
        generationOf(join(dir, 'snapshot')),
        generationOf(join(dir, 'store.log')),
      ]);
      if (snapGen !== undefined && logGen !== undefined && logGen + 1 === snapGen) stats.supersededLogs++;
      stats.compactions = snapGen ?? 0; // one generation per compaction

      await verify();
      const unfinished = [...runStarted].filter((u) => !runDone.has(u));
      nextUnit =
        unfinished.length > 0 ? Math.min(...unfinished) : runStarted.size > 0 ? Math.max(...runStarted) + 1 : nextUnit;
    }
    await verify();
    await rm(root, { recursive: true, force: true });

    const seconds = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(
      `store crash test: ${stats.kills} SIGKILLs (${stats.killedBeforeReady} before ready), ` +
        `${stats.ackedPuts} acknowledged puts + ${stats.ackedDeletes} acknowledged deletes, ` +
        `${stats.checks} acknowledged-write checks, ${nextUnit} units, ${stats.compactions} compactions; kills left ` +
        `${stats.staleLocks} stale locks, ${stats.unreadableLocks} unreadable locks, ${stats.interruptedCompactions} compactions mid-write, ` +
        `${stats.supersededLogs} compactions between renames, ${stats.tornTails} torn tails; ${seconds} s`,
    );
    // the run exercised the store: more acknowledged puts than kills, and compactions among them. Not a count of
    // writes per second: the kills fall at random times, so a loaded machine acknowledges fewer writes between them
    // (768 puts in a run beside other tests on 2 cores, 1,700–2,300 alone)
    expect(stats.ackedPuts).toBeGreaterThan(stats.kills);
    expect(stats.compactions).toBeGreaterThan(0);
  });
});
