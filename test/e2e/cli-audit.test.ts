/**
 * `trainprint audit` of the built CLI (dist/cli.js, `npm run build` first) on the small committed catalogue
 * test/fixtures/catalogue/ (three 400-word works and one too short to probe), against the fixture chat server on
 * 127.0.0.1 that memorised the first: that work reproduced, the two others not_found with their miss chance, the short
 * one too_short, the budget held; run again with its journal, no request reaches the server and the audit digest is
 * the same. Against a model URL that refuses connections: the first work `unanswered` (no verdict), the audit stopped there
 * (`stopped: upstream_errors` with the reason), exit code 1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemorisedServer, type MemorisedServer } from '../fixtures/memorised-chat-server.js';
import { spawn } from 'node:child_process';
import { cli, runCli } from '../fixtures/serve-process.js';
import { closedPort } from '../fixtures/closed-port.js';
import { countWords } from '../../src/util/space.js';

const catalogue = resolve(import.meta.dirname, '../fixtures/catalogue');
const held = readFileSync(join(catalogue, 'held.txt'), 'utf8').split(/\s+/).filter(Boolean);
let dir: string;
let server: MemorisedServer;

const run = (args: string[]) =>
  runCli(
    [
      'audit',
      catalogue,
      ...['--model-url', server.baseUrl, '--model', 'fixture-memo-1', '--chat', '--allow-private-model-hosts'],
      ...args,
    ],
    { cwd: dir, timeout: 120_000 },
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-audit-'));
  server = await startMemorisedServer({ words: held, held: [0, held.length], refuseEvery: 0 });
});
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint audit', () => {
  it('audits the committed catalogue under its budget, and replays it from the journal without a request', async () => {
    const r = await run(['--budget-calls', '120', '--journal', 'audit.journal', '--out', 'audit.json']);
    expect(r.code, r.stderr).toBe(0);
    const audit = JSON.parse(readFileSync(join(dir, 'audit.json'), 'utf8'));
    const verdicts = Object.fromEntries(audit.works.map((w: { id: string; verdict: string }) => [w.id, w.verdict]));
    expect(verdicts).toEqual({
      'held.txt': 'reproduced',
      'short.txt': 'too_short',
      'unseen-1.txt': 'not_found',
      'unseen-2.txt': 'not_found',
    });
    const work = audit.works.find((w: { id: string }) => w.id === 'held.txt');
    expect(work.nv_recall).toBeGreaterThan(0.5);
    expect(work.blocks.length).toBeGreaterThan(0);
    for (const w of audit.works.filter((x: { verdict: string }) => x.verdict === 'not_found'))
      expect(w.miss_probability).toBeCloseTo(0.5 ** w.probes, 4);
    expect(audit.catalogue).toMatchObject({ works: 4, measured: 3, reproduced: 1 });
    // each work's words as every door counts them (runs of non-space characters), said on stderr too
    for (const w of audit.works) {
      const words = countWords(readFileSync(join(catalogue, w.id), 'utf8'));
      expect(w.words).toBe(words);
      expect(r.stderr).toContain(`${w.id}: ${w.verdict}`);
      expect(r.stderr).toMatch(
        new RegExp(`${w.id.replace('.', '\\.')}: .*, a work of ${words.toLocaleString('en-US')} words\n`),
      );
    }
    expect(audit.calls).toBeLessThanOrEqual(120);
    const asked = server.requests();
    expect(asked).toBe(audit.calls);

    const again = await run(['--budget-calls', '120', '--journal', 'audit.journal', '--out', 'again.json']);
    expect(again.code, again.stderr).toBe(0);
    const replayed = JSON.parse(readFileSync(join(dir, 'again.json'), 'utf8'));
    expect(replayed.calls).toBe(audit.calls);
    expect(replayed.audit_sha256).toBe(audit.audit_sha256);
    expect(server.requests()).toBe(asked);
  }, 180_000);

  it('shows its calls on stderr as it goes; Ctrl-C says how to resume (exit 130), and the same command resumes from the journal', async () => {
    const slow = await startMemorisedServer({ words: held, held: [0, held.length], refuseEvery: 0, delayMs: 40 });
    try {
      const args = [
        cli,
        'audit',
        catalogue,
        ...['--model-url', slow.baseUrl, '--model', 'fixture-memo-1', '--chat', '--allow-private-model-hosts'],
        ...['--budget-calls', '120', '--concurrency', '1', '--journal', 'ctrl-c.journal', '--out', 'ctrl-c.json'],
      ];
      const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      // the first progress line (every 10 calls of a 120-call budget) is the moment to press Ctrl-C
      await new Promise<void>((ready) =>
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('audit: 10 calls made (budget 120)')) ready();
        }),
      );
      child.kill('SIGINT');
      const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
      expect(code, stderr).toBe(130);
      expect(stderr).toContain(
        'interrupted: the answered calls are in ctrl-c.journal; run the same command again to resume',
      );
      const made = slow.requests();
      const again = await runCli(args.slice(1), { cwd: dir, timeout: 120_000 });
      expect(again.code, again.stderr).toBe(0);
      const resumed = JSON.parse(readFileSync(join(dir, 'ctrl-c.json'), 'utf8'));
      const interruptedAndResumed = slow.requests();
      // the same audit as one uninterrupted run (another journal), its answered calls not asked again
      const whole = await runCli([...args.slice(1, -4), '--journal', 'whole.journal', '--out', 'whole.json'], {
        cwd: dir,
        timeout: 120_000,
      });
      expect(whole.code, whole.stderr).toBe(0);
      const full = JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8'));
      expect(resumed.audit_sha256).toBe(full.audit_sha256);
      // interrupted + resumed asked what one run asks, and at most the one call in flight at Ctrl-C again
      const oneRun = slow.requests() - interruptedAndResumed;
      expect(made).toBeGreaterThanOrEqual(10);
      expect(interruptedAndResumed).toBeLessThanOrEqual(oneRun + 1);
    } finally {
      await slow.close();
    }
  }, 180_000);

  it('a model URL that refuses connections: stopped on upstream errors with the failure, nothing measured, exit code 1', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const r = await runCli(
      [
        'audit',
        catalogue,
        ...['--model-url', url, '--model', 'm', '--chat', '--allow-private-model-hosts'],
        ...['--budget-calls', '60', '--out', 'down.json'],
      ],
      { cwd: dir, timeout: 120_000 },
    );
    expect(r.code, r.stderr).toBe(1);
    const audit = JSON.parse(readFileSync(join(dir, 'down.json'), 'utf8'));
    const verdicts = Object.fromEntries(audit.works.map((w: { id: string; verdict: string }) => [w.id, w.verdict]));
    // the first work's calls all failed: the audit stops there, the others untried, with the reason
    expect(verdicts).toEqual({
      'held.txt': 'unanswered',
      'short.txt': 'too_short',
      'unseen-1.txt': 'untried',
      'unseen-2.txt': 'untried',
    });
    const held = audit.works.find((x: { id: string }) => x.id === 'held.txt');
    expect([held.probes, held.error.code, held.miss_probability]).toEqual([0, 'UPSTREAM_UNREACHABLE', undefined]);
    expect(audit.catalogue).toMatchObject({ works: 4, measured: 0, reproduced: 0 });
    expect(audit.stopped).toBe('upstream_errors');
    expect(audit.error.code).toBe('UPSTREAM_UNREACHABLE');
    expect(r.stderr).toContain('held.txt: unanswered (UPSTREAM_UNREACHABLE');
    expect(r.stderr).toContain('stopped: upstream_errors (the model answered no call: UPSTREAM_UNREACHABLE');
  }, 180_000);
});
