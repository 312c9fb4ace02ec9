/**
 * A PDF's compressed streams, inflated and counted before pdf.js sees the file: pdf.js holds each stream it decodes
 * whole in memory, on the calling thread, with no bound of its own, so a 2.6 MB file whose content stream inflates to
 * 1 GB (or a font to 512 MB) took a server's memory and thread for minutes. Here every stream is decoded in slices
 * through its filters — FlateDecode (a filter given indirectly, or none, is recognised by the zlib header), LZWDecode,
 * ASCII85Decode, ASCIIHexDecode, RunLengthDecode, chained in any order — and its output counted and dropped, spent
 * from the document's budget of inflated bytes; a pause every few milliseconds lets the host's other work run. A file
 * whose streams would inflate past the budget is refused before pdf.js starts.
 *
 * Image codecs (DCTDecode, JPXDecode, JBIG2Decode, CCITTFaxDecode) end a stream's count: text extraction never
 * decodes an image. For the same reason an image XObject (`/Subtype /Image`, its length written in its own
 * dictionary) is not counted at all — a scan's pages may inflate to gigabytes — and its data is blanked in the copy
 * pdf.js reads, so that a content stream dressed as an image inflates nothing. BrotliDecode is refused: its ratio is
 * unbounded and no reader of it is at hand here.
 */

import { type ExtractionBudget, pause, SLICE_MS } from './budget.js';
import { TrainprintError } from '../errors.js';
import { StreamInflater } from '../util/inflate.js';
import { invalid, tooLarge } from './limits.js';

/** Input bytes given to a filter at a time: ≤ 1 MiB comes out of a slice (deflate's ratio is at most 1,032:1). */
const SLICE_BYTES = 1024;
/**
 * The most bytes of PDF syntax one object may take outside any stream's data: pdf.js parses an object in one go, on
 * the calling thread, so a 6 MB array (a page referenced a million times) held it for a second. The largest objects
 * of real files — a page tree's /Kids, a names array — take kilobytes.
 */
export const MAX_OBJECT_BYTES = 1024 * 1024;
/** Filters in one stream's chain, at most (pdf.js decodes any number; real files use one or two). */
const MAX_CHAIN = 8;

type Kind = 'flate' | 'lzw' | 'a85' | 'hex' | 'rl';

const FILTERS: Readonly<Record<string, Kind | 'image' | 'brotli'>> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  ASCII85Decode: 'a85',
  A85: 'a85',
  ASCIIHexDecode: 'hex',
  AHx: 'hex',
  RunLengthDecode: 'rl',
  RL: 'rl',
  DCTDecode: 'image',
  DCT: 'image',
  JPXDecode: 'image',
  JBIG2Decode: 'image',
  CCITTFaxDecode: 'image',
  CCF: 'image',
  BrotliDecode: 'brotli',
};

/** A filter decoding in slices: `push` hands its output to `emit`; `ended` once its data's end marker was seen. */
interface Stage {
  push(input: Uint8Array, emit: (out: Uint8Array) => void): void;
  readonly ended: boolean;
}

/**
 * Inflates every compressed stream of the PDF `bytes` in slices, counting the output against the budget
 * (PAYLOAD_TOO_LARGE past `maxUncompressedBytes`, or past the time limit), pausing every few milliseconds; the spans
 * of the images' data, not counted, to blank in the copy pdf.js reads.
 * @example for (const [start, end] of await spendStreams(bytes, budget)) copy.fill(0, start, end)
 */
export async function spendStreams(
  bytes: Uint8Array,
  budget: ExtractionBudget,
): Promise<Array<readonly [number, number]>> {
  refuseLargeObjects(bytes);
  const images: Array<readonly [number, number]> = [];
  const clock = { sliceStart: Date.now() };
  for (let at = indexOf(bytes, STREAM, 0); at >= 0; at = indexOf(bytes, STREAM, at + STREAM.length)) {
    if (at >= 3 && bytes[at - 3] === 0x65 && bytes[at - 2] === 0x6e && bytes[at - 1] === 0x64) continue; // endstream
    const start = dataStart(bytes, at + STREAM.length);
    if (start < 0) continue;
    const dict = dictionaryBefore(bytes, at);
    const image = imageData(bytes, dict, start);
    if (image !== undefined) {
      images.push(image);
      at = image[1];
      continue;
    }
    const chain = filterChain(dict);
    if (chain === 'brotli') throw invalid('pdf', 'a stream uses BrotliDecode, which is not read');
    const end = streamEnd(bytes, dict, start);
    await spendStream(bytes, start, end, chain, budget, clock);
  }
  return images;
}

