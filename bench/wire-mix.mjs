// The wire mix: many concurrent requests over kept-alive connections, a fifth each answered 200 (body read),
// 401, 429 and 503 (answered before the body is read, as an unknown key, a spent quota and a full large-work
// queue are) and 413 (a declared Content-Length over the limit, refused before any byte is read, or a chunked
// body counted past it), sent through undici (Node's fetch, one pooled Agent) and through curl --parallel.
// Every request must get its status: a connection reset or "other side closed" is an answer lost on the wire.
// Shared by test/contract/http-wire.test.ts (the server of src/) and bench/wire.mjs (the server of dist/).
import './help.mjs';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The kinds of the mix, in turn, and the status each must get. */
export const KINDS = ['ok', 'auth', 'large', 'quota', 'busy'];
export const STATUS = { ok: 200, auth: 401, large: 413, quota: 429, busy: 503 };
/** The body limit of the mix's handler (as a plan's): 1 MiB. */
export const LIMIT = 1 << 20;

/** The body each request sends: [bytes, chunked]. Early answers get 16 KiB or 96 KiB, refused ones 2 MiB. */
export function bodyOf(kind, i) {
  if (kind === 'ok') return [4096, false];
  if (kind === 'large') return [2 * LIMIT, Math.floor(i / KINDS.length) % 2 === 1];
  return [Math.floor(i / KINDS.length) % 2 === 0 ? 16 << 10 : 96 << 10, false];
}

