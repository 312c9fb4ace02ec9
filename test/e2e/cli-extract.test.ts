/**
 * `trainprint extract` of the built CLI (dist/cli.js, `npm run build` first) against the fixture chat server on
 * 127.0.0.1 that memorised a stretch of a work: the result file's nv_recall near the held share with checkable
 * blocks, the budget held, a loopback model host refused without --allow-private-model-hosts (exit code 2, no
 * call made), and bad options as usage errors.
 */
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inOrderShare } from '../../src/services/memorization/nv-blocks.js';
import { buildEpub } from '../fixtures/documents.js';
import { startMemorisedServer, syntheticWork, type MemorisedServer } from '../fixtures/memorised-chat-server.js';
import { runCli } from '../fixtures/serve-process.js';
import { closedPort } from '../fixtures/closed-port.js';
import { countWords } from '../../src/util/space.js';

const { text, words } = syntheticWork(3, 1000, 7);
const held: [number, number] = [1200, 2200];
let dir: string;
let server: MemorisedServer;

const run = (args: string[]) => runCli(['extract', ...args], { cwd: dir, timeout: 120_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-extract-'));
  writeFileSync(join(dir, 'work.txt'), text);
  // the same work as an EPUB: its chapters (heading, body) as e-book tools write them
  const parts = text.split('\n\n');
  const chapters = [];
  for (let i = 0; i < parts.length; i += 2) chapters.push({ title: parts[i], text: parts[i + 1] });
  writeFileSync(join(dir, 'work.epub'), buildEpub(chapters));
  server = await startMemorisedServer({ words, held });
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint extract', () => {
  it('measures the held stretch through the chat API and writes the result', async () => {
    const before = server.requests();
    const r = await run([
      'work.txt',
      '--model-url',
      server.baseUrl,
      '--model',
      'fixture-memo-1',
      '--chat',
      '--budget-calls',
      '300',
      '--out',
      'result.json',
      '--prices',
      '2.5,10,USD',
      '--allow-private-model-hosts',
    ]);
    expect(r.stderr).toMatch(/nv_recall 0\.\d+/);
    expect(r.code).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
    const share = (held[1] - held[0]) / words.length;
    expect(result.nv_recall).toBeGreaterThan(share - 0.05);
    expect(result.nv_recall).toBeLessThanOrEqual(share + 0.001);
    expect(result.calls).toBe(server.requests() - before);
    expect(result.calls).toBeLessThanOrEqual(300);
    expect(result.blocks.length).toBeGreaterThan(0);
    for (const b of result.blocks) {
      expect(inOrderShare(text.slice(b.start, b.end), b.generated)).toBeGreaterThanOrEqual(0.9);
    }
    expect(result.record.calls).toHaveLength(result.calls);
    expect(result.cost.currency).toBe('USD');
    expect(result.cost.amount).toBeCloseTo(
      (result.usage.prompt_tokens * 2.5 + result.usage.completion_tokens * 10) / 1e6,
      6,
    );
  });

  it("a book's words: the words every door counts on stderr and in the result, its tokens named apart", async () => {
    // Julius Caesar's opening: 10,966 runs of non-space characters, 11,174 of the engine's word tokens
    const book = readFileSync(
      new URL('../fixtures/texts/gutenberg/shakespeare-caesar.txt', import.meta.url),
      'utf8',
    ).slice(0, 60_000);
    writeFileSync(join(dir, 'caesar.txt'), book);
    const own = await startMemorisedServer({ words: book.split(/\s+/).filter(Boolean), held: [1000, 1600] });
    try {
      const r = await run([
        'caesar.txt',
        ...['--model-url', own.baseUrl, '--model', 'fixture-memo-1', '--chat', '--allow-private-model-hosts'],
        ...['--budget-calls', '30', '--out', 'caesar.json'],
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('wrote caesar.json: a work of 10,966 words, nv_recall ');
      const result = JSON.parse(readFileSync(join(dir, 'caesar.json'), 'utf8'));
      expect(result).toMatchObject({ words: 10_966, tokens: 11_174 });
      expect(result.words).toBe(countWords(book));
    } finally {
      await own.close();
    }
  });

  it('reads an EPUB: its chapters are the strata, the offsets point into its extracted text', async () => {
    const r = await run([
      'work.epub',
      '--model-url',
      server.baseUrl,
      '--model',
      'fixture-memo-1',
      '--chat',
      '--out',
      'epub.json',
      '--allow-private-model-hosts',
    ]);
    expect(r.code).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'epub.json'), 'utf8'));
    expect(result.sections).toHaveLength(3);
    expect(result.sections.every((s: { probes: number }) => s.probes > 0)).toBe(true);
    expect(result.nv_recall).toBeGreaterThan((held[1] - held[0]) / words.length - 0.05);
    const text = await runCli(['extract-text', 'work.epub'], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    const extracted = text.stdout;
    for (const b of result.blocks) {
      expect(inOrderShare(extracted.slice(b.start, b.end), b.generated)).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('refuses a loopback model host without --allow-private-model-hosts, before any call', async () => {
    const before = server.requests();
    const r = await run(['work.txt', '--model-url', server.baseUrl, '--model', 'm', '--chat']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/loopback, private or internal host.*--allow-private-model-hosts/);
    expect(server.requests()).toBe(before);
  });

  it('a model host whose name does not resolve: said as serve says it (its 422), without the flag that would not help', async () => {
    const r = await run(['work.txt', '--model-url', 'http://no-such-host.invalid/v1', '--model', 'm', '--chat']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--model-url: no-such-host.invalid: the host name does not resolve');
    expect(r.stderr).not.toContain('--allow-private-model-hosts');
  });

  it.each([
    [['work.txt', '--model', 'm'], /--model-url/],
    [['work.txt', '--model-url', 'ftp://x/v1', '--model', 'm'], /http/],
    [['--model-url', 'http://127.0.0.1:1/v1', '--model', 'm'], /exactly one WORK/],
    [
      [
        'work.txt',
        '--model-url',
        'http://127.0.0.1:1/v1',
        '--model',
        'm',
        '--prices',
        'cheap',
        '--allow-private-model-hosts',
      ],
      /--prices/,
    ],
    [
      [
        'work.txt',
        '--model-url',
        'http://127.0.0.1:1/v1',
        '--model',
        'm',
        '--budget-calls',
        'many',
        '--allow-private-model-hosts',
      ],
      /integer/,
    ],
  ])('usage error: %j', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a budget out of range is INVALID_INPUT naming the field (exit code 1)', async () => {
    const r = await run([
      'work.txt',
      '--model-url',
      server.baseUrl,
      '--model',
      'm',
      '--budget-calls',
      '0',
      '--allow-private-model-hosts',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/INVALID_INPUT.*budget_calls/);
  });

  it("a wrong model name: the result file is written with the endpoint's message, exit code 1", async () => {
    const notFound = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: 'The model `nope` does not exist.', type: 'invalid_request_error' } }),
      );
    });
    await new Promise<void>((r) => notFound.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(notFound.address() as { port: number }).port}/v1`;
      const args = ['work.txt', '--model-url', url, '--model', 'nope', '--chat', '--allow-private-model-hosts'];
      const r = await run([...args, '--budget-calls', '10', '--out', 'nope.json']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('status 404');
      expect(r.stderr).toContain('The model `nope` does not exist.');
      const x = JSON.parse(readFileSync(join(dir, 'nope.json'), 'utf8'));
      expect(x.stopped).toBe('upstream_errors');
      expect(x.error.message).toContain('does not exist');
      expect(x.record.calls.length).toBe(3);
    } finally {
      await new Promise((r) => notFound.close(r));
    }
  });

  it('a refused connection is UPSTREAM_UNREACHABLE naming the URL, never the socket error (exit code 1)', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const args = ['work.txt', '--model-url', url, '--model', 'm', '--chat', '--allow-private-model-hosts'];
    // each call's retries count against the budget: 3 calls of 4 attempts fail in a row within 20
    const r = await run([...args, '--budget-calls', '20', '--out', 'closed.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`UPSTREAM_UNREACHABLE: ${url}/chat/completions: could not connect to the model service`);
    expect(r.stderr).not.toMatch(/ECONN|fetch failed|network error/);
    const x = JSON.parse(readFileSync(join(dir, 'closed.json'), 'utf8'));
    expect([x.stopped, x.error.code]).toEqual(['upstream_errors', 'UPSTREAM_UNREACHABLE']);
    expect(JSON.stringify(x)).not.toMatch(/ECONN|fetch failed/);
  });
});
