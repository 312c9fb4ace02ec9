// The opening comment a bench script prints for --help (bench/help.mjs): `//` lines or one `/** … */` block after
// an optional `#!` line, without the comment marks.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS module of the bench scripts
import { openingComment } from '../../bench/help.mjs';

describe('openingComment', () => {
  it('reads a block of // lines, keeping the indentation of a command line', () => {
    const source = "// What it measures.\n//\n//   node bench/x.mjs [--rounds 9]\nimport 'node:fs';\n// later\n";
    expect(openingComment(source)).toBe('What it measures.\n\n  node bench/x.mjs [--rounds 9]');
  });

  it('reads a /** */ block after a #! line', () => {
    const source = '#!/usr/bin/env node\n/**\n * What it measures.\n *\n *   node bench/x.mjs\n */\nconst a = 1;\n';
    expect(openingComment(source)).toBe('What it measures.\n\n  node bench/x.mjs');
  });

  it('reads a one-line block', () => {
    expect(openingComment('/* Short. */\nexport {};\n')).toBe('Short.');
  });

  it('is empty when the source opens with code', () => {
    expect(openingComment("import 'node:fs';\n// not the opening\n")).toBe('');
  });
});
