// Invented articles in Wikipedia's house style (test/fixtures/texts/false-95-round6/: every person, place, ship, band
// and beetle made up, the lead formulas real) through the default server as `npm start` runs it: each answered < 50,
// with no portrait match naming a document — where the packs before the common n-grams named an unrelated article
// ("Mason Morgan", "Newton's leaf-toed gecko", "Corinth") at 94.9 for three of them. And invented articles built on
// the formulas of Wikipedia's template families (test/fixtures/texts/formulas/: a minor planet's NEOWISE sentence, a
// station's fiscal-year ridership, a single's key and tempo, an actress's drama school), through the server and the
// CLI: before the packs' chain nulls (packs/index.json `background.chains`) two of them read 94.9 on a chain of 4–5
// agreeing hits on a formula one or two packed articles hold.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
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
const formulas = join(root, 'test/fixtures/texts/formulas');
interface Answer {
  confidence: number;
  matches: { kind: string; document_id: string | null }[];
}
const named = (r: Answer) => r.matches.filter((m) => m.kind === 'portrait' && m.document_id !== null);

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

  const analyze = async (text: string): Promise<Answer> => {
    const res = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: text, content_type: 'text' }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Answer;
  };

  it.each(invented)('%s: confidence < 50, no portrait match names a document', async (file) => {
    const r = await analyze(readFileSync(join(dir, file), 'utf8'));
    expect(r.confidence).toBeLessThan(50);
    expect(named(r)).toEqual([]);
  });

  it.each(readdirSync(formulas).sort())(
    'formulas/%s: served and by the CLI, < 50, naming no document',
    async (file) => {
      const r = await analyze(readFileSync(join(formulas, file), 'utf8'));
      expect(r.confidence).toBeLessThan(50);
      expect(named(r)).toEqual([]);
      const cli = execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'analyze', join(formulas, file), '-q'], {
        cwd: tmp,
        encoding: 'utf8',
      });
      const c = JSON.parse(cli) as Answer;
      expect(c.confidence).toBeLessThan(50);
      expect(named(c)).toEqual([]);
    },
  );
});
