// `--help` (or `-h`) on a bench script's command line: the script's opening comment — what it measures and how it is
// run — on stdout, and exit 0, before anything is measured or written. Each script imports this module first, so
// that the check runs before the other imports are evaluated and before the script parses its own options (a parser
// in strict mode would refuse `--help`; a script that reads only the options it knows would start its run).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The opening comment of a script's source — a block of `//` lines or one `/* … *\/` block after an optional `#!`
 * line — without its comment marks; '' when the source opens with code.
 * @example openingComment('#!/usr/bin/env node\n// Reads.\n//   node bench/x.mjs\nimport …') // 'Reads.\n  node bench/x.mjs'
 */
export function openingComment(source) {
  const lines = source.split('\n');
  let i = lines[0]?.startsWith('#!') ? 1 : 0;
  const text = [];
  if (lines[i]?.trimStart().startsWith('/*')) {
    for (; i < lines.length; i++) {
      const line = lines[i];
      const end = line.includes('*/');
      const inner = line
        .replace(/^\s*\/\*\*? ?/, '')
        .replace(/\s*\*\/\s*$/, '')
        .replace(/^\s*\* ?/, '');
      if (inner.trim() !== '' || text.length > 0) text.push(inner);
      if (end) break;
    }
  } else {
    for (; i < lines.length && lines[i].startsWith('//'); i++) text.push(lines[i].replace(/^\/\/ ?/, ''));
  }
  return text.join('\n').trimEnd();
}

const here = dirname(fileURLToPath(import.meta.url));
const script = process.argv[1] ? resolve(process.argv[1]) : '';
// only a bench script run by name answers: a test or another tool that imports a bench module keeps its own argv
if (dirname(script) === here && process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
  const comment = openingComment(readFileSync(script, 'utf8'));
  console.log(comment || `node bench/${script.slice(here.length + 1)} (no description at the top of the file)`);
  process.exit(0);
}
