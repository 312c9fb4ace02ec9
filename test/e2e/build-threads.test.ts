// Parallel index builds against the built package (dist/: the worker thread is dist/build-worker.js):
// the file is byte-identical for 1, 2 and 3 threads and equals engine.exportDataset of the same
// documents; a document that cannot be fingerprinted in a worker is a typed error naming it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = (name: string) => join(root, 'dist', name);
type Lib = typeof import('../../src/index.js');
type NodeLib = typeof import('../../src/node/index.js');
let lib: Lib;
let node: NodeLib;
let dir: string;
let input: string;

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * ≈ 4.5 M characters in 3,000 documents of seeded word salad with repeated passages: several
 * batches (a batch closes at 1 M characters or 2,048 documents), so batches finish out of order.
 */
function corpusLines(): string[] {
  const vocabulary =
    'the of and a to in is was that for it with as his on be at by had not are but from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people mr how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(
      ' ',
    );
  let seed = 0x2545f491;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const lines: string[] = [];
  let previous = '';
  for (let i = 0; i < 3000; i++) {
    const words = Array.from(
      { length: 100 + Math.floor(next() * 400) },
      () => vocabulary[Math.floor(next() * vocabulary.length)],
    );
    let text = words.join(' ');
    if (i % 7 === 0) text += ' ' + previous.slice(0, 400); // shared passages across documents
    previous = text;
    lines.push(JSON.stringify({ id: `doc-${i}`, text }));
  }
  return lines;
}

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [dist('cli.js'), ...args], { cwd: dir, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  lib = (await import(dist('index.js'))) as Lib;
  node = (await import(dist('node.js'))) as NodeLib;
  dir = mkdtempSync(join(tmpdir(), 'tp-threads-'));
  input = join(dir, 'corpus.jsonl');
  writeFileSync(input, corpusLines().join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('index build --threads', () => {
  for (const kind of ['exact', 'portrait'] as const) {
    it(`${kind}: byte-identical files for 1, 2 and 3 threads, equal to exportDataset`, async () => {
      const hashes: string[] = [];
      for (const threads of [1, 2, 3]) {
        const out = join(dir, `${kind}-${threads}.tpds`);
        const r = await node.buildDatasetFile({ dataset: 'salad', kind, files: [input], out, threads, idField: 'id' });
        expect(r.stats.documents).toBe(3000);
        expect(r.file_bytes).toBe(readFileSync(out).length);
        hashes.push(sha256(out));
      }
      expect(new Set(hashes).size).toBe(1);

      const engine = await lib.createEngine();
      await engine.addDataset({ id: 'salad', kind }, node.readDocuments([input], { idField: 'id' }));
      engine.finalizeDataset('salad');
      const bytes = engine.exportDataset('salad');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(hashes[0]);
      // the file loads, and a shared passage is found in it
      const again = await lib.createEngine();
      const stats = await again.importDataset(new Uint8Array(readFileSync(join(dir, `${kind}-2.tpds`))));
      expect(stats.documents).toBe(3000);
      expect(stats.fingerprints).toBe(engine.datasets()[0].fingerprints);
      engine.dispose();
      again.dispose();
    });
  }

  it('a document that cannot be fingerprinted in a worker is INVALID_INPUT naming it; no file is left', async () => {
    const lines = corpusLines().slice(0, 2500);
    lines.splice(2100, 0, JSON.stringify({ id: 'broken', text: 'a lone surrogate \ud800 in the text' }));
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, lines.join('\n') + '\n');
    const out = join(dir, 'bad.tpds');
    const e = await node.buildDatasetFile({ dataset: 'bad', files: [bad], out, threads: 2, idField: 'id' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(lib.isTrainprintError(e, 'INVALID_INPUT'), String(e)).toBe(true);
    expect((e as Error).message).toContain('document "broken"');
    expect((e as Error).message).toContain('lone surrogate');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('threads must be an integer 1..256 (API and CLI)', async () => {
    for (const threads of [0, 1.5, 257]) {
      const e = await node.buildDatasetFile({ dataset: 'x', files: [input], out: join(dir, 'x.tpds'), threads }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(lib.isTrainprintError(e, 'INVALID_OPTIONS'), String(e)).toBe(true);
    }
    // the CLI passes --threads as given: the library's refusal, its one bound
    const r = await run(['index', 'build', '--dataset', 'x', '--threads', 'two', input]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('INVALID_OPTIONS: The options are not valid: threads must be an integer in 1..256');
  });

  it('reads ahead at most 2 × threads batches, and stopping early stops the reading', async () => {
    const { fingerprintInThreads } = await import('../../src/node/build-pool.js');
    let pulled = 0;
    async function* endless() {
      for (let i = 0; i < 1e7; i++) {
        pulled++;
        yield { id: `d${i}`, text: `word${i % 97} and more words ${i}` };
      }
    }
    const threads = 2;
    const workerUrl = new URL(`file://${dist('build-worker.js')}`);
    const batches = fingerprintInThreads(endless(), { threads, kind: 'portrait', workerUrl });
    const first = await batches.next();
    expect(first.done).toBe(false);
    expect(first.value?.documents.length).toBe(2048); // a batch closes at 2,048 documents
    await batches.return(undefined);
    // the first batch, the 2 × threads in flight behind it, and the one being filled
    expect(pulled).toBeLessThanOrEqual((2 * threads + 2) * 2048);
    const after = pulled;
    await new Promise((r) => setTimeout(r, 50));
    expect(pulled).toBe(after);
  });

  it('a worker that dies or cannot start is an INTERNAL error, not a hang', async () => {
    const { fingerprintInThreads } = await import('../../src/node/build-pool.js');
    // many batches: the main thread does batches while the workers start, and must meet their failure
    const docs = Array.from({ length: 40 * 2048 }, (_, i) => ({ id: `d${i}`, text: `some words here ${i}` }));
    async function* source() {
      yield* docs;
    }
    for (const [name, code, expected] of [
      ['exits.mjs', 'process.exit(3)', 'exited (code 3)'],
      ['throws.mjs', 'throw new Error("broken worker")', 'broken worker'],
    ]) {
      writeFileSync(join(dir, name), code);
      const workerUrl = new URL(`file://${join(dir, name)}`);
      const run = async () => {
        for await (const _ of fingerprintInThreads(source(), { threads: 2, kind: 'exact', workerUrl })) {
          /* drain */
        }
      };
      const e = await run().then(
        () => null,
        (err: unknown) => err,
      );
      expect(lib.isTrainprintError(e, 'INTERNAL'), String(e)).toBe(true);
      expect((e as Error).message).toContain(expected);
    }
  });

  it('batches wait for a worker that says it is ready; until then the main thread does them', async () => {
    const { fingerprintInThreads } = await import('../../src/node/build-pool.js');
    const name = join(dir, 'never-ready.mjs');
    writeFileSync(name, 'setInterval(() => {}, 1000)'); // starts, never says ready, never exits
    const texts = corpusLines()
      .slice(0, 3000)
      .map((l) => (JSON.parse(l) as { text: string }).text);
    async function* source() {
      for (const [i, text] of texts.entries()) yield { id: `d${i}`, text };
    }
    const fingerprinter = await lib.createDatasetFingerprinter({ kind: 'portrait' });
    let documents = 0;
    const batches = fingerprintInThreads(source(), {
      threads: 2,
      kind: 'portrait',
      workerUrl: new URL(`file://${name}`),
    });
    for await (const { documents: docs, fingerprints } of batches) {
      const expected = fingerprinter.fingerprint(docs.map((d) => d.text));
      expect(fingerprints.hashes).toEqual(expected.hashes);
      expect(docs[0].id).toBe(`d${documents}`);
      documents += docs.length;
    }
    expect(documents).toBe(texts.length);
  });

  it('ids PATH:LINE, blank and CRLF lines, files read on the main thread: one file for 1, 2, 3 threads', async () => {
    // JSON Lines without ids (the workers number the lines of their ranges), a gzip file and a text
    // file (read on the main thread, their texts sent to the workers), one after the other
    const lines = corpusLines()
      .slice(0, 1500)
      .map((l, i) => (i % 97 === 0 ? `${l}\r\n\n  ` : l));
    const plain = join(dir, 'plain.jsonl');
    writeFileSync(plain, lines.join('\n')); // no final newline
    const gz = join(dir, 'more.jsonl.gz');
    writeFileSync(gz, gzipSync(corpusLines().slice(1500, 2500).join('\n') + '\n'));
    const txt = join(dir, 'note.txt');
    writeFileSync(txt, 'a plain text document of a few words, read whole');
    const hashes: string[] = [];
    for (const threads of [1, 2, 3]) {
      const out = join(dir, `mixed-${threads}.tpds`);
      const r = await node.buildDatasetFile({ dataset: 'mixed', files: [plain, gz, txt], out, threads });
      expect(r.stats.documents).toBe(2501);
      hashes.push(sha256(out));
    }
    expect(new Set(hashes).size).toBe(1);
    const info = await node.readDatasetInfo(join(dir, 'mixed-2.tpds'));
    expect(info.stats.documents).toBe(2501);
  });

  it('the first bad line in document order is the error, numbered as readDocuments numbers it', async () => {
    const lines = corpusLines();
    lines[2899] = '{"id": "late", "text": oops}'; // a later range, which may well finish first
    lines[1200] = '{"id": "early", "txt": "no text field"}';
    lines.splice(40, 0, '', '   '); // blank lines count
    const bad = join(dir, 'bad-lines.jsonl');
    writeFileSync(bad, lines.join('\n') + '\n');
    for (const threads of [1, 2, 3]) {
      const e = await node
        .buildDatasetFile({ dataset: 'bad', files: [bad], out: join(dir, 'bad-lines.tpds'), threads })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(lib.isTrainprintError(e, 'INVALID_INPUT'), String(e)).toBe(true);
      expect((e as Error).message).toContain(`${bad}:1203: no field "text"`);
    }
    // a document the core refuses, without an id field: named PATH:LINE
    const surrogate = corpusLines().slice(0, 2200);
    surrogate[2100] = JSON.stringify({ text: 'a lone surrogate \ud800 in the text' });
    const path = join(dir, 'surrogate.jsonl');
    writeFileSync(path, surrogate.join('\n') + '\n');
    const e = await node.buildDatasetFile({ dataset: 's', files: [path], out: join(dir, 's.tpds'), threads: 2 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(lib.isTrainprintError(e, 'INVALID_INPUT'), String(e)).toBe(true);
    expect((e as Error).message).toContain(`document "${path}:2101"`);
  });

  it('the CLI builds with --threads 2 the same file as with --threads 1', async () => {
    for (const threads of ['1', '2']) {
      const r = await run([
        'index',
        'build',
        '--dataset',
        'salad',
        '--id-field',
        'id',
        '--quiet',
        '--threads',
        threads,
        '--out',
        `cli-${threads}.tpds`,
        input,
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(sha256(join(dir, 'cli-2.tpds'))).toBe(sha256(join(dir, 'cli-1.tpds')));
  });
});

describe('JSON Lines in byte ranges (what the threads read)', () => {
  const tricky = [
    `\ufeff${JSON.stringify({ id: 'bom', text: 'a byte order mark before the first line' })}`,
    '',
    '   ',
    `${JSON.stringify({ id: 'crlf', text: 'snow ☃ and № signs, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 too' })}\r`,
    `\t ${JSON.stringify({ id: 'indented', text: 'leading blanks' })}`,
    JSON.stringify({ id: 'long', text: `${'a long line, longer than most ranges; '.repeat(120)}☃` }),
    JSON.stringify({ id: 7, text: 'an integer id' }),
  ];

  async function viaRanges(path: string, bytes: number, options: { idField?: string; maxDocumentBytes?: number }) {
    const { jsonlRanges, readJsonlRange } = await import('../../src/node/jsonl-ranges.js');
    const { checkInputs } = await import('../../src/node/read-documents.js');
    const { kinds, ctx } = await checkInputs([path], options);
    const docs: { id: string; text: string }[] = [];
    let lines = 0;
    for (const range of jsonlRanges(path, kinds[0].size, bytes)) {
      const r = readJsonlRange(range, ctx);
      r.texts.forEach((text, i) => {
        docs.push({ id: r.ids ? r.ids[i] : `${path}:${lines + r.lines[i]}`, text });
      });
      lines += r.lineCount;
    }
    return { docs, lines };
  }

  it("any range size gives readDocuments' documents, ids and line numbers", async () => {
    for (const ending of ['\n', '\r\n', '']) {
      const path = join(dir, `tricky-${ending.length}.jsonl`);
      writeFileSync(path, tricky.join('\n') + ending);
      for (const options of [{}, { idField: 'id' }]) {
        const expected: { id: string; text: string }[] = [];
        for await (const d of node.readDocuments([path], options)) expected.push({ id: d.id, text: d.text });
        expect(expected.length).toBe(5);
        for (const bytes of [1, 2, 3, 5, 16, 100, 1000, 1 << 20]) {
          const { docs, lines } = await viaRanges(path, bytes, options);
          expect(docs, `ranges of ${bytes} bytes`).toEqual(expected);
          expect(lines).toBe(tricky.length);
        }
      }
    }
  });

  it('a bad line is thrown with its line counted from the range; a line over maxDocumentBytes too', async () => {
    const { RangeLineError } = await import('../../src/node/jsonl-ranges.js');
    const path = join(dir, 'tricky-bad.jsonl');
    writeFileSync(path, [...tricky.slice(0, 5), '{"text": oops}', ...tricky.slice(5)].join('\n'));
    const e = await viaRanges(path, 1 << 20, {}).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(RangeLineError);
    expect(e).toMatchObject({ line: 6, detail: expect.stringContaining('malformed JSON') });
    const long = await viaRanges(join(dir, 'tricky-1.jsonl'), 64, { maxDocumentBytes: 1000 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(long).toMatchObject({ detail: 'line longer than maxDocumentBytes (1000 bytes)' });
  });
});
