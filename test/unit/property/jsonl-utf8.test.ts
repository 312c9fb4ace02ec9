import { describe, expect, it } from 'vitest';
import { PlainJsonlReader, unescapeJsonString } from '../../../src/node/jsonl-utf8.js';
import { prng } from '../../reference/core.js';

/**
 * The reader of plain JSON Lines lines against the general path it stands for: `JSON.parse` of the line decoded by a
 * fatal UTF-8 decoder, then the text encoded as UTF-8. Where the reader answers, its id, bytes and length in UTF-16
 * units are those; where the general path refuses a line or its text holds a lone surrogate, the reader answers
 * nothing (the general path then reads the line, or names its fault).
 */
const encoder = new TextEncoder();
const fatal = new TextDecoder('utf-8', { fatal: true });

/** What the general path makes of a line of the scan's fields: `{ id, text }`, or null for anything it refuses. */
function general(line: Uint8Array): { id: string; text: string } | null {
  let record: unknown;
  try {
    record = JSON.parse(fatal.decode(line));
  } catch {
    return null;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return null;
  const { id, text } = record as { id: unknown; text: unknown };
  if (typeof text !== 'string') return null;
  if (typeof id === 'string' && id.length > 0) return { id, text };
  if (typeof id === 'number' && Number.isSafeInteger(id)) return { id: String(id), text };
  return null;
}

const hasLoneSurrogate = (s: string) =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

/** A random code unit sequence with what a JSON string escapes, astral pairs, lone surrogates and U+FFFD. */
function randomText(rand: () => number): string {
  const pieces = [
    () => String.fromCharCode(0x20 + Math.floor(rand() * 95)),
    () => String.fromCharCode(Math.floor(rand() * 0x20)),
    () => '"',
    () => '\\',
    () => '/',
    () => String.fromCharCode(0x80 + Math.floor(rand() * 0x780)),
    () => String.fromCharCode(0x800 + Math.floor(rand() * 0xd000)),
    () => String.fromCodePoint(0x10000 + Math.floor(rand() * 0x100000)),
    () => String.fromCharCode(0xd800 + Math.floor(rand() * 0x800)), // a lone surrogate, now and then
    () => '\ufffd',
    () => '\u2028',
    () => ' The quick brown fox.\n',
  ];
  let s = '';
  const n = Math.floor(rand() * 40);
  for (let k = 0; k < n; k++) {
    const pick = rand() < 0.5 ? 0 : Math.floor(rand() * pieces.length);
    s += pieces[pick]();
  }
  return s;
}

/** `s` as a JSON string literal, each code unit spelled plainly or as `\uXXXX` (either case) at random. */
function spelled(s: string, rand: () => number): string {
  let out = '"';
  const plain = JSON.stringify(s).slice(1, -1);
  if (rand() < 0.5) return `"${plain}"`;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const hex = c.toString(16).padStart(4, '0');
    if (rand() < 0.3) out += `\\u${rand() < 0.5 ? hex : hex.toUpperCase()}`;
    else if (c === 0x2f && rand() < 0.5) out += '\\/';
    else out += JSON.stringify(s[i]).slice(1, -1);
  }
  return `${out}"`;
}

const space = (rand: () => number) => [' ', '', '\t', '', '\r', ''][Math.floor(rand() * 6)];

function randomLine(rand: () => number): { line: string; text: string } {
  const text = randomText(rand);
  const idPick = rand();
  const id =
    idPick < 0.6
      ? JSON.stringify(`o${Math.floor(rand() * 1e6)}`)
      : idPick < 0.8
        ? String(Math.floor((rand() - 0.3) * 1e9))
        : ['0', '-0', '1.0', '1e3', '"a\\u0062"', '""', '12345678901234567', 'null'][Math.floor(rand() * 8)];
  const members = [
    `"id"${space(rand)}:${space(rand)}${id}`,
    `"text"${space(rand)}:${space(rand)}${spelled(text, rand)}`,
  ];
  if (rand() < 0.3) members.reverse();
  const line = `${space(rand)}{${space(rand)}${members.join(`${space(rand)},${space(rand)}`)}${space(rand)}}${space(rand)}`;
  return { line, text };
}

