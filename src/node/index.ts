/**
 * `trainprint/node` — Node-only helpers for building reference datasets from corpus files:
 * {@link readDocuments} streams documents out of text, JSON Lines, JSON and Parquet files (gzip or
 * Zstandard compressed too); {@link buildDatasetFile} indexes them and writes a dataset file;
 * {@link readDatasetInfo} validates and describes one. The `trainprint index` CLI is built on these.
 * {@link openFileStore} is the durable store for `createEngine({ store })`, {@link openPostgresStore} the
 * one several processes share (PostgreSQL); {@link createPostgresDataset} keeps an exact dataset in
 * PostgreSQL (`engine.attachDataset`); {@link resolveHost} resolves
 * and pins the hosts the HTTP handler calls (`createHandler(engine, { resolveHost })`).
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { buildDatasetFile } from 'trainprint/node'
 * await buildDatasetFile({ dataset: 'wiki', files: ['wiki-00.jsonl.zst'], out: 'wiki.tpds' })
 * const engine = await createEngine()
 * await engine.importDataset(new Uint8Array(await readFile('wiki.tpds')))
 */
export { readDocuments, detectFormat } from './read-documents.js';
export type { ReadDocumentsOptions, DocumentFormat, Compression } from './read-documents.js';
export { buildDatasetFile, buildPostgresDataset, pushDatasetFile, readDatasetInfo } from './build.js';
export * from '../store/node.js'; // the file store and the PostgreSQL store and datasets
export { CLIENT_ADDRESS_HEADER, serve } from './serve.js';
export { collectWhenQuiet, LARGE_BODY_BYTES } from './quiet-collect.js';
export type { CollectWhenQuietOptions, QuietCollection } from './quiet-collect.js';
export { createWorkerPool } from './offload.js';
export type { WorkerPool, WorkerPoolOptions } from './offload.js';
export { createDocumentPool, DOCUMENT_MEMORY_MB } from './extract-pool.js';
export type { DocumentPool, DocumentPoolOptions } from './extract-pool.js';
export { resolveHost } from './egress.js';
export type { PinnedHost } from './egress.js';
export { serveStatic, CONTENT_TYPES } from './static.js';
export { readModelDirectory } from './models.js';
export type { ModelManifest } from './models.js';
export type { StaticHandler, ServeStaticOptions } from './static.js';
export type { ServeOptions, Server } from './serve.js';
export type {
  BuildDatasetFileOptions,
  BuildDatasetFileResult,
  BuildProgress,
  DatasetFileInfo,
  BuildPostgresDatasetOptions,
  PostgresDatasetResult,
  PostgresTargetOptions,
  PushDatasetFileOptions,
} from './build.js';
export * from './packs.js';
export * from './queue/index.js'; // the scan queue's public surface, as its index lists it
export * from './scan/index.js';
export { loadDatasetSpecs } from './load-datasets.js';
export { openExtractionJournal } from './extraction-journal.js';
export type { FileExtractionJournal } from './extraction-journal.js';
