/**
 * validate-lengths (src/http/validate-lengths.ts): a value passed by the pre-check and the schema without its
 * lengths is one the whole schema passes, and compileValidator's answer — the value or the refusal's sentence — is
 * the validator's own on the whole schema, for strings at and around each bound in UTF-16 units and in code points.
 */
import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/http/context.js';
import { compileValidator } from '../../src/http/validate.js';
import { lengthPlan } from '../../src/http/validate-lengths.js';

const schema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: { type: 'string', minLength: 3, maxLength: 8 },
    title: { type: 'string', maxLength: 4, pattern: '^[a-z😀]*$' },
    tags: { type: 'array', items: { type: 'string', minLength: 2, maxLength: 3 } },
    meta: { type: 'object', additionalProperties: { type: 'string', maxLength: 2 } },
  },
} as JsonSchema;

/** A deterministic generator (mulberry32), so a failure is the same on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A string of 0–12 pieces: ASCII letters, a surrogate pair (one code point, two units), a lone surrogate. */
function text(next: () => number): string {
  const pieces = ['a', 'b', '😀', '\ud800', '\udc00', 'z'];
  let s = '';
  const n = Math.floor(next() * 13);
  for (let i = 0; i < n; i++) s += pieces[Math.floor(next() * pieces.length)];
  return s;
}

function value(next: () => number): unknown {
  const v: Record<string, unknown> = {};
  if (next() < 0.9) v.text = next() < 0.05 ? 7 : text(next);
  if (next() < 0.5) v.title = text(next);
  if (next() < 0.5) v.tags = Array.from({ length: Math.floor(next() * 4) }, () => text(next));
  if (next() < 0.4) v.meta = { k: text(next), l: text(next) };
  if (next() < 0.05) v.extra = 1;
  return v;
}

function answer(check: (v: unknown) => unknown, v: unknown): string {
  try {
    check(v);
    return 'valid';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('validate-lengths', () => {
  it("compileValidator's answer is the whole schema's, over 5,000 values near the bounds", () => {
    const whole = new Validator(schema as never, '2020-12', true);
    const check = compileValidator(schema, 'body');
    const plan = lengthPlan(schema)!;
    const stripped = new Validator(plan.stripped as never, '2020-12', true);
    const next = random(20261128);
    let valid = 0;
    for (let i = 0; i < 5000; i++) {
      const v = value(next);
      const got = answer(check, v);
      expect(got === 'valid').toBe(whole.validate(v).valid);
      if (got === 'valid') valid++;
      // the pre-check never passes a value whose lengths the whole schema refuses
      if (plan.lengthsHold(v) && stripped.validate(v).valid) expect(whole.validate(v).valid).toBe(true);
    }
    // both answers occur often enough to mean something
    expect(valid).toBeGreaterThan(100);
    expect(valid).toBeLessThan(4900);
  });

  it('a string over maxLength in UTF-16 units but not in code points is checked whole and passes', () => {
    const check = compileValidator(schema, 'body');
    const emoji = '😀😀😀😀😀'; // 10 units, 5 code points, maxLength 8
    expect(check({ text: emoji })).toEqual({ text: emoji });
    expect(() => check({ text: emoji.repeat(2) })).toThrow(/text: must .* 8/);
  });

  it('is not planned where a length sits under a combinator or a reference', () => {
    expect(lengthPlan({ anyOf: [{ type: 'string', maxLength: 2 }, { type: 'number' }] } as JsonSchema)).toBeUndefined();
    expect(
      lengthPlan({
        $defs: { t: { type: 'string', maxLength: 2 } },
        properties: { a: { $ref: '#/$defs/t' } },
      } as JsonSchema),
    ).toBeUndefined();
    expect(lengthPlan({ type: 'object', properties: { a: { type: 'string' } } } as JsonSchema)).toBeUndefined();
    expect(lengthPlan(schema)).toBeDefined();
  });
});
