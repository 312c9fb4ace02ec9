/**
 * The command line's argument parsing (src/cli/shared.ts): `--help` and `-h` are asked for once, by `parse`, after the
 * other arguments parse (a bad option is still a usage error); the CLI's entry prints the help for every command
 * (no command checks for it itself).
 */
import { describe, expect, it } from 'vitest';
import { HelpAsked, options, parse, parseSubcommand, QUIET, UsageError } from '../../src/cli/shared.js';

describe('parse', () => {
  it('gives the values and positionals of good arguments', () => {
    expect(parse(['a.json', '--out', 'x.html'], { out: { type: 'string' } })).toEqual({
      values: { out: 'x.html' },
      positionals: ['a.json'],
    });
  });

  it('takes options by name: valued ones, flags, and -q for --quiet', () => {
    expect(options(['out', 'type'], ['json'])).toEqual({
      out: { type: 'string' },
      type: { type: 'string' },
      json: { type: 'boolean' },
    });
    const table = { ...options(['out'], ['json']), ...QUIET };
    expect(parse(['-q', '--json', '--out', 'x', 'a'], table)).toEqual({
      values: { quiet: true, json: true, out: 'x' },
      positionals: ['a'],
    });
    expect(() => parse(['--json=1'], table)).toThrow(UsageError);
  });

  it('throws HelpAsked for --help or -h, wherever they stand', () => {
    for (const args of [['--help'], ['-h'], ['a.json', '--out', 'x', '--help']])
      expect(() => parse(args, { out: { type: 'string' } })).toThrow(HelpAsked);
    expect(() => parseSubcommand(['serve', '--help'], 'model', 'serve', {})).toThrow(HelpAsked);
  });

  it('refuses a bad option as a usage error, with --help or without', () => {
    for (const args of [['--bogus'], ['--bogus', '--help']]) expect(() => parse(args, {})).toThrow(UsageError);
    expect(() => parseSubcommand(['serve', 'x'], 'model', 'serve', {})).toThrow(UsageError);
  });
});

describe('the commands that parse their own arguments ask for the help the same way', () => {
  it('scan, scan --queue, worker and fingerprint throw HelpAsked before doing anything', async () => {
    const { scanCommand } = await import('../../src/cli/scan.js');
    const { workerCommand } = await import('../../src/cli/worker.js');
    const { fingerprintCommand } = await import('../../src/cli/fingerprint.js');
    // no dataset, queue or file exists: any work done first would fail with another error
    await expect(scanCommand(['--dataset', 'missing.tpds', '--help'])).rejects.toBeInstanceOf(HelpAsked);
    await expect(scanCommand(['--queue', 'postgres://127.0.0.1:1/none', '--help'])).rejects.toBeInstanceOf(HelpAsked);
    await expect(workerCommand(['--queue', 'postgres://127.0.0.1:1/none', '-h'])).rejects.toBeInstanceOf(HelpAsked);
    await expect(fingerprintCommand(['missing.txt', '--help'])).rejects.toBeInstanceOf(HelpAsked);
  });
});
