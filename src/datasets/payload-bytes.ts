/**
 * An exact snapshot's payload map read from its bytes, before msgpack decodes any of it (./snapshot.ts's lazy decode):
 * where each entry's value lies, the kept texts' strs found without decoding them, and the documents' list read
 * straight from the bytes where it has the writers' plain shape.
 *
 * Why: a scan imports an archive once and reads a few of its texts. Decoding the payload whole decoded every text;
 * copying the map without them (its header rewritten) to decode it copied every column of the file; and msgpack's
 * decoder, run once and cold, spends most of an import's decode on the documents' thousands of small maps. Anything
 * this reader does not know for certain how msgpack would decode is left to msgpack: the values are the same.
 */

/** One entry of the payload map other than `texts`: its key, and its value's bytes or the value read already. */
export interface PayloadEntry {
  /** The key's msgpack str (its bytes: msgpack decodes it with the value). */
  readonly keyFrom: number;
  readonly from: number;
  readonly to: number;
  /** The value, when read here (`docs` of the plain shape); else msgpack decodes `[from, to)`. */
  readonly value?: unknown;
}

/** A payload map whose last entry is `texts`, taken apart. */
export interface SplitPayload {
  /** The map's other entries, in order. */
  readonly entries: readonly PayloadEntry[];
  /** The texts' msgpack strs, one after another. */
  readonly bytes: Uint8Array;
  /**
   * Per document: where its text's msgpack str starts and ends in `bytes`, or −1 for nil (not kept). Float64, not
   * Int32: the texts of one snapshot may take up to 4 GiB, past an Int32's 2 GiB.
   */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
}

/**
 * A payload map whose last entry is `texts` (as the writers put it), taken apart without decoding the texts:
 * `entries` the map's other entries, `bytes` the texts' strs (a view of `payload` when the caller `adopt`s it, else a
 * copy) and `starts`/`ends` each text's place in it (−1: nil). Null for any other layout (no `texts`, not last, a key
 * that is not a str or is `__proto__`, an entry that is neither a str nor nil, bytes after the array): then the
 * payload is decoded whole and checked as before.
 * @example const split = splitTexts(payload, false); split?.entries.length // 7
 */
export function splitTexts(payload: Uint8Array, adopt: boolean): SplitPayload | null {
  const map = containerAt(payload, 0, 0x80, 0xde);
  if (map === null) return null;
  const entries: PayloadEntry[] = [];
  let at = map.body;
  for (let e = 0; e < map.count; e++) {
    const key = strAt(payload, at);
    if (key === null || isKey(payload, key, PROTO_KEY)) return null;
    if (isKey(payload, key, TEXTS_KEY)) {
      if (e !== map.count - 1) return null;
      const texts = textsAt(payload, key.end, adopt);
      return texts && { entries, ...texts };
    }
    const docs = isKey(payload, key, DOCS_KEY) ? docsAt(payload, key.end) : null;
    const end = docs === null ? skipValue(payload, key.end, 0) : docs.end;
    if (end < 0) return null;
    entries.push(
      docs === null
        ? { keyFrom: at, from: key.end, to: end }
        : { keyFrom: at, from: key.end, to: end, value: docs.docs },
    );
    at = end;
  }
  return null;
}

const TEXTS_KEY = [0x74, 0x65, 0x78, 0x74, 0x73]; // "texts"
const DOCS_KEY = [0x64, 0x6f, 0x63, 0x73]; // "docs"
// msgpack's decoder refuses this key: left to it, so that such a payload is refused with its message
const PROTO_KEY = [0x5f, 0x5f, 0x70, 0x72, 0x6f, 0x74, 0x6f, 0x5f, 0x5f]; // "__proto__"

function isKey(b: Uint8Array, key: { start: number; end: number }, name: readonly number[]): boolean {
  return key.end - key.start === name.length && name.every((c, i) => b[key.start + i] === c);
}

/**
 * The documents' array at `at` read straight from the bytes, as msgpack decodes it (plain objects, the keys in the
 * file's order, a repeated key's last value), when every document is a fixmap whose keys are fixstrs among `id`,
 * `chars`, `tokens`, `bytes`, its id a str of well-formed UTF-8 and its counts unsigned integers of at most 32
 * bits; null for anything else (a `meta`, another field or type), which msgpack decodes.
 * @example docsAt(encode([{ id: 'a', chars: 3 }]), 0) // { docs: [{ id: 'a', chars: 3 }], end: 12 }
 */