function expectSame(reader: PlainJsonlReader, bytes: Uint8Array): 'read' | 'left' {
  const got = reader.document(bytes);
  const want = general(bytes);
  if (got === null) return 'left';
  expect(want).not.toBeNull();
  expect(hasLoneSurrogate(want!.text)).toBe(false);
  expect(got.id).toBe(want!.id);
  expect(Array.from(got.text.bytes)).toEqual(Array.from(encoder.encode(want!.text)));
  expect(got.text.units).toBe(want!.text.length);
  expect(got.text.text).toBe(want!.text);
  return 'read';
}

describe('PlainJsonlReader against JSON.parse and a UTF-8 encoder', () => {
  it('reads every plain line the general path reads, without a lone surrogate, as it does', () => {
    const rand = prng(83);
    const reader = new PlainJsonlReader('id', 'text');
    let read = 0;
    for (let n = 0; n < 3000; n++) {
      const { line, text } = randomLine(rand);
      const bytes = encoder.encode(line);
      const outcome = expectSame(reader, bytes);
      if (outcome === 'read') read++;
      const want = general(bytes);
      // a plain line of a string id and a well-formed text is always read here (the path this reader exists for)
      if (want && !hasLoneSurrogate(text) && /^[\s]*\{[\s]*"(id|text)"/.test(line) && /"id"\s*:\s*"o\d+"/.test(line))
        expect(outcome).toBe('read');
    }
    expect(read).toBeGreaterThan(1000);
  });

  it('refuses what the general path refuses, and agrees where it reads a mutated line', () => {
    const rand = prng(7);
    const reader = new PlainJsonlReader('id', 'text');
    const bad = [
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0x80],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0xff],
      [0x01],
      [0x5c, 0x78],
      [0x5c, 0x75, 0x31, 0x32],
      [0x22],
    ];
    for (let n = 0; n < 3000; n++) {
      const { line } = randomLine(rand);
      const bytes = Array.from(encoder.encode(line));
      const at = Math.floor(rand() * (bytes.length + 1));
      if (rand() < 0.5) bytes.splice(at, 0, ...bad[Math.floor(rand() * bad.length)]);
      else bytes.splice(at, 1 + Math.floor(rand() * 3));
      expectSame(reader, new Uint8Array(bytes));
    }
  });

  it('leaves a lone surrogate escape, and a pair split or reversed, to the general path', () => {
    const reader = new PlainJsonlReader('id', 'text');
    for (const t of ['\\ud800', '\\udc00x', '\\ud83d\\u0041', '\\ude00\\ud83d', '\\ud83d']) {
      expect(reader.document(encoder.encode(`{"id":"a","text":"${t}"}`))).toBeNull();
    }
    const pair = reader.document(encoder.encode('{"id":"a","text":"\\ud83D\\uDE00!"}'));
    expect(pair?.text.text).toBe('😀!');
    expect(pair?.text.units).toBe(3);
  });

  it('reads other field names only as given, and no other shape', () => {
    const reader = new PlainJsonlReader('doc', 'body');
    expect(reader.document(encoder.encode('{"body":"x y","doc":7}'))).toMatchObject({ id: '7' });
    for (const line of [
      '{"id":"a","text":"b"}',
      '{"doc":"a","body":"b","more":1}',
      '{"doc":"a"}',
      '{"doc":"a","doc":"b"}',
      '{"doc":"a","body":5}',
      '\ufeff{"doc":"a","body":"b"}',
      '[{"doc":"a","body":"b"}]',
      '',
    ]) {
      expect(reader.document(encoder.encode(line))).toBeNull();
    }
    expect(new PlainJsonlReader('i"d', 'text').document(encoder.encode('{"i\\"d":"a","text":"b"}'))).toBeNull();
  });

  it('unescapes a string as its plain-TS example says', () => {
    const out = new Uint8Array(16);
    expect(unescapeJsonString(encoder.encode('a\\u00e9"'), 0, out, 0)).toEqual({ end: 8, written: 3, units: 2 });
    expect(Array.from(out.subarray(0, 3))).toEqual([0x61, 0xc3, 0xa9]);
    expect(unescapeJsonString(encoder.encode('a\\q"'), 0, out, 0)).toBeNull();
    expect(unescapeJsonString(encoder.encode('no end'), 0, out, 0)).toBeNull();
  });
});
