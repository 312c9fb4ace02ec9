// trainprint/node (readDocuments, buildDatasetFile, readDatasetInfo) against the sources, and the
// built CLI (dist/cli.js, `npm run build` first) through child_process. Plain-text, JSON Lines,
// JSON and gzip fixtures are generated in a temp dir; the .zst and .parquet ones are committed in
// test/fixtures/corpus (made once by make.mjs with the system zstd and hyparquet-writer).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildDocx, persuasion } from '../fixtures/documents.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, TrainprintError } from '../../src/index.js';
import { buildDatasetFile, readDatasetInfo, readDocuments, type ReadDocumentsOptions } from '../../src/node/index.js';
// @ts-expect-error plain .mjs fixture module without types
import { CORPUS } from '../fixtures/corpus/corpus.mjs';

const corpus = CORPUS as { id: string; text: string }[];
const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = join(root, 'test/fixtures/corpus');
const fx = (name: string) => join(fixtures, name);
const cli = join(root, 'dist/cli.js');

let dir: string;
const at = (name: string) => join(dir, name);
const write = (name: string, data: string | Uint8Array) => {
  writeFileSync(at(name), data);
  return at(name);
};

async function collect(paths: string[], options?: ReadDocumentsOptions) {
  const out: { id: string; text: string }[] = [];
  for await (const d of readDocuments(paths, options)) out.push({ id: d.id, text: d.text });
  return out;
}

/** The rejection of `p`, which must be a TrainprintError with `code` whose detail contains every `parts`. */
async function rejects(p: Promise<unknown>, code: string, ...parts: string[]) {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, 'expected a rejection').toBeInstanceOf(TrainprintError);
  expect((e as TrainprintError).code).toBe(code);
  for (const part of parts) expect((e as TrainprintError).message).toContain(part);
}

