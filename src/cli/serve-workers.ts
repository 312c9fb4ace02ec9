/**
 * The primary process of `trainprint serve --workers N`: it makes the keys once in the shared (PostgreSQL) store,
 * then forks the worker processes that serve; each worker runs `serve` itself, told apart by SERVE_WORKER_ENV.
 */
import cluster from 'node:cluster';
import { printServing, serveKeys, type MadeKey } from './serve-keys.js';
import { openStore, redact } from './shared.js';

/** Set in the worker processes of `serve --workers N` (their number, from 1). */
export const SERVE_WORKER_ENV = 'TRAINPRINT_SERVE_WORKER';

/** Most worker processes re-forked after unexpected exits before the primary gives up. */
const MAX_REFORKS = 10;

/**
 * `serve --workers N`: the primary makes the keys once in the shared store, forks N worker processes that each load
 * the datasets and serve on the same port (node:cluster hands connections round-robin), prints what one of them
 * reports, re-forks a worker that dies, and on SIGTERM/SIGINT passes the signal on and waits for them to drain.
 * @example if (processes > 1 && cluster.isPrimary) return servePrimary(values, processes)
 */
export async function servePrimary(values: Record<string, unknown>, processes: number): Promise<number> {
  const http = await import('../http/index.js');
  const store = await openStore(values.store as string);
  let made: { dev: MadeKey; admin: MadeKey | null };
  try {
    made = await serveKeys(http, new http.KeyStore(store), values['admin-key'] === true);
  } finally {
    await store.close();
  }
  const where = redact(values.store as string);
  let stopping = false,
    reforks = 0,
    printed = false;
  const fork = (n: number) => {
    const w = cluster.fork({ [SERVE_WORKER_ENV]: String(n) });
    w.on('message', (m: { listening?: string; datasets?: string }) => {
      if (printed || typeof m?.listening !== 'string') return;
      printed = true;
      const what = `${processes} worker processes; datasets: ${m.datasets}; store: ${where}`;
      printServing(m.listening, what, made.dev, made.admin);
    });
    w.on('exit', (code, signal) => {
      if (stopping) return;
      if (reforks++ >= MAX_REFORKS) {
        console.error(`worker ${n} exited (${code ?? signal}); ${MAX_REFORKS} re-forks already: stopping`);
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      console.error(`worker ${n} exited (${code ?? signal}): starting another`);
      fork(n);
    });
  };
  for (let n = 1; n <= processes; n++) fork(n);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopping = true;
  const running = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && !w.isDead());
  await Promise.all(
    running.map(
      (w) =>
        new Promise<void>((resolve) => {
          w!.once('exit', () => resolve());
          w!.process.kill('SIGTERM');
        }),
    ),
  );
  return 0;
}
