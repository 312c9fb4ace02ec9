/**
 * The local infini-gram / infini-gram mini reference server (test/fixtures/infini-gram/): its
 * suffix arrays, tokenizers, engines and HTTP contract, against naive references and the
 * behaviour of the public servers' source (api/api_server.py of liujch1998/infini-gram and
 * xuhaoxh/infini-gram-mini). The server listens on 127.0.0.1 only.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCharIndex,
  buildSuffixArray,
  buildTokenIndex,
  cleanTexts,
  createTokenizer,
  discreteIndex,
  findRange,
  fixtureCorpus,
  Mt19937,
  mulberry32,
  plantedCases,
  pyJsonDumps,
  startInfiniGramServer,
  TokenEngine,
  uniformInt,
  type CharIndex,
  type Fault,
  type FaultCall,
  type InfiniGramServer,
  type TokenIndex,
} from '../fixtures/infini-gram/index.mjs';

// ---------------------------------------------------------------------------------------------
// Helpers

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function post(
  url: string,
  body: unknown,
  init: { contentType?: string; raw?: string; signal?: AbortSignal } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': init.contentType ?? 'application/json' },
    body: init.raw ?? JSON.stringify(body),
    signal: init.signal,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Occurrences of `needle` in `hay` (overlapping), by scanning. */
function naiveCount(hay: ArrayLike<number>, needle: readonly number[]): number {
  let n = 0;
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let ok = true;
    for (let k = 0; k < needle.length && ok; k++) ok = hay[i + k] === needle[k];
    if (ok) n++;
  }
  return n;
}

function positions(hay: ArrayLike<number>, needle: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let ok = true;
    for (let k = 0; k < needle.length && ok; k++) ok = hay[i + k] === needle[k];
    if (ok) out.push(i);
  }
  return out;
}

const SMALL_DOCS = [
  {
    text: 'the cat sat on the mat. the cat ate the rat.',
    metadata: { path: 'small/a.jsonl', linenum: 0, metadata: { pile_set_name: 'Pile-CC' } },
  },
  { text: 'a dog and a cat. the dog sat on the log. the log was wet.' },
  {
    text: 'Café “quoted” text 😀 日本語\nthe cat naps in the sun, and the dog naps too.',
    metadata: { path: 'small/b.jsonl', linenum: 1, metadata: { note: 'naïve' } },
  },
  { text: 'the rat ran. the cat ran after the rat, and the dog ran after the cat. the end of the cat and the rat.' },
];
const MINI_DOCS = [
  { text: 'ab😀cd and the cat. naïve café', metadata: { path: 'mini/a.jsonl', linenum: 0, metadata: {} } },
  { text: 'the cat sat. The Cat sat. the cat' },
  { text: 'é' },
];

let llama: TokenIndex;
let gpt2: TokenIndex;
let mini: CharIndex;
let server: InfiniGramServer;
let miniServer: InfiniGramServer;
const L = 'v4_small_llama';
const G = 'v4_small_gpt2';
const M = 'v2_small';

beforeAll(async () => {
  llama = buildTokenIndex({ documents: SMALL_DOCS, tokenizer: 'llama', shards: 2 });
  gpt2 = buildTokenIndex({ documents: SMALL_DOCS, tokenizer: 'gpt2', shards: 2 });
  mini = buildCharIndex({ documents: MINI_DOCS, shards: 2 });
  server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { [L]: llama, [G]: gpt2 } });
  miniServer = await startInfiniGramServer({ kind: 'infini-gram-mini', indexes: { [M]: mini } });
});

afterAll(async () => {
  await server?.close();
  await miniServer?.close();
});

// ---------------------------------------------------------------------------------------------

describe('suffix array', () => {
  it('finds exactly the occurrences a naive scan finds, on random sequences', () => {
    const rnd = mulberry32(20250101);
    for (let trial = 0; trial < 300; trial++) {
      const n = Math.floor(rnd() * 400);
      const alphabet = [2, 3, 7, 300, 65536][trial % 5];
      const seq = alphabet > 256 ? new Uint16Array(n) : new Uint8Array(n);
      for (let i = 0; i < n; i++) seq[i] = Math.min(alphabet - 1, Math.floor(rnd() * alphabet));
      const sa = buildSuffixArray(seq);
      // every suffix once, in order
      expect(new Set(sa).size).toBe(n);
      for (let r = 1; r < n; r++) {
        let a = sa[r - 1],
          b = sa[r];
        while (b < n && seq[a] === seq[b]) {
          a++;
          b++;
        }
        // suffix r - 1 ended first (a proper prefix), or differs by a smaller symbol
        expect(a === n || (b < n && seq[a] < seq[b])).toBe(true);
      }
      for (let q = 0; q < 10; q++) {
        const len = Math.floor(rnd() * 5);
        const from = Math.floor(rnd() * Math.max(1, n - len));
        const query =
          rnd() < 0.7 && n > 0
            ? Array.from(seq.subarray(from, from + len))
            : Array.from({ length: len }, () => Math.floor(rnd() * alphabet));
        const [lo, hi] = findRange(seq, sa, query);
        expect(hi - lo).toBe(query.length === 0 ? n : naiveCount(seq, query));
        expect(Array.from(sa.subarray(lo, hi)).sort((x, y) => x - y)).toEqual(
          query.length === 0 ? [...Array(n).keys()] : positions(seq, query),
        );
      }
    }
  });
});