function run(args: string[], timeout = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const LINES = corpus.map((d) => JSON.stringify({ id: d.id, text: d.text, lang: 'en' }));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readDocuments', () => {
  it('plain text: one document per file, id = the path', async () => {
    const a = write('a.txt', corpus[0].text),
      b = write('b.md', corpus[1].text + '\n');
    expect(await collect([a, b])).toEqual([
      { id: a, text: corpus[0].text },
      { id: b, text: corpus[1].text + '\n' },
    ]);
  });

  it('JSON Lines: one document per line, ids PATH:LINE (blank lines skipped, CRLF ok) or from idField', async () => {
    const p = write('d.jsonl', `${LINES[0]}\r\n\n   \n${LINES[1]}\n${LINES[2]}`); // no final newline
    expect(await collect([p])).toEqual([
      { id: `${p}:1`, text: corpus[0].text },
      { id: `${p}:4`, text: corpus[1].text },
      { id: `${p}:5`, text: corpus[2].text },
    ]);
    expect(await collect([p], { idField: 'id' })).toEqual(corpus);
    const q = write('e.ndjson', corpus.map((d, i) => JSON.stringify({ n: i, body: d.text })).join('\n'));
    expect(await collect([q], { textField: 'body', idField: 'n' })).toEqual(
      corpus.map((d, i) => ({ id: String(i), text: d.text })),
    );
  });

  it('gzip JSON Lines stream across chunk boundaries (3000 lines, multi-byte text)', async () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ id: `doc-${i}`, text: `${corpus[i % 3].text} №${i} ☃` }),
    );
    const p = write('many.jsonl.gz', gzipSync(many.join('\n') + '\n'));
    const docs = await collect([p], { idField: 'id' });
    expect(docs.length).toBe(3000);
    expect(docs[2999]).toEqual({ id: 'doc-2999', text: `${corpus[2].text} №2999 ☃` });
    expect(docs.every((d, i) => d.id === `doc-${i}`)).toBe(true);
    // several gzip members concatenated (as `cat a.gz b.gz`) are one stream
    const two = write('two.jsonl.gz', new Uint8Array([...gzipSync(LINES[0] + '\n'), ...gzipSync(LINES[1] + '\n')]));
    expect((await collect([two], { idField: 'id' })).map((d) => d.id)).toEqual(['lighthouse', 'orchard']);
  });

  it('zstd JSON Lines (committed fixture made with the zstd tool)', async () => {
    expect(await collect([fx('docs.jsonl.zst')], { idField: 'id' })).toEqual(corpus);
    expect((await collect([fx('docs.jsonl.zst')]))[1].id).toBe(`${fx('docs.jsonl.zst')}:2`);
  });

  it('JSON arrays: ids PATH[INDEX] or from idField; .json.gz too', async () => {
    const arr = JSON.stringify(corpus.map((d) => ({ key: d.id, text: d.text })));
    const p = write('arr.json', arr),
      g = write('arr.json.gz', gzipSync(arr));
    expect((await collect([p])).map((d) => d.id)).toEqual([`${p}[0]`, `${p}[1]`, `${p}[2]`]);
    expect(await collect([g], { idField: 'key' })).toEqual(corpus);
  });

  it('Parquet: the text column row group by row group (snappy, zstd and gzip pages)', async () => {
    for (const f of ['docs.parquet', 'docs-zstd.parquet', 'docs-gzip.parquet']) {
      expect(await collect([fx(f)], { textField: 'content', idField: 'doc_id' })).toEqual(corpus);
      expect((await collect([fx(f)], { textField: 'content' })).map((d) => d.id)).toEqual(
        [1, 2, 3].map((r) => `${fx(f)}:${r}`),
      );
    }
  });

  it('several files of mixed formats, in order; format forces the parser', async () => {
    const t = write('x.txt', 'plain text document');
    const j = write('c.jsonl', JSON.stringify({ content: 'from jsonl' }));
    const docs = await collect([t, j, fx('docs.parquet')], { textField: 'content' });
    expect(docs.map((d) => d.id)).toEqual([t, `${j}:1`, ...[1, 2, 3].map((r) => `${fx('docs.parquet')}:${r}`)]);
    expect(docs.map((d) => d.text)).toEqual(['plain text document', 'from jsonl', ...corpus.map((d) => d.text)]);
    const l = write('data.log', LINES[0]);
    expect(await collect([l], { format: 'jsonl', idField: 'id' })).toEqual([corpus[0]]);
  });

  it('bad input is INVALID_INPUT naming the file and line', async () => {
    const bad = write('bad.jsonl', `${LINES[0]}\n{"text": oops}\n`);
    await rejects(collect([bad]), 'INVALID_INPUT', `${bad}:2`, 'malformed JSON');
    const noText = write('notext.jsonl', `${LINES[0]}\n${LINES[1]}\n{"body": "x"}\n`);
    await rejects(collect([noText]), 'INVALID_INPUT', `${noText}:3`, 'no field "text"', 'body');
    const nonString = write('nonstring.jsonl', `{"text": 42}\n`);
    await rejects(collect([nonString]), 'INVALID_INPUT', `${nonString}:1`, 'non-string field "text"');
    const notObject = write('array.jsonl', `["a"]\n`);
    await rejects(collect([notObject]), 'INVALID_INPUT', `${notObject}:1`, 'expected a JSON object');
    await rejects(
      collect([write('id.jsonl', `{"text": "x", "id": {}}\n`)], { idField: 'id' }),
      'INVALID_INPUT',
      'id.jsonl:1',
      'id field "id"',
    );
    const utf = write(
      'utf.jsonl',
      new Uint8Array([...Buffer.from(`${LINES[0]}\n{"text": "`), 0xff, 0xfe, ...Buffer.from('"}\n')]),
    );
    await rejects(collect([utf]), 'INVALID_INPUT', `${utf}:2`, 'UTF-8');
    await rejects(collect([at('missing.jsonl')]), 'INVALID_INPUT', 'missing.jsonl', 'no such file');
    await rejects(collect([write('data.csv', 'a,b')]), 'INVALID_INPUT', 'data.csv', 'unknown file type');
    await rejects(collect([dir]), 'INVALID_INPUT', 'unknown file type');
    await rejects(collect([write('x.parquet.gz', 'x')]), 'INVALID_INPUT', 'compressed .parquet');
    // every path is checked before the first document: a missing last file fails at once
    await rejects(
      readDocuments([fx('docs.jsonl.zst'), at('later.jsonl')]).next(),
      'INVALID_INPUT',
      'later.jsonl',
      'no such file',
    );
    await rejects(
      collect([write('arr2.json', '{"text": "not an array"}')]),
      'INVALID_INPUT',
      'arr2.json',
      'JSON array',
    );
    await rejects(
      collect([write('arr3.json', '[{"text": "a"}, {"txt": "b"}]')]),
      'INVALID_INPUT',
      'arr3.json[1]',
      'no field "text"',
    );
  });

  it('corrupt or truncated compressed data is INVALID_INPUT, not a crash', async () => {
    const gz = gzipSync(LINES.join('\n') + '\n');
    await rejects(
      collect([write('trunc.jsonl.gz', gz.subarray(0, gz.length - 12))]),
      'INVALID_INPUT',
      'trunc.jsonl.gz',
      'cannot read',
    );
    await rejects(collect([write('notgz.jsonl.gz', 'plain text')]), 'INVALID_INPUT', 'notgz.jsonl.gz', 'cannot read');
    const zst = readFileSync(fx('docs.jsonl.zst'));
    await rejects(
      collect([write('trunc.jsonl.zst', zst.subarray(0, zst.length - 20))]),
      'INVALID_INPUT',
      'trunc.jsonl.zst',
      'cannot read',
    );
    await rejects(
      collect([write('notzst.jsonl.zst', 'plain text, long enough to be looked at')]),
      'INVALID_INPUT',
      'notzst.jsonl.zst',
      'cannot read',
    );
  });

  it('Parquet errors: not Parquet, missing column', async () => {
    await rejects(
      collect([write('fake.parquet', 'PAR1 this is not parquet at all PAR1')]),
      'INVALID_INPUT',
      'fake.parquet',
      'not a readable Parquet file',
    );
    await rejects(collect([fx('docs.parquet')]), 'INVALID_INPUT', 'docs.parquet', 'no column "text"', 'content');
    await rejects(
      collect([fx('docs.parquet')], { textField: 'content', idField: 'nope' }),
      'INVALID_INPUT',
      'no column "nope"',
    );
  });

  it('options are validated', async () => {
    await rejects(collect([fx('docs.parquet')], { textField: '' }), 'INVALID_OPTIONS');
    await rejects(collect([fx('docs.parquet')], { format: 'csv' as never }), 'INVALID_OPTIONS');
    await rejects(collect('a.txt' as never), 'INVALID_OPTIONS');
  });

  it('a consumer may stop early (the rest of the file is not read)', async () => {
    const many = Array.from({ length: 20000 }, (_, i) => JSON.stringify({ text: `line ${i}` })).join('\n');
    const p = write('stop.jsonl.gz', gzipSync(many));
    let n = 0;
    for await (const d of readDocuments([p])) {
      n++;
      if (d.id.endsWith(':3')) break;
    }
    expect(n).toBe(3);
  });
});

