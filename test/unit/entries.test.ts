/**
 * The package's entries over the library module (docs/architecture.md): the main entry stays small, every name of the
 * library is a name of some entry, and every sub-entry (src/entries/<name>.ts) is a package export. Read with the
 * TypeScript compiler, as a user's editor sees the sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
// the main entry holds the engine, its errors, its methods' requests and results and a few helpers: the rest of the
// library goes to a sub-entry by concern (before the sub-entries it exported 400 names); 121 since shingleCount, which
// counts a fingerprint's shingles without computing its columns (read from the result of the main entry's fingerprint)
const MAIN_AT_MOST = 121;
// names the library module holds for the outer ring alone (src/http, src/cli): the pieces of a policy whose public
// face is elsewhere — the egress check's answer (public: isInternalHost, egressFetch) and an idempotent request's key
// (public: Idempotency), the check of a positive integer option, a wait that an abort ends, the chunks of a body in one
// array, the id a dataset file declares, the mark of a request body the HTTP adapter's validator accepted, and whether a
// fetch error is a failed connection —
// exported by no entry, so a user does not build on them; the JSON Schema fragments and request schemas the
// services share with the HTTP API's schemas (public through the OpenAPI document and a job type's `itemSchema`); and
// what the on-demand files built on the library take from it (src/on-demand-shared.ts), which no entry exports either
const OUTER_RING_ONLY = [
  // a piece of work and its result as they cross to a worker pool's thread and back (src/node/offload.ts and its thread)
  'workToRun',
  'resultToSend',
  'resultReceived',
  'JOB_REQUEST',
  'JOB_REQUEST_SHAPE',
  'JobRequest',
  'JobRequestContext',
  'refusedResolution',
  'requestHash',
  'positiveInt',
  'MAX_THREADS',
  'isWellFormed',
  'sleep',
  'concatBytes',
  'SCAN_HIT_FIELDS',
  'SCAN_OPTIONS_REQUEST',
  'DEFAULT_MIN_WORDS',
  'TIER_REASON_CODES',
  'declaredDatasetId',
  'markSchemaChecked',
  'connectionFailed',
  'idPattern',
  'int0',
  'intIn',
  'jurisdiction',
  'modelId',
  'object',
  'prefixedId',
  'workHash',
  'workId',
  'pageLimit',
  'partialObject',
  'workType',
  'declarations',
  'DATASET_REF_PATTERN',
  // the id of a dataset an account creates and the documents the dataset routes take (src/datasets/descriptor.ts)
  'DATASET_ID_PATTERN',
  'SERVED_DOCUMENTS',
  'SCORE_REQUEST_SCHEMA',
  'MODEL_SPEC_SCHEMA',
  'ON_DEMAND_SHARED',
  // analyze's request check, which a job's item and Prefer: respond-async run at submission (src/http/routes/jobs.ts)
  // a reference set's id as the HTTP API takes it (the account's own name for the set)
  'REFERENCE_SET_ID',
  // each operation's request contract (src/services/requests.ts), which the HTTP routes read their requests through
  'REQUESTS',
  'MARKET_REQUESTS',
  'readThrough',
  'within',
  'SCHEMA_WORDS',
  'oneOfRefusal',
  'schemaRefusal',
  'SchemaNode',
  'exactlyOne',
  'RequestContract',
];
const SUB_ENTRIES = readdirSync(join(root, 'src/entries'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -'.ts'.length));

/** The names each module exports (values and types), by its path under src/. */
function exportsOf(modules: readonly string[]): Map<string, Set<string>> {
  const files = modules.map((m) => join(root, 'src', m));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  return new Map(
    modules.map((m, i) => {
      const source = program.getSourceFile(files[i]);
      const symbol = source && checker.getSymbolAtLocation(source);
      if (!symbol) throw new Error(`src/${m} is not a module`);
      return [m, new Set(checker.getExportsOfModule(symbol).map((s) => s.name))];
    }),
  );
}

describe('the package entries', () => {
  const names = exportsOf(['library.ts', 'index.ts', ...SUB_ENTRIES.map((e) => `entries/${e}.ts`)]);
  const library = names.get('library.ts')!;

  it(`the main entry exports at most ${MAIN_AT_MOST} names`, () => {
    expect(names.get('index.ts')!.size).toBeLessThanOrEqual(MAIN_AT_MOST);
  });

  it('every name of the library module is exported by the main entry or a sub-entry', () => {
    const exported = new Set([...names].filter(([m]) => m !== 'library.ts').flatMap(([, n]) => [...n]));
    // a name added to src/library.ts belongs to an entry: the main entry if users of the engine need it, else the
    // sub-entry of its concern
    expect([...library].filter((n) => !exported.has(n) && !OUTER_RING_ONLY.includes(n))).toEqual([]);
  });

  it('the names held for the outer ring are in the library module and in no entry', () => {
    for (const n of OUTER_RING_ONLY) {
      expect(library.has(n), n).toBe(true);
      for (const [m, exported] of names)
        if (m !== 'library.ts') expect(exported.has(n), `${m} exports ${n}`).toBe(false);
    }
  });

  it('every sub-entry is a package export, with its ESM, CommonJS and types files', () => {
    const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const e of SUB_ENTRIES) {
      expect(exports[`./${e}`], e).toEqual({
        import: { types: `./dist/${e}.d.ts`, default: `./dist/${e}.js` },
        require: { types: `./dist/${e}.d.cts`, default: `./dist/${e}.cjs` },
      });
    }
  });
});
