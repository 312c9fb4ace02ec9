// A bench script's command line: its options read by node:util's parseArgs, and an unknown option or a missing value
// answered with what is accepted (exit 2) instead of a stack trace.
import './help.mjs';
import { parseArgs } from 'node:util';

/**
 * The options' values, or exit 2 with the error and `usage` on stderr.
 * @example const values = optionsOrUsage({ out: { type: 'string' } }, 'usage: node bench/x.mjs [--out FILE]')
 */
export function optionsOrUsage(options, usage) {
  try {
    return parseArgs({ options }).values;
  } catch (error) {
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
}
