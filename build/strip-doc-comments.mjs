// Remove the JSDoc comments (`/** … */`) that esbuild leaves in the JavaScript bundles of dist/. esbuild drops most
// comments, but keeps those inside class bodies and object literals unless it minifies whitespace
// (https://github.com/evanw/esbuild/issues/3117): 110 KB of the main entry's 1.39 MB were method docs that no program
// reads, since editors take them from the .d.ts files, which tsup writes from the sources and keep every word
// (build/check-package.mjs checks that each public declaration there has its JSDoc). Minifying whitespace would drop
// them too, but also the bundle's lines, its `/* @__PURE__ */` marks for the bundlers of programs that import it, and
// the `// src/…` headers a reader of dist/ finds modules by.
//
// Only `/**` comments go: `/* @__PURE__ */`, `/* webpackIgnore: true */`, `/* @vite-ignore */`, legal comments and
// line comments stay. Comments are found by the TypeScript parser (never inside a string, template or regular
// expression), and each file is checked before it is written: minified by esbuild, the stripped text and the original
// must be the same byte for byte, so the code is untouched.
//
// Run after tsup (package.json "build"), before the package check; a second run changes nothing.
// `node build/strip-doc-comments.mjs` strips every bundle of dist/; `--dry` reports without writing.
import { transformSync } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const dist = new URL('../dist/', import.meta.url);
const dry = process.argv.includes('--dry');

/**
 * The ranges [start, end) of the JSDoc comments of a JavaScript text, each widened to its whole lines where the
 * comment stands on lines of its own.
 * @example docCommentRanges('/** a *\/\nx = 1;\n') // [[0, 9]]
 */
export function docCommentRanges(text) {
  const file = ts.createSourceFile('bundle.js', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found = new Map();
  const take = (pos) => {
    // TypeScript reads a trivia's comments before its first line break as the token's before (trailing), the others
    // as the next token's (leading): both together are every comment of it
    const ranges = [
      ...(ts.getTrailingCommentRanges(text, pos) ?? []),
      ...(ts.getLeadingCommentRanges(text, pos) ?? []),
    ];
    for (const range of ranges) {
      if (
        range.kind === ts.SyntaxKind.MultiLineCommentTrivia &&
        text.startsWith('/**', range.pos) &&
        range.end - range.pos > 4
      )
        found.set(range.pos, range.end);
    }
  };
  // every token starts where a node starts or one ends, and a comment is trivia before a token
  const visit = (node) => {
    take(node.pos);
    take(node.end);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...found].sort((a, b) => a[0] - b[0]).map(([start, end]) => wholeLines(text, start, end));
}

/** [start, end) widened to the comment's lines with their line break, where nothing else stands on them. */
function wholeLines(text, start, end) {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = text.indexOf('\n', end);
  const before = text.slice(lineStart, start);
  const after = text.slice(end, lineEnd === -1 ? text.length : lineEnd);
  if (before.trim() === '' && after.trim() === '') return [lineStart, lineEnd === -1 ? text.length : lineEnd + 1];
  return [start, end];
}

/**
 * The text less its JSDoc comments. A comment among tokens leaves a space where none is beside it, or a line break
 * where it spanned lines (a line break in a comment ends a statement as one outside it would: `return /**\n *\/ x`
 * returns nothing).
 */
export function stripDocComments(text) {
  let out = '';
  let at = 0;
  for (const [start, end] of docCommentRanges(text)) {
    if (start < at) continue; // a comment inside lines already removed
    out += text.slice(at, start);
    const wholeLines = start === 0 || text[start - 1] === '\n';
    const spaced = /\s/.test(text[start - 1] ?? '') || /\s/.test(text[end] ?? '');
    if (text.slice(start, end).includes('\n')) out += wholeLines ? '' : '\n';
    else if (!wholeLines && !spaced) out += ' ';
    at = end;
  }
  return out + text.slice(at);
}

/** What esbuild makes of a bundle with no whitespace and no comments: the same for two texts of the same code. */
function minified(text, file) {
  const format = file.endsWith('.cjs') ? 'cjs' : 'esm';
  return transformSync(text, { minifyWhitespace: true, legalComments: 'inline', format, loader: 'js' }).code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let before = 0;
  let after = 0;
  for (const file of readdirSync(dist).filter((f) => /\.(js|cjs)$/.test(f))) {
    const text = readFileSync(new URL(file, dist), 'utf8');
    const stripped = stripDocComments(text);
    if (stripped === text) continue;
    if (minified(stripped, file) !== minified(text, file)) {
      console.error(`strip-doc-comments: dist/${file} would change as code, not only in its comments; left as it is`);
      process.exit(1);
    }
    before += text.length;
    after += stripped.length;
    if (!dry) writeFileSync(new URL(file, dist), stripped);
  }
  console.log(`doc comments: ${before - after} characters of JSDoc left the bundles${dry ? ' (dry run)' : ''}`);
}
