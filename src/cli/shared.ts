/**
 * What several `trainprint` commands share that needs the library: the options that pick datasets, reference packs,
 * remote corpora and stores, and loading them. Parsing the options and the numbers of the lines on stderr are
 * args.ts's (no library), re-exported here for the commands that take both. The library comes only through the
 * library module ('../library.js') and the public entries ('../node/index.js', '../starter/index.js'), which the
 * build keeps external (tsup.config.ts).
 */
import { existsSync } from 'node:fs';
import { publicRemoteCorpora, TrainprintError, type Engine, type RemoteDatasetConfig } from '../library.js';
import {
  isPostgresUrl,
  loadDatasetSpecs,
  openFileStore,
  openPostgresStore,
  type PostgresDatasetResult,
} from '../node/index.js';
import { fmt, mb, optionalIntegerIn, UsageError } from './args.js';
import { loadStarter } from './starter-file.js';

export {
  type Command,
  DATASETS,
  decimalInteger,
  fmt,
  HelpAsked,
  integerIn,
  mb,
  checkOutputPath,
  optionalIntegerIn,
  optionalDecimal,
  options,
  parse,
  type ParseOptions,
  parseSubcommand,
  QUIET,
  redact,
  UsageError,
} from './args.js';

/** `--packs default|none` (default: default, as `npm start`). @example packsOption({ packs: 'none' }) // 'none' */
export function packsOption(values: Record<string, unknown>): 'default' | 'none' {
  const packs = (values.packs as string | undefined) ?? 'default';
  if (packs !== 'default' && packs !== 'none') throw new UsageError(`--packs must be 'default' or 'none'`);
  return packs;
}

/** The options {@link remoteCorporaFrom} reads, for the `parse` table of each command that searches remote corpora. */
export const REMOTE_CORPUS_OPTIONS = {
  'infini-gram': { type: 'string' },
  'infini-gram-endpoint': { type: 'string' },
  'infini-gram-mini': { type: 'string' },
  'infini-gram-mini-endpoint': { type: 'string' },
} as const;

/**
 * `--infini-gram IDX[,IDX]|default [--infini-gram-endpoint URL]` and the `--infini-gram-mini` pair: the remote
 * corpora to search (none without them: the text leaves the machine only when asked).
 * @example createEngine({ remoteCorpora: remoteCorporaFrom({ 'infini-gram': 'default' }) })
 */
export function remoteCorporaFrom(values: Record<string, unknown>): RemoteDatasetConfig[] {
  const configs: RemoteDatasetConfig[] = [];
  for (const engine of ['infini-gram', 'infini-gram-mini'] as const) {
    const list = values[engine] as string | undefined;
    const endpoint = values[`${engine}-endpoint`] as string | undefined;
    if (list === undefined) {
      if (endpoint !== undefined)
        throw new UsageError(`--${engine}-endpoint goes with --${engine} IDX[,IDX] (or default)`);
      continue;
    }
    const names = list.split(',').map((n) => n.trim());
    if (names.some((n) => n === ''))
      throw new UsageError(`--${engine} needs 'default' or a comma-separated list of index names`);
    const indexes = names.length === 1 && names[0] === 'default' ? 'default' : names;
    configs.push(...publicRemoteCorpora(engine, { indexes, ...(endpoint !== undefined ? { endpoint } : {}) }));
  }
  return configs;
}

/**
 * The store `--store` names: a PostgreSQL URL (`postgres://…`, `postgresql://…`) or a directory.
 * @example const store = await openStore('./data')
 */
export function openStore(location: string): ReturnType<typeof openFileStore | typeof openPostgresStore> {
  refuseOtherUrl(location);
  return isPostgresUrl(location) ? openPostgresStore(location) : openFileStore(location);
}

/**
 * A `--store` that is a URL of another scheme (`postgress://…`, `mysql://…`) is refused, naming the scheme only (the
 * rest may hold a password): taken as a directory, it made a local store of one process out of a mistyped URL.
 */
