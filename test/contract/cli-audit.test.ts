/**
 * `trainprint audit DIR` (the command's code, in this process) against a chat model that memorised one work of a
 * three-work catalogue: that work reproduced, the two others not_found with their miss chance, the report as JSON;
 * the same catalogue as JSON Lines gives the same verdicts; a missing catalogue is a usage error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditCommand } from '../../src/cli/audit.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';

const works = [syntheticWork(1, 500, 41), syntheticWork(1, 500, 42), syntheticWork(1, 500, 43)];
let server: MemorisedServer;
let dir = '';

beforeAll(async () => {
  server = await startMemorisedServer({ words: works[1].words, held: [0, works[1].words.length], refuseEvery: 0 });
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-audit-'));
  for (const [k, w] of works.entries()) writeFileSync(join(dir, `work-${k}.txt`), w.text);
  writeFileSync(
    join(dir, 'catalogue.jsonl'),
    works.map((w, k) => JSON.stringify({ id: `work-${k}.txt`, text: w.text })).join('\n'),
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = async (catalogue: string, out: string) => {
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const code = await auditCommand([
      catalogue,
      ...['--model-url', server.baseUrl, '--model', 'fixture-memo-1', '--chat', '--allow-private-model-hosts'],
      ...['--budget-calls', '200', '--out', out],
    ]);
    return { code, lines: err.mock.calls.map((c) => String(c[0])) };
  } finally {
    err.mockRestore();
  }
};

describe('trainprint audit', () => {
  it('finds the one work the model memorised, under one budget, and writes the report', async () => {
    const out = join(dir, 'report.json');
    const { code, lines } = await run(dir, out);
    expect(code).toBe(0);
    const r = JSON.parse(readFileSync(out, 'utf8'));
    expect(r.works.map((w: { id: string; verdict: string }) => [w.id, w.verdict])).toEqual([
      ['work-0.txt', 'not_found'],
      ['work-1.txt', 'reproduced'],
      ['work-2.txt', 'not_found'],
    ]);
    expect(r.works[1].nv_recall).toBeGreaterThan(0.5);
    expect(r.works[0].miss_probability).toBeGreaterThan(0);
    expect(r.calls).toBeLessThanOrEqual(200);
    expect(lines.at(-1)).toMatch(/1 of 3 works reproduced: share 0\.3333 \[/);
    const again = join(dir, 'report-jsonl.json');
    await run(join(dir, 'catalogue.jsonl'), again);
    expect(JSON.parse(readFileSync(again, 'utf8')).audit_sha256).toBe(r.audit_sha256);
  });

  it('a catalogue that is not there is a usage error', async () => {
    await expect(run(join(dir, 'nothing-here'), join(dir, 'x.json'))).rejects.toThrow('no such file or directory');
  });
});
