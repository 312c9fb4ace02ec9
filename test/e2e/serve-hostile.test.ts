/**
 * `trainprint serve` (the built CLI on 127.0.0.1, a file store) beside two attackers of one account each, while
 * other accounts are answered:
 * - a Free account's analyze body sent a byte a chunk (12 bytes on the wire a body byte): answered 400
 *   `MALFORMED_REQUEST` naming its pieces once past 4,096 pieces averaging under 32 bytes, the rest unread;
 * - a Scale account's audit of 20,000 works against a model service that answers at once: done, its result line the
 *   audit with its first 500 works and `works_next`, every work read back by pages
 *   (`GET /api/v1/jobs/{job_id}/results/0/works`), in order, its digest computed again from them.
 * Meanwhile `/healthz` and another account's analyze are answered 200 — checked by status, nothing timed.
 *
 * Bounded: the server must start within 30 s; the job is polled with a deadline; the sockets are closed by the test.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditDigest } from '../../src/services/memorization/digests.js';
import { adminKey, requireBuiltCli, startServe, stopProcess, type ServeProcess } from '../fixtures/serve-process.js';

const running: ChildProcess[] = [];
let dir = '';
let srv: ServeProcess;
let model: Server;
let modelUrl = '';

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-hostile-'));
  // a model service that answers every call at once with words of no work
  model = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const content = 'nothing of the kind';
      const answer = {
        id: 'x',
        object: 'chat.completion',
        model: 'm',
        choices: [{ index: 0, text: content, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  srv = await startServe(
    ['--port', '0', '--packs', 'none', '--store', join(dir, 'store'), '--admin-key', '--allow-private-model-hosts'],
    { running },
  );
}, 60_000);
afterAll(async () => {
  await Promise.all(running.map(stopProcess));
  await new Promise((r) => model?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const keyOf = (account: string, plan: string) => adminKey(srv, account, plan);

/** A call with the key, its JSON answer and status. */
async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
}

/** An analyze body of `bytes` bytes sent a byte a chunk; resolves to the server's whole answer. */
function oneByteChunks(key: string, bytes: number): Promise<string> {
  const { port } = new URL(srv.url);
  const socket = connect(Number(port), '127.0.0.1');
  let got = '';
  socket.setEncoding('latin1');
  socket.on('data', (c: string) => (got += c));
  socket.on('error', () => undefined);
  const ended = new Promise<string>((r) => socket.on('close', () => r(got)));
  socket.write(
    `POST /api/v1/attribution/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
  );
  const body = Buffer.from(JSON.stringify({ content: 'lorem ipsum dolor '.repeat(bytes / 18), content_type: 'text' }));
  let at = 0;
  const pump = () => {
    while (at < body.length && socket.writable) {
      let wire = '';
      for (let n = 0; n < 4096 && at < body.length; n++, at++)
        wire += `1\r\n${body.toString('latin1', at, at + 1)}\r\n`;
      if (at >= body.length) wire += '0\r\n\r\n';
      if (!socket.write(wire, 'latin1')) return void socket.once('drain', pump);
    }
  };
  pump();
  return ended;
}

/** Made-up words, `n` of them, the same for a seed. */
function madeUp(n: number, seed: number): string {
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tas', 'vu', 'zel', 'po', 'quin', 'dar'];
  let a = seed;
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    words.push(syllables[a % 10] + syllables[(a >>> 8) % 10] + syllables[(a >>> 16) % 10]);
  }
  return words.join(' ');
}

describe('serve beside a 1-byte-chunk body and a catalogue audit of 20,000 works', () => {
  it("answers the others while both run; the chunked body is refused, the audit's works are read by pages", async () => {
    const [free, scale, pro] = await Promise.all([keyOf('gus', 'free'), keyOf('dave', 'scale'), keyOf('carol', 'pro')]);
    const works = Array.from({ length: 20_000 }, (_, i) => ({ id: `w${i}`, text: madeUp(60, i + 1) }));
    const submitted = await call(scale, 'POST', '/api/v1/jobs', {
      type: 'audit',
      items: [{ works, model: { base_url: modelUrl, model: 'm' }, budget_calls: 300 }],
    });
    expect(submitted.status, submitted.text.slice(0, 300)).toBe(202);
    const job = submitted.json;
    const chunked = oneByteChunks(free, 300_000);

    // while both run: the others are answered
    const victim = await call(pro, 'POST', '/api/v1/attribution/analyze', {
      content: madeUp(20_000, 7),
      content_type: 'text',
    });
    expect(victim.status, victim.text.slice(0, 300)).toBe(200);
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);

    const answer = await chunked;
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"code":"MALFORMED_REQUEST"');

    let state = job.state as string;
    for (let i = 0; i < 1200 && !['done', 'failed', 'cancelled'].includes(state); i++) {
      await new Promise((r) => setTimeout(r, 250));
      state = (await call(scale, 'GET', job.status_url)).json.state;
      expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    }
    expect(state).toBe('done');
    const lines = (await call(scale, 'GET', job.results_url)).text.split('\n').filter(Boolean);
    const line = JSON.parse(lines[0]);
    expect(line.success, lines[0].slice(0, 300)).toBe(true);
    expect(line.result.works).toHaveLength(500);
    expect(line.result.works_next).toBe(500);
    expect(line.result.catalogue.works).toBe(20_000);
    expect(line.result.calls).toBeLessThanOrEqual(300);

    const read: Array<{ id: string; transcript_sha256?: string }> = [...line.result.works];
    for (let after: number | null = line.result.works_next; after !== null; ) {
      const page = await call(scale, 'GET', `${job.results_url}/0/works?after=${after}&limit=1000`);
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      read.push(...page.json.works);
      after = page.json.next;
    }
    expect(read.map((w) => w.id)).toEqual(works.map((w) => w.id));
    expect(auditDigest(read)).toBe(line.result.audit_sha256);
    // another account reads none of it
    expect((await call(pro, 'GET', `${job.results_url}/0/works`)).status).toBe(404);
  }, 600_000);
});
