/**
 * `trainprint/packs` — reference packs: portrait datasets of real public text with their knowledge-base link and
 * provenance, built reproducibly from a manifest and verified by SHA-256 and CRC-32. Pure TypeScript for every
 * runtime (the `…With` functions take the file access they use); reading pack files and texts from disk is
 * `trainprint/node`'s, and `createEngine({ packs: 'default' })` loads the default packs without this entry.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { loadPack } from 'trainprint/packs'
 * const engine = await createEngine()
 * const { info } = await loadPack(engine, bytes, { sha256: entry.sha256 }) // entry: from packs/index.json
 * info.kb_dataset // 'project-gutenberg'
 */
export {
  buildPack,
  loadPack,
  verifyPack,
  readPackInfo,
  PACK_FORMAT,
  PACK_VERSION,
  checkPackIndex,
  checkPackManifest,
  PACK_INDEX_FORMAT,
  PACK_MANIFEST_FORMAT,
  PACK_MANIFEST_VERSION,
  parseGutenbergHeader,
  stripGutenbergHeaders,
  detokenizeWikiText,
  splitWikiText,
  articleTableText,
  buildPackFileWith,
  listPacksWith,
  loadDefaultPacksWith,
  loadPackFileWith,
  readPackIndexWith,
  readPackManifestWith,
  verifyPackFileWith,
  PACK_INDEX_FILE,
  loadDefaultPacksFromUrl,
  type BuiltPack,
  type PackBuildProgress,
  type PackDocumentMeta,
  type PackEngine,
  type PackInfo,
  type PackMeta,
  type PackTextReader,
  type PackIndex,
  type PackIndexEntry,
  type PackLicence,
  type PackManifest,
  type PackManifestDocument,
  type PackManifestArticles,
  type PackSource,
  type GutenbergHeader,
  type WikiTextArticle,
  type PackUrlOptions,
  type BuildPackFileOptions,
  type BuildPackFileResult,
  type ListedPack,
  type PackFs,
} from '../library.js';
