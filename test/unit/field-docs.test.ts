/**
 * The words of a request's fields live in the HTTP layer (src/http/docs/fields.ts), not in the contracts the library
 * validates with: `documented` joins them by property path without disturbing the rest of the schema, and the
 * OpenAPI document shows them where the contracts used to carry them.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/http/openapi.js';
import { described, documented, FIELD_DOCS } from '../../src/http/docs/fields.js';
import { ROUTES } from '../../src/http/routes/index.js';
import { REQUESTS } from '../../src/services/requests.js';
import {
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  MATCH_SCHEMA,
  REMOTE_REPORT_SCHEMA,
  SUPPLIED_BY,
} from '../../src/services/analyze/schema.js';
import { MODEL_SPEC_SCHEMA, REFERENCE_SET_ID } from '../../src/services/memorization/schemas.js';
import { jurisdiction, modelId, object, partialObject } from '../../src/util/json-schema.js';

/** The keywords only a document reads. */
const DOC_ONLY = new Set(['description', 'title', 'examples']);

/** Paths of every doc-only keyword under `s` (`properties` followed by name). */
function docPaths(s: unknown, at = ''): string[] {
  if (s === null || typeof s !== 'object') return [];
  return Object.entries(s).flatMap(([k, v]) =>
    DOC_ONLY.has(k) && typeof v === 'string' ? [`${at}${k}`] : docPaths(v, `${at}${k}.`),
  );
}

describe('documented', () => {
  const inner = object({ id: { type: 'string' } });
  const schema = partialObject({ a: { type: 'string', 'x-pattern-hint': 'a letter' }, b: inner, c: inner });

  it('joins words by property path, before vendor extensions, copying only along the path', () => {
    const out = documented(schema, { a: { description: 'An a' }, 'b.id': { description: 'The id' } }) as any;
    expect(Object.keys(out.properties.a)).toEqual(['type', 'description', 'x-pattern-hint']);
    expect(out.properties.b.properties.id).toEqual({ type: 'string', description: 'The id' });
    expect(out.properties.c).toBe(inner); // untouched members stay the same object: a named schema stays a $ref
    expect((schema as any).properties.a.description).toBeUndefined(); // the contract's object is not written
    expect(inner.properties).toEqual({ id: { type: 'string' } });
  });

  it('describes the schema itself with the empty path, and keeps the place of a word it replaces', () => {
    const out = documented({ type: 'string', description: 'old', pattern: 'x' }, { '': { description: 'new' } });
    expect(Object.entries(out)).toEqual([
      ['type', 'string'],
      ['description', 'new'],
      ['pattern', 'x'],
    ]);
  });

  it('takes a string for a description alone', () => {
    expect(documented({ type: 'string' }, { '': 'A name' })).toEqual({ type: 'string', description: 'A name' });
  });

  it('throws for a path the schema lacks: the words would describe nothing', () => {
    expect(() => documented(schema, { 'a.z': { description: 'x' } })).toThrow('no member at a.z');
    expect(() => documented(schema, { z: { description: 'x' } })).toThrow('no member at z');
  });
});

describe('documented paths through items and branches', () => {
  const schema = partialObject({
    list: { type: 'array', items: object({ name: { type: 'string' } }) },
    either: { oneOf: [{ const: false }, object({ n: { type: 'integer' } })] },
  });

  it("'name[]' is the items of an array, 'name.oneOf[i]' a branch", () => {
    const out = documented(schema, {
      'list[].name': { description: 'A name' },
      'either.oneOf[1].n': { description: 'A count' },
    }) as any;
    expect(out.properties.list.items.properties.name.description).toBe('A name');
    expect(out.properties.either.oneOf[1].properties.n.description).toBe('A count');
    expect(out.properties.either.oneOf[0]).toBe((schema as any).properties.either.oneOf[0]);
    expect(() => documented(schema, { 'either.oneOf[2].n': { description: 'x' } })).toThrow('no member');
    expect(() => documented(schema, { 'either[].n': { description: 'x' } })).toThrow('no member');
  });

  it("a shared fragment at the end of a path keeps its own words under the path's", () => {
    const held = partialObject({ model: MODEL_SPEC_SCHEMA });
    const out = documented(held, { model: { description: 'Another model' } }) as any;
    expect(out.properties.model.description).toBe('Another model');
    expect(out.properties.model.properties.api_key.description).toMatch(/^Sent to the service/);
  });
});

describe('FIELD_DOCS', () => {
  it('every entry names members its schema has', () => {
    for (const [schema, docs] of FIELD_DOCS) expect(() => documented(schema as never, docs)).not.toThrow();
  });

  it('no contract, and no result schema the library validates with, carries words: validation reads no prose', () => {
    for (const [op, c] of Object.entries(REQUESTS)) {
      expect(docPaths(c.schema), op).toEqual([]);
      expect(docPaths(c.served), op).toEqual([]);
    }
    const results = [ANALYSIS_RESULT_SCHEMA, MATCH_SCHEMA, REMOTE_REPORT_SCHEMA, SUPPLIED_BY];
    for (const fragment of [
      modelId,
      jurisdiction,
      MODEL_SPEC_SCHEMA,
      REFERENCE_SET_ID,
      ANALYZE_REQUEST_SCHEMA,
      ...results,
    ])
      expect(docPaths(fragment)).toEqual([]);
  });

  it('the OpenAPI document shows the words: a body field, a query parameter, a shared fragment', () => {
    const doc = buildOpenApi(ROUTES) as any;
    const schemas = doc.components.schemas;
    expect(schemas.ScoreRequest.properties.work_hash.description).toMatch(/registered from its content/);
    expect(schemas.RegisterWorkRequest.properties.metadata.properties.jurisdiction.description).toMatch(/^Refused/);
    const models = doc.paths['/api/v1/kb/models'].get.parameters.find((p: any) => p.name === 'dataset');
    expect(models.description).toBe('Models with a documented link to this dataset (id or name)');
    const byQuery = doc.paths['/api/v1/attribution/score'].get.parameters.find((p: any) => p.name === 'target_model');
    expect(byQuery.description).toBe('`provider/model_name` of the knowledge base');
    expect(described(REQUESTS.listWorks.served)).toBe(REQUESTS.listWorks.served); // nothing to say: itself
  });
});
