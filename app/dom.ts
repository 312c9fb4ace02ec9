/**
 * A small element builder. Every string child becomes a text node and every attribute goes
 * through `setAttribute`, so text from the user, a file or an index can never be parsed as
 * markup: this module (and the app) never touches `innerHTML`. test/unit/web-units.test.ts
 * checks that no file under app/ does.
 */

export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/**
 * `h('button', { type: 'button', onclick: run }, 'Analyze')`. Attribute values `false`, `null`
 * and `undefined` are skipped, `true` sets an empty attribute; `on*` functions become listeners.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/** Appends children (strings as text nodes, arrays flattened, empty values skipped). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's content. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The element with this id, typed; throws when the page lacks it (a build mismatch). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html has no element #${id}`);
  return el as T;
}

/**
 * Text whose `backtick` spans are code (field names and values in the service's messages and the factor table), as
 * nodes: the page shows `matches[].reuse` as code, never the backticks themselves.
 * @example withCode('a copy (`edited`)') // ['a copy (', <code>edited</code>, ')']
 */
export function withCode(text: string): Child[] {
  return text.split('`').map((part, i) => (i % 2 === 1 ? h('code', null, part) : part));
}