describe('buildDatasetFile / readDatasetInfo', () => {
  it('indexes files, writes the dataset atomically, reports progress; the file loads and searches', async () => {
    const out = at('lib.tpds');
    const phases: string[] = [];
    let last = 0;
    const r = await buildDatasetFile({
      dataset: 'lib',
      name: 'Library',
      files: [fx('docs.parquet')],
      textField: 'content',
      idField: 'doc_id',
      out,
      onProgress: (p) => {
        phases.push(p.phase);
        last = p.documents;
      },
    });
    expect(r.stats).toMatchObject({ id: 'lib', name: 'Library', kind: 'exact', documents: 3 });
    expect(phases.slice(0, 3)).toEqual(['read', 'read', 'read']);
    expect(phases.slice(-2)).toEqual(['write', 'done']);
    expect(last).toBe(3);
    const bytes = new Uint8Array(readFileSync(out));
    expect(bytes.length).toBe(r.file_bytes);
    const engine = await createEngine();
    expect(await engine.importDataset(bytes)).toMatchObject({ id: 'lib', documents: 3 });
    const { matches } = engine.search(`As the diary says: ${corpus[1].text} That is all.`);
    expect(matches[0]).toMatchObject({ dataset_id: 'lib', document_id: 'orchard', kind: 'exact' });
    const info = await readDatasetInfo(out);
    expect(info.header).toMatchObject({ format: 'trainprint.dataset', version: 2, kind: 'exact', counts: { docs: 3 } });
    expect(info.descriptor).toMatchObject({ id: 'lib', name: 'Library' });
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a failing build leaves no output and no temporary file; an unwritable out is INVALID_INPUT', async () => {
    const out = at('fail.tpds');
    await rejects(
      buildDatasetFile({ dataset: 'f', files: [write('f.jsonl', `${LINES[0]}\n{oops\n`)], out }),
      'INVALID_INPUT',
      'f.jsonl:2',
    );
    expect(existsSync(out)).toBe(false);
    await rejects(
      buildDatasetFile({ dataset: 'f', files: [fx('docs.jsonl.zst')], out: at('no/such/dir/x.tpds') }),
      'INVALID_INPUT',
      'cannot write',
    );
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await rejects(buildDatasetFile({ dataset: 'f', files: [], out }), 'INVALID_OPTIONS');
    await rejects(readDatasetInfo(at('f.jsonl')), 'SNAPSHOT_INCOMPATIBLE');
    await rejects(readDatasetInfo(at('none.tpds')), 'INVALID_INPUT', 'no such file');
  });
});

