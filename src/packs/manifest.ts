/**
 * The two JSON files of reference packs: a pack's **manifest** (everything needed to rebuild it:
 * what it is, where its texts come from, their licence, the portrait window and every document
 * with the SHA-256 of its expected text) and the **pack index** (`packs/index.json`: the packs that
 * ship, their files, SHA-256 and whether they load by default). Both are checked strictly: an
 * unknown field is refused rather than ignored, so a typo cannot silently change a build.
 */
import { checkPortraitBackground, type PortraitBackground } from '../datasets/background.js';
import { type CommonRule, checkCommonRule } from '../datasets/common.js';
import { TrainprintError } from '../errors.js';

/** `format` of a pack manifest. */
export const PACK_MANIFEST_FORMAT = 'trainprint.pack-manifest';
/** `format` of the pack index (`packs/index.json`). */
export const PACK_INDEX_FORMAT = 'trainprint.packs';
/** The manifest and index layout version this library writes and reads. */
export const PACK_MANIFEST_VERSION = 1;

/** Where texts of a pack come from: one public repository at one commit. */
export interface PackSource {
  /** `owner/name` of the repository. */
  readonly repository: string;
  /** The 40-hex commit the texts were read at (absent when the texts are not read from a repository snapshot). */
  readonly commit?: string;
  readonly url: string;
  /** What was taken from it and how it was processed (stripping, detokenising). */
  readonly note?: string;
}

/** The licence of the texts (a pack holds only hashes of them, never the text). */
export interface PackLicence {
  /** The licence of the source texts, e.g. 'Public domain in the USA'. */
  readonly texts: string;
  /** What that means for the pack. */
  readonly note?: string;
}

/** One document of a pack: where its text comes from and what it is. */
export interface PackManifestDocument {
  /** Document id in the pack (unique). */
  readonly id: string;
  /** Its text file, relative to the texts folder (UTF-8, as the prepare step writes it). */
  readonly file: string;
  /** SHA-256 (hex) of the text file's bytes: the build refuses a text that differs. */
  readonly sha256: string;
  /** UTF-8 bytes of the text. */
  readonly bytes: number;
  readonly title?: string;
  readonly author?: string;
  /** Project Gutenberg ebook number. */
  readonly ebook?: number;
  /** A public URL of the work. */
  readonly url?: string;
  /** `repository` of its {@link PackSource}. */
  readonly source?: string;
  /** Path of the original file in the source repository. */
  readonly source_path?: string;
  /**
   * For a text that holds many articles (a WikiExtractor file): where each begins, so that a match names the article.
   * Article j starts at UTF-16 offset `starts[j]` of the text (ascending, the first 0) with its title line; its key
   * (the Wikipedia page id) is `page_ids[j]` and its URL `url` followed by the key. `table` is what the pack stores:
   * the keys and titles as a zlib stream, base64 (src/datasets/articles.ts), which the build checks against both.
   */
  readonly articles?: PackManifestArticles;
}

/** The articles of one manifest document ({@link PackManifestDocument.articles}). */
export interface PackManifestArticles {
  /** URL prefix of an article: its page id is appended. */
  readonly url: string;
  readonly page_ids: readonly number[];
  readonly starts: readonly number[];
  /** Base64 of the zlib stream of the articles' `articleTableText` (keys and titles). */
  readonly table: string;
}

