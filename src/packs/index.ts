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
export {
  buildPack,
  loadPack,
  verifyPack,
  readPackInfo,
  PACK_FORMAT,
  PACK_VERSION,
} from './pack.js';
export type {
  BuiltPack,
  PackBuildProgress,
  PackDocumentMeta,
  PackEngine,
  PackInfo,
  PackMeta,
  PackTextReader,
} from './pack.js';
export {
  checkPackIndex,
  checkPackManifest,
  PACK_INDEX_FORMAT,
  PACK_MANIFEST_FORMAT,
  PACK_MANIFEST_VERSION,
} from './manifest.js';
export type {
  PackIndex,
  PackIndexEntry,
  PackLicence,
  PackManifest,
  PackManifestDocument,
  PackManifestArticles,
  PackSource,
} from './manifest.js';
export { parseGutenbergHeader, stripGutenbergHeaders } from './gutenberg.js';
export type { GutenbergHeader } from './gutenberg.js';
export { detokenizeWikiText, splitWikiText } from './wikitext.js';
export { articleTableText } from '../datasets/articles.js';
export type { WikiTextArticle } from './wikitext.js';
export {
  buildPackFileWith,
  listPacksWith,
  loadDefaultPacksWith,
  loadPackFileWith,
  readPackIndexWith,
  readPackManifestWith,
  verifyPackFileWith,
  PACK_INDEX_FILE,
} from './files.js';
export { loadDefaultPacksFromUrl } from './default.js';
export type { PackUrlOptions } from './default.js';
export type { BuildPackFileOptions, BuildPackFileResult, ListedPack, PackFs } from './files.js';