describe('trainprint CLI (dist/cli.js)', () => {
  beforeAll(() => {
    if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  });

  it('index build (txt + jsonl.gz + jsonl.zst), then index info; the file loads and a search finds the passage', async () => {
    write(
      'story.txt',
      'A short story about a ferry across the grey estuary, where the passengers argued every morning about the tide tables and the price of coffee on board.',
    );
    write(
      'more.jsonl.gz',
      gzipSync(
        LINES.slice(0, 2)
          .map((l) => l.replace('"id":"', '"id":"gz-'))
          .join('\n') + '\n',
      ),
    );
    const b = await run([
      'index',
      'build',
      '--dataset',
      'mixed',
      '--name',
      'Mixed corpus',
      '--id-field',
      'id',
      '--out',
      'mixed.tpds',
      'story.txt',
      'more.jsonl.gz',
      fx('docs.jsonl.zst'),
    ]);
    expect(b.stderr).not.toMatch(/\n\s+at /);
    expect(b.code, b.stderr).toBe(0);
    // non-TTY stderr: plain progress lines (no \r), then a summary
    expect(b.stderr).toMatch(/^indexing .*docs\/s, .*MB\/s/m);
    expect(b.stderr).not.toContain('\r');
    expect(b.stderr).toMatch(/wrote mixed\.tpds: exact dataset "mixed", 6 documents/);
    expect(JSON.parse(b.stdout)).toMatchObject({
      out: 'mixed.tpds',
      stats: { id: 'mixed', documents: 6, kind: 'exact' },
    });

    const i = await run(['index', 'info', 'mixed.tpds']);
    expect(i.code, i.stderr).toBe(0);
    const info = JSON.parse(i.stdout);
    expect(info.header).toMatchObject({ format: 'trainprint.dataset', version: 2, kind: 'exact', counts: { docs: 6 } });
    expect(info.stats).toMatchObject({ id: 'mixed', name: 'Mixed corpus', documents: 6, kind: 'exact' });
    expect(info.stats.fingerprints).toBeGreaterThan(0);
    expect(info.stats.bytes).toBeGreaterThan(0);
    expect(typeof info.stats.params).toBe('string');
    // one file, one set of sizes: what build printed is what info reads from the file
    expect(JSON.parse(b.stdout).stats).toEqual(info.stats);

    const engine = await createEngine();
    await engine.importDataset(new Uint8Array(readFileSync(at('mixed.tpds'))));
    const hit = (q: string) => engine.search(`Quoted without credit: ${q} End of quote.`).matches[0];
    expect(hit(corpus[2].text)).toMatchObject({ dataset_id: 'mixed', document_id: 'observatory' });
    expect(hit(corpus[0].text)).toMatchObject({ document_id: 'gz-lighthouse' });
    expect(
      hit('A short story about a ferry across the grey estuary, where the passengers argued every morning'),
    ).toMatchObject({ document_id: 'story.txt' });
  });

  it('index build --kind portrait from Parquet (default out ID.tpds); a long quote is found', async () => {
    const b = await run([
      'index',
      'build',
      '--dataset',
      'pq',
      '--kind',
      'portrait',
      '--window',
      '3',
      '--text-field',
      'content',
      '--quiet',
      fx('docs-zstd.parquet'),
    ]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).not.toMatch(/^indexing/m); // --quiet
    const info = JSON.parse((await run(['index', 'info', 'pq.tpds'])).stdout);
    expect(info.stats).toMatchObject({ id: 'pq', kind: 'portrait', documents: 3, window: 3 });
    const engine = await createEngine();
    await engine.importDataset(new Uint8Array(readFileSync(at('pq.tpds'))));
    const { matches } = engine.search(`Somebody wrote: ${corpus[0].text} ${corpus[1].text}`);
    expect(matches.length).toBeGreaterThan(0);
    expect(matches[0]).toMatchObject({ dataset_id: 'pq', kind: 'portrait' });
  });

  it('index build --kb-dataset --models: the declaration is stored in the descriptor and shown by index info', async () => {
    const b = await run([
      'index',
      'build',
      '--dataset',
      'pile-sample',
      '--kb-dataset',
      'the-pile',
      '--models',
      'eleutherai/gpt-j-6b, eleutherai/gpt-neo-2.7b',
      '--id-field',
      'id',
      '--quiet',
      fx('docs.jsonl.zst'),
    ]);
    expect(b.code, b.stderr).toBe(0);
    const i = await run(['index', 'info', 'pile-sample.tpds']);
    expect(i.code, i.stderr).toBe(0);
    expect(JSON.parse(i.stdout).descriptor).toMatchObject({
      id: 'pile-sample',
      kind: 'exact',
      kb_dataset: 'the-pile',
      models: ['eleutherai/gpt-j-6b', 'eleutherai/gpt-neo-2.7b'],
    });
    // a declaration the descriptor does not take: its INVALID_INPUT naming the descriptor's field (exit 1)
    for (const [args, field] of [
      [['--kb-dataset', ''], 'kb_dataset'],
      [['--models', ''], 'models[0]'],
      [['--models', 'a/b,,c/d'], 'models[1]'],
      [['--models', 'a/b,'], 'models[1]'],
    ] as const) {
      const r = await run(['index', 'build', '--dataset', 'x', fx('docs.jsonl.zst'), ...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: INVALID_INPUT: .*${field.replace(/[[\]]/g, '\\$&')}: `));
    }
    expect((await run(['index', 'build', '--dataset', 'x', fx('docs.jsonl.zst'), '--kb-dataset'])).code).toBe(2);
    await rejects(
      buildDatasetFile({ dataset: 'x', files: [fx('docs.jsonl.zst')], out: at('x.tpds'), kbDataset: '' }),
      'INVALID_INPUT',
      'kb_dataset: ',
    );
    await rejects(
      buildDatasetFile({ dataset: 'x', files: [fx('docs.jsonl.zst')], out: at('x.tpds'), models: ['a/b', ''] }),
      'INVALID_INPUT',
      'models[1]: ',
    );
    expect((await run(['--help'])).stdout).toMatch(
      /--kb-dataset ID[\s\S]*--models A\/B,C\/D[\s\S]*labelled as declared/,
    );
  });

  it('errors: one line, no stack; exit 1 for bad input, 2 for usage; --help is 0', async () => {
    write('bad-cli.jsonl', `${LINES[0]}\n{"text": oops}\n`);
    const bad = await run(['index', 'build', '--dataset', 'x', '--out', 'x.tpds', 'bad-cli.jsonl']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: INVALID_INPUT: .*bad-cli\.jsonl:2: malformed JSON/m);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(at('x.tpds'))).toBe(false);

    for (const args of [
      ['index', 'build', '--dataset', 'x', 'missing.jsonl'],
      ['index', 'build', '--dataset', 'x', 'data.csv'],
      ['index', 'info', 'missing.tpds'],
      ['index', 'info', 'bad-cli.jsonl'],
      ['fingerprint', 'missing.txt'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    for (const args of [
      ['index', 'build', 'story.txt'], // no --dataset
      ['index', 'build', '--dataset', 'x'], // no files
      ['index', 'build', '--datset', 'x', 'story.txt'],
      ['index', 'info'],
      ['index'],
      ['nonsense'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
    }
    // the descriptor's refusals are the library's (exit 1), as addDataset words them
    for (const [args, said] of [
      [['--kind', 'fuzzy'], 'kind: must be one of "exact", "portrait"'],
      [['--window', '3'], "window: is an option of kind 'portrait' only"],
    ] as const) {
      const r = await run(['index', 'build', '--dataset', 'x', ...args, 'story.txt']);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`error: INVALID_INPUT: The input is not valid: ${said}`);
    }
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('trainprint index build --dataset ID');
    expect((await run(['index', 'build', '--help'])).code).toBe(0);
  });

  it('analyze FILE: against a dataset file with a declared KB link, and against the starter by default', async () => {
    const b = await run([
      'index',
      'build',
      '--dataset',
      'declared',
      '--kb-dataset',
      'the-pile',
      '--quiet',
      '--out',
      'declared.tpds',
      fx('docs.jsonl.zst'),
    ]);
    expect(b.code, b.stderr).toBe(0);
    write('quote.md', `# Notes\n\n> ${corpus[2].text}\n`);
    const a = await run([
      'analyze',
      'quote.md',
      '--dataset',
      'declared.tpds',
      '--jurisdiction',
      'us',
      '--opt-out',
      '2021-03-01',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const r = JSON.parse(a.stdout);
    expect(r).toMatchObject({ success: true, content_type: 'markdown', risk_assessment: { jurisdiction: 'US' } });
    expect(r.matches[0]).toMatchObject({ dataset_id: 'declared', kind: 'exact' });
    expect(r.attribution_sources.length).toBeGreaterThan(3);
    expect(r.attribution_sources[0]).toMatchObject({ kb_dataset: 'the-pile', declared: true });
    expect(r.risk_assessment.factors).toContain('declared_dataset_link');
    // default: the starter dataset; matches without attribution
    write(
      'mit.txt',
      'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction',
    );
    const m = JSON.parse((await run(['analyze', 'mit.txt'])).stdout);
    expect(m.matches.some((x: { document_id: string }) => x.document_id === 'MIT')).toBe(true);
    expect(m).toMatchObject({ confidence: 0, attribution_sources: [] });
    expect(m.risk_assessment.factors).toContain('no_documented_model_link');
    // bad input: one line, exit 1; usage: exit 2
    const bad = await run(['analyze', 'mit.txt', '--jurisdiction', 'EU-DE']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: INVALID_INPUT: .*EU has no ISO 3166-2 subdivisions/);
    expect((await run(['analyze'])).code).toBe(2);
    expect((await run(['analyze', 'nope.txt'])).code).toBe(1);
    // a file by its extension: its text extracted, the extraction described; a broken one is one line, exit 1
    writeFileSync(at('persuasion.docx'), buildDocx(persuasion(2)));
    const d = await run(['analyze', 'persuasion.docx', '--packs', 'none']);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout)).toMatchObject({ content_type: 'docx', extraction: { format: 'docx' } });
    writeFileSync(at('broken.epub'), 'not a zip');
    const e = await run(['analyze', 'broken.epub', '--packs', 'none']);
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/^error: INVALID_INPUT: .*EPUB/);
  });

  it('analyze answers as the server does: the default packs unless --packs none', async () => {
    // the same text, the same settings: what 'npm start' (serve --starter with the default packs) and
    // createEngine({ packs: 'default' }) with the starter answer
    const moby = join(root, 'test/fixtures/texts/moby-dick-opening.txt');
    const cliDefault = await run(['analyze', moby], 180_000);
    expect(cliDefault.code, cliDefault.stderr).toBe(0);
    const c = JSON.parse(cliDefault.stdout); // stdout is the JSON result alone
    const engine = await createEngine({ packs: 'default' });
    const { loadStarterDataset } = await import('../../src/starter/index.js');
    await loadStarterDataset(engine);
    const lib = await engine.analyze({ content: readFileSync(moby, 'utf8'), content_type: 'text' });
    engine.dispose();
    const answer = (r: Record<string, any>) => ({
      confidence: r.confidence,
      matches: r.matches.map((m: Record<string, unknown>) => [m.dataset_id, m.document_id, m.query_start, m.query_end]),
      sources: r.attribution_sources.map((s: Record<string, unknown>) => [s.provider, s.model, s.kb_dataset]),
      risk: r.risk_assessment,
      evidence: r.corpus_evidence,
    });
    expect(answer(c)).toEqual(answer(lib));
    expect(c.confidence).toBeGreaterThanOrEqual(50);
    expect(c.attribution_sources.some((s: { kb_dataset: string }) => s.kb_dataset === 'project-gutenberg')).toBe(true);
    const none = await run(['analyze', moby, '--packs', 'none']);
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toMatchObject({ confidence: 0, attribution_sources: [] });
    const bad = await run(['analyze', moby, '--packs', 'all']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--packs must be 'default' or 'none'/);
  }, 300_000);

  it('demo and fingerprint still work', async () => {
    const d = await run(['demo']);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout.slice(0, d.stdout.indexOf('\n}\n') + 2)).similarity.jaccard).toBeGreaterThan(0);
    expect(d.stdout).toContain('"document_id": "MIT"');
    const f = await run(['fingerprint', 'story.txt']);
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout).token_count).toBeGreaterThan(10);
    // a one-shot command sets V8's tiering in this V8's own flags: V8 prints nothing (an unknown flag prints an error)
    expect(f.stderr).toBe('');
  });
});
