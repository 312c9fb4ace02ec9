/**
 * What several `trainprint` commands share: parsing their options (a bad one is a UsageError, exit code 2),
 * numbers for the lines on stderr, reading the input file, and the options that pick datasets, reference packs,
 * remote corpora and stores. The library comes only through the library module ('../library.js') and the public
 * entries ('../node/index.js', '../starter/index.js'), which the build keeps external (tsup.config.ts).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  publicRemoteCorpora,
  shingleCount,
  TrainprintError,
  type Engine,
  type Fingerprint,
  type RemoteDatasetConfig,
} from '../library.js';
import {
  isPostgresUrl,
  loadDatasetSpecs,
  openFileStore,
  openPostgresStore,
  type PostgresDatasetResult,
} from '../node/index.js';

/**
 * A mistake in the command line (unknown option, missing argument): the CLI prints it with a pointer to
 * `--help` and exits with code 2, where a runtime failure exits with 1.
 * @example throw new UsageError('analyze needs exactly one FILE')
 */
export class UsageError extends Error {}

/**
 * Thrown by {@link parse} when the arguments ask for `--help` (`-h`) and parse otherwise: the CLI's entry prints the
 * help and exits 0, so no command checks for it.
 */
export class HelpAsked extends Error {}

/** A command: its arguments (after the command's name) in, its exit code out. */
export type Command = (args: string[]) => Promise<number>;

/** The options of one command, as `node:util` parseArgs takes them. */
export type ParseOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;

/**
 * Options by name, as parseArgs takes them: each of `valued` takes a value (`--out FILE`), each of `flags` none.
 * @example parse(args, { ...options(['out', 'type'], ['json']), ...QUIET })
 */
export function options(valued: readonly string[], flags: readonly string[] = []): ParseOptions {
  return Object.fromEntries([
    ...valued.map((name) => [name, { type: 'string' }] as const),
    ...flags.map((name) => [name, { type: 'boolean' }] as const),
  ]);
}

/** `--quiet` (`-q`): no progress on stderr. */
export const QUIET = { quiet: { type: 'boolean', short: 'q' } } as const satisfies ParseOptions;
/** `--dataset`, repeatable (each may also be a comma-separated list). */
export const DATASETS = { dataset: { type: 'string', multiple: true } } as const satisfies ParseOptions;

/**
 * A command's arguments, strictly: every command also takes `--help` / `-h`, and an unknown option or a
 * missing value is a UsageError (exit code 2), not a stack trace.
 * @example const { values, positionals } = parse(['--quiet', 'a.txt'], { quiet: { type: 'boolean' } })
 */
export function parse(
  args: string[],
  options: ParseOptions,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  let r: ReturnType<typeof parseArgs>;
  try {
    r = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (r.values.help) throw new HelpAsked('--help');
  return { values: r.values as Record<string, string | boolean | undefined>, positionals: r.positionals };
}

/**
 * The options of `<command> <sub>`, for a command with one subcommand and no positional arguments (`keys create`,
 * `model serve`): a missing or other subcommand, or a positional argument, is a UsageError (`--help` is
 * {@link HelpAsked}).
 * @example const values = parseSubcommand(['serve', '--port', '0'], 'model', 'serve', { port: { type: 'string' } })
 */
export function parseSubcommand(
  args: string[],
  command: string,
  sub: string,
  options: ParseOptions,
): Record<string, string | boolean | undefined> {
  const [given, ...rest] = args;
  if (given !== sub)
    throw new UsageError(
      given === undefined
        ? `${command} needs a subcommand: ${sub}`
        : `unknown ${command} subcommand ${JSON.stringify(given)}`,
    );
  const { values, positionals } = parse(rest, options);
  if (positionals.length) throw new UsageError(`${command} ${sub} takes no positional arguments`);
  return values;
}

/** Bytes in MB (10^6 bytes). @example mb(2_500_000) // 2.5 */
export const mb = (bytes: number) => bytes / 1e6;

/** A number with exactly `digits` decimals and thousands separators. @example fmt(12345.678) // '12,345.7' */
export const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A URL for printing: its password as ***. @example redact('postgres://u:secret@h/db') // 'postgres://u:***@h/db' */
export const redact = (url: string): string => url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');

/**
 * A fingerprint as `demo` and `fingerprint` print it: counts and heads instead of the hash arrays.
 * @example console.log(JSON.stringify(summary(await engine.fingerprint(text)), null, 2))
 */
export function summary(fp: Fingerprint) {
  return {
    fingerprint: fp.fingerprint,
    work_hash: fp.work_hash,
    params: fp.params,
    byte_length: fp.byte_length,
    token_count: fp.token_count,
    shingles: shingleCount(fp.shingles),
    winnowed: fp.winnow?.hashes.length ?? 0,
    simhash: fp.simhash === undefined ? undefined : fp.simhash.toString(16).padStart(16, '0'),
    minhash_head: fp.minhash ? Array.from(fp.minhash.subarray(0, 4)) : undefined,
  };
}

/**
 * The input file of a command: its bytes, or its text with `'utf8'`. A file that cannot be read is bad input
 * (INVALID_INPUT, exit code 1) named by its path and the reason (`no such file`, or the system's code).
 * @example const content = await readInputFile('README.md', 'utf8')
 */
export function readInputFile(file: string): Promise<Buffer>;
export function readInputFile(file: string, encoding: 'utf8'): Promise<string>;
export async function readInputFile(file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  try {
    return encoding === undefined ? await readFile(file) : await readFile(file, encoding);
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: ${code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : String(e)}`,
    );
  }
}

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
  return isPostgresUrl(location) ? openPostgresStore(location) : openFileStore(location);
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
    // the starter's 5 MB snapshot (dist/starter.js) loads only when a command asks for it
    const { loadStarterDataset } = await import('../starter/index.js');
    await loadStarterDataset(engine);
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
  const partitions = values.partitions === undefined ? undefined : Number(values.partitions);
  if (partitions !== undefined && (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024)) {
    throw new UsageError('--partitions must be an integer 1..1024');
  }
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
