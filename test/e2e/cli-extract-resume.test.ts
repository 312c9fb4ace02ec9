/**
 * `trainprint extract --journal` of the built CLI (dist/cli.js, `npm run build` first) on an EPUB against
 * `trainprint model serve --generations-only` (byte-gpt-inserted, chat completions), killed with SIGKILL part-way
 * and run again with the same journal: no request the model answered before the kill is asked again (a proxy in
 * this process logs every answered request body), the resumed run replays them and measures what a run never
 * killed measures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEpub } from '../fixtures/documents.js';
import {
  cli,
  exited,
  requireBuiltCli,
  runCli,
  startModelServe,
  stopProcess,
  type ModelServeProcess,
} from '../fixtures/serve-process.js';

interface Doc {
  id: string;
  text: string;
  times?: number;
}
const manifest = JSON.parse(
  readFileSync(new URL('../../models/byte-gpt-inserted/manifest.json', import.meta.url), 'utf8'),
) as { inserted: Doc[] };
const work = manifest.inserted.filter((d) => d.id.startsWith('work:') && d.times === 16)[0];

let dir: string;
let model: ModelServeProcess;
const running: ChildProcess[] = [];

/**
 * A proxy before the model: logs the body of every request answered, and holds new ones while `hold` is set. A
 * request still on its way to the model when `hold` is set, or when the client it came from was killed (`run`
 * moved on), is never answered nor logged: a run's answer arriving after the kill would otherwise be logged while
 * the resumed run is counted.
 */
const proxy = { answered: [] as string[], hold: false, run: 0, url: '', server: null as Server | null };

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-extract-resume-'));
  const paragraphs = work.text.split(/\n+/);
  const half = Math.ceil(paragraphs.length / 2);
  writeFileSync(
    join(dir, 'work.epub'),
    buildEpub([
      { title: 'One', text: paragraphs.slice(0, half).join('\n\n') },
      { title: 'Two', text: paragraphs.slice(half).join('\n\n') },
    ]),
  );
  model = await startModelServe('byte-gpt-inserted', ['--generations-only'], { startMs: 60_000, running });
  proxy.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (proxy.hold) return; // never answered: the killed client's call in flight
      const run = proxy.run;
      const body = Buffer.concat(chunks).toString('utf8');
      const r = await fetch(`${model.url}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const answer = Buffer.from(await r.arrayBuffer());
      if (proxy.hold || run !== proxy.run) return; // held meanwhile, or its client was killed
      proxy.answered.push(body);
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(proxy.server!.address() as AddressInfo).port}/v1`;
}, 90_000);

afterAll(async () => {
  proxy.server?.closeAllConnections();
  await new Promise((resolve) => proxy.server?.close(resolve));
  await Promise.all(running.map(stopProcess));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const args = (out: string, journal?: string) => [
  'extract',
  'work.epub',
  '--model-url',
  proxy.url,
  '--model',
  'byte-gpt-inserted',
  '--chat',
  '--budget-calls',
  '60',
  '--probes',
  '3',
  '--max-tokens',
  '160',
  '--concurrency',
  '1',
  '--out',
  out,
  '--allow-private-model-hosts',
  ...(journal ? ['--journal', journal] : []),
];

const journalLines = () => {
  try {
    return readFileSync(join(dir, 'run.journal'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe('trainprint extract --journal, killed and resumed', () => {
  it('repeats no answered request after kill -9 and measures what an unkilled run measures', async () => {
    // the unkilled run, for comparison
    const whole = await runCli(args('whole.json'), { cwd: dir, timeout: 240_000 });
    expect(whole.code, whole.stderr).toBe(0);
    const reference = JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8'));
    expect(reference.calls).toBeGreaterThan(4);
    proxy.answered.length = 0;

    // the run to kill: once three calls are answered and journaled, hold the next one and kill -9
    const child = spawn(process.execPath, [cli, ...args('killed.json', 'run.journal')], {
      cwd: dir,
      stdio: 'ignore',
    });
    running.push(child);
    for (let i = 0; i < 2400 && !(proxy.answered.length >= 3 && journalLines() === proxy.answered.length + 1); i++) {
      if (proxy.answered.length >= 3) proxy.hold = true;
      await new Promise((r) => setTimeout(r, 50));
    }
    proxy.hold = true;
    // the journal has every answered call (header + one line each) before the kill
    expect(journalLines()).toBe(proxy.answered.length + 1);
    child.kill('SIGKILL');
    await exited(child);
    const before = [...proxy.answered];
    proxy.run++;
    proxy.hold = false;

    const resumed = await runCli(args('resumed.json', 'run.journal'), { cwd: dir, timeout: 240_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/replayed from run\.journal/);
    const after = proxy.answered.slice(before.length);
    expect(after.filter((b) => before.includes(b))).toEqual([]);
    const r = JSON.parse(readFileSync(join(dir, 'resumed.json'), 'utf8'));
    expect(r.replayed_calls).toBe(before.length);
    expect(r.calls).toBe(before.length + after.length);
    expect(r.nv_recall).toBe(reference.nv_recall);
    expect(r.blocks.map((b: { start: number; end: number }) => [b.start, b.end])).toEqual(
      reference.blocks.map((b: { start: number; end: number }) => [b.start, b.end]),
    );
    expect(r.calls).toBe(reference.calls);
  }, 600_000);
});
