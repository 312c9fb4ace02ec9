import { describe, expect, it } from 'vitest';
import { itemCounter } from '../../src/http/body-items.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Feeds `text` to a counter of `max` items in pieces of `step` bytes: whether it refused. */
function refuses(ndjson: boolean, max: number, text: string, step = 7): boolean {
  const watch = itemCounter(ndjson, max, 'at most');
  const all = bytes(text);
  try {
    for (let i = 0; i < all.length; i += step) watch(all.subarray(i, i + step));
    return false;
  } catch (e) {
    expect(e).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    return true;
  }
}

describe('itemCounter: a job body refused at the first item past the plan while it is read', () => {
  it('counts the non-blank lines of JSON lines', () => {
    expect(refuses(true, 3, '{"a":1}\n\n  \r\n{"a":2}\n{"a":3}\n')).toBe(false);
    expect(refuses(true, 3, '{"a":1}\n{"a":2}\n{"a":3}\n{"a":4}')).toBe(true);
    expect(refuses(true, 3, '{"a":1}\r\n{"a":2}\r\n{"a":3}\r\n   \r\n')).toBe(false);
  });

  it('stops a million lines at the first one too many, whatever the chunks', () => {
    const watch = itemCounter(true, 100, 'at most 100');
    const line = bytes('{"text":"a line of a catalogue"}\n');
    let fed = 0;
    expect(() => {
      for (let i = 0; i < 1_000_000; i++) {
        watch(line);
        fed++;
      }
    }).toThrow(/at most 100; this one has more/);
    expect(fed).toBe(100);
  });

  it('counts the elements of the top-level items array only', () => {
    const items = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ text: `a, b] [c ${i}`, n: [i, i] })));
    expect(refuses(false, 5, `{"type":"scan","items":${items(5)}}`)).toBe(false);
    expect(refuses(false, 5, `{"type":"scan","items":${items(6)}}`)).toBe(true);
    // elements of other arrays, nested arrays and strings holding brackets and commas are not items
    expect(refuses(false, 2, `{"other":[1,2,3,4],"items":[[1,2,3],{"x":"],,,["}],"tail":"items"}`)).toBe(false);
    // an escaped key is still the key, an empty array holds nothing
    expect(refuses(false, 1, '{"\\u0069tems":[1,2]}')).toBe(true);
    expect(refuses(false, 0, '{"items":[ ]}')).toBe(false);
    // a top-level array is no job body: the parse refuses it, the count does not
    expect(refuses(false, 1, '["items",[1,2,3]]')).toBe(false);
  });

  it('splits anywhere: byte by byte gives the same count', () => {
    const body = `{"items":[${Array.from({ length: 9 }, (_, i) => `{"id":"${i}","text":"x\\"y,\\\\"}`).join(',')}]}`;
    expect(refuses(false, 9, body, 1)).toBe(false);
    expect(refuses(false, 8, body, 1)).toBe(true);
  });
});
