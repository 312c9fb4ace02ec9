/**
 * build/strip-doc-comments.mjs: the JSDoc that esbuild keeps in a bundle's class bodies and object literals leaves the
 * JavaScript, and nothing else does — not a comment's look-alike inside a string, template or regular expression, not
 * the marks bundlers read (`@__PURE__`, `webpackIgnore`), not a line comment — and the code means what it meant.
 */
import { describe, expect, it } from 'vitest';
import { stripDocComments } from '../../build/strip-doc-comments.mjs';

describe('stripDocComments', () => {
  it('removes a JSDoc that stands on lines of its own, with its lines', () => {
    const text = 'class A {\n  /**\n   * Doc.\n   * @example new A().f() // 1\n   */\n  f() {\n    return 1;\n  }\n}\n';
    expect(stripDocComments(text)).toBe('class A {\n  f() {\n    return 1;\n  }\n}\n');
  });

  it('keeps what only looks like a comment, and the comments bundlers read', () => {
    const text = [
      'const s = "/** not a comment */";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, as a bundle holds one
      'const t = `/** nor ${s} this */`;',
      'const r = /\\/\\*\\* x \\*\\//;',
      'const p = /* @__PURE__ */ make();',
      'const m = import(/* webpackIgnore: true */ "./x.js");',
      '// a line comment',
      '/*! a legal comment */',
      '',
    ].join('\n');
    expect(stripDocComments(text)).toBe(text);
  });

  it('leaves a space between tokens, or a line break where the comment spanned lines (a return stays empty)', () => {
    expect(stripDocComments('const o = { /** a */ a: 1 };')).toBe('const o = {  a: 1 };');
    const text = 'function f() {\n  return /** the value\n  */ 1;\n}';
    const stripped = stripDocComments(text);
    expect(stripped).toBe('function f() {\n  return \n 1;\n}');
    expect(new Function(`${stripped}; return f();`)()).toBe(new Function(`${text}; return f();`)());
  });

  it('changes nothing a second time', () => {
    const once = stripDocComments('/** a */\nexport class A {\n  /** b */\n  x = 1;\n}\n');
    expect(once).toBe('export class A {\n  x = 1;\n}\n');
    expect(stripDocComments(once)).toBe(once);
  });
});
