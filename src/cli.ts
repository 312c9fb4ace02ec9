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
 * This file is the dispatch only: each command is a module of src/cli/, and src/cli/shared.ts holds what several
 * share. The library comes only through the library module ('./library.js' here, '../library.js' in src/cli/) and
 * the public entries, which the build keeps external (tsup.config.ts), so dist/cli.js holds the CLI alone.
 */
import { TrainprintError } from './library.js';
import { analyzeCommand } from './cli/analyze.js';
import { demoCommand } from './cli/demo.js';
import { auditCommand } from './cli/audit.js';
import { extractCommand } from './cli/extract.js';
import { extractTextCommand } from './cli/extract-text.js';
import { fingerprintCommand } from './cli/fingerprint.js';
import { HELP } from './cli/help.js';
import { indexBuildCommand } from './cli/index-build.js';
import { indexInfoCommand } from './cli/index-info.js';
import { indexPushCommand } from './cli/index-push.js';
import { keysCommand } from './cli/keys.js';
import { modelCommand } from './cli/model.js';
import { packBuildCommand } from './cli/pack-build.js';
import { packsCommand } from './cli/packs.js';
import { reportCommand } from './cli/report.js';
import { scanCommand } from './cli/scan.js';
import { serveCommand } from './cli/serve.js';
import { type Command, HelpAsked, UsageError } from './cli/shared.js';
import { tuneTiering } from './cli/tiering.js';
import { verifyCommand } from './cli/verify.js';
import { workerCommand } from './cli/worker.js';
import { jobsCommand } from './cli/jobs.js';

/**
 * A command of subcommands (`index build|push|info`, `pack build`): the subcommand runs with the arguments after
 * it; `--help` / `-h` in its place prints the usage; none, or an unknown one, is a usage error.
 */
function subcommands(name: string, commands: Map<string, Command>, needs: string): Command {
  return async (args) => {
    const [sub, ...rest] = args;
    const command = sub === undefined ? undefined : commands.get(sub);
    if (command) return command(rest);
    if (sub === '--help' || sub === '-h') {
      console.log(HELP);
      return 0;
    }
    throw new UsageError(
      sub === undefined ? `${name} needs a subcommand: ${needs}` : `unknown ${name} subcommand ${JSON.stringify(sub)}`,
    );
  };
}

/** The commands by name; `packs`, `keys` and `model` read their subcommands themselves. */
const COMMANDS = new Map<string, Command>([
  ['demo', demoCommand],
  ['analyze', analyzeCommand],
  ['fingerprint', fingerprintCommand],
  [
    'index',
    subcommands(
      'index',
      new Map([
        ['build', indexBuildCommand],
        ['info', indexInfoCommand],
        ['push', indexPushCommand],
      ]),
      'build, push or info',
    ),
  ],
  ['pack', subcommands('pack', new Map([['build', packBuildCommand]]), 'build')],
  ['packs', packsCommand],
  ['serve', serveCommand],
  ['keys', keysCommand],
  ['model', modelCommand],
  ['report', reportCommand],
  ['verify', verifyCommand],
  ['extract-text', extractTextCommand],
  ['extract', extractCommand],
  ['audit', auditCommand],
  ['scan', scanCommand],
  ['worker', workerCommand],
  ['jobs', jobsCommand],
]);

/** The command line to an exit code: no command is `demo`; a usage error is thrown, and printed below. */
async function main(argv: string[]): Promise<number> {
  const [cmd = 'demo', ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(HELP);
    return 0;
  }
  const command = COMMANDS.get(cmd);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
  tuneTiering(cmd);
  try {
    return await command(rest);
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
  (e: unknown) => {
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