/**
 * The span of an image XObject's data, where the stream's own dictionary says exactly where it lies: `/Subtype
 * /Image` and a `/Length` written as a number among its top-level entries (the last one, as pdf.js reads a repeated
 * key), with `endstream` right after it — pdf.js then reads the same bytes. `undefined` for any other stream.
 */
function imageData(bytes: Uint8Array, dict: string, start: number): readonly [number, number] | undefined {
  const top = topLevel(dict);
  if (top === undefined || !/\/Subtype\s*\/Image(?![^\s/[\]<>()%])/.test(top)) return undefined;
  const lengths = [...top.matchAll(/\/Length(?![^\s/[\]<>()%])\s*(\d+)(\s+\d+\s+R)?/g)];
  const last = lengths[lengths.length - 1];
  if (last === undefined || last[2] !== undefined) return undefined;
  const end = start + Number(last[1]);
  const next = indexOf(bytes, ENDSTREAM, end);
  return end <= bytes.length && next >= 0 && next - end < 16 ? [start, end] : undefined;
}

/**
 * The top-level entries of the dictionary `<<…>>` in `text`: nested dictionaries, literal strings and hex strings
 * left out (an entry inside them is not the stream's); `undefined` when it does not close.
 */
function topLevel(text: string): string | undefined {
  const open = text.indexOf('<<');
  if (open < 0) return undefined;
  let depth = 0;
  let out = '';
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '(') {
      let nest = 0;
      for (; i < text.length; i++) {
        const d = text[i];
        if (d === '\\') i++;
        else if (d === '(') nest++;
        else if (d === ')' && --nest === 0) break;
      }
      if (depth === 1) out += ' ';
    } else if (c === '<' && text[i + 1] === '<') {
      depth++;
      i++;
      if (depth === 2) out += ' ';
    } else if (c === '>' && text[i + 1] === '>') {
      depth--;
      i++;
      if (depth === 0) return out;
    } else if (c === '<') {
      const close = text.indexOf('>', i);
      if (close < 0) return undefined;
      i = close;
      if (depth === 1) out += ' ';
    } else if (depth === 1) out += c;
  }
  return undefined;
}

const STREAM = Uint8Array.from('stream', (c) => c.charCodeAt(0));
const LANDMARKS = ['obj', 'stream', 'xref', 'trailer'].map((k) => Uint8Array.from(k, (c) => c.charCodeAt(0)));

/**
 * PAYLOAD_TOO_LARGE when the syntax between two keywords (`obj`, `endobj`, `stream`, `endstream`, `xref`, `trailer`)
 * runs over {@link MAX_OBJECT_BYTES} outside a stream's data and a cross-reference table: one object that large.
 */
function refuseLargeObjects(bytes: Uint8Array): void {
  const marks: number[] = [];
  for (const [k, keyword] of LANDMARKS.entries()) {
    for (let at = indexOf(bytes, keyword, 0); at >= 0; at = indexOf(bytes, keyword, at + keyword.length)) {
      marks.push(at * 4 + k);
    }
  }
  marks.sort((a, b) => a - b);
  for (let i = 0; i < marks.length; i++) {
    const at = Math.floor(marks[i] / 4);
    const keyword = marks[i] % 4;
    const next = i + 1 < marks.length ? Math.floor(marks[i + 1] / 4) : bytes.length;
    const ended = at >= 3 && bytes[at - 3] === 0x65 && bytes[at - 2] === 0x6e && bytes[at - 1] === 0x64; // end…
    const exempt = (keyword === 1 && !ended) || keyword === 2; // a stream's data, a cross-reference table
    if (!exempt && next - at > MAX_OBJECT_BYTES) {
      throw tooLarge('pdf', `an object takes more than ${MAX_OBJECT_BYTES} bytes of its syntax, the limit`);
    }
  }
}
const ENDSTREAM = Uint8Array.from('endstream', (c) => c.charCodeAt(0));

