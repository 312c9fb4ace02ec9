/**
 * The layers of src/ (docs/architecture.md): the dependency-cruiser rules of .dependency-cruiser.cjs
 * hold for src/ and app/, and only src/core touches WebAssembly memory.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.generated.ts') ? [p] : [];
  });
}

describe('layers', () => {
  it('dependency-cruiser finds no violation of the layer rules', async () => {
    const { cruise } = await import('dependency-cruiser');
    const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs'));
    const cwd = process.cwd();
    process.chdir(root); // the rules' paths are relative to the repository root
    try {
      const result = await cruise(['src', 'app'], {
        ...config.options,
        ruleSet: { forbidden: config.forbidden },
        validate: true,
      });
      const output = result.output as {
        summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
      };
      const found = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
      expect(found).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);

  it('only src/core reads or writes WebAssembly memory', () => {
    const touching = sources(join(root, 'src'))
      .filter((f) => !relative(root, f).startsWith(join('src', 'core')))
      .filter((f) => /\bmemory\.buffer\b|\.raw\.memory\b|new WebAssembly\.Memory\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(touching).toEqual([]);
  });
});
