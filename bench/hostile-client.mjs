/**
 * The measuring client of bench/hostile-files.mjs, on a worker thread of its own: `GET /api/v1/status` polled every
 * 50 ms and another account's small text analyses one after another. The thread that sends the hostile uploads
 * encodes and writes 20 × 6 MB; timers on that thread would count its own work as the server's latency (measured: its
 * event loop stalled 0.85 s as the uploads were sent, on an idle machine, and the other account's call that began
 * then took 1.08 s while the server's event loop never stalled 50 ms). Here each call is timed on a loop that does
 * nothing else, and that loop's own delay is reported beside the figures (`client_event_loop_max_ms`).
 *
 * Main thread side: `const c = measuringClient(url, pid)`, then `const stop = c.start('probe' | 'analyses', key)` and
 * `await stop()` for the results; `await c.close()`.
 */
import './help.mjs';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** p-th percentile (nearest rank), rounded to the ms; null for no values. */
export const pct = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]);
};

/** A fetch timed from the call to the whole body read; status 0 for a failure. */
export async function timed(url, init) {
  const t = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    return { ms: performance.now() - t, status: res.status, text };
  } catch (e) {
    return { ms: performance.now() - t, status: 0, text: String(e) };
  }
}

/** A worker thread that measures; see the file's comment. */
export function measuringClient(url, pid) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, pid } });
  let next = 0;
  const waiting = new Map();
  worker.on('message', (m) => {
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  const ask = (message) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ ...message, id });
    });
  return {
    /** Starts a loop now; the function it returns stops it and resolves to its figures. */
    start(kind, key) {
      const started = ask({ op: 'start', kind, key });
      return async () => {
        const run = await started;
        return ask({ op: 'stop', run });
      };
    },
    close: () => worker.terminate(),
  };
}

if (!isMainThread && workerData?.url) {
  const { url, pid } = workerData;
  const runs = new Map();
  let nextRun = 0;

  /** Polls /status and /healthz in turn every 50 ms (one at a time) and the server's RSS: latencies and peak RSS. */
  const probe = () => {
    const latencies = [];
    const healthz = [];
    let peak = rssMB(pid);
    let stop = false;
    const done = (async () => {
      while (!stop) {
        const h = await timed(`${url}/healthz`);
        healthz.push(h.status === 200 ? h.ms : 120_000);
        const r = await timed(`${url}/api/v1/status`);
        latencies.push(r.status === 200 ? r.ms : 120_000);
        try {
          peak = Math.max(peak, rssMB(pid));
        } catch {} // the server has exited: its answers above say so
        await sleep(50);
      }
    })();
    return async () => {
      stop = true;
      await done;
      return {
        status_p99_ms: pct(latencies, 99),
        status_max_ms: pct(latencies, 100),
        status_polls: latencies.length,
        healthz_p99_ms: pct(healthz, 99),
        healthz_max_ms: pct(healthz, 100),
        peak_rss_mb: Math.round(peak),
      };
    };
  };

  /** Another account's small text analyses, one after another 50 ms apart: each one's start, time and status. */
  const analyses = (key) => {
    let going = true;
    const calls = [];
    const loop = (async () => {
      while (going) {
        const at = performance.now();
        const r = await timed(`${url}/api/v1/attribution/analyze`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            content: `A short text of another account, number ${calls.length}.`,
            content_type: 'text',
          }),
        });
        calls.push({ at, ms: r.ms, status: r.status });
        await sleep(50);
      }
    })();
    return async () => {
      going = false;
      await loop;
      return calls;
    };
  };

  parentPort.on('message', async ({ id, op, kind, key, run }) => {
    if (op === 'start') {
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const at = performance.now();
      const stop = kind === 'probe' ? probe() : analyses(key);
      const n = nextRun++;
      runs.set(n, { stop, delay, at });
      parentPort.postMessage({ id, result: n });
    } else {
      const { stop, delay, at } = runs.get(run);
      runs.delete(run);
      const out = await stop();
      delay.disable();
      const loop = { client_event_loop_max_ms: Math.round(delay.max / 1e6) };
      const result = Array.isArray(out)
        ? { calls: out.map((c) => ({ start_ms: Math.round(c.at - at), ms: c.ms, status: c.status })), ...loop }
        : { ...out, ...loop };
      parentPort.postMessage({ id, result });
    }
  });
}
