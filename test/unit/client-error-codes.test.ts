/**
 * Every error code of the table in src/errors.ts is named by the Go and Python clients (constants a caller can
 * compare with instead of string literals), and neither client names a code the API does not have.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HTTP_STATUS } from '../../src/errors.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const API_CODES = Object.keys(HTTP_STATUS).sort();
/** The client's own codes, for failures without an API answer. */
const CLIENT_OWN = new Set(['NETWORK_ERROR', 'TIMEOUT', 'ABORTED', 'HTTP_ERROR']);

describe('client error codes', () => {
  it('the Go client has a Code constant for every API code', () => {
    const named = [...read('clients/go/errors.go').matchAll(/^\s*Code\w+\s*=\s*"([A-Z_]+)"/gm)].map((m) => m[1]);
    expect(named.filter((c) => !CLIENT_OWN.has(c)).sort()).toEqual(API_CODES);
  });

  it('the Python client has an ErrorCode member for every API code', () => {
    const source = read('clients/python/trainprint_client/errors.py');
    const body = source.slice(source.indexOf('class ErrorCode'), source.indexOf('class TrainprintApiError'));
    const named = [...body.matchAll(/^\s{4}([A-Z_]+) = "([A-Z_]+)"/gm)].map((m) => m[2]);
    expect(named.filter((c) => !CLIENT_OWN.has(c)).sort()).toEqual(API_CODES);
  });
});
