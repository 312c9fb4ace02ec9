/**
 * The scan's hits, byte for byte (test/fixtures/scan-golden.jsonl, the hit lines `trainprint scan` writes): a scan
 * made faster must give the same lines. The outputs are of every kind a scan meets: passages of the archive planted
 * whole or with words changed (hits), shorter ones of 15–45 words (near misses: looked up, often aligned, rarely a
 * hit at 50 words), stretches across two neighbouring documents of the archive (copies that reach a document's
 * edge), a document's own text (its whole window), and natural text the archive does not hold (no hit). Scanned at
 * 50 words (the default) and at 20, where the near misses are hits.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { hitLine } from '../../src/node/scan/output.js';
import { createScanEngine } from '../../src/scan-engine.js';
import { archive, cleanOutputs, plantedOutputs, prng } from '../fixtures/scan-plant.js';

const docs = archive();

/** `n` natural outputs, each with a passage of 15–45 words of a random archive document planted in it. */
function nearMisses(n: number, seed: number): string[] {
  const rnd = prng(seed);
  const hosts = cleanOutputs(n, seed + 1);
  return hosts.map((host) => {
    const words = docs[Math.floor(rnd() * docs.length)].text.split(/\s+/).filter(Boolean);
    const len = 15 + Math.floor(rnd() * 31);
    const at = Math.floor(rnd() * (words.length - len));
    const cut = host.indexOf(' ', Math.floor(rnd() * host.length));
    const passage = words.slice(at, at + len).join(' ');
    return cut < 0 ? `${host} ${passage}` : `${host.slice(0, cut)} ${passage}${host.slice(cut)}`;
  });
}

/** `n` outputs of about `chars` characters across the boundary of two neighbouring documents of one book. */
function acrossDocuments(n: number, chars: number, seed: number): string[] {
  const rnd = prng(seed);
  const out: string[] = [];
  while (out.length < n) {
    const k = Math.floor(rnd() * (docs.length - 1));
    const [a, b] = [docs[k], docs[k + 1]];
    if (a.id.split('#')[0] !== b.id.split('#')[0]) continue;
    const head = Math.floor(rnd() * chars);
    out.push(`${a.text.slice(Math.max(0, a.text.length - head))}${b.text.slice(0, chars - head)}`);
  }
  return out;
}

/** The items, in a fixed order: every kind interleaved, as a stream of outputs is. */
function items(): Array<{ id: string; text: string }> {
  const kinds: Array<[string, string[]]> = [
    ['planted', plantedOutputs(docs, 30, 83).map((p) => p.text)],
    ['near', nearMisses(30, 84)],
    ['across', acrossDocuments(20, 1000, 85)],
    ['document', [docs[5].text, docs[40].text]],
    ['clean', cleanOutputs(40, 86)],
  ];
  const out: Array<{ id: string; text: string }> = [];
  for (let i = 0; out.length < kinds.reduce((n, [, t]) => n + t.length, 0); i++)
    for (const [name, texts] of kinds) if (i < texts.length) out.push({ id: `${name}-${i}`, text: texts[i] });
  return out;
}

/** The hit lines of a scan of {@link items} at 50 and at 20 words. */
async function hitLines(engine: Pick<Engine, 'scan'>): Promise<string> {
  let lines = '';
  for (const minWords of [50, 20]) {
    lines += `# minWords ${minWords}\n`;
    for await (const h of engine.scan(items(), { minWords })) lines += hitLine(h);
  }
  return lines;
}

describe('scan golden hits', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset({ id: 'archive' }, docs);
  });

  it('gives the same hit lines at 50 and at 20 words', async () => {
    const lines = await hitLines(engine);
    // every kind is there: hits whole and edited, near misses that are mostly hits only at 20 words, none in clean text
    const at50 = lines.slice(0, lines.indexOf('# minWords 20'));
    expect(at50).toContain('"id":"planted-');
    expect(at50).toContain('"kind":"edited"');
    expect(at50).toContain('"id":"across-');
    const near = (t: string) => t.split('"id":"near-').length - 1;
    expect(near(lines.slice(at50.length))).toBeGreaterThan(near(at50) + 10);
    expect(lines).not.toContain('"id":"clean-');
    await expect(lines).toMatchFileSnapshot('../fixtures/scan-golden.jsonl');
  }, 120_000);

  it('gives the same hit lines on the scan engine that `trainprint scan` runs on (src/scan-engine.ts)', async () => {
    const scanner = await createScanEngine();
    try {
      await scanner.importDataset(engine.exportDataset('archive'));
      await expect(await hitLines(scanner)).toMatchFileSnapshot('../fixtures/scan-golden.jsonl');
    } finally {
      scanner.dispose();
    }
  }, 120_000);
});