describe('C++ randomness', () => {
  it("mt19937 and libstdc++'s distributions draw what g++ 12 draws", () => {
    const gen = new Mt19937(19260817);
    expect([gen.next(), gen.next(), gen.next()]).toEqual([1919156834, 3294181187, 1852757103]);
    expect([0, 1, 6, 1000, 123456, 4000000000].map((r) => uniformInt(gen, 5, 5 + r))).toEqual([
      5, 6, 8, 523, 54004, 1357189664,
    ]);
    expect([0, 1, 2, 3, 4].map(() => discreteIndex(gen, [3, 0, 7, 2]))).toEqual([2, 0, 0, 2, 0]);
    expect(discreteIndex(gen, [3])).toBe(0); // one weight: no draw
    expect(gen.next()).toBe(2687439836);
  });
});

describe('tokenizers', () => {
  const corpus = SMALL_DOCS.map((d) => d.text).join('\n') + '\nthe the the cat cat dog';
  const samples = [
    'plain ASCII text, with punctuation!',
    'Café naïve é',
    '“curly” quotes',
    'emoji 😀 here',
    '日本語のテキスト',
    'two\nlines\n\nand  double  spaces',
    ' leading space',
    '',
  ];

  it('llama: decode(encode(x)) is x (the leading space of each decode call dropped, as Hugging Face does)', () => {
    const tok = createTokenizer('llama', corpus);
    for (const x of samples) {
      const ids = tok.encode(x);
      expect(tok.decode(ids, { dropLeadingSpace: false })).toBe(x === '' ? '' : ` ${x}`);
      expect(tok.decode(ids)).toBe(x);
    }
  });

  it('llama: ▁ words, <0xNN> byte fallback, newline <0x0A>, and a query drops its leading lone ▁', () => {
    const tok = createTokenizer('llama', corpus);
    expect(tok.vocabSize).toBeLessThan(65535);
    expect(tok.idsToTokens([0, 1, 2, 3, 13, 258])).toEqual(['<unk>', '<s>', '</s>', '<0x00>', '<0x0A>', '<0xFF>']);
    expect(tok.eosTokenId).toBe(2);
    expect(tok.idsToTokens(tok.encode('the cat'))).toEqual(['▁the', '▁cat']);
    // characters the corpus lacks (or has too rarely) fall back to their UTF-8 bytes
    expect(tok.idsToTokens(tok.encode('🎉'))).toEqual(['▁', '<0xF0>', '<0x9F>', '<0x8E>', '<0x89>']);
    expect(tok.idsToTokens(tok.encodeQuery('🎉'))).toEqual(['<0xF0>', '<0x9F>', '<0x8E>', '<0x89>']);
    expect(tok.idsToTokens(tok.encode('a\nb'))).toContain('<0x0A>');
    expect(tok.idsToTokens(tok.encode('日'))).toEqual(['▁', '<0xE6>', '<0x97>', '<0xA5>']);
    // a run of byte tokens that is not valid UTF-8 decodes to one U+FFFD per byte
    expect(tok.decode(tok.encodeQuery('🎉').slice(0, 2))).toBe('\ufffd\ufffd');
    expect(tok.idsToTokens([65535])).toEqual([null]);
  });

  it('gpt2: exact round trip, Ġ for a space, Ċ for a newline, GPT-2 byte ids, a space before a query', () => {
    const tok = createTokenizer('gpt2', corpus);
    for (const x of samples) expect(tok.decode(tok.encode(x))).toBe(x);
    expect(tok.idsToTokens([220, 198, 0])).toEqual(['Ġ', 'Ċ', '!']);
    expect(tok.idsToTokens(tok.encode(' the cat'))).toEqual(['Ġthe', 'Ġcat']);
    expect(tok.encodeQuery('the cat')).toEqual(tok.encode(' the cat'));
    expect(tok.idsToTokens(tok.encode('a\nb'))).toContain('Ċ');
    expect(tok.idsToTokens([tok.eosTokenId])).toEqual(['<|endoftext|>']);
    expect(tok.decode(tok.encode('x .'), { cleanUpTokenizationSpaces: true })).toBe('x.');
  });

  it('is deterministic for the same text', () => {
    for (const flavour of ['llama', 'gpt2'] as const) {
      const a = createTokenizer(flavour, corpus),
        b = createTokenizer(flavour, corpus);
      expect(a.encode(corpus)).toEqual(b.encode(corpus));
    }
  });
});

describe('indexes', () => {
  it('split documents over shards in order, each after a separator, metadata as the indexer writes it', () => {
    expect(llama.shards.map((s) => s.firstDocIx)).toEqual([0, 2]);
    const shard = llama.shards[0];
    expect(shard.tokens[0]).toBe(0xffff);
    expect(shard.tokens[shard.docStarts[1]]).toBe(0xffff);
    expect(shard.metadata[0]).toBe(
      '{"path": "small/a.jsonl", "linenum": 0, "metadata": {"pile_set_name": "Pile-CC"}}\n',
    );
    expect(shard.metadata[1]).toBe('');
    expect(llama.shards[1].metadata[0]).toBe(
      '{"path": "small/b.jsonl", "linenum": 1, "metadata": {"note": "na\\u00efve"}}\n',
    );
    expect(llama.tokenCount).toBe(SMALL_DOCS.reduce((n, d) => n + llama.tokenizer.encode(d.text).length + 1, 0));
    expect(mini.byteCount).toBe(MINI_DOCS.reduce((n, d) => n + new TextEncoder().encode(d.text).length + 1, 0));
    expect(pyJsonDumps({ a: [1, 'é'], b: null })).toBe('{"a": [1, "\\u00e9"], "b": null}');
  });
});

// ---------------------------------------------------------------------------------------------

