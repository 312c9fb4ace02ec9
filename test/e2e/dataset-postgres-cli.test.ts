/**
 * The built CLI (dist/cli.js) with datasets kept in PostgreSQL: `index build --into`, `index push`,
 * `index info postgres://…`, `analyze --dataset postgres://…` (the same analysis as with the dataset
 * file) and `serve --dataset postgres://…`; usage and input errors exit 2 and 1 with one line.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { book } from '../fixtures/texts/index.js';
import { cli, requireBuiltCli, startServe, stopProcess } from '../fixtures/serve-process.js';
import { describePostgres } from '../pg/postgres.js';

let dir = '';
const running: ChildProcess[] = [];

function run(args: string[], timeout = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const thursday = book('chesterton-thursday');
const LINES = Array.from({ length: 40 }, (_, i) =>
  JSON.stringify({ id: `thursday-${i}`, text: thursday.slice(i * 5000, (i + 1) * 5000) }),
);
const QUOTE = `Notes on a novel.\n\n${thursday.slice(52_000, 54_500)}\n\nEnd of notes.`;

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-pg-cli-'));
  writeFileSync(join(dir, 'thursday.jsonl'), `${LINES.join('\n')}\n`);
  writeFileSync(join(dir, 'quote.txt'), QUOTE);
});
afterAll(async () => {
  await Promise.all(running.map(stopProcess));
  rmSync(dir, { recursive: true, force: true });
});

/** An analysis without what differs between two runs. */
function stable(json: string): Record<string, unknown> {
  const { analysis_id: _a, created_at: _c, processing_time_ms: _p, ...rest } = JSON.parse(json);
  return rest;
}

describePostgres('trainprint CLI with datasets in PostgreSQL', (db) => {
  const at = (schema: string, dataset?: string) => {
    const url = new URL(db.url);
    url.searchParams.set('schema', schema);
    if (dataset) url.searchParams.set('dataset', dataset);
    return url.toString();
  };
  let built = '';
  const schemaOf = (url: string) => new URL(url).searchParams.get('schema')!;

  it('index build --into, index info, and the same analysis as with the dataset file', async () => {
    built = at(db.schema());
    const common = ['--dataset', 'thursday', '--kb-dataset', 'project-gutenberg', '--id-field', 'id', '--quiet'];
    common.push('thursday.jsonl');
    const b = await run(['index', 'build', ...common, '--into', built, '--partitions', '4', '--threads', '2']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/built exact dataset "thursday" in postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres /);
    expect(b.stderr).toMatch(/\(tables d\d+_\*, 4 partitions\): 40 documents/);
    expect(b.stderr).not.toContain(decodeURIComponent(new URL(db.url).password));
    const stats = { id: 'thursday', documents: 40, storage: 'postgres' };
    expect(JSON.parse(b.stdout)).toMatchObject({ partitions: 4, stats });
    const info = await run(['index', 'info', at(schemaOf(built), 'thursday')]);
    expect(info.code, info.stderr).toBe(0);
    const descriptor = { id: 'thursday', kb_dataset: 'project-gutenberg' };
    expect(JSON.parse(info.stdout)).toMatchObject({ partitions: 4, documents: 40, descriptor });

    const f = await run(['index', 'build', ...common, '--out', 'thursday.tpds']);
    expect(f.code, f.stderr).toBe(0);
    const fromFile = await run(['analyze', 'quote.txt', '--dataset', 'thursday.tpds', '--jurisdiction', 'US']);
    const fromDb = await run(['analyze', 'quote.txt', '--dataset', built, '--jurisdiction', 'US']);
    expect(fromDb.code, fromDb.stderr).toBe(0);
    expect(stable(fromDb.stdout)).toEqual(stable(fromFile.stdout));
    expect(JSON.parse(fromDb.stdout).matches[0]).toMatchObject({ dataset_id: 'thursday', document_id: 'thursday-10' });
  });

  it('index push copies a dataset file; serve --dataset postgres://… attaches and searches it', async () => {
    const schema = db.schema();
    const p = await run(['index', 'push', 'thursday.tpds', '--into', at(schema), '--dataset', 'pushed']);
    expect(p.code, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout)).toMatchObject({ partitions: 16, stats: { id: 'pushed', documents: 40 } });
    const again = await run(['index', 'push', 'thursday.tpds', '--into', at(schema), '--dataset', 'pushed']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: ALREADY_EXISTS: /);
    const replaced = await run([
      'index',
      'push',
      'thursday.tpds',
      '--into',
      at(schema),
      '--dataset',
      'pushed',
      '--replace',
    ]);
    expect(replaced.code, replaced.stderr).toBe(0);

    const s = await startServe(['--port', '0', '--packs', 'none', '--dataset', at(schema)], { running });
    expect(s.out()).toContain('datasets: pushed (40 documents)');
    const headers = { authorization: `Bearer ${s.dev}`, 'content-type': 'application/json' };
    const listed = (await (await fetch(`${s.url}/api/v1/datasets`, { headers })).json()) as { datasets: unknown[] };
    expect(listed.datasets[0]).toMatchObject({ id: 'pushed', storage: 'postgres', documents: 40 });
    const body = JSON.stringify({ content: QUOTE, content_type: 'text' });
    const res = await fetch(`${s.url}/api/v1/attribution/analyze`, { method: 'POST', headers, body });
    const r = (await res.json()) as { matches: unknown[] };
    expect(r.matches[0]).toMatchObject({ dataset_id: 'pushed', document_id: 'thursday-10' });
    await stopProcess(s.child);
  });

  it('usage errors exit 2, input errors 1, each one line', async () => {
    for (const args of [
      ['index', 'build', '--dataset', 'x', '--into', 'mysql://h/db', 'thursday.jsonl'],
      ['index', 'build', '--dataset', 'x', '--into', built, '--out', 'x.tpds', 'thursday.jsonl'],
      ['index', 'build', '--dataset', 'x', '--into', built, '--partitions', '0', 'thursday.jsonl'],
      ['index', 'build', '--dataset', 'x', '--partitions', '4', 'thursday.jsonl'],
      ['index', 'push', 'thursday.tpds'],
      ['index', 'push', '--into', built],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
    }
    // a portrait is the library's refusal: only exact datasets are kept in PostgreSQL
    const into = await run([
      'index',
      'build',
      '--dataset',
      'x',
      '--into',
      built,
      '--kind',
      'portrait',
      'thursday.jsonl',
    ]);
    expect(into.code).toBe(1);
    expect(into.stderr).toMatch(/^error: INVALID_OPTIONS: .*only exact datasets/);
    const exists = await run(['index', 'build', '--dataset', 'thursday', '--into', built, '--quiet', 'thursday.jsonl']);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toMatch(/^error: ALREADY_EXISTS: .*thursday/);
    const missing = await run(['index', 'info', at(schemaOf(built), 'nothing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /);
    const p = await run(['index', 'build', '--dataset', 'pq', '--kind', 'portrait', '--quiet', 'thursday.jsonl']);
    expect(p.code, p.stderr).toBe(0);
    const portrait = await run(['index', 'push', 'pq.tpds', '--into', built]);
    expect(portrait.code).toBe(1);
    expect(portrait.stderr).toMatch(/^error: INVALID_OPTIONS: .*portrait/);
    for (const r of [exists, missing, portrait]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