/** Everything needed to rebuild a pack, byte for byte (`packs/<name>/manifest.json`). */
export interface PackManifest {
  readonly format: typeof PACK_MANIFEST_FORMAT;
  readonly version: typeof PACK_MANIFEST_VERSION;
  /** The dataset id the pack loads as (1–200 characters). */
  readonly id: string;
  readonly name: string;
  /** The pack's own version (a new text selection or window is a new version). */
  readonly pack_version: string;
  readonly description: string;
  /** The knowledge-base dataset the texts are a documented part of (e.g. 'project-gutenberg'). */
  readonly kb_dataset: string;
  /** Why `kb_dataset` is the right link (the documentation it rests on). */
  readonly kb_note?: string;
  /** Portrait winnowing window (1..64). */
  readonly window: number;
  /**
   * Which n-grams the pack stores as common, no one document's evidence (src/datasets/common.ts): absent, those of
   * at least 3 documents (articles); a book corpus may count authors (`{ "by": "author" }`), so that an author's
   * editions and collected works of one text count once (pack:gutenberg sets `min_holders: 255`, an empty table:
   * docs/packs.md says why).
   */
  readonly common?: Partial<CommonRule>;
  /** Build date (YYYY-MM-DD): recorded in the pack instead of the clock, so builds are reproducible. */
  readonly built: string;
  readonly sources: readonly PackSource[];
  readonly licence: PackLicence;
  /** How the documents were chosen. */
  readonly selection?: string;
  /** Default texts folder, relative to the manifest (used when the build is given none). */
  readonly texts?: string;
  readonly documents: readonly PackManifestDocument[];
}

/** One pack of the index. */
export interface PackIndexEntry {
  /** Dataset id of the pack (its manifest's `id`). */
  readonly id: string;
  /** The pack file, relative to the index. */
  readonly file: string;
  /** Its manifest, relative to the index. */
  readonly manifest: string;
  /** SHA-256 (hex) of the pack file. */
  readonly sha256: string;
  /** Bytes of the pack file. */
  readonly bytes: number;
  /** Loaded by `packs: 'default'`. */
  readonly default: boolean;
  readonly name: string;
  readonly pack_version: string;
  readonly kb_dataset: string;
  readonly documents: number;
  readonly words: number;
  readonly ngrams: number;
  /**
   * How unrelated natural text hits the pack, measured on these bytes (bench/measure-background.mjs): the null its
   * runs of hits are read against (src/datasets/background.ts). Given to the dataset when the pack is loaded.
   */
  readonly background?: PortraitBackground;
}

/** `packs/index.json`: the packs that ship with the library. */
export interface PackIndex {
  readonly format: typeof PACK_INDEX_FORMAT;
  readonly version: typeof PACK_MANIFEST_VERSION;
  readonly packs: readonly PackIndexEntry[];
}

type Obj = Record<string, unknown>;

function bad(where: string, detail: string): never {
  throw new TrainprintError('INVALID_INPUT', `${where}: ${detail}`);
}

function unsupported(where: string, version: unknown): never {
  bad(where, `"version" ${JSON.stringify(version)} is not supported (expected ${PACK_MANIFEST_VERSION})`);
}

function obj(v: unknown, where: string, allowed: readonly string[], required: readonly string[]): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(where, 'must be an object');
  const o = v as Obj;
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) bad(where, `unknown field "${k}" (allowed: ${allowed.join(', ')})`);
  }
  for (const k of required) if (o[k] === undefined) bad(where, `"${k}" is missing`);
  return o;
}

function str(o: Obj, k: string, where: string, max = 10_000): void {
  const v = o[k];
  if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > max)) {
    bad(where, `"${k}" must be a non-empty string of at most ${max} characters`);
  }
}

function count(o: Obj, k: string, where: string): void {
  const v = o[k];
  if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
    bad(where, `"${k}" must be a non-negative integer`);
  }
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX40 = /^[0-9a-f]{40}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function sha(o: Obj, k: string, where: string): void {
  if (typeof o[k] !== 'string' || !HEX64.test(o[k] as string)) {
    bad(where, `"${k}" must be 64 lower-case hex digits (SHA-256)`);
  }
}

/** A relative path inside the texts folder: no absolute path, no `..`, no backslash. */
function relativeFile(o: Obj, k: string, where: string): void {
  const v = o[k];
  const ok =
    typeof v === 'string' &&
    v.length > 0 &&
    v.length <= 500 &&
    !v.startsWith('/') &&
    !v.includes('\\') &&
    !v.split('/').includes('..');
  if (!ok) {
    bad(where, `"${k}" must be a relative path without ".." (at most 500 characters)`);
  }
}

