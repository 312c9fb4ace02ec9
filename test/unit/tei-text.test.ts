/**
 * The TEI text extraction of the book packs' prepare step (build/tei-text.mjs): the running text of every <body>, a
 * line per paragraph, verse line or heading, notes and page furniture left out, entities decoded; the header's
 * title and author without ELTeC's edition suffix.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script (plain JavaScript, no declarations)
import { teiHead, teiText } from '../../build/tei-text.mjs';

const TEI = `<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt>
  <title>Madame Bovary : édition ELTeC</title><author>Flaubert, Gustave (1821-1880)</author>
</titleStmt></fileDesc></teiHeader>
<text><front><div type="liminal"><p>À Marie-Antoine-Jules Senard</p></div></front>
<body><div type="chapter"><head>I</head>
  <p>Nous étions à l'Étude, quand le Proviseur entra,<note place="foot">Collège de Rouen.</note> suivi
     d'un nouveau&#160;habillé en bourgeois &amp; d'un garçon<pb n="2"/> de classe.</p>
  <!-- a comment -->
  <fw type="pageNum">3</fw>
  <lg><l>Ihr naht euch wieder,</l><l>schwankende Gestalten</l></lg>
</div></body><back><div><p>Notes of the editor</p></div></back></text></TEI>`;

describe('teiText', () => {
  it('keeps the body alone, each paragraph, verse line or heading on lines of its own', () => {
    expect(teiText(TEI)).toBe(
      'I\n' +
        "Nous étions à l'Étude, quand le Proviseur entra, suivi\n" +
        "d'un nouveau habillé en bourgeois & d'un garçon de classe.\n" +
        'Ihr naht euch wieder,\nschwankende Gestalten\n',
    );
  });

  it('is the same string on every call (the pack is rebuilt from it byte for byte)', () => {
    expect(teiText(TEI)).toBe(teiText(`${TEI}`));
    expect(teiText('<TEI><text><body><p>a &lt; b</p></body></text></TEI>')).toBe('a < b\n');
  });
});

describe('teiHead', () => {
  it("reads the work's title without ELTeC's edition suffix, and the author without dates", () => {
    expect(teiHead(TEI)).toEqual({ title: 'Madame Bovary', author: 'Flaubert, Gustave' });
    const pt = TEI.replace('Madame Bovary : édition ELTeC', 'Os Maias: Edição para o ELTeC');
    expect(teiHead(pt).title).toBe('Os Maias');
  });
});
