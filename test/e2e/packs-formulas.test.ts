// Invented articles in Wikipedia's house style (test/fixtures/texts/false-95-round6/: every person, place, ship, band
// and beetle made up, the lead formulas real) through the default server as `npm start` runs it: each answered < 50,
// with no portrait match naming a document — where the packs before the common n-grams named an unrelated article
// ("Mason Morgan", "Newton's leaf-toed gecko", "Corinth") at 94.9 for three of them.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = join(root, 'test/fixtures/texts/false-95-round6');
const invented = readdirSync(dir)
  .filter((f) => f.startsWith('invented-'))
  .sort();

describe.runIf(existsSync(join(root, 'dist/cli.js')))('invented Wikipedia-style articles (serve --starter)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'trainprint-formulas-'));
  let child: ChildProcess;
  let url = '';
  let key = '';
  beforeAll(async () => {
    child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'serve', '--starter', '--port', '0'], { cwd: tmp });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    for (let i = 0; i < 400 && !(url && key); i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? '';
      key = /(tp_test_[A-Za-z0-9]{32})/.exec(out)?.[1] ?? '';
    }
    if (!url || !key) throw new Error(`serve did not start:\n${out}`);
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  });

  it('the reproduction has its nine invented articles', () => {
    expect(invented.length).toBe(9);
  });

  it.each(invented)('%s: confidence < 50, no portrait match names a document', async (file) => {
    const res = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: readFileSync(join(dir, file), 'utf8'), content_type: 'text' }),
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as { confidence: number; matches: { kind: string; document_id: string | null }[] };
    expect(r.confidence).toBeLessThan(50);
    expect(r.matches.filter((m) => m.kind === 'portrait' && m.document_id !== null)).toEqual([]);
  });
});
