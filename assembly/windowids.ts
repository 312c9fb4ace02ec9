// Ids for the words of the walk's two windows (src/align/window-words.ts; test/reference/window-ids.ts is its plain-TS
// reference): the tokenizer's columns of a query window and of a document window (UTF-16 spans, 64-bit hashes of the
// normalised forms) and the UTF-8 they were cut from. The query's words are numbered in the order their forms first
// appear, each document word gets its form's query id or −1. Two words are one form when their hashes agree and the
// characters of both are ASCII letters and digits, equal but for case (such a word's normalised form is its lower
// case: src/align/ascii-forms.ts); two words whose hashes agree but which that check cannot settle (a form outside
// ASCII met twice, a hash shared by two spellings the check tells apart) give up both windows: the host normalises them.
//
// Why in the core: the walk numbers its windows for each output a scan searches, a few hundred times a process, where
// JavaScript ran the loop over the tokens (a Map of the hashes, a string a form, a comparison a repeat) as baseline
// code, about 140 ns a token. Nothing allocates: the caller lays out the scratch (windowIdsScratch of
// src/align/window-words.ts) and the outputs in the arena.
//
// The UTF-8 is the tokenizer's input after its rewrite: an inert separator's continuation bytes are 0xFF (no UTF-16
// unit, like a continuation byte), ASCII bytes are as they were.

// Position of the walk over a window's UTF-8: the byte and the UTF-16 offset there.
let atByte: usize = 0;
let atUnit: u32 = 0;

/**
 * The byte of `p` (of `len` bytes) where UTF-16 offset `u` (≥ atUnit, a character's start) begins; moves the walk.
 * Eight ASCII bytes at a time while at least eight units are left to go (prose between two words is mostly ASCII).
 */
// @ts-ignore: decorator
@inline function byteAt(p: usize, len: usize, u: u32): usize {
  let b = atByte;
  let at = atUnit;
  while (b < len) {
    if (u - at >= 8 && b + 8 <= len && (load<u64>(p + b) & 0x8080808080808080) == 0) {
      b += 8;
      at += 8;
      continue;
    }
    const c = <u32>load<u8>(p + b);
    if ((c >= 0x80 && c < 0xC0) || c == 0xFF) {
      b++; // a continuation byte (or a rewritten one) of the character before
      continue;
    }
    if (at >= u) break;
    at += c >= 0xF0 ? 2 : 1;
    b++;
  }
  atByte = b;
  atUnit = at;
  return b;
}

// @ts-ignore: decorator
@inline const H8: u64 = 0x8080808080808080;
// @ts-ignore: decorator
@inline const L7: u64 = 0x7F7F7F7F7F7F7F7F;

/** The high bit of each byte of `x` set iff that byte is an ASCII letter or digit (SWAR, as tokenize.ts's tokBytes). */
// @ts-ignore: decorator
@inline function alnumBytes(x: u64): u64 {
  const a = x & L7;
  const f = a | 0x2020202020202020;
  const letter = (f + 0x1F1F1F1F1F1F1F1F) & ~(f + 0x0505050505050505); // 0x61 <= f <= 0x7a
  const digit = (a + 0x5050505050505050) & ~(a + 0x4646464646464646); // 0x30 <= a <= 0x39
  return (letter | digit) & ~x & H8;
}

/**
 * Whether the `n` bytes at `b` (of `len` at `p`) are ASCII letters and digits: eight at a time, without a branch for a
 * word of eight or fewer (a word's length is no branch the processor can guess). Reads up to 7 bytes past the word.
 */
// @ts-ignore: decorator
@inline function asciiWord(p: usize, len: usize, b: usize, n: usize): bool {
  if (n == 0 || b + n > len) return false;
  let at = p + b;
  const last = at + n - 8; // the last full eight bytes start at or after it
  while (at < last) {
    if (alnumBytes(load<u64>(at)) != H8) return false;
    at += 8;
  }
  const high = H8 >> ((at - last) << 3); // …of the 1–8 bytes left
  return (alnumBytes(load<u64>(at)) & high) == high;
}

/** Whether the `n` ASCII letters and digits at `a` and `b` are equal but for case (reads up to 7 bytes past them). */
// @ts-ignore: decorator
@inline function sameFolded(a: usize, b: usize, n: usize): bool {
  let k: usize = 0;
  for (; k + 8 < n; k += 8) if (((load<u64>(a + k) ^ load<u64>(b + k)) & 0xDFDFDFDFDFDFDFDF) != 0) return false;
  // letters and digits differ in more than the case bit (0x20) unless they are one letter in two cases
  const keep = <u64>-1 >> ((k + 8 - n) << 3);
  return ((load<u64>(a + k) ^ load<u64>(b + k)) & 0xDFDFDFDFDFDFDFDF & keep) == 0;
}

