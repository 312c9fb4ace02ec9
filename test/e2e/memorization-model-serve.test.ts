/**
 * The HTTP memorization routes against the committed neural test models, every part a real process: `trainprint
 * serve` (the API) calls `trainprint model serve` (byte-gpt-inserted as the target, byte-gpt-base as the reference
 * model, and the inserted model again with `--generations-only`) over 127.0.0.1. Works whose membership is known
 * (models/README.md): a work inserted 4 times per epoch reads `strong` through the calibrated probe, a never-seen
 * work `inconclusive`, a work inserted 16 times is extracted verbatim even from the generations-only server, and the
 * report says what was calibrated.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModelServeProcess,
  requireBuiltCli,
  type ServeProcess,
  startModelServe,
  startServe,
  stopProcess,
} from '../fixtures/serve-process.js';

interface Doc {
  id: string;
  text: string;
  times?: number;
}
const manifest = JSON.parse(
  readFileSync(new URL('../../models/byte-gpt-inserted/manifest.json', import.meta.url), 'utf8'),
) as { inserted: Doc[]; never_seen: Doc[] };
const works = manifest.inserted.filter((d) => d.id.startsWith('work:'));
const fourTimes = works.find((d) => d.times === 4)!;
const sixteenTimes = works.find((d) => d.times === 16)!;
const [neverSeen, ...otherNeverSeen] = manifest.never_seen;

const running: ChildProcess[] = [];
let api: ServeProcess, target: ModelServeProcess, reference: ModelServeProcess, blind: ModelServeProcess;

beforeAll(async () => {
  requireBuiltCli();
  [api, target, reference, blind] = await Promise.all([
    startServe(['--port', '0', '--packs', 'none', '--allow-private-model-hosts'], { running }),
    startModelServe('byte-gpt-inserted', [], { running }),
    startModelServe('byte-gpt-base', [], { running }),
    startModelServe('byte-gpt-inserted', ['--generations-only'], { running }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(running.map(stopProcess));
});

async function call(path: string, body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const r = await fetch(`${api.url}/api/v1/memorization/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.dev}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
}

const spec = (p: ModelServeProcess, name: string) => ({ base_url: `${p.url}/v1`, model: name });
const register = async (d: Doc) => {
  const r = await call('register-work', { work: { content: d.text, title: d.id } });
  expect(r.status).toBe(200);
  return r.json.work_id as string;
};

describe('memorization routes against `trainprint model serve`', () => {
  it('assess: a work inserted 4× is strong, a never-seen work inconclusive (probe calibrated by the base model)', async () => {
    const set = await call('reference-sets', {
      id: 'never-seen',
      // works set apart at random as never-seen: a randomized split of the pool the inserted works came from
      texts: otherNeverSeen.slice(0, 10).map((d) => d.text),
      basis: 'randomized_split',
    });
    expect(set.status).toBe(201);
    const probe = {
      reference: { reference_set: 'never-seen' },
      reference_model: spec(reference, 'byte-gpt-base'),
      chunk_tokens: 16,
      min_chunks: 5,
    };
    const extract = { prefixes: 2, prefix_tokens: 20, max_tokens: 300 };
    const tiers: Record<string, string> = {};
    for (const d of [fourTimes, neverSeen]) {
      const a = await call('assess', {
        work_id: await register(d),
        model: spec(target, 'byte-gpt-inserted'),
        extract,
        probe,
      });
      expect(a.status).toBe(200);
      expect(a.json.probe.reference_model).toEqual({ id: 'openai-compatible:byte-gpt-base', access: 'top_k' });
      expect(a.json.probe.reference).toMatchObject({ id: 'never-seen', basis: 'randomized_split', matched: true });
      const verdictStats = a.json.probe.statistics.filter((s: { in_verdict: boolean }) => s.in_verdict);
      expect(verdictStats.map((s: { name: string }) => s.name)).toEqual(['calibrated_loss']);
      tiers[d.id] = a.json.evidence_tier;
      if (d === fourTimes) {
        const report = await fetch(`${api.url}/api/v1/memorization/report`, {
          method: 'POST',
          headers: { authorization: `Bearer ${api.dev}`, 'content-type': 'application/json' },
          body: JSON.stringify({ assessment_id: a.json.assessment_id }),
        });
        expect(report.headers.get('content-type')).toMatch(/text\/html/);
        const html = await report.text();
        expect(html).toContain('loss calibrated by the reference model <code>openai-compatible:byte-gpt-base</code>');
      }
    }
    expect(tiers).toEqual({ [fourTimes.id]: 'strong', [neverSeen.id]: 'inconclusive' });
  }, 120_000);

  it('generations only: no probe, and a work inserted 16× is still extracted verbatim (confirmed)', async () => {
    const a = await call('assess', {
      work_id: await register(sixteenTimes),
      model: { ...spec(blind, 'byte-gpt-inserted'), api: 'chat' },
      extract: { prefixes: 2, prefix_tokens: 20, max_tokens: 400 },
      probe: { reference: { texts: otherNeverSeen.slice(0, 5).map((d) => d.text) } },
    });
    expect(a.status).toBe(200);
    expect(a.json.model.access).toBe('generations_only');
    expect(a.json.probe).toBeNull();
    expect(a.json.limitations).toContain('no_logprob_access');
    expect(a.json.extraction.summary.verified).toBeGreaterThan(0);
    expect(a.json.evidence_tier).toBe('confirmed');
  }, 60_000);

  it('a model server that is down answers 502 with a typed error, not a hang', async () => {
    const down = await startModelServe('byte-gpt-base', [], { running });
    await stopProcess(down.child);
    const r = await call('probe', {
      text: neverSeen.text,
      model: spec(down, 'byte-gpt-base'),
      reference: { texts: otherNeverSeen.slice(0, 5).map((d) => d.text) },
    });
    expect(r.status).toBe(502);
    // one typed code for a host that cannot be reached, without the socket's error text
    expect(r.json.error.code).toBe('UPSTREAM_UNREACHABLE');
    expect(JSON.stringify(r.json)).not.toMatch(/ECONNREFUSED|EHOSTUNREACH/);
  }, 60_000);
});
