/**
 * `createDocumentPool()` from the built `trainprint/node` (its threads run dist/extract-worker.js): a file read there
 * gives what `extractDocument` gives in this thread; a hostile file is refused as the budget refuses it, and the next
 * file runs on a new thread when the refused one left the thread large (an unreadable file's thread, or one a refusal
 * left small, reads the next one); a file past its time limit or its caller's abort has its thread ended — the refusal names the limit, the abort gives the signal's
 * reason — and the pool reads the next file on a new thread; a closed pool refuses what it had not read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';
import { HOSTILE_FILES } from '../fixtures/hostile-files.js';
import { buildPdf } from '../fixtures/pdf.js';

const dist = (entry: string) => import(new URL(`../../dist/${entry}`, import.meta.url).href);

/** The code and message a rejected promise gives (a result is a failure of the test). */
async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string; error: unknown }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal, got a result');
    },
    (e: unknown) => e,
  );
  return { code: (error as { code?: string }).code, message: (error as Error).message, error };
}

/**
 * The nice value of each thread of this process that node started (field 19 of /proc/self/task/TID/stat, after the
 * command's `)`), by thread id. Threads a native library starts for itself (pdf.js's canvas, `tokio-rt-worker`) take
 * the nice value of the thread that started them, and are left out.
 */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'node') continue;
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {} // a thread that ended meanwhile
  }
  return out;
}

/**
 * The id of the thread each file is sent to, in order: node's `Worker` (the class the built pool imports) is replaced
 * by a subclass that notes `threadId` on every `postMessage`, and put back by `restore()`. The pool's import of
 * `node:worker_threads` is a live binding, updated by `syncBuiltinESMExports()`.
 */
function spyOnThreads(): { readonly threads: number[]; restore(): void } {
  const workerThreads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const Original = workerThreads.Worker;
  const threads: number[] = [];
  workerThreads.Worker = class extends Original {
    override postMessage(value: unknown, transfer?: readonly Transferable[]): void {
      threads.push(this.threadId);
      super.postMessage(value, transfer as never);
    }
  };
  syncBuiltinESMExports();
  return {
    threads,
    restore() {
      workerThreads.Worker = Original;
      syncBuiltinESMExports();
    },
  };
}

const chapters = persuasion(3);
const pdf = buildPdf([
  { lines: ['Chapter 1', '', 'Sir Walter Elliot, of Kellynch Hall, in Somersetshire,'] },
  { lines: ['was a man who, for his own amusement, never took up any book but the Baronetage.'] },
]);

