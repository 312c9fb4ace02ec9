/**
 * The command line's argument parsing (src/cli/shared.ts): `--help` and `-h` are asked for once, by `parse`, after the
 * other arguments parse (a bad option is still a usage error); the CLI's entry prints the help for every command
 * (no command checks for it itself).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkOutputPath,
  HelpAsked,
  openExistingStore,
  openStore,
  integerIn,
  optionalIntegerIn,
  optionalDecimal,
  options,
  parse,
  parseSubcommand,
  postgresTarget,
  QUIET,
  UsageError,
} from '../../src/cli/shared.js';

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
    // in the subcommand's place too (`trainprint keys --help`, `model -h`)
    for (const args of [['--help'], ['-h']])
      expect(() => parseSubcommand(args, 'keys', 'create', {})).toThrow(HelpAsked);
  });

  it('refuses a bad option as a usage error, with --help or without', () => {
    for (const args of [['--bogus'], ['--bogus', '--help']]) expect(() => parse(args, {})).toThrow(UsageError);
    expect(() => parseSubcommand(['serve', 'x'], 'model', 'serve', {})).toThrow(UsageError);
  });
});

describe('values checked before any work', () => {
  it('an output path whose folder is not there, or which is a folder, is a usage error naming the option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trainprint-out-'));
    try {
      expect(() => checkOutputPath(join(dir, 'r.html'), 'report')).not.toThrow();
      expect(() => checkOutputPath('-', 'out')).not.toThrow();
      expect(() => checkOutputPath(undefined, 'out')).not.toThrow();
      expect(() => checkOutputPath(join(dir, 'none', 'r.html'), 'report')).toThrow(
        new UsageError(`--report ${join(dir, 'none', 'r.html')}: there is no folder ${join(dir, 'none')}`),
      );
      expect(() => checkOutputPath(dir, 'out')).toThrow(new UsageError(`--out ${dir}: is a folder, not a file`));
      expect(() => checkOutputPath('', 'out')).toThrow(UsageError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a number written in anything but decimal is NaN, for the library to refuse in its words', () => {
    expect(optionalDecimal({ threads: '4' }, 'threads')).toBe(4);
    expect(optionalDecimal({ threads: ' 1.5 ' }, 'threads')).toBe(1.5);
    expect(optionalDecimal({}, 'threads')).toBeUndefined();
    expect(optionalDecimal({ threads: '0' }, 'threads')).toBe(0); // its range is the library's to refuse
    for (const raw of ['', '0x2', '1e1', 'abc', '--'])
      expect([raw, optionalDecimal({ threads: raw }, 'threads')]).toEqual([raw, Number.NaN]);
  });

  it('a store a command reads must be there: a mistyped path is NOT_FOUND, and nothing is made at it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trainprint-store-'));
    try {
      await expect(openExistingStore(join(dir, 'typo'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(existsSync(join(dir, 'typo'))).toBe(false);
      // a store at a file's path is named, not the system's EEXIST
      writeFileSync(join(dir, 'file.txt'), 'x');
      await expect(openStore(join(dir, 'file.txt'))).rejects.toThrow(/file\.txt: not a directory/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing file with no extension is said missing, not of an unknown type', async () => {
    const { typeOfFile } = await import('../../src/cli/read-file.js');
    expect(() => typeOfFile('no-such-file-here')).toThrow(/no-such-file-here: no such file/);
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
    const { demoCommand } = await import('../../src/cli/demo.js');
    await expect(demoCommand(['--help'])).rejects.toBeInstanceOf(HelpAsked);
    await expect(demoCommand(['x'])).rejects.toBeInstanceOf(UsageError);
  });
});

describe('an integer option out of its range is refused in one wording', () => {
  const refusal = (name: string, lo: number, hi: number) =>
    new UsageError(`--${name} must be an integer in ${lo}..${hi}`);

  it('integerIn and optionalIntegerIn: the value, the fallback or undefined, else the range', () => {
    expect(integerIn({ port: '80' }, 'port', 8787, 0, 65535)).toBe(80);
    expect(integerIn({}, 'port', 8787, 0, 65535)).toBe(8787);
    expect(optionalIntegerIn({}, 'port', 0, 65535)).toBeUndefined();
    for (const bad of ['65536', '-1', '1.5', 'x', '', '0x10', '1e3', '0b1'])
      expect(() => optionalIntegerIn({ port: bad }, 'port', 0, 65535)).toThrow(refusal('port', 0, 65535));
  });

  it("index build's --partitions and scan --queue's bounded options say it the same way", async () => {
    const { intOption } = await import('../../src/cli/scan-queue.js');
    const into = 'postgres://localhost/db';
    expect(postgresTarget({ into, partitions: '8' })).toEqual({ into, partitions: 8 });
    expect(() => postgresTarget({ into, partitions: '0' })).toThrow(refusal('partitions', 1, 1024));
    expect(() => postgresTarget({ into, partitions: '2.5' })).toThrow(refusal('partitions', 1, 1024));
    expect(intOption({ 'chunk-mb': '64' }, 'chunk-mb', 1, 1024)).toBe(64);
    expect(() => intOption({ 'chunk-mb': '1025' }, 'chunk-mb', 1, 1024)).toThrow(refusal('chunk-mb', 1, 1024));
    // without bounds any integer passes here (the library bounds it, naming the field)
    expect(intOption({ 'min-words': '0' }, 'min-words')).toBe(0);
    expect(() => intOption({ 'min-words': '1e3' }, 'min-words')).toThrow(
      new UsageError('--min-words must be an integer'),
    );
    expect(() => intOption({ 'min-words': 'x' }, 'min-words')).toThrow(
      new UsageError('--min-words must be an integer'),
    );
  });
});