const MANIFEST_KEYS = [
  'format',
  'version',
  'id',
  'name',
  'pack_version',
  'description',
  'kb_dataset',
  'kb_note',
  'window',
  'common',
  'built',
  'sources',
  'licence',
  'selection',
  'texts',
  'documents',
] as const;
const MANIFEST_OPTIONAL: readonly string[] = ['kb_note', 'common', 'selection', 'texts'];
const MANIFEST_REQUIRED = MANIFEST_KEYS.filter((k) => !MANIFEST_OPTIONAL.includes(k));
const DOC_KEYS = [
  'id',
  'file',
  'sha256',
  'bytes',
  'title',
  'author',
  'ebook',
  'url',
  'source',
  'source_path',
  'articles',
] as const;

/** Check a document's `articles` (layout in {@link PackManifestArticles}). */
function checkArticles(v: unknown, where: string): void {
  const a = obj(v, where, ['url', 'page_ids', 'starts', 'table'], ['url', 'page_ids', 'starts', 'table']);
  if (typeof a.table !== 'string' || a.table.length === 0 || a.table.length % 4 !== 0 || !BASE64.test(a.table))
    bad(where, '"table" must be base64');
  str(a, 'url', where, 2000);
  const ids = a.page_ids,
    starts = a.starts;
  if (!Array.isArray(ids) || !Array.isArray(starts) || ids.length === 0 || ids.length !== starts.length)
    bad(where, '"page_ids" and "starts" must be non-empty arrays of the same length');
  (ids as unknown[]).forEach((x) => {
    if (!(typeof x === 'number' && Number.isSafeInteger(x) && x >= 0)) bad(where, '"page_ids" must be integers ≥ 0');
  });
  (starts as unknown[]).forEach((x, j) => {
    const ok = typeof x === 'number' && Number.isSafeInteger(x) && (j === 0 ? x === 0 : x > (starts[j - 1] as number));
    if (!ok) bad(where, '"starts" must be ascending integers from 0');
  });
}

/**
 * Check a parsed manifest (layout in {@link PackManifest}); returns it typed.
 * @throws INVALID_INPUT naming the first wrong field (unknown fields included)
 * @example const manifest = checkPackManifest(JSON.parse(await readFile('packs/gutenberg/manifest.json', 'utf8')))
 */