/** The first index of `pattern` in `bytes` at or after `from`, −1 when none. */
function indexOf(bytes: Uint8Array, pattern: Uint8Array, from: number): number {
  const first = pattern[0];
  const last = bytes.length - pattern.length;
  outer: for (let i = bytes.indexOf(first, from); i >= 0 && i <= last; i = bytes.indexOf(first, i + 1)) {
    for (let k = 1; k < pattern.length; k++) if (bytes[i + k] !== pattern[k]) continue outer;
    return i;
  }
  return -1;
}

/** Where a stream's data starts: after the end of the line its `stream` keyword ends (−1 when no line ends soon). */
function dataStart(bytes: Uint8Array, from: number): number {
  for (let i = from; i < Math.min(bytes.length, from + 64); i++) {
    if (bytes[i] === 0x0a) return i + 1;
    if (bytes[i] === 0x0d) return bytes[i + 1] === 0x0a ? i + 2 : i + 1;
  }
  return -1;
}

/** The text of the stream's dictionary: from its object's `obj` keyword (within 4 KiB) to the `stream` keyword. */
function dictionaryBefore(bytes: Uint8Array, at: number): string {
  const from = Math.max(0, at - 4096);
  const text = latin1(bytes.subarray(from, at));
  const obj = text.lastIndexOf('obj');
  return obj >= 0 ? text.slice(obj + 3) : text;
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 8192)));
  }
  return s;
}

/**
 * The stream's filters in order when its dictionary names them directly; `undefined` when it names them through a
 * reference, or none (then a zlib header is what marks compressed data).
 */
function filterChain(dict: string): Array<Kind | 'image'> | 'brotli' | undefined {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/.exec(dict);
  if (m === null) return undefined;
  const names = [...m[1].matchAll(/\/([^\s/[\]<>()]+)/g)].map((n) => n[1]);
  if (names.length === 0) return undefined;
  const chain: Array<Kind | 'image'> = [];
  for (const name of names.slice(0, MAX_CHAIN)) {
    const kind = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
    if (kind === 'brotli') return 'brotli';
    if (kind === undefined) break; // a filter pdf.js does not know: it passes the data on undecoded
    chain.push(kind);
  }
  return chain;
}

/**
 * Where the stream's data ends, as far as a bounded filter is concerned: at its `/Length` where that is a number with
 * `endstream` after it, else at the next `endstream` (as pdf.js finds it), else at the end of the file. Deflate data
 * carries its own end, so FlateDecode reads on to it whatever this says.
 */
function streamEnd(bytes: Uint8Array, dict: string, start: number): number {
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
  if (length !== null) {
    const end = start + Number(length[1]);
    const next = indexOf(bytes, ENDSTREAM, end);
    if (end <= bytes.length && next >= 0 && next - end < 16) return end;
  }
  const next = indexOf(bytes, ENDSTREAM, start);
  return next < 0 ? bytes.length : next;
}

/** Whether `b0 b1` is a zlib header of deflate data (as pdf.js checks it). */
function isZlib(b0: number | undefined, b1: number | undefined): boolean {
  if (b0 === undefined || b1 === undefined) return false;
  return (b0 & 0x0f) === 8 && ((b0 << 8) + b1) % 31 === 0 && (b1 & 0x20) === 0;
}

