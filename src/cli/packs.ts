/**
 * `trainprint packs list|info|verify`: the reference packs of a pack index (default: the ones shipped with
 * trainprint) — their sizes and counts, their provenance, and the checks of their bytes (CRC-32, layout, SHA-256).
 */
import { existsSync } from 'node:fs';
import { TrainprintError, type ListedPack, type PackInfo } from '../library.js';
import { listPacks, verifyPackFile } from '../node/index.js';
import { HELP } from './help.js';
import { fmt, mb, parse, UsageError } from './shared.js';

/** The packs named on the command line (files, or ids of the index), or every listed pack. */
async function namedPacks(
  names: string[],
  dir: string | undefined,
): Promise<Array<{ path: string; listed?: ListedPack }>> {
  const listed = names.length === 0 || names.some((n) => !existsSync(n)) ? await listPacks(dir) : [];
  if (names.length === 0) return listed.map((p) => ({ path: p.path, listed: p }));
  return names.map((n) => {
    const byId = listed.find((p) => p.id === n);
    if (byId && !existsSync(n)) return { path: byId.path, listed: byId };
    if (!existsSync(n))
      throw new TrainprintError('NOT_FOUND', `${n}: no such file, and no listed pack has this id${nearId(n, listed)}`);
    return { path: n };
  });
}

/**
 * The listed ids a name that is none could have meant, as a suggestion: its `pack:` form (`gutenberg` →
 * `pack:gutenberg`, the ids `packs list` prints), or the ids a name's file points to (`gutenberg.tpk`).
 * @example nearId('gutenberg', listed) // '; did you mean pack:gutenberg? (trainprint packs list shows the ids)'
 */
function nearId(name: string, listed: readonly ListedPack[]): string {
  const bare = name.replace(/^pack:/, '').replace(/\.tpk$/, '');
  const near = listed.filter((p) => p.id === `pack:${bare}` || p.file === `${bare}.tpk` || p.file === name);
  return near.length === 0
    ? ' (trainprint packs list shows the ids)'
    : `; did you mean ${near.map((p) => p.id).join(' or ')}? (trainprint packs list shows the ids)`;
}

/** A pack's provenance for printing: without its document list unless asked. */
function provenance(info: PackInfo & { listed?: boolean }, documents: boolean): Record<string, unknown> {
  const { documents: docs, ...rest } = info;
  return { ...rest, documents: documents ? docs : `${docs.length} (list them with --documents)` };
}

/** `packs list [--dir DIR] [--json]`: one line per pack (or the list as JSON), then the default packs' size. */
async function packsList(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { dir: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length) throw new UsageError('packs list takes no positional arguments');
  const packs = await listPacks(values.dir as string | undefined);
  if (values.json) {
    console.log(JSON.stringify(packs, null, 2));
    return 0;
  }
  for (const p of packs) {
    console.log(
      `${p.id.padEnd(24)} ${p.file.padEnd(24)} ${fmt(mb(p.bytes), 2).padStart(7)} MB  ` +
        `${String(p.documents).padStart(6)} docs  ${p.words.toLocaleString('en-US').padStart(12)} words  ` +
        `${p.ngrams.toLocaleString('en-US').padStart(11)} n-grams  ` +
        `→ ${p.kb_dataset}${p.default ? '  (default)' : ''}`,
    );
  }
  const total = packs.filter((p) => p.default).reduce((a, p) => a + p.bytes, 0);
  console.log(`${packs.length} packs; default packs ${fmt(mb(total), 2)} MB`);
  return 0;
}

/**
 * `packs info [FILE|ID] [--documents] [--dir DIR]` (provenance as JSON) and `packs verify [FILE|ID...] [--dir DIR]`
 * (one line per pack; exit code 1 when one fails): both check each pack's bytes, against the SHA-256 its index lists.
 */
async function packsInfoOrVerify(sub: 'info' | 'verify', args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { dir: { type: 'string' }, documents: { type: 'boolean' } });
  if (sub === 'info' && positionals.length > 1) throw new UsageError('packs info takes at most one FILE or ID');
  const dir = values.dir as string | undefined;
  const targets = await namedPacks(positionals, dir);
  if (sub === 'info') {
    const infos = [];
    for (const t of targets) {
      const expect = t.listed ? { sha256: t.listed.sha256 } : dir === undefined ? {} : { dir };
      infos.push(provenance(await verifyPackFile(t.path, expect), values.documents === true));
    }
    console.log(JSON.stringify(positionals.length === 1 ? infos[0] : infos, null, 2));
    return 0;
  }
  let failed = 0;
  for (const t of targets) {
    try {
      const expect = t.listed ? { sha256: t.listed.sha256 } : dir === undefined ? {} : { dir };
      const info = await verifyPackFile(t.path, expect);
      const how = info.listed ? 'SHA-256 as listed, CRC-32 and layout ok' : 'CRC-32 and layout ok, SHA-256 unlisted';
      console.log(`ok    ${t.path}  ${info.id}  sha256 ${info.sha256}  (${how})`);
    } catch (e) {
      failed++;
      console.log(`FAIL  ${t.path}  ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

/**
 * `trainprint packs list|info|verify …`: the subcommand, then its arguments.
 * @example process.exitCode = await packsCommand(['verify'])
 */
export async function packsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') {
    console.log(HELP);
    return 0;
  }
  if (sub === 'list') return packsList(rest);
  if (sub === 'info' || sub === 'verify') return packsInfoOrVerify(sub, rest);
  throw new UsageError(
    sub === undefined
      ? 'packs needs a subcommand: list, info or verify'
      : `unknown packs subcommand ${JSON.stringify(sub)}`,
  );
}