function refuseOtherUrl(location: string): void {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(location)?.[1];
  if (scheme !== undefined && !isPostgresUrl(location))
    throw new UsageError(`--store takes a directory or a postgres:// URL, not a ${scheme}:// URL`);
}

/**
 * The store `--store` names, which must be there already: a command that reads a store (or ends a job in it) never
 * makes one, as a mistyped path would be left behind as an empty store. NOT_FOUND `no store at …` otherwise.
 * @example const store = await openExistingStore('./data')
 */
export async function openExistingStore(location: string): Promise<Awaited<ReturnType<typeof openStore>>> {
  refuseOtherUrl(location);
  if (!isPostgresUrl(location) && !existsSync(location))
    throw new TrainprintError('NOT_FOUND', `no store at ${location}`);
  return openStore(location);
}

/**
 * The `--dataset` values into the engine: files are imported, `postgres://…` URLs attached (every dataset of
 * the URL's schema, or the one its `dataset` parameter names); the starter dataset with `--starter` or when
 * none is given. Resolves to what closes the attached datasets' connections.
 * @example const closeDatasets = await loadDatasets(engine, { dataset: ['wiki.tpds'] })
 */
export async function loadDatasets(engine: Engine, values: Record<string, unknown>): Promise<() => Promise<void>> {
  const datasets = (values.dataset as string[] | undefined) ?? [];
  const close = await loadDatasetSpecs(engine, datasets);
  if (values.starter || datasets.length === 0) {
    // the starter's snapshot is read only when a command asks for it (dist/starter.tpds: ./starter-file.ts)
    await loadStarter(engine);
  }
  return close;
}

/** The options {@link postgresTarget} reads, for the `parse` tables of `index build` and `index push`. */
export const POSTGRES_TARGET_OPTIONS = {
  into: { type: 'string' },
  partitions: { type: 'string' },
  replace: { type: 'boolean' },
} as const;

/**
 * `--into URL`, `--partitions N`, `--replace` of `index build` and `index push` (`conflict`: an option that cannot
 * go with --into); undefined without --into.
 * @example postgresTarget({ into: 'postgres://localhost/db', partitions: '8' }) // { into: '…', partitions: 8 }
 */
export function postgresTarget(
  values: Record<string, unknown>,
  conflict?: string,
): { into: string; partitions?: number; replace?: boolean } | undefined {
  const into = values.into as string | undefined;
  if (into === undefined) {
    if (values.partitions !== undefined || values.replace) {
      throw new UsageError('--partitions and --replace go with --into');
    }
    return undefined;
  }
  if (!isPostgresUrl(into)) throw new UsageError('--into needs a postgres:// or postgresql:// URL');
  if (conflict) throw new UsageError(`${conflict} and --into are exclusive`);
  const partitions = optionalIntegerIn(values, 'partitions', 1, 1024);
  return { into, ...(partitions === undefined ? {} : { partitions }), ...(values.replace ? { replace: true } : {}) };
}

/**
 * The line (stderr) and JSON (stdout) of a dataset written into PostgreSQL.
 * @example printStored('pushed', await pushDatasetFile({ file: 'wiki.tpds', into: 'postgres://localhost/db' }))
 */
export function printStored(what: string, r: PostgresDatasetResult): void {
  const s = Math.max(r.elapsed_ms, 1) / 1000;
  const st = r.stats;
  console.error(
    `${what} exact dataset "${st.id}" in ${r.into} (tables ${r.tables}_*, ${r.partitions} partitions): ` +
      `${st.documents.toLocaleString('en-US')} documents, ${st.fingerprints.toLocaleString('en-US')} fingerprints, ` +
      `${fmt(mb(st.index_bytes), 1)} MB of posting tables; ${fmt(s)} s (${fmt(st.fingerprints / s, 0)} fingerprints/s)`,
  );
  const { into, tables, partitions } = r;
  console.log(JSON.stringify({ into, tables, partitions, elapsed_ms: Math.round(r.elapsed_ms), stats: st }));
}