/** One stream through its chain, depth first: each filter's output goes on to the next before more is read. */
async function spendStream(
  bytes: Uint8Array,
  start: number,
  end: number,
  chain: Array<Kind | 'image'> | undefined,
  budget: ExtractionBudget,
  clock: { sliceStart: number },
): Promise<void> {
  const kindAt = (depth: number, head: Uint8Array): Kind | null => {
    if (depth >= MAX_CHAIN) return null;
    if (chain === undefined) return isZlib(head[0], head[1]) ? 'flate' : null; // sniffed: zlib in zlib
    const kind = chain[depth];
    return kind === undefined || kind === 'image' ? null : kind;
  };
  // each depth's filter, decided once from the first bytes that reach it (null: the chain ends there)
  const kinds: Array<Kind | null> = [kindAt(0, bytes.subarray(start, start + 2))];
  if (kinds[0] === null) return;
  // deflate reads to its own end; the other filters to the stream's
  const input = bytes.subarray(start, kinds[0] === 'flate' ? bytes.length : end);
  const stages: Stage[] = [];
  const dead: boolean[] = [];
  const stack: Array<{ depth: number; input: Uint8Array; at: number }> = [{ depth: 0, input, at: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const stage = (stages[top.depth] ??= makeStage(kinds[top.depth] as Kind));
    if (top.at >= top.input.length || stage.ended || dead[top.depth]) {
      stack.pop();
      continue;
    }
    const slice = top.input.subarray(top.at, top.at + SLICE_BYTES);
    top.at += slice.length;
    const next = top.depth + 1;
    // the output is counted and dropped; only where another filter follows is it kept for it, chunk by chunk (a
    // chunk of the inflater's is a view of its one buffer, valid until it writes on: copied)
    const outs: Uint8Array[] = [];
    try {
      stage.push(slice, (out) => {
        budget.inflate(out.length);
        if (kinds.length === next) kinds.push(kindAt(next, out));
        if (kinds[next]) outs.push(out.slice());
      });
    } catch (e) {
      if (e instanceof TrainprintError) throw e;
      dead[top.depth] = true; // corrupt data: pdf.js stops decoding it there too
    }
    for (let i = outs.length - 1; i >= 0; i--) stack.push({ depth: next, input: outs[i], at: 0 });
    if (Date.now() - clock.sliceStart > SLICE_MS) {
      budget.check();
      await pause();
      budget.check();
      clock.sliceStart = Date.now();
    }
  }
}

function makeStage(kind: Kind): Stage {
  switch (kind) {
    case 'flate':
      return flateStage();
    case 'lzw':
      return new LzwStage();
    case 'a85':
      return new Ascii85Stage();
    case 'hex':
      return new HexStage();
    default:
      return new RunLengthStage();
  }
}

/**
 * zlib data (its 2-byte header skipped) through the streaming inflater: its output in chunks of ≤ 32 KiB, views of
 * one buffer per stream, so that counting a gigabyte allocates nothing per chunk (src/util/inflate.ts).
 */
function flateStage(): Stage {
  const inflater = new StreamInflater();
  let header = 2;
  return {
    push(input, emit) {
      const skip = Math.min(header, input.length);
      header -= skip;
      // never final: a stream cut short stops counting where its data stops, as pdf.js stops decoding it
      if (skip < input.length) inflater.push(input.subarray(skip), false, emit);
    },
    get ended() {
      return inflater.ended;
    },
  };
}

/** A buffer of output bytes handed on in chunks of 64 KiB. */
class Output {
  buf = new Uint8Array(65536);
  n = 0;
  constructor(private readonly emit: (out: Uint8Array) => void) {}
  byte(b: number): void {
    if (this.n === this.buf.length) this.flush();
    this.buf[this.n++] = b;
  }
  flush(): void {
    if (this.n === 0) return;
    this.emit(this.buf.slice(0, this.n));
    this.n = 0;
  }
}

/** LZWDecode (early change 1, as PDF's default): codes of 9 to 12 bits, 256 clears the table, 257 ends. */
class LzwStage implements Stage {
  ended = false;
  private readonly prefix = new Int32Array(4096);
  private readonly suffix = new Uint8Array(4096);
  private readonly length = new Uint16Array(4096);
  private readonly scratch = new Uint8Array(4096);
  private next = 258;
  private width = 9;
  private prev = -1;
  private bits = 0;
  private count = 0;

  constructor() {
    for (let i = 0; i < 256; i++) (this.suffix[i] = i), (this.length[i] = 1), (this.prefix[i] = -1);
  }

  push(input: Uint8Array, emit: (out: Uint8Array) => void): void {
    const out = new Output(emit);
    for (let i = 0; i < input.length && !this.ended; i++) {
      this.bits = ((this.bits << 8) | input[i]) & 0xffffff;
      this.count += 8;
      while (this.count >= this.width && !this.ended) {
        this.count -= this.width;
        const code = (this.bits >>> this.count) & ((1 << this.width) - 1);
        this.code(code, out);
      }
    }
    out.flush();
  }

  private code(code: number, out: Output): void {
    if (code === 256) {
      this.next = 258;
      this.width = 9;
      this.prev = -1;
      return;
    }
    if (code === 257) {
      this.ended = true;
      return;
    }
    let entry = code;
    if (code >= this.next || (code > 257 && this.length[code] === 0)) {
      if (this.prev < 0 || code !== this.next) {
        this.ended = true; // a code the table does not hold: corrupt, pdf.js stops here too
        return;
      }
      entry = this.prev; // the KwKwK case: the previous string and its own first byte
    }
    const n = this.length[entry];
    let c = entry;
    for (let k = n - 1; k >= 0; k--) (this.scratch[k] = this.suffix[c]), (c = this.prefix[c]);
    for (let k = 0; k < n; k++) out.byte(this.scratch[k]);
    const firstByte = this.scratch[0];
    if (entry !== code) out.byte(firstByte);
    if (this.prev >= 0 && this.next < 4096) {
      this.prefix[this.next] = this.prev;
      this.suffix[this.next] = firstByte;
      this.length[this.next] = this.length[this.prev] + 1;
      this.next++;
    }
    this.prev = code;
    if (this.next + 1 >= 1 << this.width && this.width < 12) this.width++;
  }
}

/** ASCII85Decode: groups of five characters → four bytes, `z` four zeros, `~>` the end; whitespace ignored. */
class Ascii85Stage implements Stage {
  ended = false;
  private group = 0;
  private count = 0;

  push(input: Uint8Array, emit: (out: Uint8Array) => void): void {
    const out = new Output(emit);
    for (let i = 0; i < input.length && !this.ended; i++) {
      const c = input[i];
      if (c === 0x7e /* ~ */) {
        this.ended = true;
        break;
      }
      if (c === 0x7a /* z */ && this.count === 0) {
        for (let k = 0; k < 4; k++) out.byte(0);
      } else if (c >= 0x21 && c <= 0x75) {
        this.group = this.group * 85 + (c - 0x21);
        if (++this.count === 5) {
          for (let k = 3; k >= 0; k--) out.byte((this.group >>> (8 * k)) & 0xff);
          this.group = 0;
          this.count = 0;
        }
      }
    }
    out.flush();
  }
}

/** ASCIIHexDecode: two hex digits → one byte, `>` the end; anything else ignored. */
class HexStage implements Stage {
  ended = false;
  private high = -1;

  push(input: Uint8Array, emit: (out: Uint8Array) => void): void {
    const out = new Output(emit);
    for (let i = 0; i < input.length && !this.ended; i++) {
      const c = input[i];
      if (c === 0x3e /* > */) {
        this.ended = true;
        break;
      }
      const digit =
        c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;
      if (digit < 0) continue;
      if (this.high < 0) this.high = digit;
      else {
        out.byte((this.high << 4) | digit);
        this.high = -1;
      }
    }
    out.flush();
  }
}

/** RunLengthDecode: a length byte n < 128 copies n + 1 bytes, n > 128 repeats the next byte 257 − n times, 128 ends. */
class RunLengthStage implements Stage {
  ended = false;
  private copy = 0;
  private repeat = 0;

  push(input: Uint8Array, emit: (out: Uint8Array) => void): void {
    const out = new Output(emit);
    for (let i = 0; i < input.length && !this.ended; i++) {
      const c = input[i];
      if (this.copy > 0) {
        out.byte(c);
        this.copy--;
      } else if (this.repeat > 0) {
        for (let k = 0; k < this.repeat; k++) out.byte(c);
        this.repeat = 0;
      } else if (c < 128) this.copy = c + 1;
      else if (c > 128) this.repeat = 257 - c;
      else this.ended = true;
    }
    out.flush();
  }
}