describe('infini-gram server: query types', () => {
  const q = (body: Record<string, unknown>) => post(server.url, { index: L, ...body });

  it('GET / lists the indexes', async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([L, G]);
  });

  it('count: the query tokenised with the index tokenizer, counted across shards; empty counts every token', async () => {
    const r = await q({ query_type: 'count', query: 'the cat' });
    const ids = llama.tokenizer.encodeQuery('the cat');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      count: llama.shards.reduce((n, s) => n + naiveCount(s.tokens, ids), 0),
      approx: false,
      token_ids: ids,
      tokens: ['▁the', '▁cat'],
    });
    expect(typeof r.json.latency).toBe('number');
    expect(r.text.endsWith('\n')).toBe(true);
    expect((await q({ query_type: 'count', query: '' })).json.count).toBe(llama.tokenCount);
    const g = await post(server.url, { index: G, query_type: 'count', query: 'the cat' });
    expect(g.json.tokens).toEqual(['Ġthe', 'Ġcat']);
    // corpus is the older name of index, and wins
    expect((await post(server.url, { corpus: L, index: 'nope', query_type: 'count', query: 'cat' })).status).toBe(200);
  });

  it('count with query_ids, including the separator id 65535', async () => {
    const cat = llama.tokenizer.encodeQuery('cat');
    const r = await q({ query_type: 'count', query_ids: [65535, ...llama.tokenizer.encodeQuery('the')] });
    expect(r.json.count).toBe(
      llama.shards.reduce((n, s) => n + naiveCount(s.tokens, [65535, ...llama.tokenizer.encodeQuery('the')]), 0),
    );
    expect(r.json.tokens[0]).toBeNull();
    expect((await q({ query_type: 'count', query_ids: cat })).json.count).toBeGreaterThan(0);
  });

  it('prob, and -1 when the prompt never occurs', async () => {
    const r = await q({ query_type: 'prob', query: 'the cat' });
    const the = llama.tokenizer.encodeQuery('the'),
      theCat = llama.tokenizer.encodeQuery('the cat');
    const promptCnt = llama.shards.reduce((n, s) => n + naiveCount(s.tokens, the), 0);
    const contCnt = llama.shards.reduce((n, s) => n + naiveCount(s.tokens, theCat), 0);
    expect(r.json).toMatchObject({ prompt_cnt: promptCnt, cont_cnt: contCnt, prob: contCnt / promptCnt });
    expect((await q({ query_type: 'prob', query: 'zebra cat' })).json).toMatchObject({
      prompt_cnt: 0,
      cont_cnt: 0,
      prob: -1,
    });
  });

  it('ntd: next-token counts with the token spellings (Ġ read as a space, ▁ kept)', async () => {
    const r = await q({ query_type: 'ntd', query: 'the' });
    const the = llama.tokenizer.encodeQuery('the');
    const next = new Map<number, number>();
    for (const s of llama.shards)
      for (const p of positions(s.tokens, the)) {
        const t = p + 1 < s.tokens.length && s.tokens[p + 1] !== 0xffff ? s.tokens[p + 1] : llama.tokenizer.eosTokenId;
        next.set(t, (next.get(t) ?? 0) + 1);
      }
    expect(r.json.approx).toBe(false);
    expect(
      Object.keys(r.json.result_by_token_id)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...next.keys()].sort((a, b) => a - b));
    for (const [id, n] of next)
      expect(r.json.result_by_token_id[id]).toEqual({
        cont_cnt: n,
        prob: n / r.json.prompt_cnt,
        token: llama.tokenizer.idsToTokens([id])[0],
      });
    const g = await post(server.url, { index: G, query_type: 'ntd', query: 'the' });
    const tokens = Object.values(g.json.result_by_token_id).map((x: any) => x.token);
    expect(tokens).toContain(' cat');
    // a support below the prompt count samples with a power-of-two unit: approximate
    expect((await q({ query_type: 'ntd', query: 'the', max_support: 1 })).json.approx).toBe(true);
  });

  it('infgram_prob / infgram_ntd back off to the longest suffix that occurs', async () => {
    const r = await q({ query_type: 'infgram_prob', query: 'zebra the cat' });
    expect(r.json).toMatchObject({ suffix_len: 1, longest_suffix: 'the' });
    const n = await q({ query_type: 'infgram_ntd', query: 'zebra the' });
    expect(n.json).toMatchObject({ suffix_len: 1, longest_suffix: 'the' });
    // <0x01> (id 4) is in no document, so no suffix matches: the server then decodes ids[-0:], the whole query
    const the = llama.tokenizer.encodeQuery('the');
    const none = await q({ query_type: 'infgram_ntd', query_ids: [...the, 4] });
    expect(none.json).toMatchObject({ suffix_len: 0, longest_suffix: llama.tokenizer.decode([...the, 4]) });
    expect((await q({ query_type: 'infgram_prob', query_ids: [4, ...the] })).json).toMatchObject({
      suffix_len: 0,
      longest_suffix: '',
    });
  });

  it('find: one [lo, hi) rank segment per shard', async () => {
    const r = await q({ query_type: 'find', query: 'the cat' });
    expect(r.json.segment_by_shard).toHaveLength(2);
    const ids = llama.tokenizer.encodeQuery('the cat');
    r.json.segment_by_shard.forEach(([lo, hi]: [number, number], s: number) => {
      expect(hi - lo).toBe(naiveCount(llama.shards[s].tokens, ids));
    });
    expect(r.json.cnt).toBe(r.json.segment_by_shard.reduce((n: number, [lo, hi]: number[]) => n + hi - lo, 0));
  });

  it('get_doc_by_rank: window of max_disp_len//2 tokens before the match and (max_disp_len+1)//2 from it, clipped', async () => {
    const ids = llama.tokenizer.encodeQuery('the cat');
    const found = (await q({ query_type: 'find', query: 'the cat' })).json;
    const engine = new TokenEngine(llama);
    for (const maxDispLen of [1, 2, 5, 8, 1000]) {
      for (let s = 0; s < 2; s++) {
        const [lo, hi] = found.segment_by_shard[s];
        for (let rank = lo; rank < hi; rank++) {
          const r = (await q({ query_type: 'get_doc_by_rank', query: 'the cat', s, rank, max_disp_len: maxDispLen }))
            .json;
          const shard = llama.shards[s];
          const p = shard.sa[rank];
          const local = [...shard.docStarts].filter((d) => d <= p).length - 1;
          const docStart = shard.docStarts[local] + 1;
          const docEnd = local + 1 < shard.docStarts.length ? shard.docStarts[local + 1] : shard.tokens.length;
          const from = Math.max(docStart, p - Math.floor(maxDispLen / 2));
          const to = Math.min(docEnd, p + Math.floor((maxDispLen + 1) / 2));
          expect(r).toMatchObject({
            doc_ix: shard.firstDocIx + local,
            doc_len: docEnd - docStart,
            disp_len: to - from,
            needle_offset: p - from,
            blocked: false,
          });
          expect(r.metadata).toBe(shard.metadata[local]);
          // token_ids is overwritten with the query's ids, as the real server does
          expect(r.token_ids).toEqual(ids);
          const doc = engine.getDocByRank(s, rank, maxDispLen);
          expect(doc.token_ids).toEqual(Array.from(shard.tokens.subarray(from, to)));
          const marked = r.spans.filter(([, label]: [string, string | null]) => label === '0');
          if (to - p >= ids.length) expect(marked.length).toBeGreaterThan(0);
          if (maxDispLen === 1000) expect(r.spans.map(([t]: [string]) => t).join(' ')).toContain('the cat');
        }
      }
    }
  });

  it("get_doc_by_rank at a document separator: needle_offset wraps as the engine's uint64_t does", async () => {
    const s = 0,
      rank = llama.shards[0].tokens.length - 1; // 0xFFFF sorts last
    expect(llama.shards[0].tokens[llama.shards[0].sa[rank]]).toBe(0xffff);
    const r = await q({ query_type: 'get_doc_by_rank', query: 'cat', s, rank, max_disp_len: 1 });
    expect(r.text).toContain('"needle_offset":9223372036854775807');
    expect(r.json.disp_len).toBe(0);
  });

  it('search_docs: sampled documents with their own token_ids, spans and the message', async () => {
    const r = await q({ query_type: 'search_docs', query: 'the cat', maxnum: 3, max_disp_len: 6 });
    expect(r.json.documents).toHaveLength(3);
    expect(r.json.idxs).toHaveLength(3);
    expect(r.json.message).toBe(
      `${r.json.cnt} occurrences found. Displaying the documents of occurrences #[${r.json.idxs.join(', ')}]`,
    );
    for (const d of r.json.documents) {
      expect(d.token_ids.length).toBe(d.disp_len);
      expect(d.spans.some(([text, label]: [string, string | null]) => label === '0' && text === 'the cat')).toBe(true);
    }
    expect((await q({ query_type: 'search_docs', query: 'zebra' })).json).toMatchObject({
      cnt: 0,
      documents: [],
      idxs: [],
      message: '0 occurrences found',
    });
    const cnf = await q({ query_type: 'search_docs', query: 'cat AND dog', maxnum: 2 });
    expect(cnf.json.documents).toHaveLength(2);
  });

  it('find_cnf / get_doc_by_ptr: byte pointers, spans labelled by clause', async () => {
    const r = await q({ query_type: 'find_cnf', query: 'cat AND dog' });
    expect(r.json.approx).toBe(false);
    const shard = r.json.ptrs_by_shard.findIndex((p: number[]) => p.length > 0);
    const ptr = r.json.ptrs_by_shard[shard][0];
    expect(ptr % 2).toBe(0);
    const d = await q({ query_type: 'get_doc_by_ptr', query: 'cat AND dog', s: shard, ptr, max_disp_len: 40 });
    const labels = new Set(d.json.spans.map(([, label]: [string, string | null]) => label));
    expect(labels).toEqual(new Set(['0', '1', null]));
    expect(d.json.token_ids).toEqual(r.json.token_ids);
    // a clause with no match empties the result
    expect((await q({ query_type: 'find_cnf', query: 'cat AND zebra' })).json).toMatchObject({
      cnt: 0,
      approx: false,
      ptrs_by_shard: [],
    });
  });

  it('CNF counts: OR adds the terms, AND keeps occurrences of the rarer clause near one of the other in one document', async () => {
    const tok = llama.tokenizer;
    const naiveAnd = (a: number[][], b: number[][], maxDiff: number) => {
      let total = 0;
      for (const shard of llama.shards) {
        const occ = (clause: number[][]) => clause.flatMap((t) => positions(shard.tokens, t));
        const [pa, pb] = [occ(a), occ(b)];
        const [seed, other] = pb.length < pa.length ? [pb, pa] : [pa, pb];
        for (const p of seed) {
          const left = Math.max(-1, ...other.filter((x) => x < p));
          const right = Math.min(Infinity, ...other.filter((x) => x >= p));
          const leftOk = left >= 0 && p - left <= maxDiff,
            rightOk = right !== Infinity && right - p <= maxDiff;
          const [lo, hi] = leftOk && rightOk ? [left, right] : leftOk ? [left, p] : rightOk ? [p, right] : [-1, -1];
          if (lo >= 0 && !Array.from(shard.tokens.subarray(lo, hi)).includes(0xffff)) total++;
        }
      }
      return total;
    };
    const terms = (s: string) => s.split(' OR ').map((t) => tok.encodeQuery(t));
    const cases = [
      ['cat', 'dog', 100],
      ['cat OR rat', 'dog', 3],
      ['the', 'rat OR log', 5],
      ['cat', 'the', 1],
      ['cat OR dog OR rat', 'the', 1000],
    ] as const;
    for (const [a, b, maxDiff] of cases) {
      const r = await q({ query_type: 'count', query: `${a} AND ${b}`, max_diff_tokens: maxDiff });
      expect(r.json, `${a} AND ${b}`).toMatchObject({ count: naiveAnd(terms(a), terms(b), maxDiff), approx: false });
    }
    const single = await q({ query_type: 'find_cnf', query_ids: [[tok.encodeQuery('cat'), tok.encodeQuery('dog')]] });
    expect(single.json.cnt).toBe(
      llama.shards.reduce(
        (n, s) => n + naiveCount(s.tokens, tok.encodeQuery('cat')) + naiveCount(s.tokens, tok.encodeQuery('dog')),
        0,
      ),
    );
    // more matches than max_clause_freq: subsampled, approximate
    const approx = await q({ query_type: 'count', query: 'the AND cat', max_clause_freq: 2 });
    expect(approx.json.approx).toBe(true);
  });
});