describe('document pool', () => {
  it('reads PDF, EPUB and DOCX files as extractDocument does in this thread, more files than threads', async () => {
    const { extractDocument } = await dist('text.js');
    const { createDocumentPool } = await dist('node.js');
    const pool = createDocumentPool({ threads: 2 });
    try {
      const files = [
        [pdf, 'pdf'],
        [buildEpub(chapters), 'epub'],
        [buildDocx(chapters), 'docx'],
        [pdf, 'pdf'],
      ] as const;
      const answers = await Promise.all(files.map(([bytes, format]) => pool.extractDocument(bytes, format)));
      for (const [i, [bytes, format]] of files.entries()) {
        expect(answers[i]).toEqual(await extractDocument(bytes, format));
        expect(bytes.length).toBeGreaterThan(0); // the caller keeps its bytes (a copy moves to the thread)
      }
      expect(answers[1].sections.map((s: { title: string }) => s.title)).toEqual([
        'Chapter 1',
        'Chapter 2',
        'Chapter 3',
      ]);
    } finally {
      await pool.close();
    }
  });

  it("refuses a hostile file with the budget's own refusal; a thread left small reads the next file", async () => {
    const { createDocumentPool } = await dist('node.js');
    const sent = spyOnThreads();
    const pool = createDocumentPool({ threads: 1 });
    try {
      expect(pool.started).toBe(0);
      // refusals of unreadable files: the thread that refused them reads the next file
      const bad = await rejection(pool.extractDocument(new TextEncoder().encode('not a pdf at all'), 'pdf'));
      expect(bad.code).toBe('INVALID_INPUT');
      const locked = await rejection(pool.extractDocument(buildPdf([{ lines: ['x'] }], { encrypt: true }), 'pdf'));
      expect(locked.code).toBe('INVALID_INPUT');
      expect((await pool.extractDocument(pdf, 'pdf')).text).toContain('Kellynch Hall');
      expect(sent.threads).toHaveLength(3);
      expect(new Set(sent.threads).size).toBe(1);
      expect(pool.started).toBe(1);
      // refusals for a limit the reader keeps in its own loop — pages, then the inflated bytes (8 MiB here, so that
      // it is quick) of a content stream and of a font — that leave the thread about as large as pdf.js made it: the
      // thread reads the next file (a new one would load pdf.js again for each)
      const [format, bomb] = HOSTILE_FILES['pages-dag.pdf']();
      const refused = await rejection(pool.extractDocument(bomb, format));
      expect(refused.code).toBe('PAYLOAD_TOO_LARGE');
      expect(refused.message).toMatch(/1000000000 pages, over the limit of 10000/);
      const [, flate] = HOSTILE_FILES['flate-bomb.pdf']();
      const [, font] = HOSTILE_FILES['font-bomb.pdf']();
      for (const file of [flate, font]) {
        const inflated = await rejection(pool.extractDocument(file, 'pdf', { maxUncompressedBytes: 8 << 20 }));
        expect(inflated.code).toBe('PAYLOAD_TOO_LARGE');
        expect(inflated.message).toMatch(/inflates to more than 8388608 bytes/);
      }
      expect((await pool.extractDocument(pdf, 'pdf')).pages).toHaveLength(2);
      // every file on the one thread
      expect(sent.threads).toHaveLength(7);
      expect(new Set(sent.threads).size).toBe(1);
      expect(pool.started).toBe(1);
    } finally {
      sent.restore();
      await pool.close();
    }
  });

  it('ends a thread that a refusal left large (a million text items); files queued behind it run on a new one', async () => {
    const { createDocumentPool } = await dist('node.js');
    const sent = spyOnThreads();
    const pool = createDocumentPool({ threads: 1 });
    try {
      const [format, bomb] = HOSTILE_FILES['million-items.pdf']();
      const outcomes = await Promise.allSettled([
        pool.extractDocument(bomb, format, undefined, 'mallory'),
        pool.extractDocument(pdf, 'pdf', undefined, 'ada'),
        pool.extractDocument(buildEpub(chapters), 'epub', undefined, 'ada'),
      ]);
      expect(outcomes[0].status).toBe('rejected');
      expect((outcomes[0] as PromiseRejectedResult).reason.code).toBe('PAYLOAD_TOO_LARGE');
      expect((outcomes[1] as PromiseFulfilledResult<{ text: string }>).value.text).toContain('Kellynch Hall');
      expect((outcomes[2] as PromiseFulfilledResult<{ sections: unknown[] }>).value.sections).toHaveLength(3);
      const [refusedOn, next, last] = sent.threads;
      expect(next).not.toBe(refusedOn);
      expect(last).toBe(next);
      expect(pool.started).toBe(2);
    } finally {
      sent.restore();
      await pool.close();
    }
  });

  it('ends the thread of a file past its time limit, naming the limit, and reads the next file on a new one', async () => {
    const { createDocumentPool } = await dist('node.js');
    const pool = createDocumentPool({ threads: 1 });
    try {
      const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
      // the 1 GiB stream takes seconds to inflate and count: 50 ms is passed whoever is first, the thread or the pool
      const late = await rejection(pool.extractDocument(bomb, format, { timeoutMs: 50 }));
      expect(late.code).toBe('PAYLOAD_TOO_LARGE');
      expect(late.message).toMatch(
        /the PDF file is too large: reading it takes longer than 50 ms, the limit \(timeoutMs\)/,
      );
      expect((await pool.extractDocument(pdf, 'pdf')).pages).toHaveLength(2);
      expect(pool.started).toBe(2); // the late file's thread was ended: a new one read the next
    } finally {
      await pool.close();
    }
  });

  it("an abort ends the file being read with the signal's reason; a file aborted while it waits leaves the queue", async () => {
    const { createDocumentPool } = await dist('node.js');
    const pool = createDocumentPool({ threads: 1 });
    try {
      const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
      const reading = new AbortController();
      const waiting = new AbortController();
      const first = pool.extractDocument(bomb, format, { signal: reading.signal });
      const second = pool.extractDocument(bomb, format, { signal: waiting.signal });
      const third = pool.extractDocument(pdf, 'pdf');
      const firstOutcome = rejection(first);
      const secondOutcome = rejection(second);
      waiting.abort(new Error('the client went away'));
      expect((await secondOutcome).message).toBe('the client went away');
      reading.abort(new Error('cancelled'));
      expect((await firstOutcome).message).toBe('cancelled');
      expect((await third).text).toContain('Baronetage');
      const already = new AbortController();
      already.abort(new Error('before it began'));
      expect((await rejection(pool.extractDocument(pdf, 'pdf', { signal: already.signal }))).message).toBe(
        'before it began',
      );
    } finally {
      await pool.close();
    }
  });

  it('refuses a file that waited waitMs for a thread (SERVICE_UNAVAILABLE); the file being read goes on', async () => {
    const { createDocumentPool } = await dist('node.js');
    expect(() => createDocumentPool({ waitMs: 0 })).toThrow(/waitMs/);
    const pool = createDocumentPool({ threads: 1, waitMs: 50 });
    try {
      const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
      // the bomb holds the one thread for seconds (until its inflated-bytes limit): the PDF behind it waits 50 ms
      const first = rejection(pool.extractDocument(bomb, format));
      const waited = await rejection(pool.extractDocument(pdf, 'pdf'));
      expect(waited.code).toBe('SERVICE_UNAVAILABLE');
      expect(waited.message).toContain('waited 0.05 s');
      expect((await first).code).toBe('PAYLOAD_TOO_LARGE');
      expect((await pool.extractDocument(pdf, 'pdf')).pages).toHaveLength(2);
    } finally {
      await pool.close();
    }
  });

  it("takes owners in turn: another account's file waits for one of a flood's files, not all of them", async () => {
    const { createDocumentPool } = await dist('node.js');
    // one thread and no spare one: on a loaded machine a 100 ms file may run past the time a spare thread waits for
    const pool = createDocumentPool({ threads: 1, spareThreads: 0 });
    try {
      const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
      const order: string[] = [];
      const settled = (name: string, p: Promise<unknown>) =>
        p.then(
          () => order.push(name),
          () => order.push(name),
        );
      const flood = [1, 2, 3, 4].map((i) =>
        settled(`mallory-${i}`, pool.extractDocument(bomb, format, { timeoutMs: 100 }, 'mallory')),
      );
      const ada = settled('ada', pool.extractDocument(pdf, 'pdf', undefined, 'ada'));
      await Promise.all([...flood, ada]);
      // mallory-1 was running; then the lines in turn: mallory-2, ada, mallory-3, mallory-4
      expect(order).toEqual(['mallory-1', 'mallory-2', 'ada', 'mallory-3', 'mallory-4']);
    } finally {
      await pool.close();
    }
  });

  it('a file that reads for seconds holds its thread, not the files behind it: a spare thread reads them', async () => {
    const { createDocumentPool } = await dist('node.js');
    const sent = spyOnThreads();
    const pool = createDocumentPool({ threads: 1 });
    const reading = new AbortController();
    try {
      expect(pool.spareThreads).toBe(1);
      const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
      // its 1 GiB inflated with no limit of bytes: it reads until it is aborted (or its thread's heap is full)
      let bombSettled = false;
      const long = rejection(
        pool.extractDocument(bomb, format, { maxUncompressedBytes: 2 ** 40, signal: reading.signal }, 'mallory'),
      ).finally(() => {
        bombSettled = true;
      });
      const paper = await pool.extractDocument(pdf, 'pdf', undefined, 'ada');
      expect(paper.text).toContain('Kellynch Hall');
      expect(bombSettled).toBe(false); // ada's file was read while the bomb still held its thread
      reading.abort(new Error('cancelled'));
      expect((await long).message).toBe('cancelled');
      const [bombOn, paperOn] = sent.threads;
      expect(paperOn).not.toBe(bombOn);
      expect(pool.started).toBe(2);
    } finally {
      reading.abort();
      sent.restore();
      await pool.close();
    }
  });

  it('starts no more spare threads than spareThreads; with 0, the files behind a long one wait for it', async () => {
    const { createDocumentPool } = await dist('node.js');
    const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
    expect(() => createDocumentPool({ spareThreads: -1 })).toThrow(/spareThreads/);
    expect(() => createDocumentPool({ spareThreads: 65 })).toThrow(/spareThreads/);
    for (const spareThreads of [0, 1]) {
      const pool = createDocumentPool({ threads: 1, spareThreads });
      const reading = new AbortController();
      try {
        const order: string[] = [];
        const settled = (name: string, p: Promise<unknown>) =>
          p.then(
            () => order.push(name),
            () => order.push(name),
          );
        const options = { maxUncompressedBytes: 2 ** 40, signal: reading.signal };
        // as many long files as there are threads and spare ones, then a paper: it waits for one of them to end
        const bombs = Array.from({ length: 1 + spareThreads }, (_, i) =>
          settled(`bomb-${i}`, pool.extractDocument(bomb, format, options, `mallory-${i}`)),
        );
        const paper = settled('paper', pool.extractDocument(pdf, 'pdf', undefined, 'ada'));
        // the long files have held their threads for a while (a spare one started for the second, if any)
        await new Promise((r) => setTimeout(r, 1500));
        expect(order).toEqual([]);
        expect(pool.started).toBe(1 + spareThreads);
        reading.abort(new Error('cancelled'));
        await Promise.all([...bombs, paper]);
        expect(order.at(-1)).toBe('paper');
        expect(pool.started).toBe(1 + spareThreads + 1); // aborted threads end; the paper read on a new one
      } finally {
        reading.abort();
        await pool.close();
      }
    }
  });

  it.runIf(process.platform === 'linux')(
    'its threads run below normal priority (nice 10 by default, `priority` else); this thread keeps its own',
    async () => {
      const { createDocumentPool } = await dist('node.js');
      const own = niceByThread().get(process.pid);
      for (const [options, wanted] of [
        [{}, 10],
        [{ priority: 15 }, 15],
        [{ priority: 0 }, own],
      ] as const) {
        const before = new Set(niceByThread().keys());
        const pool = createDocumentPool({ threads: 2, ...options });
        try {
          expect(pool.priority).toBe((options as { priority?: number }).priority ?? 10);
          // two files at once: two threads, each read one
          await Promise.all([pool.extractDocument(pdf, 'pdf'), pool.extractDocument(pdf, 'pdf')]);
          expect(pool.started).toBe(2);
          const niced = [...niceByThread()].filter(([tid, nice]) => !before.has(tid) && nice === wanted);
          // the pool's two threads (and, when `wanted` is this thread's own value, any other thread node started
          // meanwhile); none of node's other threads — libuv's pool among them — took the pool's value
          expect(niced.length).toBeGreaterThanOrEqual(2);
          if (wanted !== own) expect(niced.length).toBe(2);
          expect(niceByThread().get(process.pid)).toBe(own);
        } finally {
          await pool.close();
        }
      }
      expect(() => createDocumentPool({ priority: 20 })).toThrow(/priority/);
      expect(() => createDocumentPool({ priority: 1.5 })).toThrow(/priority/);
    },
  );

  it.runIf(process.platform === 'linux')(
    "serve's upload of a PDF over a socket is read on a document thread below normal priority, its answer the same",
    async () => {
      const { createEngine } = await dist('index.js');
      const { createHandler, KeyStore } = await dist('http.js');
      const { createWorkerPool, serve } = await dist('node.js');
      const engine = await createEngine();
      const keys = new KeyStore(engine.store);
      const { key } = await keys.createKey({ account: 'ada', plan: 'free' });
      const pool = createWorkerPool({ threads: 1, documents: { threads: 1 } });
      const server = await serve(createHandler(engine, { keys, offload: pool }), { port: 0, workers: pool });
      // this thread's own value: 0 normally, 10 when the suite itself runs under `nice` (then every new thread is 10)
      const own = niceByThread().get(process.pid);
      const before = new Set(niceByThread().keys());
      try {
        const form = new FormData();
        form.append('file', new Blob([pdf as Uint8Array<ArrayBuffer>]), 'persuasion.pdf');
        const res = await fetch(`${server.url}/api/v1/attribution/analyze`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
          body: form,
        });
        const body = await res.json();
        expect(res.status).toBe(200);
        expect(body.extraction.characters).toBeGreaterThan(100);
        // the document thread the upload started, and no other new thread of node's, runs at nice 10 (when this
        // thread is at 10 already, node's other new threads are too: the document thread is then one of them)
        const niced = [...niceByThread()].filter(([tid, nice]) => !before.has(tid) && nice === 10);
        if (own === 10) expect(niced.length).toBeGreaterThanOrEqual(1);
        else expect(niced.length).toBe(1);
        expect(niceByThread().get(process.pid)).toBe(own);
      } finally {
        await server.close();
        engine.dispose();
      }
    },
  );

  it('checks its options, refuses bad ones as extractDocument does, and refuses work once closed', async () => {
    const { createDocumentPool } = await dist('node.js');
    expect(() => createDocumentPool({ threads: 0 })).toThrow(/threads/);
    expect(() => createDocumentPool({ memoryMb: 8 })).toThrow(/memoryMb/);
    const pool = createDocumentPool({ threads: 1 });
    const unknown = await rejection(pool.extractDocument(pdf, 'pdf', { pages: 3 } as never));
    expect(unknown.code).toBe('INVALID_OPTIONS');
    const badLimit = await rejection(pool.extractDocument(pdf, 'pdf', { timeoutMs: -1 }));
    expect(badLimit.code).toBe('INVALID_OPTIONS');
    const [format, bomb] = HOSTILE_FILES['flate-bomb.pdf']();
    const cut = rejection(pool.extractDocument(bomb, format));
    const queued = rejection(pool.extractDocument(pdf, 'pdf'));
    await pool.close();
    expect((await cut).code).toBe('SERVICE_UNAVAILABLE');
    expect((await queued).code).toBe('SERVICE_UNAVAILABLE');
    expect((await rejection(pool.extractDocument(pdf, 'pdf'))).code).toBe('SERVICE_UNAVAILABLE');
  });

  it("a WorkerPool reads files on its document threads (serve's offload): analyze of a PDF gives the same answer", async () => {
    const { createEngine } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const engine = await createEngine();
    const pool = createWorkerPool({ threads: 1, documents: { threads: 1 } });
    try {
      // the pool as serve passes it, its files counted on the way
      let files = 0;
      const offload = {
        run: (work: unknown) => pool.run(work),
        extractDocument: (...args: unknown[]) => (files++, pool.extractDocument(...args)),
      };
      const request = { content: pdf, content_type: 'pdf' };
      const strip = (a: unknown) => JSON.parse(JSON.stringify(a, (k, v) => (/(^id|_id|_at)$/.test(k) ? undefined : v)));
      const there = await engine.analyze(request, { offload });
      const here = await engine.analyze(request);
      expect(strip(there)).toEqual(strip(here));
      expect(there.extraction.characters).toBeGreaterThan(100);
      expect(files).toBe(1);
      const scoreRequest = { ...request, target_model: 'meta/llama-7b', jurisdiction: 'US' };
      expect(strip(await engine.score(scoreRequest, { offload }))).toEqual(strip(await engine.score(scoreRequest)));
      expect(files).toBe(2);
      const [format, bomb] = HOSTILE_FILES['pages-dag.pdf']();
      expect((await rejection(engine.analyze({ content: bomb, content_type: format }, { offload }))).code).toBe(
        'PAYLOAD_TOO_LARGE',
      );
      expect(files).toBe(3);
    } finally {
      await pool.close();
      engine.dispose();
    }
  });
});
