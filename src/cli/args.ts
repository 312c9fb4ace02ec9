/**
 * The command line's arguments and the numbers of its lines on stderr: what every command takes, with no import of
 * the library, so that the entry (src/cli.ts) and a command that needs little of the library (`fingerprint`) load
 * none of it for them.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';

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

/**
 * The integer option `name`, `fallback` when absent; a UsageError naming the range when it is not an integer in lo..hi.
 * @example const port = integerIn(values, 'port', 8787, 0, 65535)
 */
export function integerIn(values: Record<string, unknown>, name: string, fallback: number, lo: number, hi: number) {
  return optionalIntegerIn(values, name, lo, hi) ?? fallback;
}

/**
 * The number a command-line value writes in decimal digits, else NaN: Number() alone would also read '' (as 0),
 * '0x10' and '1e3'.
 * @example decimalInteger('42') // 42; decimalInteger('1e3') // NaN
 */
export function decimalInteger(raw: unknown): number {
  return /^\s*[+-]?\d+\s*$/.test(String(raw)) ? Number(raw) : Number.NaN;
}

/**
 * The number option `name` as written in decimal (digits, a sign, a decimal point), undefined when absent, NaN for
 * anything else: Number() alone would read '' as 0, '0x10' as 16 and '1e3' as 1000. Its bounds are the library's to
 * check, so a command's refusal is the library's, in its words (`threads must be an integer in 1..256, got NaN`).
 * @example const threads = optionalDecimal(values, 'threads') // 4 for --threads 4; NaN for --threads 0x4
 */
export function optionalDecimal(values: Record<string, unknown>, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  return /^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(String(raw)) ? Number(raw) : Number.NaN;
}

/**
 * The integer option `name`, undefined when absent (the library's default applies); a UsageError naming the range,
 * in {@link integerIn}'s words, when it is not an integer in lo..hi.
 * @example const partitions = optionalIntegerIn(values, 'partitions', 1, 1024)
 */
export function optionalIntegerIn(
  values: Record<string, unknown>,
  name: string,
  lo: number,
  hi: number,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = decimalInteger(raw);
  if (!Number.isInteger(n) || n < lo || n > hi) throw new UsageError(`--${name} must be an integer in ${lo}..${hi}`);
  return n;
}

/**
 * Checks the file an option names for output (`--out`, `--report`, `--bundle`) before any work is done: its folder
 * must be there and the path must not be a folder, else a UsageError naming the option (`-` is standard output).
 * Otherwise a long analysis or scan would run first and then fail on the write, with the system's message.
 * @example checkOutputPath(values.out, 'out')
 */
export function checkOutputPath(path: unknown, option: string): void {
  if (typeof path !== 'string' || path === '-') return;
  if (path === '') throw new UsageError(`--${option} needs a file name`);
  const dir = dirname(resolve(path));
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--${option} ${path}: there is no folder ${dir}`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--${option} ${path}: is a folder, not a file`);
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
  if (given === '--help' || given === '-h') throw new HelpAsked(given);
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
