/**
 * An audit's journal prefix hashed in parts, between turns of the event loop: the same prefix as the catalogue's text
 * made whole and hashed at once (the key its journal was kept under before, so that a job resubmitted or run again
 * finds its calls), for texts of every kind of character, and the SHA-256 of parts equal to that of their join.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256HexOfParts } from '../../src/fingerprint/sha256.js';
import { auditedText } from '../../src/services/jobs/types/audit.js';
import { storeJournalPrefix, storeJournalPrefixOfParts } from '../../src/services/memorization/store-journal.js';
import { turnsEvery } from '../../src/util/steps.js';

const works = [
  { id: 'a.txt', text: 'Call me Ishmael. Some years ago—never mind how long precisely' },
  { id: 'b "quoted"', text: 'Ünïcödé, 日本語のテキスト, and an emoji 🐋 across parts\n\ttabs and "quotes" \\ too' },
  { id: 'c', text: 'sections', sections: [{ title: 'One', start: 0, end: 4 }] },
  { id: 'lone', text: `a lone surrogate \ud800 is escaped by JSON.stringify` },
];
const scope = { account: 'acme/eu', baseUrl: 'https://models.example/v1', model: 'm-1' };
/** The text the audit's journal was kept by: its works as one JSON array, made whole. */
const whole = (ws: typeof works) => `audit\n${JSON.stringify(ws.map((w) => [w.id, w.text, w.sections ?? null]))}`;

describe('an audit journal prefix hashed in parts', () => {
  it("auditedText's parts join to the catalogue's JSON text", () => {
    expect([...auditedText(works)].join('')).toBe(whole(works));
    expect([...auditedText([])].join('')).toBe(whole([]));
    expect([...auditedText(works.slice(0, 1))].join('')).toBe(whole(works.slice(0, 1)));
  });

  it('gives the prefix of the text whole, with turns between the parts', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({ ...works[i % works.length], id: `w${i}` }));
    for (const ws of [works, many, []]) {
      const expected = storeJournalPrefix({ ...scope, text: whole(ws) });
      expect(await storeJournalPrefixOfParts(scope, auditedText(ws), turnsEvery(0))).toBe(expected);
      expect(await storeJournalPrefixOfParts(scope, auditedText(ws), () => undefined)).toBe(expected);
    }
  });

  it('a different catalogue, model or account is a different prefix', async () => {
    const base = await storeJournalPrefixOfParts(scope, auditedText(works), () => undefined);
    const changed = [
      await storeJournalPrefixOfParts(scope, auditedText(works.slice(1)), () => undefined),
      await storeJournalPrefixOfParts({ ...scope, model: 'm-2' }, auditedText(works), () => undefined),
      await storeJournalPrefixOfParts({ ...scope, account: 'other' }, auditedText(works), () => undefined),
    ];
    for (const c of changed) expect(c).not.toBe(base);
  });

  it("sha256HexOfParts is the SHA-256 of the parts' UTF-8 joined", async () => {
    const parts = ['ab', 'c — ', '🐋', '', 'end'];
    const expected = createHash('sha256').update(parts.join('')).digest('hex');
    expect(await sha256HexOfParts(parts, () => undefined)).toBe(expected);
    expect(await sha256HexOfParts([], () => undefined)).toBe(createHash('sha256').update('').digest('hex'));
  });
});
