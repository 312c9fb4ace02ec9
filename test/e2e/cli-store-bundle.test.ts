/**
 * One evidence record at every door: `trainprint serve --store DIR` (the built CLI, a real process) analyses a work,
 * an extract job and an audit job of the same account measure it against a local chat model, and the server's bundle
 * carries both; then, the server stopped, `trainprint report --store DIR --analysis ID --account NAME --bundle FILE`
 * makes the bundle from the same store — the same members but its time and signature, signed by the same report key —
 * and `trainprint verify` checks it offline, pinned to the server's `GET /api/v1/report-key`, every check ok.
 * `trainprint analyze --bundle` signs its own analysis (a key made for the run: valid, not pinned).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';
import { requireBuiltCli, runCli, startServe, stopProcess, type ServeProcess } from '../fixtures/serve-process.js';

const { words } = syntheticWork(3, 300, 23);
const works = [
  { id: 'held.txt', text: words.slice(0, 300).join(' ') },
  { id: 'unseen.txt', text: words.slice(300, 600).join(' ') },
];
let dir: string;
let model: MemorisedServer;
let serve: ServeProcess;
const running: ChildProcess[] = [];
const file = (name: string) => join(dir, name);

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${serve.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${serve.dev}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
}

/** Waits for a job's end by its status (no deadline of its own: the test's timeout bounds it), then its one line. */
async function jobResult(job: { status_url: string; results_url: string }) {
  for (;;) {
    const s = await call('GET', job.status_url);
    if (['done', 'failed', 'cancelled'].includes(s.json.state)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const lines = (await call('GET', job.results_url)).text.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

/** A bundle without what differs between two signings of one record: its time and the signature's value. */
function unsignedMembers(bundle: Record<string, any>) {
  const { created_at: _c, signature, ...rest } = bundle;
  const { value: _v, ...key } = signature;
  return { ...rest, key };
}

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-store-bundle-'));
  model = await startMemorisedServer({ words, held: [0, 300] });
  serve = await startServe(
    ['--store', file('store'), '--port', '0', '--packs', 'none', '--allow-private-model-hosts'],
    { running, startMs: 60_000 },
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map(stopProcess));
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the evidence record of a stored analysis, from HTTP and from the CLI', () => {
  it("the CLI's bundle of the server's store carries the account's extraction and audit and verifies pinned", async () => {
    const held = works[0].text;
    const analysed = await call('POST', '/api/v1/attribution/analyze', { content: held, content_type: 'text' });
    expect(analysed.status, analysed.text.slice(0, 300)).toBe(200);
    const id = analysed.json.analysis_id as string;
    const modelRef = { base_url: model.baseUrl, model: 'fixture-memo-1', api: 'chat' };
    const extract = await call('POST', '/api/v1/jobs', {
      type: 'extract',
      items: [{ text: held, model: modelRef, budget_calls: 60, prompt_variants: 1 }],
    });
    expect(extract.status, extract.text).toBe(202);
    const audit = await call('POST', '/api/v1/jobs', {
      type: 'audit',
      items: [{ works, model: modelRef, budget_calls: 80, concurrency: 2 }],
    });
    expect(audit.status, audit.text).toBe(202);
    const [x, a] = [await jobResult(extract.json), await jobResult(audit.json)];
    expect(x.success, JSON.stringify(x).slice(0, 300)).toBe(true);
    expect(a.success, JSON.stringify(a).slice(0, 300)).toBe(true);

    const served = await call('GET', `/api/v1/attribution/analyses/${id}/bundle`);
    expect(served.status).toBe(200);
    expect(served.json.model_extractions).toHaveLength(1);
    expect(served.json.catalogue_audits.map((c: { audit_sha256: string }) => c.audit_sha256)).toEqual([
      a.result.audit_sha256,
    ]);
    writeFileSync(file('report-key.json'), (await call('GET', '/api/v1/report-key')).text);
    // the account the development key belongs to names the records in the store
    const accountId = (await call('GET', '/api/v1/usage')).json.account as string;
    // a directory store is one process's: the server stops first
    await stopProcess(serve.child);

    const made = await runCli(
      [
        'report',
        '--store',
        'store',
        '--analysis',
        id,
        '--account',
        accountId,
        '--bundle',
        'cli.json',
        '--out',
        'cli.html',
      ],
      { cwd: dir },
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('1 extractions, 1 catalogue audits');
    const cli = JSON.parse(readFileSync(file('cli.json'), 'utf8'));
    expect(unsignedMembers(cli)).toEqual(unsignedMembers(served.json));
    expect(readFileSync(file('cli.html'), 'utf8')).toContain('<html');
    writeFileSync(file('held.txt'), held);
    const v = await runCli(['verify', 'cli.json', '--key', 'report-key.json', '--text', 'held.txt', '--json'], {
      cwd: dir,
    });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const checks = JSON.parse(v.stdout).checks as Array<{ name: string; ok: boolean }>;
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.map((c) => c.name)).toEqual(expect.arrayContaining(['model_extraction:0', 'catalogue_audit:0']));
    // another account's name finds no such analysis: a typed refusal, no bundle
    const other = await runCli(
      ['report', '--store', 'store', '--analysis', id, '--account', 'nobody', '--bundle', 'x.json'],
      {
        cwd: dir,
      },
    );
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/NOT_FOUND/);
  }, 240_000);

  it('analyze --bundle signs the analysis it made: valid offline, not pinned', async () => {
    writeFileSync(file('essay.txt'), works[1].text);
    const r = await runCli(['analyze', 'essay.txt', '--packs', 'none', '--bundle', 'essay.json', '--quiet'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    const v = await runCli(['verify', 'essay.json', '--text', 'essay.txt'], { cwd: dir });
    expect(v.code, v.stdout).toBe(3); // valid under the key it names; no --key pinned it
    expect(v.stdout).not.toContain('FAIL');
  }, 120_000);
});
