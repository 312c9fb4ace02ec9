/**
 * `trainprint serve` (the built CLI on 127.0.0.1) beside slow bodies (round 6's H1): four bodies from one Scale key
 * that declare 2 MiB and send a byte every 100 ms hold none of the service's large-request places, so another
 * account's 2 MB analyze is answered while they still hang; and the server keeps its default deadlines (a body that
 * stops is 408 after 10 s, not read for minutes) — checked by the status it answers, nothing timed.
 *
 * Bounded: the server must start within 30 s; the slow bodies are closed by the test.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, requireBuiltCli, startServe, stopProcess, type ServeProcess } from '../fixtures/serve-process.js';

const running: ChildProcess[] = [];
let dir = '';
let srv: ServeProcess;

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-slow-'));
  srv = await startServe(['--port', '0', '--packs', 'none', '--store', join(dir, 'store'), '--admin-key'], { running });
});
afterAll(async () => {
  await Promise.all(running.map(stopProcess));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const keyOf = (account: string, plan: string) => adminKey(srv, account, plan);

function slowBody(key: string): { socket: Socket; answer: () => string; ended: Promise<string> } {
  const { port } = new URL(srv.url);
  const socket = connect(Number(port), '127.0.0.1');
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (got += c));
  socket.on('error', () => undefined);
  const ended = new Promise<string>((r) => socket.on('close', () => r(got)));
  socket.write(
    `POST /api/v1/attribution/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${2 << 20}\r\n\r\n{"content":"`,
  );
  return { socket, answer: () => got, ended };
}

describe('serve beside four slow 2 MiB bodies of one Scale account', () => {
  it("answers another account's 2 MB analyze while they hang", async () => {
    const scale = await keyOf('dave', 'scale');
    const pro = await keyOf('carol', 'pro');
    const slow = Array.from({ length: 4 }, () => slowBody(scale));
    const drip = setInterval(() => {
      for (const s of slow) if (s.socket.writable) s.socket.write('a');
    }, 100);
    try {
      const content = 'Permission is hereby granted, free of charge, to any person. '.repeat(34_000);
      const res = await fetch(`${srv.url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${pro}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content, content_type: 'text', search_remote: false }),
      });
      expect(res.status).toBe(200);
      // the slow bodies are still being read, or were cut for their rate (408): none was answered another way
      for (const s of slow) expect(s.answer()).toMatch(/^$|^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
    }
    // left to themselves (no more bytes), each is answered 408 REQUEST_TIMEOUT by the default deadlines
    const answers = await Promise.all(slow.map((s) => s.ended));
    for (const a of answers) {
      expect(a).toMatch(/^HTTP\/1\.1 408/);
      expect(a).toContain('"code":"REQUEST_TIMEOUT"');
    }
  }, 60_000);
});
