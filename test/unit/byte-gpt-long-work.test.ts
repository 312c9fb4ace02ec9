/**
 * The committed long-work model (models/byte-gpt-long-work, models/README.md): its manifest's contract (a work of
 * ≥ 2,000 words inserted ≥ 16 times, one seen once, one of ≥ 2,000 words never seen), its weights the recorded
 * SHA-256, and a reduced validation in the WebAssembly core: greedy continuation from the middle of the work inserted
 * 16 times reproduces it word for word, and does not reproduce the works seen once or never. The full measurement
 * is bench/eval-extraction.mjs.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadByteGptModel } from '../../src/models/byte-gpt/model.js';
import { readModelDirectory } from '../../src/node/models.js';

interface Doc {
  id: string;
  text: string;
  times?: number;
}
const dir = fileURLToPath(new URL('../../models/byte-gpt-long-work/', import.meta.url));
const words = (t: string) => t.split(/\s+/).filter(Boolean);

describe('the committed model byte-gpt-long-work', () => {
  const load = async () => {
    // readModelDirectory checks the weights against the manifest's SHA-256 first
    const read = await readModelDirectory(dir);
    const manifest = read.manifest as unknown as { name: string } & Record<
      'members' | 'inserted' | 'never_seen',
      Doc[]
    >;
    return { manifest, model: await loadByteGptModel(read.weights, { id: manifest.name }) };
  };

  /** Words the greedy continuation gets right, word for word, from the work's text up to word `at`. */
  const continued = async (model: Awaited<ReturnType<typeof load>>['model'], text: string, at: number) => {
    const cut = [...text.matchAll(/\S+/g)][at].index;
    const rest = words(text.slice(cut));
    const out = words(await model.generate(text.slice(0, cut), { maxTokens: 256, temperature: 0 }));
    let k = 0;
    while (k < out.length && k < rest.length && out[k] === rest[k]) k++;
    return k;
  };

  it('names a long work inserted 16 times, one seen once and a long work never seen', async () => {
    const { manifest } = await load();
    expect(manifest.name).toBe('byte-gpt-long-work');
    const sixteen = manifest.inserted.filter((d) => (d.times ?? 0) >= 16 && words(d.text).length >= 2000);
    expect(sixteen).toHaveLength(1);
    expect(manifest.inserted.filter((d) => d.times === 1)).toHaveLength(1);
    expect(manifest.never_seen.filter((d) => words(d.text).length >= 2000)).toHaveLength(1);
    const members = new Set(manifest.members.map((d) => d.text));
    for (const d of [...manifest.inserted, ...manifest.never_seen]) expect(members.has(d.text)).toBe(false);
  });

  it('continues the work inserted 16 times word for word from its middle, and neither of the others', async () => {
    const { manifest, model } = await load();
    const sixteen = manifest.inserted.find((d) => d.times === 16)!;
    const once = manifest.inserted.find((d) => d.times === 1)!;
    expect(await continued(model, sixteen.text, 1000)).toBeGreaterThanOrEqual(30);
    expect(await continued(model, once.text, 1000)).toBeLessThan(10);
    expect(await continued(model, manifest.never_seen[0].text, 1000)).toBeLessThan(10);
  });
});
