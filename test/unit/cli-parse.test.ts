/**
 * The command line's argument parsing (src/cli/shared.ts): `--help` and `-h` are asked for once, by `parse`, after the
 * other arguments parse (a bad option is still a usage error); the CLI's entry prints the help for every command.
 */
import { describe, expect, it } from 'vitest';
import { HelpAsked, parse, parseSubcommand, UsageError } from '../../src/cli/shared.js';

describe('parse', () => {
  it('gives the values and positionals of good arguments', () => {
    expect(parse(['a.json', '--out', 'x.html'], { out: { type: 'string' } })).toEqual({
      values: { out: 'x.html' },
      positionals: ['a.json'],
    });
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
