/**
 * Whether a value read from a file has the shape of an analysis result, checked against the result's own schema
 * (`ANALYSIS_RESULT_SCHEMA`) before a report is drawn from it, so that a malformed result or bundle is refused naming
 * the member (`result.matches: is null, not an array`) instead of failing deep inside the drawing. What the drawing
 * relies on is checked — types, `const`, `enum`, required members, items, the match kinds (`oneOf`) — and what it
 * does not is left alone (members no schema names, patterns and bounds), so the result of another version still
 * draws.
 */
import { ANALYSIS_RESULT_SCHEMA } from '../analyze/schema.js';

interface Node {
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Node>>;
  readonly items?: Node;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly oneOf?: readonly Node[];
}

/** Deepest nesting looked at: a result is a few levels deep; a hostile file may nest without end. */
const MAX_DEPTH = 32;

const str = { type: 'string' } as const;
const TRANSCRIPT: Node = {
  type: 'object',
  required: ['calls', 'sha256', 'entries'],
  properties: {
    calls: { type: 'integer' },
    sha256: str,
    entries: {
      type: 'array',
      items: { type: 'object', required: ['request', 'answer'], properties: { request: str, answer: str } },
    },
  },
};

/** What a report reads of an evidence bundle (`EvidenceBundle`), its result as the result's schema gives it. */
const BUNDLE: Node = {
  type: 'object',
  required: ['format', 'created_at', 'result', 'text_sha256', 'transcripts', 'engine', 'signature'],
  properties: {
    format: str,
    created_at: str,
    result: ANALYSIS_RESULT_SCHEMA as Node,
    text_sha256: { type: ['string', 'null'] },
    transcripts: { type: 'object' },
    engine: {
      type: 'object',
      required: ['name', 'version', 'core'],
      properties: {
        name: str,
        version: str,
        core: { type: 'object', required: ['variant', 'sha256'], properties: { variant: str, sha256: str } },
      },
    },
    signature: {
      type: 'object',
      required: ['alg', 'key_id', 'public_key', 'value'],
      properties: { alg: str, key_id: str, public_key: str, value: str },
    },
  },
};

/**
 * The first member of an evidence bundle read from a file that does not have the shape a report reads, in words
 * (`bundle.signature.key_id: is missing`); null when there is none. Its signature is not checked here (`trainprint
 * verify` does that).
 * @example evidenceBundleProblem({ ...bundle, transcripts: { web: null } }) // 'bundle.transcripts.web: is null, …'
 */
export function evidenceBundleProblem(value: unknown, where = 'bundle'): string | null {
  const p = problem(BUNDLE, value, where, 0);
  if (p !== null) return p;
  for (const [id, t] of Object.entries((value as { transcripts: Record<string, unknown> }).transcripts)) {
    const q = problem(TRANSCRIPT, t, `${where}.transcripts.${id}`, 1);
    if (q !== null) return q;
  }
  return null;
}

/**
 * The first member of `value` that does not have the shape the analysis result's schema gives it, in words and named
 * from `where` (`result.limitations[2]: is an object, not a string`); null when there is none.
 * @example analysisResultProblem({ ...result, matches: null }, 'result') // 'result.matches: is null, not an array'
 */
export function analysisResultProblem(value: unknown, where = 'result'): string | null {
  return problem(ANALYSIS_RESULT_SCHEMA as Node, value, where, 0);
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);
const said = (t: string) => (t === 'null' ? 'null' : article(t));

function typeFits(wanted: string, actual: string): boolean {
  return wanted === actual || (wanted === 'number' && actual === 'integer');
}

function problem(node: Node, v: unknown, at: string, depth: number): string | null {
  if (depth > MAX_DEPTH) return `${at}: nests deeper than ${MAX_DEPTH} levels`;
  const actual = typeOf(v);
  if (node.type !== undefined) {
    const wanted = typeof node.type === 'string' ? [node.type] : node.type;
    if (!wanted.some((t) => typeFits(t, actual)))
      return `${at}: is ${said(actual)}, not ${wanted.map(said).join(' or ')}`;
  }
  if (Object.hasOwn(node, 'const') && v !== node.const) return `${at}: is ${show(v)}, not ${show(node.const)}`;
  if (node.enum && !node.enum.includes(v)) return `${at}: is ${show(v)}, not one of ${node.enum.map(show).join(', ')}`;
  if (node.oneOf) return oneOf(node.oneOf, v, at, depth);
  if (actual === 'object') {
    const o = v as Record<string, unknown>;
    // a member whose value is undefined is missing, as JSON would write it
    const has = (name: string) => Object.hasOwn(o, name) && o[name] !== undefined;
    for (const name of node.required ?? []) if (!has(name)) return `${at}.${name}: is missing`;
    for (const [name, sub] of Object.entries(node.properties ?? {})) {
      if (!has(name)) continue;
      const p = problem(sub, o[name], `${at}.${name}`, depth + 1);
      if (p) return p;
    }
  }
  if (actual === 'array') {
    const a = v as unknown[];
    if (node.minItems !== undefined && a.length < node.minItems)
      return `${at}: has ${a.length} items, fewer than ${node.minItems}`;
    if (node.maxItems !== undefined && a.length > node.maxItems)
      return `${at}: has ${a.length} items, more than ${node.maxItems}`;
    if (node.items)
      for (let i = 0; i < a.length; i++) {
        const p = problem(node.items, a[i], `${at}[${i}]`, depth + 1);
        if (p) return p;
      }
  }
  return null;
}

/**
 * A value of one of several shapes (a match of one kind, or null or an object): the branch whose `kind` it names is
 * the one to explain; none fitting and no kind to go by, the first branch's problem.
 */
function oneOf(branches: readonly Node[], v: unknown, at: string, depth: number): string | null {
  const problems = branches.map((b) => problem(b, v, at, depth + 1));
  if (problems.some((p) => p === null)) return null;
  const kind = typeOf(v) === 'object' ? (v as Record<string, unknown>).kind : undefined;
  const kinds: unknown[] = branches.map((b) => b.properties?.kind?.const).filter((k) => k !== undefined);
  if (kinds.length > 0 && !kinds.includes(kind))
    return `${at}.kind: is ${show(kind)}, not one of ${kinds.map(show).join(', ')}`;
  const named = branches.findIndex((b) => b.properties?.kind?.const === kind);
  return problems[Math.max(named, 0)];
}

function show(v: unknown): string {
  if (v === undefined) return 'missing';
  const t = typeOf(v);
  if (t === 'object' || t === 'array') return said(t);
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}