export function docsAt(b: Uint8Array, at: number): { docs: Array<Record<string, unknown>>; end: number } | null {
  const arr = containerAt(b, at, 0x90, 0xdc);
  if (arr === null || arr.count > b.length) return null;
  const docs: Array<Record<string, unknown>> = new Array(arr.count);
  let p = arr.body;
  for (let d = 0; d < arr.count; d++) {
    if (p >= b.length || (b[p] & 0xf0) !== 0x80) return null;
    const fields = b[p++] & 0x0f;
    const doc: Record<string, unknown> = {};
    for (let f = 0; f < fields; f++) {
      const name = docField(b, p);
      if (name === null) return null;
      p += 1 + name.length;
      const value = name === 'id' ? utf8StrAt(b, p) : uintAt(b, p);
      if (value === null) return null;
      doc[name] = value.value;
      p = value.end;
    }
    docs[d] = doc;
  }
  return { docs, end: p };
}

/**
 * The document field whose fixstr name is at `at` (`id`, `chars`, `tokens` or `bytes`), or null: byte by byte, as this
 * runs cold for each field of thousands of documents, where a loop over the names and their bytes cost as much as
 * msgpack's decode.
 */
function docField(b: Uint8Array, at: number): string | null {
  if (at + 7 > b.length) return null; // the longest, "tokens", and the byte after it (a value)
  const c = b[at + 1];
  switch (b[at]) {
    case 0xa2:
      return c === 0x69 && b[at + 2] === 0x64 ? 'id' : null;
    case 0xa5:
      if (c === 0x63)
        return b[at + 2] === 0x68 && b[at + 3] === 0x61 && b[at + 4] === 0x72 && b[at + 5] === 0x73 ? 'chars' : null;
      return c === 0x62 && b[at + 2] === 0x79 && b[at + 3] === 0x74 && b[at + 4] === 0x65 && b[at + 5] === 0x73
        ? 'bytes'
        : null;
    case 0xa6:
      return c === 0x74 &&
        b[at + 2] === 0x6f &&
        b[at + 3] === 0x6b &&
        b[at + 4] === 0x65 &&
        b[at + 5] === 0x6e &&
        b[at + 6] === 0x73
        ? 'tokens'
        : null;
    default:
      return null;
  }
}

/**
 * Well-formed UTF-8, decoded as msgpack's decoder decodes it (a BOM kept); anything else throws, and is then left to
 * msgpack, whose decoder does not refuse it.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The str at `at` as a string when its bytes are well-formed UTF-8, or null. */
function utf8StrAt(b: Uint8Array, at: number): { value: string; end: number } | null {
  const str = strAt(b, at);
  if (str === null) return null;
  try {
    return { value: UTF8.decode(b.subarray(str.start, str.end)), end: str.end };
  } catch {
    return null;
  }
}

/** The unsigned integer (positive fixint, uint8/16/32) at `at`, or null for any other type. */
function uintAt(b: Uint8Array, at: number): { value: number; end: number } | null {
  const t = b[at];
  if (t === undefined) return null;
  if (t <= 0x7f) return { value: t, end: at + 1 };
  if (t === 0xcc && at + 2 <= b.length) return { value: b[at + 1], end: at + 2 };
  if (t === 0xcd && at + 3 <= b.length) return { value: (b[at + 1] << 8) | b[at + 2], end: at + 3 };
  if (t === 0xce && at + 5 <= b.length) return { value: readU32(b, at + 1), end: at + 5 };
  return null;
}

function textsAt(payload: Uint8Array, valueAt: number, adopt: boolean) {
  const arr = containerAt(payload, valueAt, 0x90, 0xdc);
  if (arr === null || arr.count > payload.length) return null;
  const starts = new Float64Array(arr.count),
    ends = new Float64Array(arr.count);
  let at = arr.body;
  for (let d = 0; d < arr.count; d++) {
    if (payload[at] === 0xc0) {
      starts[d] = ends[d] = -1;
      at++;
      continue;
    }
    const s = strAt(payload, at);
    if (s === null) return null;
    starts[d] = at - arr.body;
    ends[d] = s.end - arr.body;
    at = s.end;
  }
  if (at !== payload.length) return null;
  return { bytes: adopt ? payload.subarray(arr.body, at) : payload.slice(arr.body, at), starts, ends };
}

