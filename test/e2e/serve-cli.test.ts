/**
 * What a new user does (README): `npm start` (= `trainprint serve --starter`), then the README's curl with the
 * printed key. Runs the built CLI on a free port, reads the key from its output, posts the README's analyze
 * request, and validates the answer against the documented schema (every field present, nothing undocumented).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, startServe } from '../fixtures/serve-process.js';
import { ANALYSIS_RESULT_SCHEMA } from '../../src/services/analyze/schema.js';

describe('npm start, then the README curl', () => {
  let child: ChildProcess;
  let url = '';
  let key = '';
  let out = () => '';
  beforeAll(async () => {
    requireBuiltCli();
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.scripts.start).toBe('node dist/cli.js serve --starter');
    ({ child, url, dev: key, out } = await startServe(['--starter', '--port', '0'], { startMs: 10_000 }));
  }, 20_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('builds the search indexes before it says it listens, and is ready then', async () => {
    expect(out()).toMatch(/listening on [^\n]*; search indexes built in \d+\.\d s\)/);
    const ready = await fetch(`${url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  it('answers the README analyze request with every documented field', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const body = /-d '(\{"content":"Permission is hereby granted[^']*\})'/.exec(readme)?.[1];
    expect(body, 'the README curl example').toBeDefined();
    const res = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('10000');
    const json = await res.json();
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
    const valid = ajv.compile(ANALYSIS_RESULT_SCHEMA);
    if (!valid(json)) throw new Error(JSON.stringify(valid.errors, null, 2));
    expect(json.success).toBe(true);
    expect(json.matches.some((m: { document_id: string }) => m.document_id === 'MIT')).toBe(true);
    // the web app is served at /
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    // no key: 401 with the challenge
    const anon = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('names a Japanese and a Chinese work from the default packs (a text without spaces through HTTP)', async () => {
    const cases = [
      [
        '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。',
        'pack:aozora',
        'natsume-wagahai',
      ],
      [
        '子曰：「學而時習之，不亦說乎？有朋自遠方來，不亦樂乎？人不知而不慍，不亦君子乎？」',
        'pack:chinese-classics',
        'lunyu',
      ],
    ];
    for (const [content, pack, document] of cases) {
      const res = await fetch(`${url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content, content_type: 'text' }),
      });
      expect(res.status).toBe(200);
      const json = await res.json();
      expect(json.confidence, document).toBeGreaterThanOrEqual(50);
      const m = json.matches.find((x: { kind: string }) => x.kind === 'portrait');
      expect([m?.dataset_id, m?.document_id]).toEqual([pack, document]);
      // another document is named as holding the text only where it does: 三四郎 and こころ share common character
      // 5-grams with this section, no sentence; the simplified 论语 is the same text in the other script
      const also = json.matches.flatMap((x: { also_in?: Array<{ document_id: string }> }) => x.also_in ?? []);
      for (const a of also) expect(a.document_id).toBe(`${document}-simplified`);
      if (pack === 'pack:aozora') expect(JSON.stringify(json)).not.toContain('the same text is also in');
    }
  });
});
