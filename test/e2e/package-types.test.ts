/**
 * The published types as a project that installed the package sees them: dist/*.d.ts (.d.cts) through package.json's
 * `exports`, module resolution `nodenext`, the declaration files checked too (no `skipLibCheck`). A class is one type
 * whichever entry names it — the Engine of 'trainprint' is the one that 'trainprint/http', 'trainprint/starter' and
 * 'trainprint/node' take, and the sub-entries' KnowledgeBase, KeyStore and Memorization are the engine's — in an ES
 * module and in a CommonJS one. (Two declarations of a class with private members are two types: before the entries
 * shared library.d.ts, `createHandler(await createEngine())` did not compile.) Needs dist/ (`npm run build`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

// what a program does with several entries at once: each line fails to compile if two entries declare one class twice
const PROGRAM = `
import { createEngine, TrainprintError, type Engine } from 'trainprint';
import { createHandler, KeyStore as HttpKeyStore } from 'trainprint/http';
import { KeyStore } from 'trainprint/accounts';
import { KnowledgeBase, knowledgeBase } from 'trainprint/kb';
import { MemoryStore, type Store } from 'trainprint/datasets';
import { Memorization, type ProbeRequest } from 'trainprint/memorization';
import type { TargetModel } from 'trainprint/models';
import { loadStarterDataset } from 'trainprint/starter';

export async function main(): Promise<boolean> {
  const engine: Engine = await createEngine({ kb: knowledgeBase(), store: new MemoryStore() });
  createHandler(engine);
  await loadStarterDataset(engine);
  const kb: KnowledgeBase = engine.kb;
  const store: Store = engine.store;
  const keys: KeyStore = new HttpKeyStore(store);
  const memorization: Memorization = engine.memorization;
  const model: TargetModel | undefined = undefined as ProbeRequest['model'] | undefined;
  return [kb, keys, memorization, model].length === 4 && new TrainprintError('NOT_FOUND') instanceof Error;
}
`;

let dir = '';

beforeAll(() => {
  if (!existsSync(join(root, 'dist/library.d.ts'))) throw new Error('dist/ is missing: run `npm run build` first');
  dir = mkdtempSync(join(tmpdir(), 'trainprint-types-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules/trainprint'), 'dir'); // as installed: resolved through "exports"
  writeFileSync(join(dir, 'esm.ts'), PROGRAM);
  writeFileSync(join(dir, 'cjs.cts'), PROGRAM);
  // trainprint/node has ES module types only: the ES module program takes its serve too
  writeFileSync(join(dir, 'node.ts'), "import { serve } from 'trainprint/node';\nexport const s: unknown = serve;\n");
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the published types', () => {
  it('name one Engine, KnowledgeBase, KeyStore and Memorization across the entries, in ESM and CommonJS', () => {
    const program = ts.createProgram([join(dir, 'esm.ts'), join(dir, 'cjs.cts'), join(dir, 'node.ts')], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(errors).toEqual([]);
  }, 120_000);
});