/** A msgpack map (`fix` 0x80, `wide` 0xde) or array (0x90, 0xdc) header at `at`: its entry count and first entry. */
function containerAt(b: Uint8Array, at: number, fix: number, wide: number): { count: number; body: number } | null {
  const t = b[at];
  if (t >= fix && t <= fix + 0x0f) return { count: t & 0x0f, body: at + 1 };
  if (t === wide && at + 3 <= b.length) return { count: (b[at + 1] << 8) | b[at + 2], body: at + 3 };
  if (t === wide + 1 && at + 5 <= b.length) return { count: readU32(b, at + 1), body: at + 5 };
  return null;
}

/** The bytes of the msgpack str at `at` (fixstr, str8/16/32), or null when there is none that ends in `b`. */
function strAt(b: Uint8Array, at: number): { start: number; end: number } | null {
  const t = b[at];
  let start: number, len: number;
  if (t >= 0xa0 && t <= 0xbf) (start = at + 1), (len = t & 0x1f);
  else if (t === 0xd9 && at + 2 <= b.length) (start = at + 2), (len = b[at + 1]);
  else if (t === 0xda && at + 3 <= b.length) (start = at + 3), (len = (b[at + 1] << 8) | b[at + 2]);
  else if (t === 0xdb && at + 5 <= b.length) (start = at + 5), (len = readU32(b, at + 1));
  else return null;
  return start + len <= b.length ? { start, end: start + len } : null;
}

const readU32 = (b: Uint8Array, at: number): number =>
  ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

/** Bytes after msgpack type byte `t` of nil, booleans, numbers and fixext (−1 for any other type). */
function fixedAfter(t: number): number {
  switch (t) {
    case 0xc0:
    case 0xc2:
    case 0xc3:
      return 0;
    case 0xcc:
    case 0xd0:
      return 1;
    case 0xcd:
    case 0xd1:
    case 0xd4:
      return 2;
    case 0xd5:
      return 3;
    case 0xca:
    case 0xce:
    case 0xd2:
      return 4;
    case 0xd6:
      return 5;
    case 0xcb:
    case 0xcf:
    case 0xd3:
      return 8;
    case 0xd7:
      return 9;
    case 0xd8:
      return 17;
    default:
      return -1;
  }
}

/** The offset just past the msgpack value at `at`, or −1 when it is not one that ends inside `b`. */
function skipValue(b: Uint8Array, at: number, depth: number): number {
  if (at >= b.length || depth > 100) return -1;
  const t = b[at];
  if (t <= 0x7f || t >= 0xe0) return at + 1;
  const fixed = fixedAfter(t);
  if (fixed >= 0) return at + 1 + fixed <= b.length ? at + 1 + fixed : -1;
  const str = strAt(b, at);
  if (str !== null) return str.end;
  let end = -1;
  if (t === 0xc4 && at + 2 <= b.length) end = at + 2 + b[at + 1];
  else if (t === 0xc5 && at + 3 <= b.length) end = at + 3 + ((b[at + 1] << 8) | b[at + 2]);
  else if (t === 0xc6 && at + 5 <= b.length) end = at + 5 + readU32(b, at + 1);
  else if (t === 0xc7 && at + 3 <= b.length) end = at + 3 + b[at + 1];
  else if (t === 0xc8 && at + 4 <= b.length) end = at + 4 + ((b[at + 1] << 8) | b[at + 2]);
  else if (t === 0xc9 && at + 6 <= b.length) end = at + 6 + readU32(b, at + 1);
  if (end >= 0) return end <= b.length ? end : -1;
  const map = containerAt(b, at, 0x80, 0xde);
  const arr = map ? null : containerAt(b, at, 0x90, 0xdc);
  const c = map ?? arr;
  if (c === null) return -1;
  let p = c.body;
  for (let k = 0, n = map ? 2 * c.count : c.count; k < n && p >= 0; k++) p = skipValue(b, p, depth + 1);
  return p;
}
