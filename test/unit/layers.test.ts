/**
 * The layers of src/ (docs/architecture.md): the dependency-cruiser rules of .dependency-cruiser.cjs
 * hold for src/ and app/, only src/core touches WebAssembly memory, and the services look kinds of evidence up
 * (src/services/policy/kinds/) instead of switching on them.
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
    // a cruise of the whole tree: 75 s beside a build on a loaded 2-core machine; the bound only catches a hang
  }, 600_000);

  it('only src/core reads or writes WebAssembly memory', () => {
    const touching = sources(join(root, 'src'))
      .filter((f) => !relative(root, f).startsWith(join('src', 'core')))
      .filter((f) => /\bmemory\.buffer\b|\.raw\.memory\b|new WebAssembly\.Memory\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(touching).toEqual([]);
  });

  it('no service switches on a dataset or match kind outside the result schemas', () => {
    // the kinds the corpus gives (DatasetSearchDetail, SearchMatch, DatasetStats): their meaning is their module's
    const KIND =
      /\bkind\s*(===|!==)\s*'(exact|portrait|remote|source|near)'|case\s+'(exact|portrait|remote|source|near)'\s*:/;
    const switching = sources(join(root, 'src', 'services'))
      .filter((f) => !/schema\.ts$/.test(f))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (KIND.test(line) ? [`${relative(root, f)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(switching).toEqual([]);
  });

  it('the corpus asks a dataset instead of testing its class: at most 5 instanceof tests on a dataset class', () => {
    // the classes a corpus holds (src/corpus/loaded.ts) and the datasets they wrap
    const CLASS =
      /\binstanceof\s+(MemoryExact|MemoryPortrait|StoredExactDataset|ExactSlice|ExactDataset|PortraitDataset)\b/g;
    const tests = sources(join(root, 'src', 'corpus')).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => [...line.matchAll(CLASS)].map(() => `${relative(root, f)}:${i + 1}`)),
    );
    expect(tests.length, tests.join('\n')).toBeLessThanOrEqual(5);
    expect('if (!(d instanceof MemoryExact)) return null'.match(CLASS)).toHaveLength(1); // the pattern finds one
  });
});