export function checkPackManifest(value: unknown): PackManifest {
  const w = 'manifest';
  const m = obj(value, w, MANIFEST_KEYS, MANIFEST_REQUIRED);
  if (m.format !== PACK_MANIFEST_FORMAT) bad(w, `"format" must be "${PACK_MANIFEST_FORMAT}"`);
  if (m.version !== PACK_MANIFEST_VERSION) unsupported(w, m.version);
  str(m, 'id', w, 200);
  for (const k of ['name', 'pack_version', 'description', 'kb_dataset', 'kb_note', 'selection', 'texts']) str(m, k, w);
  const win = m.window as number;
  if (!(Number.isInteger(win) && win >= 1 && win <= 64)) bad(w, '"window" must be an integer in 1..64');
  if (m.common !== undefined) {
    try {
      checkCommonRule(m.common);
    } catch (e) {
      bad(w, ((e as TrainprintError).detail ?? '').replace(/^common/, '"common"'));
    }
  }
  if (typeof m.built !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(m.built) || Number.isNaN(Date.parse(m.built))) {
    bad(w, '"built" must be a date YYYY-MM-DD');
  }
  if (!Array.isArray(m.sources) || m.sources.length === 0) bad(w, '"sources" must be a non-empty array');
  const repos = new Set<string>();
  (m.sources as unknown[]).forEach((s, i) => {
    const where = `manifest.sources[${i}]`;
    const o = obj(s, where, ['repository', 'commit', 'url', 'note'], ['repository', 'url']);
    for (const k of ['repository', 'url', 'note']) str(o, k, where);
    if (o.commit !== undefined && (typeof o.commit !== 'string' || !HEX40.test(o.commit))) {
      bad(where, '"commit" must be 40 lower-case hex digits');
    }
    repos.add(o.repository as string);
  });
  const lic = obj(m.licence, 'manifest.licence', ['texts', 'note'], ['texts']);
  for (const k of ['texts', 'note']) str(lic, k, 'manifest.licence');
  if (!Array.isArray(m.documents) || m.documents.length === 0) bad(w, '"documents" must be a non-empty array');
  const ids = new Set<string>();
  const files = new Set<string>();
  (m.documents as unknown[]).forEach((d, i) => {
    const where = `manifest.documents[${i}]`;
    const o = obj(d, where, DOC_KEYS, ['id', 'file', 'sha256', 'bytes']);
    str(o, 'id', where, 1000);
    relativeFile(o, 'file', where);
    sha(o, 'sha256', where);
    count(o, 'bytes', where);
    for (const k of ['title', 'author', 'url', 'source', 'source_path']) str(o, k, where);
    count(o, 'ebook', where);
    if (o.articles !== undefined) checkArticles(o.articles, `${where}.articles`);
    if (o.source !== undefined && !repos.has(o.source as string)) {
      bad(where, `"source" ${JSON.stringify(o.source)} is not one of manifest.sources`);
    }
    if (ids.has(o.id as string)) bad(where, `id ${JSON.stringify(o.id)} appears twice`);
    if (files.has(o.file as string)) bad(where, `file ${JSON.stringify(o.file)} appears twice`);
    ids.add(o.id as string);
    files.add(o.file as string);
  });
  return value as PackManifest;
}

const ENTRY_KEYS = [
  'id',
  'file',
  'manifest',
  'sha256',
  'bytes',
  'default',
  'name',
  'pack_version',
  'kb_dataset',
  'documents',
  'words',
  'ngrams',
] as const;

/**
 * Check a parsed pack index (`packs/index.json`, layout in {@link PackIndex}); returns it typed.
 * @throws INVALID_INPUT naming the first wrong field
 * @example checkPackIndex(JSON.parse(await readFile('packs/index.json', 'utf8'))).packs.filter((p) => p.default)
 */
export function checkPackIndex(value: unknown): PackIndex {
  const w = 'pack index';
  const x = obj(value, w, ['format', 'version', 'packs'], ['format', 'version', 'packs']);
  if (x.format !== PACK_INDEX_FORMAT) bad(w, `"format" must be "${PACK_INDEX_FORMAT}"`);
  if (x.version !== PACK_MANIFEST_VERSION) unsupported(w, x.version);
  if (!Array.isArray(x.packs)) bad(w, '"packs" must be an array');
  const ids = new Set<string>();
  (x.packs as unknown[]).forEach((e, i) => {
    const where = `pack index.packs[${i}]`;
    const o = obj(e, where, [...ENTRY_KEYS, 'background'], ENTRY_KEYS);
    if (o.background !== undefined) checkPortraitBackground(o.background, `${where}.background`);
    for (const k of ['id', 'name', 'pack_version', 'kb_dataset']) str(o, k, where, 200);
    relativeFile(o, 'file', where);
    relativeFile(o, 'manifest', where);
    sha(o, 'sha256', where);
    for (const k of ['bytes', 'documents', 'words', 'ngrams']) count(o, k, where);
    if (typeof o.default !== 'boolean') bad(where, '"default" must be true or false');
    if (ids.has(o.id as string)) bad(where, `id ${JSON.stringify(o.id)} appears twice`);
    ids.add(o.id as string);
  });
  return value as PackIndex;
}
