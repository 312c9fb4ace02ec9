/**
 * Preloaded into a `serve` (node --require, `SERVE_NODE_ARGS="--require ./bench/soak-waits.cjs"` with
 * TRAINPRINT_SOAK_WAITS=FILE): what each request was beside while it waited. Appended to FILE as JSON lines, on the
 * monotonic clock in µs (`process.hrtime`, the clock of bench/loop-gaps.cjs and of a `--cpu-prof` profile):
 *
 * - `{ req: … }` a request: its start and end, method, path, status, declared length, the last 6 characters of its
 *   key (to tell accounts apart without keeping a key) and the `x-soak-kind` header a bench client may send;
 * - `{ task: … }` a message to a worker thread and its answer: the thread, its start and end, and what it was
 *   (`work.kind` and the texts' lengths for the worker pool; the format and bytes for a document thread; a JSON
 *   body's bytes).
 *
 * bench/soak-waits.mjs reads it: for each of the slowest requests, what ran on the threads and which requests of
 * other accounts were in the server while it did. Nothing of a request's body is kept.
 */
'use strict';
const { appendFileSync } = require('node:fs');
const http = require('node:http');
const { Worker, isMainThread } = require('node:worker_threads');

// `%p` in the name is the process id: one file a server when a bench starts several (bench/soak-ab.mjs)
const file = process.env.TRAINPRINT_SOAK_WAITS?.replace('%p', String(process.pid));
if (file && isMainThread) {
  const us = () => Number(process.hrtime.bigint() / 1000n);
  let lines = [];
  const flush = () => {
    if (lines.length) appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  setInterval(flush, 2000).unref();
  process.on('exit', flush);

  const serverEmit = http.Server.prototype.emit;
  http.Server.prototype.emit = function emit(event, req, res) {
    if (event === 'request') {
      const from = us();
      const auth = String(req.headers.authorization ?? '');
      const line = {
        from_us: from,
        method: req.method,
        path: String(req.url).split('?')[0],
        declared: Number(req.headers['content-length'] ?? -1),
        key: auth.slice(-6),
        kind: req.headers['x-soak-kind'],
      };
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        lines.push(JSON.stringify({ req: { ...line, to_us: us(), status: res.statusCode } }));
      };
      res.once('finish', end);
      res.once('close', end);
    }
    return serverEmit.apply(this, arguments);
  };

  /** What a message to a thread was, in a few plain fields. */
  const what = (m) => {
    if (!m || typeof m !== 'object') return {};
    if (m.work) {
      const lengths = {};
      for (const [k, v] of Object.entries(m.work)) if (typeof v === 'string') lengths[k] = v.length;
      return { kind: m.work.kind, lengths };
    }
    if (m.json) return { kind: 'json', bytes: m.json.bytes?.byteLength };
    if (m.format) return { kind: `document:${m.format}`, bytes: m.bytes?.byteLength };
    return { kind: Object.keys(m).join(',') };
  };
  const open = new Map(); // `${threadId}/${id}` → the task's line
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function postMessage(m) {
    if (m && typeof m === 'object' && 'id' in m)
      open.set(`${this.threadId}/${m.id}`, { thread: this.threadId, from_us: us(), ...what(m) });
    return post.apply(this, arguments);
  };
  const workerEmit = Worker.prototype.emit;
  Worker.prototype.emit = function emit(event, m) {
    if (event === 'message' && m && typeof m === 'object' && 'id' in m) {
      const k = `${this.threadId}/${m.id}`;
      const t = open.get(k);
      if (t) {
        open.delete(k);
        lines.push(JSON.stringify({ task: { ...t, to_us: us(), error: m.error?.code } }));
      }
    }
    return workerEmit.apply(this, arguments);
  };
}
