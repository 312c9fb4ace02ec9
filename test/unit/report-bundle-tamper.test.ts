/**
 * Evidence bundles as a new user makes them, and as an attacker changes them: the untouched bundle of an EPUB, a DOCX
 * and a PDF analysis searched against two datasets (added as `zeta` then `alpha`, so the result's per-section
 * coverage lists them in another order than the bundle's canonical JSON) verifies with every check ok; each change of
 * the `signature` member (a member changed or added), a byte order mark, and a public key of small order or off the
 * curve (under which one constant signature verifies for any content) fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import type { Engine } from '../../src/engine.js';
import { sha256Portable, toHex } from '../../src/fingerprint/sha256.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { base64url } from '../../src/services/registry/receipts.js';
import { acceptablePublicKey, decodePoint } from '../../src/services/report/ed25519-point.js';
import {
  buildEvidenceBundle,
  canonicalJson,
  loadReportKey,
  publicKeyOf,
  verifyEd25519,
  verifyEvidenceBundle,
  type EvidenceBundle,
  type ReportKey,
} from '../../src/services/report/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';
import { buildPdf, layoutBook } from '../fixtures/pdf.js';

const CHAPTERS = persuasion(3);
const failed = (v: { checks: readonly { name: string; ok: boolean }[] }) =>
  v.checks.filter((c) => !c.ok).map((c) => c.name);
const hexBytes = (h: string) => Uint8Array.from(h.match(/../g)!.map((b) => Number.parseInt(b, 16)));

let engine: Engine;
let key: ReportKey;
const bundles = new Map<string, { bundle: EvidenceBundle; result: AnalysisResult; text: string }>();

beforeAll(async () => {
  engine = await createEngine();
  // added in this order: the result lists a section's coverage as zeta, alpha; canonical JSON sorts it alpha, zeta
  await engine.addDataset({ id: 'zeta', name: 'Z' }, [{ id: 'z1', text: CHAPTERS[0].text }]);
  await engine.addDataset({ id: 'alpha', name: 'A' }, [{ id: 'a1', text: CHAPTERS[1].text }]);
  key = await loadReportKey(engine.store);
  const book = layoutBook('Persuasion', CHAPTERS);
  const files = {
    epub: buildEpub(CHAPTERS),
    docx: buildDocx(CHAPTERS),
    pdf: buildPdf(book.pages, { outline: book.chapters, title: 'Persuasion' }),
  };
  for (const [type, content] of Object.entries(files)) {
    const result = await engine.analyze({ content, content_type: type as 'epub', include_text: true });
    const text = result.extraction!.text!;
    bundles.set(type, {
      bundle: await buildEvidenceBundle({ result, text }, { key, variant: engine.variant }),
      result,
      text,
    });
  }
}, 120_000);

describe('an honest bundle', () => {
  it.each(['epub', 'docx', 'pdf'])(
    'of a %s analysis against two datasets verifies, as served and as an object',
    async (type) => {
      const { bundle, result, text } = bundles.get(type)!;
      expect(result.sections!.length).toBeGreaterThan(0);
      expect(Object.keys(result.sections![0].coverage)).toEqual(['zeta', 'alpha']);
      expect(result.evidence.datasets.map((d) => d.dataset_id).sort()).toEqual(['alpha', 'zeta']);
      for (const form of [canonicalJson(bundle), new TextEncoder().encode(canonicalJson(bundle)), bundle]) {
        const v = await verifyEvidenceBundle(form as string, { publicKey: key.publicKey, text });
        expect(failed(v), type).toEqual([]);
        expect(v).toMatchObject({ valid: true, pinned: true });
        expect(v.checks.map((c) => c.name)).toContain('sections');
      }
      // read back from its canonical form: every object's members sorted, the coverage too
      const read = JSON.parse(canonicalJson(bundle)) as EvidenceBundle;
      expect(Object.keys(read.result.sections![0].coverage)).toEqual(['alpha', 'zeta']);
      expect((await verifyEvidenceBundle(read)).valid).toBe(true);
    },
  );

  it('says when the key was not pinned', async () => {
    const v = await verifyEvidenceBundle(canonicalJson(bundles.get('docx')!.bundle));
    expect(v).toMatchObject({ valid: true, pinned: false });
  });
});

describe('a tampered bundle', () => {
  const served = () => canonicalJson(bundles.get('docx')!.bundle);
  const edit = (f: (b: Record<string, any>) => void) => {
    const b = JSON.parse(served());
    f(b);
    return canonicalJson(b);
  };

  it('fails for a change inside `signature`, though nothing signed changed', async () => {
    const cases: Array<[string, string]> = [
      ['canonicalization "none"', edit((b) => (b.signature.canonicalization = 'none'))],
      ['a member added', edit((b) => (b.signature.x = 1))],
      ['both (the attack report)', edit((b) => Object.assign(b.signature, { canonicalization: 'none', x: 1 }))],
      ['canonicalization removed', edit((b) => delete b.signature.canonicalization)],
      ['alg "ed25519"', edit((b) => (b.signature.alg = 'ed25519'))],
      ['alg "none"', edit((b) => (b.signature.alg = 'none'))],
      ['key_id changed', edit((b) => (b.signature.key_id = '0000000000000000'))],
      ['key_id a number', edit((b) => (b.signature.key_id = 1))],
      ['value in padded base64url', edit((b) => (b.signature.value = `${b.signature.value}==`))],
      ['signature an array', edit((b) => (b.signature = [b.signature]))],
    ];
    for (const [what, bytes] of cases) {
      for (const publicKey of [undefined, key.publicKey]) {
        const v = await verifyEvidenceBundle(bytes, publicKey ? { publicKey } : {});
        expect(v.valid, what).toBe(false);
        expect(failed(v), what).toContain('signature');
      }
    }
  });

  it('fails with a byte order mark before it, as bytes or as text', async () => {
    const bytes = new TextEncoder().encode(served());
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    for (const form of [bom, `\uFEFF${served()}`]) {
      const v = await verifyEvidenceBundle(form as Uint8Array, { publicKey: key.publicKey });
      expect(v.valid).toBe(false);
      expect(failed(v)).toContain('format');
    }
  });

  it('fails the checks the attack report found held: reformatting, changed members, swapped keys and signatures', async () => {
    const other = await loadReportKey(new MemoryStore());
    const otherBundle = await buildEvidenceBundle(
      { result: bundles.get('epub')!.result, text: bundles.get('epub')!.text },
      { key, variant: engine.variant },
    );
    const cases: Array<[string, string]> = [
      ['pretty-printed', JSON.stringify(JSON.parse(served()), null, 2)],
      ['a space before', ` ${served()}`],
      ['a trailing newline', `${served()}\n`],
      ['a duplicate key', served().replace('{"created_at"', '{"created_at":"x","created_at"')],
      ['confidence changed', edit((b) => (b.result.confidence = 99))],
      ['a top-level member added', edit((b) => (b.extra = 1))],
      ['text_sha256 removed', edit((b) => delete b.text_sha256)],
      ['transcripts removed', edit((b) => delete b.transcripts)],
      ['format changed', edit((b) => (b.format = 'trainprint-evidence-bundle/2'))],
      ['another bundle’s signature', edit((b) => (b.signature = otherBundle.signature))],
      [
        'another real key',
        edit((b) =>
          Object.assign(b.signature, { public_key: other.publicKey.public_key, key_id: other.publicKey.key_id }),
        ),
      ],
    ];
    for (const [what, bytes] of cases) {
      const v = await verifyEvidenceBundle(bytes, { publicKey: key.publicKey });
      expect(v.valid, what).toBe(false);
    }
  });
});

/** The 8 points of small order (the torsion subgroup), encoded, with the sign bit set where x ≠ 0. */
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000', // the identity, order 1
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // (0, −1), order 2
  '0000000000000000000000000000000000000000000000000000000000000000', // (√−1, 0), order 4
  '0000000000000000000000000000000000000000000000000000000000000080', // (−√−1, 0), order 4
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
];

