/**
 * Reference packs (src/packs): portrait datasets of real public text, with their knowledge-base
 * link and provenance, built reproducibly from a manifest and verified by SHA-256 and CRC-32.
 * Pure TypeScript for every runtime; reading pack files and texts from disk is `trainprint/node`'s.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { loadPack } from 'trainprint/packs'
 * const engine = await createEngine()
 * const { info } = await loadPack(engine, bytes, { sha256: entry.sha256 }) // from packs/index.json
 * info.kb_dataset // 'project-gutenberg'
 */
// every name of these modules is the package's (`trainprint/packs` lists them)
export * from './pack.js';
export * from './manifest.js';
export * from './gutenberg.js';
export * from './wikitext.js';
export * from './files.js';
export * from './default.js';
export { articleTableText } from '../datasets/articles.js';
