/**
 * A long request does not hold up the others: `trainprint serve` (the built CLI, default packs and the
 * starter dataset) keeps answering GET /api/v1/status while a 10 MB analyze and a 500,000-character
 * compare run. Progress, not milliseconds: status requests sent one after another once the large body
 * is on its way must keep completing before the large answer arrives. Before slicing and the worker
 * pool, the process answered nothing else from the end of the upload to the answer (a handful at most).
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, startServe } from '../fixtures/serve-process.js';
import { book } from '../fixtures/texts/index.js';

/** About `bytes` of English prose: the fixture books, each copy with a numbered heading. */
function prose(bytes: number): string {
  const books = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise', 'shakespeare-caesar'].map(book);
  const parts: string[] = [];
  for (let n = 0, i = 0; n < bytes; i++) {
    const part = `Part ${i}\n\n${books[i % books.length]}`;
    parts.push(part);
    n += part.length;
  }
  return parts.join('\n\n').slice(0, bytes);
}

/**
 * POST `body` to `path`; `sent` resolves once the whole body is handed to the socket (node:http's end
 * callback), `answer` with the status and body text.
 */
function post(
  url: string,
  path: string,
  key: string,
  body: string,
): { sent: Promise<void>; answer: Promise<{ status: number; text: string }> } {
  let sent!: () => void;
  const whenSent = new Promise<void>((r) => (sent = r));
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body, () => sent());
  });
  return { sent: whenSent, answer };
}

/** Status requests one after another from when `start` resolves until `done` does: how many were answered 200. */
async function statusesDuring(url: string, start: Promise<void>, done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  await start;
  let answered = 0;
  for (let i = 0; i < 100_000 && !finished; i++) {
    const res = await fetch(`${url}/api/v1/status`);
    await res.json();
    if (finished) break; // answered after the large request: it does not count
    if (res.status === 200) answered++;
  }
  return answered;
}

describe('trainprint serve: other requests go on while a long one runs', () => {
  let child: ChildProcess;
  let url = '';
  let key = '';
  beforeAll(async () => {
    requireBuiltCli();
    ({ child, url, dev: key } = await startServe(['--starter', '--port', '0'], { startMs: 30_000 }));
  }, 40_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('answers status requests while a 10 MB analyze runs, and the analysis succeeds', async () => {
    const content = prose(10_000_000);
    const body = JSON.stringify({ content, content_type: 'text' });
    const { sent, answer } = post(url, '/api/v1/attribution/analyze', key, body);
    const answered = await statusesDuring(url, sent, answer);
    const { status, text } = await answer;
    expect(status, text.slice(0, 300)).toBe(200);
    const result = JSON.parse(text);
    expect(result.success).toBe(true);
    // the Gutenberg pack holds these books: the analysis did its whole search
    expect(result.matches.length).toBeGreaterThan(0);
    expect(answered).toBeGreaterThanOrEqual(20);
  }, 120_000);

  it('answers status requests while a 500,000-character compare runs on the worker pool, same result', async () => {
    const text = prose(1_000_000);
    const a = text.slice(0, 500_000);
    const b = a.slice(0, 250_000) + text.slice(500_000, 750_000);
    const { sent, answer } = post(url, '/api/v1/attribution/compare', key, JSON.stringify({ a, b }));
    const answered = await statusesDuring(url, sent, answer);
    const { status, text: body } = await answer;
    expect(status, body.slice(0, 300)).toBe(200);
    const { success, ...comparison } = JSON.parse(body);
    expect(success).toBe(true);
    // the worker's answer is the in-thread compare's
    const { createEngine } = await import(new URL('../../dist/index.js', import.meta.url).href);
    const engine = await createEngine();
    expect(comparison).toEqual(JSON.parse(JSON.stringify(engine.compare(a, b))));
    expect(comparison.spans.length).toBeGreaterThan(0);
    expect(answered).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
