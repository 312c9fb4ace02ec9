/**
 * `trainprint serve --infini-gram IDX --infini-gram-endpoint URL`: the built CLI against the fixture infini-gram
 * engine on 127.0.0.1. The start-up log says where analyzed text goes; analyze finds a planted corpus passage in
 * the remote corpus and lists the corpus consulted; `"search_remote": false` keeps the text on the server (the
 * engine gets no call); `/api/v1/status` shows the corpus's health; `analyze FILE --infini-gram …` does the same
 * from the command line; misuse of the flags is a usage error.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, requireBuiltCli, startServe } from '../fixtures/serve-process.js';
import {
  buildTokenIndex,
  fixtureCorpus,
  plantedCases,
  startInfiniGramServer,
  type InfiniGramServer,
  type PlantedCase,
} from '../fixtures/infini-gram/index.mjs';

let infini: InfiniGramServer;
let planted: PlantedCase;
let tmp: string;

beforeAll(async () => {
  requireBuiltCli();
  const { documents } = fixtureCorpus();
  infini = await startInfiniGramServer({
    kind: 'infini-gram',
    indexes: { v4_piletrain_llama: buildTokenIndex({ documents }) },
  });
  planted = plantedCases({ seed: 31, count: 1, words: 800 })[0];
  tmp = mkdtempSync(join(tmpdir(), 'trainprint-serve-remote-'));
}, 60_000);
afterAll(async () => {
  await infini?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('serve --infini-gram', () => {
  let child: ChildProcess;
  let url = '';
  let key = '';
  let out = () => '';
  beforeAll(async () => {
    ({
      child,
      url,
      dev: key,
      out,
    } = await startServe(
      ['--packs', 'none', '--port', '0', '--infini-gram', 'v4_piletrain_llama', '--infini-gram-endpoint', infini.url],
      { startMs: 15_000 },
    ));
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  const analyze = async (body: Record<string, unknown>) => {
    const res = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.json();
  };

  it('says at start where analyzed text is sent', async () => {
    await expect
      .poll(out)
      .toContain(
        `remote corpus v4_piletrain_llama: analyzed text is sent to ${infini.url}/ (infini-gram index v4_piletrain_llama)`,
      );
  });

  it('analyze searches the remote corpus; search_remote: false keeps the text here', async () => {
    infini.resetCalls();
    const kept = await analyze({ content: planted.text, content_type: 'text', search_remote: false });
    expect(kept.remote_corpora).toEqual([]);
    expect(infini.calls.length).toBe(0);

    const r = await analyze({ content: planted.text, content_type: 'text' });
    expect(r.remote_corpora).toEqual([
      // the engine is self-hosted: its URL is the operator's, not shown to API clients (as on /status)
      expect.objectContaining({ dataset_id: 'v4_piletrain_llama', outcome: 'searched', endpoint: 'self-hosted' }),
    ]);
    expect(JSON.stringify(r)).not.toContain(infini.url);
    const m = r.matches.find((x: { kind: string }) => x.kind === 'remote');
    expect(m).toMatchObject({ dataset_id: 'v4_piletrain_llama', doc_ix: planted.source.doc_ix });
    expect(Math.abs(m.query_start - planted.passage.start)).toBeLessThan(20);
    expect(r.risk_assessment.factors).toContain('remote_corpus_match');
    // a public index is linked by the knowledge base: the Pile's models, not a declaration
    expect(r.attribution_sources.length).toBeGreaterThan(0);
    expect(r.attribution_sources.every((s: { declared: boolean }) => s.declared === false)).toBe(true);

    const datasets = await (
      await fetch(`${url}/api/v1/datasets`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    expect(datasets.datasets.find((d: { id: string }) => d.id === 'v4_piletrain_llama')).toMatchObject({
      kind: 'remote',
      kb_dataset: 'the-pile',
      remote: { engine: 'infini-gram', index: 'v4_piletrain_llama', declared: false, endpoint: 'self-hosted' },
    });
    expect(JSON.stringify(datasets)).not.toContain(infini.url);
  });

  it('/api/v1/status shows the corpus answering, without naming a self-hosted endpoint', async () => {
    const status = await (await fetch(`${url}/api/v1/status`)).json();
    expect(status.remote_corpora).toEqual([
      expect.objectContaining({ dataset_id: 'v4_piletrain_llama', state: 'ok', endpoint: 'self-hosted' }),
    ]);
    expect(status.remote_corpora[0].calls).toBeGreaterThan(0);
  });
});

describe('analyze FILE --infini-gram, and flag errors', () => {
  it('analyze FILE searches the remote corpus', async () => {
    const file = join(tmp, 'text.txt');
    writeFileSync(file, planted.text);
    const r = await run(['analyze', file, '--infini-gram', 'v4_piletrain_llama', '--infini-gram-endpoint', infini.url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.remote_corpora[0]).toMatchObject({ outcome: 'searched' });
    expect(json.matches.some((x: { kind: string }) => x.kind === 'remote')).toBe(true);
  });

  it('an endpoint without indexes, an empty list and an unknown public index are refused before anything is sent', async () => {
    const noIndex = await run(['analyze', 'x.txt', '--infini-gram-endpoint', infini.url]);
    expect(noIndex.code).toBe(2);
    expect(noIndex.stderr).toContain('--infini-gram-endpoint goes with --infini-gram');
    const empty = await run(['analyze', 'x.txt', '--infini-gram-mini', 'a,,b']);
    expect(empty.code).toBe(2);
    const unknown = await run(['serve', '--port', '0', '--infini-gram', 'v4_no_such_index']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('serves no public index v4_no_such_index');
  });
});
