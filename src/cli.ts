/**
 * `trainprint` command line.
 *   trainprint demo                         fingerprint two passages, compare them, analyze one against the starter dataset
 *   trainprint analyze FILE [options]       analyze a file against dataset files and/or the starter dataset
 *   trainprint serve [options]              the HTTP service under /api/v1 (npm start)
 *   trainprint keys create [options]        create an API key in a file or PostgreSQL store (any account, plan, scopes)
 *   trainprint fingerprint FILE             print the fingerprint summary of a file's text as JSON
 *   trainprint index build --dataset ID …   index corpus files into a dataset file (or PostgreSQL: --into URL)
 *   trainprint index push FILE --into URL   copy a dataset file into PostgreSQL
 *   trainprint index info FILE|URL          header and stats of a dataset file (or a PostgreSQL dataset) as JSON
 *   trainprint pack build MANIFEST …        build a reference pack from its manifest and texts
 *   trainprint packs list|info|verify       the shipped reference packs: sizes, provenance, SHA-256 and CRC checks
 *   trainprint report ANALYSIS.json         the work report of an analysis or an evidence bundle, one HTML page
 *   trainprint verify BUNDLE.json           check an evidence bundle offline: signature, digests, recomputed numbers
 *   trainprint extract-text FILE            the text analyze reads from a file (an EPUB, PDF or DOCX file's extracted text)
 *   trainprint extract WORK --model-url URL --model NAME   how much of a work a model writes out (nv_recall, blocks, calls)
 *   trainprint audit DIR|LIST --model-url URL --model NAME  which works of a catalogue a model writes out, one budget
 *   trainprint scan --dataset A INPUT… --out HITS.jsonl   scan model outputs or documents against datasets (hits as JSON lines)
 *   trainprint worker --queue URL …         a worker of the scan queue on PostgreSQL (scan --queue enqueues)
 *   trainprint jobs status|export|cancel|delete [JOB] --store L|--queue URL   a store's jobs, whoever submitted them
 * Exit codes: 0 ok, 1 runtime error (bad input, unreadable file…), 2 usage error.
 *
 * This file is the dispatch only: each command is a module of src/cli/, imported when it runs (so `fingerprint` loads
 * no server, store or scan code, nor the library where its file is text), and src/cli/args.ts and shared.ts hold what
 * several share. The library comes only through the library module ('./library.js' here, '../library.js' in src/cli/) and
 * the public entries, which the build keeps external (tsup.config.ts), so dist/cli.js holds the CLI alone.
 */
import { HELP } from './cli/help.js';
import { type Command, HelpAsked, UsageError } from './cli/args.js';
import { tuneTiering } from './cli/tiering.js';
import { enableCompileCache } from './cli/compile-cache.js';

/** A command's module, imported when the command runs: a process loads the code of its own command alone. */
type LazyCommand = () => Promise<Command>;

/**
 * A command of subcommands (`index build|push|info`, `pack build`): the subcommand runs with the arguments after
 * it; `--help` / `-h` in its place prints the usage; none, or an unknown one, is a usage error.
 */
function subcommands(name: string, commands: Map<string, LazyCommand>, needs: string): LazyCommand {
  return async () => async (args) => {
    const [sub, ...rest] = args;
    const command = sub === undefined ? undefined : commands.get(sub);
    if (command) return (await command())(rest);
    if (sub === '--help' || sub === '-h') {
      console.log(HELP);
      return 0;
    }
    throw new UsageError(
      sub === undefined ? `${name} needs a subcommand: ${needs}` : `unknown ${name} subcommand ${JSON.stringify(sub)}`,
    );
  };
}

/** The commands by name, each importing its module; `packs`, `keys` and `model` read their subcommands themselves. */
const COMMANDS = new Map<string, LazyCommand>([
  ['demo', async () => (await import('./cli/demo.js')).demoCommand],
  ['analyze', async () => (await import('./cli/analyze.js')).analyzeCommand],
  ['fingerprint', async () => (await import('./cli/fingerprint.js')).fingerprintCommand],
  [
    'index',
    subcommands(
      'index',
      new Map([
        ['build', async () => (await import('./cli/index-build.js')).indexBuildCommand],
        ['info', async () => (await import('./cli/index-info.js')).indexInfoCommand],
        ['push', async () => (await import('./cli/index-push.js')).indexPushCommand],
      ]),
      'build, push or info',
    ),
  ],
  [
    'pack',
    subcommands(
      'pack',
      new Map([['build', async () => (await import('./cli/pack-build.js')).packBuildCommand]]),
      'build',
    ),
  ],
  ['packs', async () => (await import('./cli/packs.js')).packsCommand],
  ['serve', async () => (await import('./cli/serve.js')).serveCommand],
  ['keys', async () => (await import('./cli/keys.js')).keysCommand],
  ['model', async () => (await import('./cli/model.js')).modelCommand],
  ['report', async () => (await import('./cli/report.js')).reportCommand],
  ['verify', async () => (await import('./cli/verify.js')).verifyCommand],
  ['extract-text', async () => (await import('./cli/extract-text.js')).extractTextCommand],
  ['extract', async () => (await import('./cli/extract.js')).extractCommand],
  ['audit', async () => (await import('./cli/audit.js')).auditCommand],
  ['scan', async () => (await import('./cli/scan.js')).scanCommand],
  ['worker', async () => (await import('./cli/worker.js')).workerCommand],
  ['jobs', async () => (await import('./cli/jobs.js')).jobsCommand],
]);

/** The command line to an exit code: no command is `demo`; a usage error is thrown, and printed below. */
async function main(argv: string[]): Promise<number> {
  const [cmd = 'demo', ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(HELP);
    return 0;
  }
  const load = COMMANDS.get(cmd);
  if (!load) throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
  tuneTiering(cmd);
  // before the command's modules load: they are what the cache holds (this file's few imports are not)
  enableCompileCache();
  try {
    return await (await load())(rest);
  } catch (e) {
    // `<command> … --help`: the arguments parsed (a bad option is still a usage error), then the help
    if (!(e instanceof HelpAsked)) throw e;
    console.log(HELP);
    return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (e: unknown) => {
    // the error class comes from the fingerprint entry, loaded only on this path: the library's errors are
    // recognised across bundles (a registered symbol, src/errors.ts), and a command that succeeded loads neither
    const { TrainprintError } = await import('./fingerprint-entry.js');
    if (e instanceof UsageError) {
      console.error(`error: ${e.message}\nrun 'trainprint --help' for usage`);
      process.exitCode = 2;
    } else if (e instanceof TrainprintError) {
      console.error(`error: ${e.code}: ${e.message}`);
      process.exitCode = 1;
    } else {
      // an unexpected failure: still one line, no stack (set TRAINPRINT_DEBUG=1 for it)
      console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
      if (process.env.TRAINPRINT_DEBUG && e instanceof Error) console.error(e.stack);
      process.exitCode = 1;
    }
  },
);