describe('infini-gram server: errors as api_server.py gives them', () => {
  const q = (body: Record<string, unknown>) => post(server.url, body);
  const only = (error: string) => ({ error });

  it('400 [Flask] errors for missing fields, both/neither query, unknown index or query_type', async () => {
    expect(await q({ index: L, query: 'x' })).toMatchObject({
      status: 400,
      json: only("[Flask] Missing required field: 'query_type'"),
    });
    expect(await q({ query_type: 'count', query: 'x' })).toMatchObject({
      status: 400,
      json: only("[Flask] Missing required field: 'index'"),
    });
    expect(await q({ index: L, query_type: 'count' })).toMatchObject({
      status: 400,
      json: only('[Flask] Exactly one of query and query_ids must be present!'),
    });
    expect(await q({ index: L, query_type: 'count', query: 'x', query_ids: [1] })).toMatchObject({
      status: 400,
      json: only('[Flask] Exactly one of query and query_ids must be present!'),
    });
    expect(await q({ index: 'v4_nope', query_type: 'count', query: 'x' })).toMatchObject({
      status: 400,
      json: only('[Flask] Invalid index: v4_nope'),
    });
    expect(await q({ index: 7, query_type: 'count', query: 'x' })).toMatchObject({
      status: 400,
      json: only('[Flask] Invalid index: 7'),
    });
    expect(await q({ index: L, query_type: 'count_all', query: 'x' })).toMatchObject({
      status: 400,
      json: only('[Flask] Invalid query_type: count_all'),
    });
  });

  it('500 [Flask] Internal server error for unexpected or missing keyword arguments, and engine-only query types', async () => {
    expect(await q({ index: L, query_type: 'count', query: 'x', max_clause_freq: 10 })).toMatchObject({
      status: 500,
      json: only(
        "[Flask] Internal server error: Processor.count() got an unexpected keyword argument 'max_clause_freq'",
      ),
    });
    expect(await q({ index: L, query_type: 'get_doc_by_rank', query: 'x' })).toMatchObject({
      status: 500,
      json: only(
        "[Flask] Internal server error: Processor.get_doc_by_rank() missing 2 required positional arguments: 's' and 'rank'",
      ),
    });
    expect(await q({ index: L, query_type: 'get_doc_by_rank', query: 'x', s: 0 })).toMatchObject({
      status: 500,
      json: only(
        "[Flask] Internal server error: Processor.get_doc_by_rank() missing 1 required positional argument: 'rank'",
      ),
    });
    expect(await q({ index: L, query_type: 'creativity', query: 'x' })).toMatchObject({
      status: 500,
      json: only("[Flask] Internal server error: 'Processor' object has no attribute 'creativity'"),
    });
    // get_doc_by_ptr iterates the query as CNF clauses
    expect(await q({ index: L, query_type: 'get_doc_by_ptr', query: 'the cat', s: 0, ptr: 2 })).toMatchObject({
      status: 500,
      json: only("[Flask] Internal server error: 'int' object is not iterable"),
    });
  });

  it('200 {error} alone for input validation', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ query: 5 }, 'query must be a string!'],
      [{ query: 'a'.repeat(1001) }, 'Please limit your input to <= 1000 characters!'],
      [{ query_ids: Array(501).fill(300) }, 'Please limit your input to <= 500 tokens!'],
      [{ query: 'a AND b AND c AND d AND e' }, 'Please enter at most 4 disjunctive clauses!'],
      [{ query: 'a OR b OR c OR d OR e' }, 'Please enter at most 4 terms in each disjunctive clause!'],
      [{ query_ids: [llama.tokenizer.vocabSize] }, 'Some item(s) in your query_ids are out-of-range!'],
      [{ query_ids: [-1] }, 'Some item(s) in your query_ids are out-of-range!'],
      [{ query_ids: [[1, 2]] }, 'query_ids must be a list of integers, or a triply-nested list of integers!'],
      [{ query_ids: [1.5] }, 'query_ids must be a list of integers, or a triply-nested list of integers!'],
    ];
    for (const [body, error] of cases) {
      const r = await q({ index: L, query_type: 'count', ...body });
      expect(r.status).toBe(200);
      expect(r.json, error).toEqual({ error });
    }
    // a float literal is not an int to the server, though JSON.parse reads 2.0 as 2
    const r = await post(server.url, undefined, {
      raw: `{"index": "${L}", "query_type": "count", "query_ids": [2.0]}`,
    });
    expect(r.json).toEqual({ error: 'query_ids must be a list of integers, or a triply-nested list of integers!' });
  });

  it('200 {error, latency, token_ids, tokens} for engine and parameter validation', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ query_type: 'search_docs', query: 'cat', maxnum: 11 }, 'maxnum must be an integer in [1, 10]!'],
      [{ query_type: 'search_docs', query: 'cat', maxnum: true }, 'maxnum must be an integer in [1, 10]!'],
      [{ query_type: 'get_doc_by_rank', query: 'cat', s: 2, rank: 0 }, 's must be an integer in range [0, 2)'],
      [
        { query_type: 'get_doc_by_rank', query: 'cat', s: 0, rank: llama.shards[0].tokens.length },
        `rank must be an integer in range [0, ${llama.shards[0].tokens.length})`,
      ],
      [
        { query_type: 'get_doc_by_rank', query: 'cat', s: 0, rank: 0, max_disp_len: 10001 },
        'max_disp_len must be an integer in [1, 10000]!',
      ],
      [
        { query_type: 'get_doc_by_ptr', query: 'cat AND dog', s: 0, ptr: 3 },
        `ptr must be an integer in range [0, ${llama.shards[0].tokens.length * 2}) and a multiple of 2`,
      ],
      [{ query_type: 'prob', query: '' }, 'Please provide a non-empty query!'],
      [{ query_type: 'ntd', query: 'cat', max_support: 1001 }, 'max_support must be an integer in [1, 1000]!'],
      [
        { query_type: 'count', query: 'cat AND dog', max_clause_freq: 0 },
        'max_clause_freq must be an integer in [1, 500000]!',
      ],
      [
        { query_type: 'find_cnf', query: 'cat AND dog', max_diff_tokens: 1001 },
        'max_diff_tokens must be an integer in [1, 1000]!',
      ],
      [
        { query_type: 'find_cnf', query: 'cat' },
        'cnf must be a non-empty, triply-nested list of integers in range [0, 65535]',
      ],
      [{ query_type: 'find', query: 'cat AND dog' }, 'input_ids must be a list of integers in range [0, 65535]'],
    ];
    for (const [body, error] of cases) {
      const r = await q({ index: L, ...body });
      expect(r.status, error).toBe(200);
      expect(Object.keys(r.json).sort(), error).toEqual(['error', 'latency', 'token_ids', 'tokens']);
      expect(r.json.error).toBe(error);
    }
  });

  it('HTML pages for a body Flask cannot read, other paths and methods', async () => {
    const bad = await post(server.url, undefined, { raw: '{"index": ' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(bad.text).toBe(
      '<!doctype html>\n<html lang=en>\n<title>400 Bad Request</title>\n<h1>Bad Request</h1>\n<p>The browser (or proxy) sent a request that this server could not understand.</p>\n',
    );
    const form = await post(server.url, undefined, {
      raw: 'index=x',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect(form.text).toContain(
      'Did not attempt to load JSON data because the request Content-Type was not &#39;application/json&#39;.',
    );
    expect((await post(server.url, [1, 2])).status).toBe(500);
    expect((await fetch(`${server.url}/api`)).status).toBe(404);
    const put = await fetch(server.url, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toContain('POST');
  });

  it('a CNF term that tokenises to nothing makes get_doc_by_ptr loop forever (the request hangs)', async () => {
    const found = (await post(server.url, { index: L, query_type: 'find_cnf', query: 'cat AND dog' })).json;
    const s = found.ptrs_by_shard.findIndex((p: number[]) => p.length > 0);
    await expect(
      post(
        server.url,
        { index: L, query_type: 'get_doc_by_ptr', query_ids: [[[]]], s, ptr: found.ptrs_by_shard[s][0] },
        { signal: AbortSignal.timeout(150) },
      ),
    ).rejects.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------

describe('infini-gram mini server', () => {
  const q = (body: Record<string, unknown>) => post(miniServer.url, { index: M, ...body });
  const utf8 = new TextEncoder();

  it("count and find: case-sensitive byte matching; an empty query counts every byte and each shard's sentinel", async () => {
    const count = (await q({ query_type: 'count', query: 'the cat' })).json;
    expect(Object.keys(count).sort()).toEqual(['count', 'latency']);
    const bytes = utf8.encode('the cat');
    expect(count.count).toBe(mini.shards.reduce((n, s) => n + naiveCount(s.bytes, Array.from(bytes)), 0));
    expect((await q({ query_type: 'count', query: 'The Cat' })).json.count).toBe(1);
    expect((await q({ query_type: 'count', query: '' })).json.count).toBe(mini.byteCount + mini.shards.length);
    const find = (await q({ query_type: 'find', query: 'café' })).json;
    expect(find.cnt).toBe(1);
    expect(find.segment_by_shard).toHaveLength(2);
    // a byte absent from a shard stops the backward search at rank 1
    expect((await q({ query_type: 'find', query: 'zz😀' })).json.segment_by_shard[1]).toEqual([1, 1]);
  });

  it('get_doc_by_rank: max_ctx_len bytes either side of needle_len = len(query) code points, clipped to the document', async () => {
    const find = (await q({ query_type: 'find', query: 'the cat' })).json;
    for (let s = 0; s < 2; s++) {
      const [lo, hi] = find.segment_by_shard[s];
      for (let rank = lo; rank < hi; rank++) {
        for (const ctx of [0, 3, 1000]) {
          const r = await q({ query_type: 'get_doc_by_rank', query: 'the cat', s, rank, max_ctx_len: ctx });
          const shard = mini.shards[s];
          const p = shard.sa[rank - 1];
          const local = [...shard.docStarts].filter((d) => d <= p).length - 1;
          const docStart = shard.docStarts[local] + 1;
          const docEnd = local + 1 < shard.docStarts.length ? shard.docStarts[local + 1] : shard.bytes.length;
          const from = Math.max(docStart, p - ctx),
            to = Math.min(docEnd, p + 7 + ctx);
          expect(r.json).toMatchObject({
            doc_ix: shard.firstDocIx + local,
            doc_len: docEnd - docStart,
            disp_len: to - from,
            needle_offset: p - from,
          });
          expect(r.json.text).toBe(new TextDecoder().decode(shard.bytes.subarray(from, to)));
          expect(r.json.spans.some(([t, label]: [string, string | null]) => t === 'the cat' && label === '0')).toBe(
            true,
          );
          expect(r.json.metadata).toBe(shard.metadata[local].replace(/\n$/, ''));
        }
      }
    }
  });

  it("a window cut inside a UTF-8 character is refused with the engine's message", async () => {
    const cd = (await q({ query_type: 'find', query: 'cd' })).json;
    const s = cd.segment_by_shard.findIndex(([lo, hi]: number[]) => hi > lo);
    // 'ab😀cd': 3 bytes before 'cd' start inside the 4-byte emoji
    const r = await q({
      query_type: 'get_doc_by_rank',
      query: 'cd',
      s,
      rank: cd.segment_by_shard[s][0],
      max_ctx_len: 3,
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['error', 'latency']);
    expect(r.json.error).toBe(
      'Failed to decode document text with UTF-8. This is likely because the context was cut off in the middle of a multi-byte char. Please try with a different max context length.',
    );
    // 'é' is one code point, so the needle is taken as 1 byte of its 2
    const e = (await q({ query_type: 'find', query: 'é' })).json;
    const se = e.segment_by_shard.findIndex(([lo, hi]: number[]) => hi > lo);
    const cut = await q({
      query_type: 'get_doc_by_rank',
      query: 'é',
      s: se,
      rank: e.segment_by_shard[se][0],
      max_ctx_len: 0,
    });
    expect(cut.json.error).toMatch(/^Failed to decode document text with UTF-8/);
  });

  it('errors: no query_ids, no corpus alias, missing max_ctx_len, pybind11 type errors, crashes past the index', async () => {
    expect(await q({ query_type: 'count', query_ids: [1] })).toMatchObject({
      status: 400,
      json: { error: "[Flask] Missing required field: 'query'" },
    });
    expect(await post(miniServer.url, { corpus: M, query_type: 'count', query: 'x' })).toMatchObject({
      status: 400,
      json: { error: "[Flask] Missing required field: 'index'" },
    });
    expect(await q({ query_type: 'search_docs', query: 'x' })).toMatchObject({
      status: 400,
      json: { error: '[Flask] Invalid query_type: search_docs' },
    });
    expect(await q({ query_type: 'count', query: 5 })).toMatchObject({
      status: 200,
      json: { error: 'query must be a string!' },
    });
    expect(await q({ query_type: 'get_doc_by_rank', query: 'x', s: 0, rank: 1 })).toMatchObject({
      status: 500,
      json: {
        error:
          "[Flask] Internal server error: Processor.get_doc_by_rank() missing 1 required positional argument: 'max_ctx_len'",
      },
    });
    expect(await q({ query_type: 'count', query: 'x', engine: 'c++' })).toMatchObject({
      status: 500,
      json: { error: "[Flask] Internal server error: Processor.count() got an unexpected keyword argument 'engine'" },
    });
    const neg = await q({ query_type: 'get_doc_by_rank', query: 'x', s: -1, rank: 1, max_ctx_len: 5 });
    expect(neg.status).toBe(500);
    expect(neg.json.error).toMatch(
      /^\[Flask\] Internal server error: get_doc_by_rank\(\): incompatible function arguments\./,
    );
    expect(neg.json.error).toMatch(/Invoked with: <src\.cpp_engine\.Engine object at 0x[0-9a-f]+>, -1, 1, 1, 5$/);
    await expect(q({ query_type: 'get_doc_by_rank', query: 'x', s: 5, rank: 1, max_ctx_len: 5 })).rejects.toThrow();
    expect((await fetch(miniServer.url)).status).toBe(405);
  });
});

// ---------------------------------------------------------------------------------------------

describe('faults, latency and the call log', () => {
  let faulty: InfiniGramServer;
  const body = { index: L, query_type: 'count', query: 'the cat' };
  beforeAll(async () => {
    faulty = await startInfiniGramServer({ kind: 'infini-gram', indexes: { [L]: llama } });
  });
  afterAll(async () => faulty?.close());
  const once = (f: Fault) => faulty.setFault((call: FaultCall) => (call.n === 1 ? f : undefined));

  it('503 HTML page, 429 with Retry-After, 500 with a body', async () => {
    faulty.resetCalls();
    once({ status: 503, html: true });
    const r = await post(faulty.url, body);
    expect(r.status).toBe(503);
    expect(r.text).toContain('<h1>503 Service Temporarily Unavailable</h1>');
    expect((await post(faulty.url, body)).status).toBe(200);
    faulty.resetCalls();
    once({ status: 429, retryAfter: 7 });
    const limited = await post(faulty.url, body);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    faulty.resetCalls();
    once({ status: 500, body: { error: 'boom' } });
    expect(await post(faulty.url, body)).toMatchObject({ status: 500, json: { error: 'boom' } });
    faulty.setFault(undefined);
  });

  it('hang, closed socket, malformed JSON, truncated document, huge counts', async () => {
    faulty.resetCalls();
    once({ hang: true });
    await expect(post(faulty.url, body, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    faulty.resetCalls();
    once({ closeSocket: true });
    await expect(post(faulty.url, body)).rejects.toThrow();
    faulty.resetCalls();
    once({ malformedJson: true });
    const m = await post(faulty.url, body);
    expect(m.status).toBe(200);
    expect(m.json).toBeUndefined();
    expect(() => JSON.parse(m.text)).toThrow();
    faulty.resetCalls();
    once({ hugeCounts: true });
    const h = await post(faulty.url, body);
    expect(h.text).toMatch(/"count":10000000000000000\d\d/);
    const find = (await post(faulty.url, { index: L, query_type: 'find', query: 'the cat' })).json;
    const doc = {
      index: L,
      query_type: 'get_doc_by_rank',
      query: 'the cat',
      s: 0,
      rank: find.segment_by_shard[0][0],
      max_disp_len: 40,
    };
    const full = (await post(faulty.url, doc)).json;
    faulty.setFault(() => ({ truncateDocument: true }));
    const cut = (await post(faulty.url, doc)).json;
    const len = (spans: [string][]) => spans.reduce((n, [t]) => n + t.length, 0);
    expect(len(cut.spans)).toBeLessThan(len(full.spans));
    expect(cut.disp_len).toBe(full.disp_len);
    faulty.setFault(undefined);
  });

  it('latency is added to every call and calls are logged', async () => {
    faulty.resetCalls();
    faulty.setLatency(40);
    const t0 = performance.now();
    await post(faulty.url, body);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(39);
    faulty.setLatency(0);
    await post(faulty.url, { index: L, query: 'x' });
    expect(faulty.calls.map((c) => [c.n, c.query_type, c.status])).toEqual([
      [1, 'count', 200],
      [2, null, 400],
    ]);
    expect(faulty.calls[0].ms).toBeGreaterThanOrEqual(39);
    expect(typeof faulty.calls[0].at).toBe('number');
  });

  it('close() drops hung requests, and a closed server refuses connections', async () => {
    const down = await startInfiniGramServer({
      kind: 'infini-gram',
      indexes: { [L]: llama },
      fault: () => ({ hang: true }),
    });
    const pending = post(down.url, body);
    await new Promise((r) => setTimeout(r, 20));
    await down.close();
    await expect(pending).rejects.toThrow();
    await expect(post(down.url, body)).rejects.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Up to `n` words from inside the longest line of `text`, whitespace as in the text. Inside a line,
 * because a word after a newline tokenises without its `▁` and would not match a query's `▁word`.
 */
function midLineWords(text: string, n: number): string {
  const line = text.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
  const words = [...line.matchAll(/\S+/g)].slice(1, 1 + n);
  const last = words[words.length - 1];
  return line.slice(words[0].index, last.index! + last[0].length);
}

describe('fixture corpus', () => {
  let corpusServer: InfiniGramServer;
  let index: TokenIndex;
  beforeAll(async () => {
    index = buildTokenIndex({ documents: fixtureCorpus().documents, tokenizer: 'llama' });
    corpusServer = await startInfiniGramServer({ kind: 'infini-gram', indexes: { v4_fixture_llama: index } });
  });
  afterAll(async () => corpusServer?.close());

  it('holds five books as ≥ 1000-word documents with Pile-style metadata, and the held-out halves', () => {
    const { documents, books, heldOut } = fixtureCorpus();
    expect(books.map((b) => b.book)).toEqual([
      'austen-persuasion',
      'chesterton-thursday',
      'milton-paradise',
      'shakespeare-caesar',
      'alice-11-0',
    ]);
    for (const d of documents) expect(d.text.match(/\S+/g)!.length).toBeGreaterThanOrEqual(1000);
    expect(documents[0].metadata).toEqual({
      path: 'fixture/austen-persuasion.jsonl',
      linenum: 0,
      metadata: { meta: { pile_set_name: 'Books3' } },
    });
    expect(documents[books[4].firstDocIx].metadata).toMatchObject({ metadata: { meta: { pile_set_name: 'Pile-CC' } } });
    expect(Object.keys(heldOut)).toEqual(['austen-persuasion', 'chesterton-thursday', 'milton-paradise']);
    expect(index.documentCount).toBe(documents.length);
    // the documents are the books' text exactly: first half + held-out half = the file
    const file = (name: string) =>
      readFileSync(new URL(`../fixtures/texts/gutenberg/${name}.txt`, import.meta.url), 'utf8');
    for (const [k, b] of books.slice(0, 3).entries()) {
      const firstHalf = documents
        .slice(b.firstDocIx, b.firstDocIx + b.docCount)
        .map((d) => d.text)
        .join('');
      const name = (['austen-persuasion', 'chesterton-thursday', 'milton-paradise'] as const)[k];
      expect(firstHalf + heldOut[name]).toBe(file(name));
      expect(firstHalf.length / file(name).length).toBeCloseTo(0.5, 1);
    }
  });

  it('planted passages are found in the index; clean texts are not', async () => {
    const cases = plantedCases({ seed: 3, count: 4, words: 300, passageWords: 30 });
    expect(plantedCases({ seed: 3, count: 4, words: 300, passageWords: 30 })).toEqual(cases);
    for (const c of cases) {
      const passage = c.text.slice(c.passage.start, c.passage.end);
      expect(passage).toBe(fixtureCorpus().documents[c.source.doc_ix].text.slice(c.source.start, c.source.end));
      const words = midLineWords(passage, 8);
      const r = await post(corpusServer.url, { index: 'v4_fixture_llama', query_type: 'count', query: words });
      expect(r.json.count, words).toBeGreaterThan(0);
    }
    const edited = plantedCases({ seed: 3, count: 1, words: 300, passageWords: 40, editEvery: 20 })[0];
    const original = fixtureCorpus()
      .documents[edited.source.doc_ix].text.slice(edited.source.start, edited.source.end)
      .split(/\s+/);
    const changed = edited.text.slice(edited.passage.start, edited.passage.end).split(/\s+/);
    expect(changed.filter((w, i) => w !== original[i]).length).toBe(2);
    for (const text of cleanTexts({ seed: 5, count: 3, words: 200 })) {
      const words = midLineWords(text, 10);
      const r = await post(corpusServer.url, { index: 'v4_fixture_llama', query_type: 'count', query: words });
      expect(r.json.count, words).toBe(0);
    }
  });
});
