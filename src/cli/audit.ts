/**
 * `trainprint audit DIR|LIST --model-url URL --model NAME [--chat] [--budget-calls N] [--first-probes K]
 * [--out REPORT.json] [--journal FILE]` and the model flags of `extract`: which works of a catalogue an
 * OpenAI-compatible model writes out, under one call budget for the whole catalogue (`auditCatalogue`). DIR: its
 * text, EPUB, PDF and DOCX files, in name order (a book's sections are its strata); LIST: a JSON Lines file of
 * `{ "id", "text" }`, or a file naming one work file a line. One line a work on stderr, the report as JSON.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  auditCatalogue,
  createEngine,
  extractDocument,
  TEXT_FILE_TYPES,
  type AuditWork,
  type DocumentFormat,
} from '../library.js';

import { openExtractionJournal } from '../node/index.js';
import { runInterruptibly, withCallProgress } from './call-progress.js';
import { commandModel, MODEL_FLAGS } from './extract.js';
import { readWorkFile } from './files.js';
import { checkOutputPath, parse, UsageError } from './shared.js';

const WORK_FILE = /\.(txt|md|markdown|epub|pdf|docx)$/i;

/**
 * `trainprint audit`.
 * @example process.exitCode = await auditCommand(['books/', '--model-url', 'https://api.example.com/v1', '--model', 'm', '--chat'])
 */
export async function auditCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...MODEL_FLAGS,
    'budget-calls': { type: 'string' },
    'first-probes': { type: 'string' },
    'max-tokens': { type: 'string' },
    concurrency: { type: 'string' },
    out: { type: 'string' },
    journal: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('audit needs exactly one DIR or LIST');
  for (const option of ['out', 'journal']) checkOutputPath(values[option], option);
  const { model, number } = await commandModel(values, 'audit');
  const works = await readCatalogue(positionals[0]);
  const journalPath = values.journal as string | undefined;
  const journal = journalPath ? await openExtractionJournal(journalPath) : undefined;
  const engine = await createEngine();
  // Ctrl-C: as extract's, the answered calls kept in the journal and the way back printed
  return runInterruptibly(journalPath, 'audit', engine, journal, async (signal) => {
    const r = await auditCatalogue(engine.store, {
      model: withCallProgress(model, number('budget-calls') ?? 2000, 'audit'),
      signal,
      works,
      ...optional('budget_calls', number('budget-calls')),
      ...optional('first_probes', number('first-probes')),
      ...optional('max_tokens', number('max-tokens')),
      ...optional('concurrency', number('concurrency')),
      ...(journal ? { journal } : {}),
    });
    for (const w of r.works)
      console.error(
        `${w.id}: ${w.verdict}${w.verdict === 'reproduced' ? ` nv_recall ${w.nv_recall}` : ''}${w.miss_probability !== undefined ? ` (a work reproduced at ${r.catalogue.level} would show no hit with p = ${w.miss_probability})` : ''}${w.error ? ` (${w.error.code}: ${w.error.message})` : ''}, ${w.calls} calls, a work of ${w.words.toLocaleString('en-US')} words`,
      );
    const c = r.catalogue;
    console.error(
      `${c.reproduced} of ${c.measured} works reproduced: share ${c.share} [${c.ci_95[0]}, ${c.ci_95[1]}], ${r.calls} of ${r.budget_calls} calls, stopped: ${r.stopped}${r.error ? ` (the model answered no call: ${r.error.code}: ${r.error.message})` : ''}`,
    );
    const json = `${JSON.stringify(r, null, 2)}\n`;
    const out = values.out as string | undefined;
    if (out === undefined) process.stdout.write(json);
    else await writeFile(out, json);
    // nothing measured because the model answered nothing: a failure, as an extraction's failing calls are
    return r.stopped === 'upstream_errors' || (c.measured === 0 && r.works.some((w) => w.verdict === 'unanswered'))
      ? 1
      : 0;
  });
}

/** The works of DIR or LIST, in a fixed order. */
async function readCatalogue(path: string): Promise<AuditWork[]> {
  const info = await stat(path).catch(() => {
    throw new UsageError(`${path}: no such file or directory`);
  });
  let files: string[];
  if (info.isDirectory())
    files = (await readdir(path))
      .filter((f) => WORK_FILE.test(f))
      .sort()
      .map((f) => join(path, f));
  else if (/\.jsonl$/i.test(path)) return jsonLines(await readFile(path, 'utf8'), path);
  else
    files = (await readFile(path, 'utf8'))
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((f) => resolve(dirname(path), f));
  if (files.length === 0) throw new UsageError(`${path}: no text, EPUB, PDF or DOCX file to audit`);
  const works: AuditWork[] = [];
  for (const f of files) {
    const { type, content } = await readWorkFile(f);
    if (TEXT_FILE_TYPES.has(type)) works.push({ id: basename(f), text: content as string });
    else {
      const d = await extractDocument(content as Uint8Array, type as DocumentFormat);
      const sections = d.sections
        .filter((s) => s.end > s.start)
        .sort((a, b) => a.start - b.start)
        .filter((s, i, all) => i === 0 || s.start >= all[i - 1].end);
      works.push({ id: basename(f), text: d.text, ...(sections.length ? { sections } : {}) });
    }
  }
  return works;
}

function jsonLines(text: string, path: string): AuditWork[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      let o: { id?: unknown; text?: unknown };
      try {
        o = JSON.parse(l);
      } catch {
        throw new UsageError(`${path}: line ${i + 1} is not JSON`);
      }
      if (typeof o?.id !== 'string' || typeof o.text !== 'string')
        throw new UsageError(`${path}: line ${i + 1} is not { "id": "…", "text": "…" }`);
      return { id: o.id, text: o.text };
    });
}

const optional = <K extends string>(key: K, v: number | undefined) =>
  (v === undefined ? {} : { [key]: v }) as Partial<Record<K, number>>;
