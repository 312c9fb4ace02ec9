// Each bound of the memorization options is written once (src/services/memorization/limits.ts): the library's request
// contract refuses a value past it with INVALID_INPUT naming the option, and every HTTP request schema and job item
// that takes the option serves the same bound, lower only where SERVER_CAPS says so — the pin that no limit is written
// twice.
import { describe, expect, it } from 'vitest';
import { REQUESTS } from '../../src/services/requests.js';
import { MEMORIZATION_LIMITS, SERVER_CAPS } from '../../src/services/memorization/limits.js';
import { checkSchema, type SchemaNode } from '../../src/util/schema-check.js';
import { AUDIT_ITEM_SCHEMA, EXTRACT_WORK_ITEM_SCHEMA } from '../../src/services/memorization/schemas.js';

type Props = Record<string, { minimum?: number; maximum?: number }>;
const props = (schema: unknown) => (schema as { properties: Props }).properties;

/** Every schema served for an operation's options (audit items take the per-work options of extractWork too). */
/** A request of each operation that its contract takes, an option set on it. */
const BASE: Record<keyof typeof MEMORIZATION_LIMITS, object> = {
  extract: { text: 'x' },
  extractWork: { text: 'x' },
  audit: { works: [{ id: 'a', text: 'x' }] },
  probe: { text: 'x', reference: { texts: ['y'] } },
};

const SERVED: Record<keyof typeof MEMORIZATION_LIMITS, Props[]> = {
  extract: [props(REQUESTS.extract.served)],
  extractWork: [props(EXTRACT_WORK_ITEM_SCHEMA)],
  audit: [props(AUDIT_ITEM_SCHEMA)],
  probe: [props(REQUESTS.probe.served)],
};

describe('memorization option limits', () => {
  for (const [op, limits] of Object.entries(MEMORIZATION_LIMITS) as [
    keyof typeof MEMORIZATION_LIMITS,
    Record<string, { min: number; max: number }>,
  ][]) {
    for (const [name, limit] of Object.entries(limits)) {
      it(`${op}.${name}: the library's bounds ${limit.min}..${limit.max}, served tightened only by SERVER_CAPS`, () => {
        const served = Math.min(limit.max, SERVER_CAPS[name] ?? limit.max);
        for (const p of SERVED[op])
          expect(p[name], `${op} serves ${name}`).toMatchObject({ minimum: limit.min, maximum: served });
        const schema = REQUESTS[op].schema as SchemaNode;
        const read = (v: unknown) =>
          (checkSchema(schema, { ...BASE[op], [name]: v }, 'the request') as Record<string, unknown>)[name];
        expect(read(limit.max)).toBe(limit.max);
        expect(read(limit.min)).toBe(limit.min);
        for (const bad of [limit.max + 1, limit.min - 1, 1.5, '3'])
          expect(() => read(bad)).toThrow(
            expect.objectContaining({ code: 'INVALID_INPUT', cause: expect.objectContaining({ field: name }) }),
          );
      });
    }
  }

  it('the per-work options an audit item shares with extractWork are served with the same bounds', () => {
    for (const name of ['prefix_words', 'max_tokens', 'concurrency'])
      expect(props(AUDIT_ITEM_SCHEMA)[name]).toMatchObject({
        minimum: props(EXTRACT_WORK_ITEM_SCHEMA)[name].minimum,
        maximum: props(EXTRACT_WORK_ITEM_SCHEMA)[name].maximum,
      });
  });

  it('every server cap tightens something', () => {
    for (const [name, cap] of Object.entries(SERVER_CAPS))
      expect(
        Object.values(MEMORIZATION_LIMITS).some(
          (l) => name in l && (l as Record<string, { max: number }>)[name].max > cap,
        ),
      ).toBe(true);
  });
});
