/**
 * A worker thread of `scanFiles --threads N` (./pool.ts): the loop of ./thread.ts on the scan engine, taken from the
 * file scan's module (./alone.ts).
 *
 * Why that module: tsup builds this file as dist/scan-worker.js, a few lines whose import of ./alone.js becomes
 * './scan-files.js' (tsup.config.ts), so each thread compiles the scan engine that `trainprint scan` loads on one
 * thread and not the whole library with trainprint/node (≈ 1.4 MB, most of it services a scan never calls). The
 * hits are the same: the same scan service over the same datasets.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serveScanWorker } from './alone.js';
import type { ScanWorkerData } from './protocol.js';

if (parentPort) serveScanWorker(parentPort, workerData as ScanWorkerData);
