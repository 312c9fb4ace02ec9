// The length of every function of src/ and app/ (the web app), in lines of its own: the lines it spans less those of
// the functions nested in it that span over 20 lines (those are read, and counted, as functions of their own); a
// nested function of 20 lines or fewer stays part of its parent, as a block would. Read with the TypeScript parser.
//
// `node build/function-lengths.mjs` (npm run check:functions) prints the longest functions and fails when one holds
// over 120 lines of its own; `--most N` prints N of them. test/unit/function-length.test.ts holds the same limit.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

/** Most lines a function may hold of its own. */
export const OWN_AT_MOST = 120;
/** A nested function over this many lines is counted apart from its parent. */
export const NESTED_OVER = 20;

/**
 * The TypeScript sources under `dir`, generated modules and declarations left out.
 * @example sources('src').includes('src/errors.ts') // true, run from the repository's root
 */
export function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.endsWith('.generated.ts') ? [p] : [];
  });
}

/** A function's name as a reader finds it: its own, its variable's, its property's, or its line. */
function nameOf(node, file) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  return `(anonymous at line ${line})`;
}

/**
 * Every function of a file with its own lines, as `{ where: 'path:line', name, own }`.
 * @example measure('x.ts', 'function f() {\n  return 1;\n}') // [{ where: 'x.ts:1', name: 'f', own: 3 }]
 */
export function measure(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines = (node) =>
    file.getLineAndCharacterOfPosition(node.getEnd()).line -
    file.getLineAndCharacterOfPosition(node.getStart(file)).line +
    1;
  const found = [];
  // returns the lines of the nested functions over NESTED_OVER lines met below `node` (not below those)
  const walk = (node) => {
    let nested = 0;
    node.forEachChild((child) => {
      if (ts.isFunctionLike(child) && 'body' in child && child.body) {
        const span = lines(child);
        const own = span - walk(child);
        const line = file.getLineAndCharacterOfPosition(child.getStart(file)).line + 1;
        found.push({ where: `${path}:${line}`, name: nameOf(child, file), own });
        if (span > NESTED_OVER) nested += span;
        else nested += span - own; // a short function stays its parent's, less what is already its own function
      } else {
        nested += walk(child);
      }
    });
    return nested;
  };
  walk(file);
  return found;
}

/**
 * Every function of src/ and app/ under `root`, longest first, paths relative to `root`.
 * @example measureTree(process.cwd())[0].own <= OWN_AT_MOST // true while the limit holds
 */
export function measureTree(root) {
  return [...sources(join(root, 'src')), ...sources(join(root, 'app'))]
    .map((f) => relative(root, f).split('\\').join('/'))
    .flatMap((f) => measure(f, readFileSync(join(root, f), 'utf8')))
    .sort((a, b) => b.own - a.own);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { most: { type: 'string', default: '10' } } });
  const measured = measureTree(fileURLToPath(new URL('../', import.meta.url)));
  const over = measured.filter((m) => m.own > OWN_AT_MOST);
  console.log(`${measured.length} functions in src/ and app/; ${over.length} over ${OWN_AT_MOST} lines of their own`);
  for (const m of measured.slice(0, Math.max(Number(values.most), over.length)))
    console.log(`${m.own}\t${m.where} ${m.name}`);
  if (over.length) process.exit(1);
}
