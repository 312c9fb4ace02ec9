/**
 * docs/cli.md's reference is the usage text `trainprint --help` prints (src/cli/help.ts), to the letter.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELP } from '../../src/cli/help.js';

describe('docs/cli.md', () => {
  it('holds the usage text of trainprint --help under "Reference", as printed', () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const block = /\n## Reference\n\n```text\n([\s\S]*?)\n```\n/.exec(doc);
    expect(block, 'docs/cli.md has a "## Reference" section with a ```text block').not.toBeNull();
    expect(block![1]).toBe(HELP.replace(/\n$/, ''));
  });
});
