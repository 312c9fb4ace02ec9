// The running text of a TEI file (the European Literary Text Collection's novels, build/packs-prepare-books.mjs): a pure
// function of the file's bytes, so that a pack built from it rebuilds byte for byte. test/unit/tei-text.test.ts.
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const decodeEntities = (s) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e) => {
    if (e[0] === '#')
      return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : +e.slice(1));
    return ENTITIES[e] ?? m;
  });

/**
 * The running text of a TEI novel: every <body>, notes and page furniture dropped, each paragraph, verse line or
 * heading on lines of its own (the file's own line breaks inside one are kept), white space inside a line collapsed
 * and empty lines dropped. A pure function of the file's bytes.
 */
export function teiText(xml) {
  const bodies = [...xml.matchAll(/<body\b[^>]*>([\s\S]*?)<\/body>/g)].map((m) => m[1]);
  const text = bodies
    .join('\n')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(note|fw)\b[^>]*\/>/g, '')
    .replace(/<(note|fw)\b[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<(p|l|head|lg|div|sp|speaker|stage|quote|trailer|ab)\b[^>]*>/g, '\n')
    .replace(/<\/(p|l|head|lg|div|sp|speaker|stage|quote|trailer|ab)>/g, '\n')
    .replace(/<lb\b[^>]*\/>/g, ' ')
    .replace(/<[^>]+>/g, '');
  return `${decodeEntities(text)
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n')}\n`;
}

const teiField = (xml, re) => {
  const m = xml.match(re);
  return m
    ? decodeEntities(
        m[1]
          .replace(/<[^>]+>/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
      )
    : undefined;
};

/** Title and author from the TEI header's titleStmt. */
export function teiHead(xml) {
  const stmt = xml.match(/<titleStmt>([\s\S]*?)<\/titleStmt>/)?.[1] ?? '';
  return {
    // 'Madame Bovary : édition ELTeC', 'Os Maias: Edição para o ELTeC' → the work's own title
    title: teiField(stmt, /<title\b[^>]*>([\s\S]*?)<\/title>/)?.replace(
      /\s*[:.]?\s*[^\s:]+(?:\s+para\s+o)?\s+ELTeC\b.*$/i,
      '',
    ),
    author: teiField(stmt, /<author\b[^>]*>([\s\S]*?)<\/author>/)?.replace(/\s*\([^)]*\)\s*$/, ''),
  };
}