describe('public keys a signature proves nothing under', () => {
  it('refuses the 8 points of small order, and encodings of no point; takes real keys', async () => {
    for (const h of SMALL_ORDER) {
      expect(decodePoint(hexBytes(h)), h).not.toBeNull();
      expect(acceptablePublicKey(hexBytes(h)), h).toBe(false);
    }
    // y = p, y = p + 1 (not canonical), and a y with no x on the curve (y = 2)
    for (const h of [
      'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
      'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
      '0200000000000000000000000000000000000000000000000000000000000000',
    ]) {
      expect(decodePoint(hexBytes(h)), h).toBeNull();
      expect(acceptablePublicKey(hexBytes(h)), h).toBe(false);
    }
    for (let i = 0; i < 8; i++) {
      const k = await loadReportKey(new MemoryStore());
      expect(
        acceptablePublicKey(
          Uint8Array.from(atob(k.publicKey.public_key.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
        ),
      ).toBe(true);
    }
  });

  it('the identity key with a constant signature verifies nothing, whatever was rewritten', async () => {
    const identity = base64url(hexBytes(SMALL_ORDER[0]));
    const constant = base64url(Uint8Array.from({ length: 64 }, (_, i) => (i === 0 ? 1 : 0)));
    expect(await verifyEd25519(identity, constant, new TextEncoder().encode('anything at all'))).toBe(false);
    const keyId = toHex(sha256Portable(hexBytes(SMALL_ORDER[0]))).slice(0, 16);
    expect(keyId).toBe('01d0fabd251fcbbe');
    expect(publicKeyOf(identity).key_id).toBe(keyId);
    const forged = JSON.parse(canonicalJson(bundles.get('pdf')!.bundle));
    forged.result.work_hash = `sha256:${'0'.repeat(64)}`;
    forged.created_at = '2001-01-01T00:00:00.000Z';
    forged.signature = {
      alg: 'Ed25519',
      canonicalization: 'RFC8785',
      key_id: keyId,
      public_key: identity,
      value: constant,
    };
    const v = await verifyEvidenceBundle(canonicalJson(forged));
    expect(v.valid).toBe(false);
    expect(v.checks.find((c) => c.name === 'signature')?.detail).toMatch(/small order/);
    // every small-order key, with the constant signature
    for (const h of SMALL_ORDER) {
      const x = base64url(hexBytes(h));
      forged.signature = { ...forged.signature, public_key: x, key_id: publicKeyOf(x).key_id };
      expect((await verifyEvidenceBundle(canonicalJson(forged))).valid, h).toBe(false);
    }
  });
});