// The table of the query's forms in scratch: `size` slots of (hash u64, id i32: −1 empty), then for each id the
// address of its first word's UTF-8 and its length (0: not ASCII letters and digits).
let keysAt: usize = 0;
let slotIdsAt: usize = 0;
let formAt: usize = 0;
let formLenAt: usize = 0;
let maskOf: u32 = 0;
let made: i32 = 0;

/** The smallest power of two ≥ 2n (at least 16): a table of n keys at most half full. */
function tableSize(n: u32): u32 {
  let size: u32 = 16;
  while (size < 2 * n) size <<= 1;
  return size;
}

/**
 * One window's `n` words (spans at `starts`/`ends`, hashes at `hashes`; UTF-8 `len` bytes at `p`, `units` UTF-16
 * units): their starts and ends shifted by `base`, then their ids, `n` u32 / i32 each from `out`. `add`: a form not held
 * gets a new id (else −1). False when a word's form cannot be settled.
 */
function nameWords(
  p: usize, len: usize, units: u32, n: u32, starts: usize, ends: usize, hashes: usize, base: u32, add: bool, out: usize,
): bool {
  atByte = 0;
  atUnit = 0;
  const ascii = <usize>units == len; // every character one byte: offsets are byte positions
  for (let i: u32 = 0; i < n; i++) {
    const o = <usize>i << 2;
    const s = load<u32>(starts + o);
    const e = load<u32>(ends + o);
    const h = load<u64>(hashes + (o << 1));
    let slot = <u32>h & maskOf;
    let id: i32;
    while ((id = load<i32>(slotIdsAt + (<usize>slot << 2))) >= 0 && load<u64>(keysAt + (<usize>slot << 3)) != h) {
      slot = (slot + 1) & maskOf;
    }
    const b = ascii ? <usize>s : byteAt(p, len, s);
    const wLen = <usize>(e - s);
    const word = asciiWord(p, len, b, wLen);
    if (word && !ascii) {
      // its bytes are its units: the walk goes on from its end
      atByte = b + wLen;
      atUnit = e;
    }
    if (id < 0) {
      if (add) {
        id = made++;
        store<u64>(keysAt + (<usize>slot << 3), h);
        store<i32>(slotIdsAt + (<usize>slot << 2), id);
        store<u32>(formAt + (<usize>id << 2), <u32>(p + b));
        store<u32>(formLenAt + (<usize>id << 2), word ? <u32>wLen : 0);
      }
    } else {
      const fLen = <usize>load<u32>(formLenAt + (<usize>id << 2));
      if (fLen == 0 || fLen != wLen || !word) return false;
      if (!sameFolded(<usize>load<u32>(formAt + (<usize>id << 2)), p + b, wLen)) return false;
    }
    store<u32>(out + o, s + base);
    store<u32>(out + (<usize>n << 2) + o, e + base);
    store<i32>(out + (<usize>n << 3) + o, id);
  }
  return true;
}

/**
 * The words of a query window and of a document window with their ids, each window given as its UTF-8 (`qPtr`, `qLen`
 * bytes, `qUnits` UTF-16 units), its `nq` words' UTF-16 spans (`qStarts`, `qEnds`, u32) and their 64-bit form hashes
 * (`qHashes`); likewise `s…`. Writes at `outPtr` the query's starts and ends shifted by `qBase`, its ids, then the
 * document's starts and ends shifted by `sBase`, its ids: 3 × (nq + ns) u32 / i32. `scratch`: windowIdsScratch(nq)
 * bytes. Returns 1, or 0 when a form cannot be settled (the output then partly written).
 */
export function windowIds(
  qPtr: usize, qLen: usize, qUnits: u32, nq: u32, qStarts: usize, qEnds: usize, qHashes: usize, qBase: u32,
  sPtr: usize, sLen: usize, sUnits: u32, ns: u32, sStarts: usize, sEnds: usize, sHashes: usize, sBase: u32,
  scratch: usize, outPtr: usize,
): u32 {
  const size = tableSize(nq);
  maskOf = size - 1;
  keysAt = scratch;
  slotIdsAt = scratch + (<usize>size << 3);
  formAt = slotIdsAt + (<usize>size << 2);
  formLenAt = formAt + (<usize>nq << 2);
  memory.fill(slotIdsAt, 0xFF, <usize>size << 2);
  made = 0;
  if (!nameWords(qPtr, qLen, qUnits, nq, qStarts, qEnds, qHashes, qBase, true, outPtr)) return 0;
  const sOut = outPtr + <usize>nq * 12;
  return nameWords(sPtr, sLen, sUnits, ns, sStarts, sEnds, sHashes, sBase, false, sOut) ? 1 : 0;
}