const json = (status, code, headers = {}) =>
  new Response(JSON.stringify({ success: false, error: { code, message: code } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A Fetch handler that answers each kind of the mix the way the service's handler does. */
export function mixHandler() {
  return async (request) => {
    const kind = new URL(request.url).pathname.slice(1);
    if (kind === 'ok') {
      const bytes = (await request.arrayBuffer()).byteLength;
      return new Response(JSON.stringify({ success: true, bytes }), {
        headers: { 'content-type': 'application/json' },
      });
    }
    if (kind === 'auth') return json(401, 'UNAUTHORIZED', { 'www-authenticate': 'Bearer' });
    if (kind === 'quota') return json(429, 'RATE_LIMITED', { 'retry-after': '60' });
    if (kind === 'busy') return json(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' });
    if (kind === 'large') {
      if (Number(request.headers.get('content-length')) > LIMIT) return json(413, 'PAYLOAD_TOO_LARGE');
      const reader = request.body.getReader();
      for (let n = 0; ; ) {
        const { done, value } = await reader.read();
        if (done) return json(400, 'UNEXPECTED_END');
        n += value.byteLength;
        if (n > LIMIT) {
          await reader.cancel();
          return json(413, 'PAYLOAD_TOO_LARGE');
        }
      }
    }
    return json(404, 'NOT_FOUND');
  };
}

/** Tally of a run: statuses per kind, wrong statuses, failed requests by error. */
function tally() {
  return { requests: 0, answered: 0, wrong: 0, resets: 0, errors: {}, statuses: {} };
}
function record(t, kind, status, error) {
  t.requests++;
  if (error !== undefined) {
    t.errors[error] = (t.errors[error] ?? 0) + 1;
    if (/ECONNRESET|EPIPE|other side closed|socket|reset|closed|exit 5[256]|exit 7|exit 18/i.test(error)) t.resets++;
    return;
  }
  t.answered++;
  t.statuses[`${kind} ${status}`] = (t.statuses[`${kind} ${status}`] ?? 0) + 1;
  if (status !== STATUS[kind]) t.wrong++;
}

const FILLER = new Uint8Array(2 * LIMIT).fill(0x61);

/** The undici Agent class inside Node (its global dispatcher's), without the package. */
async function agentClass(url) {
  await fetch(`${url}/ok`, { method: 'POST', body: 'x' }).then((r) => r.arrayBuffer());
  const dispatcher = globalThis[Symbol.for('undici.globalDispatcher.1')];
  if (!dispatcher) throw new Error("no undici global dispatcher: this Node's fetch is not undici");
  return dispatcher.constructor;
}

/**
 * `requests` requests of the mix at once through one undici Agent of `connections` kept-alive connections.
 * @returns the tally
 */
export async function undiciMix(url, { requests = 1000, connections = 50 } = {}) {
  const Agent = await agentClass(url);
  const dispatcher = new Agent({ connections });
  const t = tally();
  try {
    await Promise.all(
      Array.from({ length: requests }, async (_, i) => {
        const kind = KINDS[i % KINDS.length];
        const [bytes, chunked] = bodyOf(kind, i);
        const data = FILLER.subarray(0, bytes);
        const body = chunked
          ? new ReadableStream({
              start(c) {
                for (let at = 0; at < bytes; at += 64 << 10) c.enqueue(data.subarray(at, at + (64 << 10)));
                c.close();
              },
            })
          : data;
        try {
          const r = await fetch(`${url}/${kind}`, {
            method: 'POST',
            body,
            dispatcher,
            headers: { 'content-type': 'application/octet-stream' },
            ...(chunked ? { duplex: 'half' } : {}),
          });
          await r.arrayBuffer();
          record(t, kind, r.status);
        } catch (e) {
          const cause = e?.cause;
          record(t, kind, 0, `${cause?.code ?? e?.name ?? 'Error'}: ${cause?.message ?? e?.message ?? e}`);
        }
      }),
    );
  } finally {
    await dispatcher.close();
  }
  return t;
}

/**
 * `requests` requests of the mix through one `curl --parallel` process (its connection cache keeps and reuses
 * connections, at most `parallel` at once). `connects` in the tally: connections curl opened.
 * @returns the tally, or null when curl is not installed
 */
export async function curlMix(url, { requests = 1000, parallel = 50 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-wire-'));
  try {
    const files = new Map();
    const file = (bytes) => {
      if (!files.has(bytes)) {
        const path = join(dir, `body-${bytes}`);
        writeFileSync(path, FILLER.subarray(0, bytes));
        files.set(bytes, path);
      }
      return files.get(bytes);
    };
    const kinds = [];
    const lines = [];
    for (let i = 0; i < requests; i++) {
      const kind = KINDS[i % KINDS.length];
      const [bytes, chunked] = bodyOf(kind, i);
      kinds.push(kind);
      if (i > 0) lines.push('next');
      lines.push(
        `url = "${url}/${kind}"`,
        `data-binary = "@${file(bytes)}"`,
        'header = "content-type: application/octet-stream"',
        ...(chunked ? ['header = "transfer-encoding: chunked"'] : []),
        'output = "/dev/null"',
        `write-out = "${i} %{http_code} %{exitcode} %{num_connects}\\n"`,
      );
    }
    writeFileSync(join(dir, 'config'), `${lines.join('\n')}\n`);
    const out = await new Promise((resolve, reject) => {
      execFile(
        'curl',
        ['--parallel', '--parallel-max', String(parallel), '--silent', '--config', join(dir, 'config')],
        { maxBuffer: 1 << 24, timeout: 120_000 },
        (err, stdout) => {
          if (err && err.code === 'ENOENT') resolve(null);
          else if (err && typeof err.code !== 'number') reject(err);
          else resolve(stdout); // a non-zero exit: some transfer failed, each says which below
        },
      );
    });
    if (out === null) return null;
    const t = tally();
    t.connects = 0;
    const seen = new Set();
    for (const line of out.trim().split('\n')) {
      const [i, status, exit, connects] = line.split(' ').map(Number);
      seen.add(i);
      t.connects += connects;
      record(t, kinds[i], status, exit === 0 ? undefined : `curl exit ${exit}`);
    }
    for (let i = 0; i < requests; i++) if (!seen.has(i)) record(t, kinds[i], 0, 'no curl write-out');
    return t;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
