/**
 * Project Gutenberg texts as a reference pack needs them: the book without the Project Gutenberg
 * header, footer and licence, and the facts the header gives (ebook number, title, author, language).
 *
 * Why strip: the boilerplate ("This eBook is for the use of anyone anywhere…", the 20 KB licence)
 * is the same in every Project Gutenberg file, so hashing it would make every book match every
 * other, and any text quoting the licence match all of them.
 *
 * The rules are those of `strip_headers` in the `gutenberg` Python package (GitHub c-w/gutenberg,
 * Apache-2.0), itself a port of Johannes Krugel's strip_headers.cpp, with their marker lists:
 * within the first 600 kept lines, a line starting with a header marker discards everything kept
 * so far (the header may announce its end several times: "*** START OF …", then "Produced by …");
 * from the 100th kept line on, a line starting with a footer marker ends the text. One addition:
 * the unambiguous "*** END OF THE/THIS PROJECT GUTENBERG" line ends the text wherever it is, so
 * a short text (under 100 lines) loses its licence too. Another: the copyright notices that the
 * World Library editions of Shakespeare repeat before every play (`<<THIS ELECTRONIC VERSION OF …
 * SERVICE THAT CHARGES FOR DOWNLOAD …>>`, the package's legalese markers) are removed wherever they
 * are. Leading and trailing blank lines are trimmed.
 */

/** Lines that end the header (the text starts after the last of them within the first 600 lines). */
const HEADER_MARKERS: readonly string[] = [
  '*END*THE SMALL PRINT',
  '*** START OF THE PROJECT GUTENBERG',
  '*** START OF THIS PROJECT GUTENBERG',
  'This etext was prepared by',
  'E-text prepared by',
  'Produced by',
  'Distributed Proofreading Team',
  'Proofreading Team at http://www.pgdp.net',
  'http://gallica.bnf.fr)',
  '      http://archive.org/details/',
  'http://www.pgdp.net',
  'by The Internet Archive)',
  'by The Internet Archive/Canadian Libraries',
  'by The Internet Archive/American Libraries',
  'public domain material from the Internet Archive',
  'Internet Archive)',
  'Internet Archive/Canadian Libraries',
  'Internet Archive/American Libraries',
  'material from the Google Print project',
  '*END THE SMALL PRINT',
  '***START OF THE PROJECT GUTENBERG',
  'This etext was produced by',
  '*** START OF THE COPYRIGHTED',
  'The Project Gutenberg',
  'http://gutenberg.spiegel.de/ erreichbar.',
  'Project Runeberg publishes',
  'Beginning of this Project Gutenberg',
  'Project Gutenberg Online Distributed',
  'Gutenberg Online Distributed',
  'the Project Gutenberg Online Distributed',
  'Project Gutenberg TEI',
  'This eBook was prepared by',
  'http://gutenberg2000.de erreichbar.',
  'This Etext was prepared by',
  'This Project Gutenberg Etext was prepared by',
  'Gutenberg Distributed Proofreaders',
  'Project Gutenberg Distributed Proofreaders',
  'the Project Gutenberg Online Distributed Proofreading Team',
  '**The Project Gutenberg',
  '*SMALL PRINT!',
  'More information about this book is at the top of this file.',
  'tells you about restrictions in how the file may be used.',
  "l'authorization à les utilizer pour preparer ce texte.",
  'of the etext through OCR.',
  '*****These eBooks Were Prepared By Thousands of Volunteers!*****',
  'We need your donations more than ever!',
  ' *** START OF THIS PROJECT GUTENBERG',
  '****     SMALL PRINT!',
  '["Small Print" V.',
  '      (http://www.ibiblio.org/gutenberg/',
  'and the Project Gutenberg Online Distributed Proofreading Team',
  'Mary Meehan, and the Project Gutenberg Online Distributed Proofreading',
  '                this Project Gutenberg edition.',
];

/** Lines that start the footer (from the 100th kept line on). */
const FOOTER_MARKERS: readonly string[] = [
  '*** END OF THE PROJECT GUTENBERG',
  '*** END OF THIS PROJECT GUTENBERG',
  '***END OF THE PROJECT GUTENBERG',
  'End of the Project Gutenberg',
  'End of The Project Gutenberg',
  'Ende dieses Project Gutenberg',
  'by Project Gutenberg',
  'End of Project Gutenberg',
  'End of this Project Gutenberg',
  'Ende dieses Projekt Gutenberg',
  '        ***END OF THE PROJECT GUTENBERG',
  '*** END OF THE COPYRIGHTED',
  'End of this is COPYRIGHTED',
  'Ende dieses Etextes ',
  'Ende dieses Project Gutenber',
  'Ende diese Project Gutenberg',
  '**This is a COPYRIGHTED Project Gutenberg Etext, Details Above**',
  'Fin de Project Gutenberg',
  'The Project Gutenberg Etext of ',
  'Ce document fut presente en lecture',
  'Ce document fut présenté en lecture',
  'More information about this book is at the top of this file.',
  'We need your donations more than ever!',
  'END OF PROJECT GUTENBERG',
  ' End of the Project Gutenberg',
  ' *** END OF THIS PROJECT GUTENBERG',
];

/** The footer line that ends the text wherever it occurs (see the module comment). */
const HARD_END = /^\s*\*{3} ?END OF (THE|THIS) PROJECT GUTENBERG/i;

/**
 * The notice the World Library editions repeat: from a line starting with the first marker to a
 * line holding the second.
 */
const LEGALESE_START = '<<THIS ELECTRONIC VERSION OF';
const LEGALESE_END = 'SERVICE THAT CHARGES FOR DOWNLOAD';

/** Kept lines within which a header marker may still restart the text. */
const HEADER_LINES = 600;
/** Kept lines before which a footer marker is not yet believed (a title page may mention Gutenberg). */
const FOOTER_AFTER = 100;

const startsWithAny = (line: string, markers: readonly string[]) => markers.some((m) => line.startsWith(m));

/**
 * The book without its Project Gutenberg header, footer and licence (rules in the module comment).
 * Lines are joined with `\n` whatever the input used; blank lines at either end are dropped.
 * @example stripGutenbergHeaders(raw).startsWith('PRIDE AND PREJUDICE') // for ebook #1342
 */
export function stripGutenbergHeaders(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  let out: string[] = [];
  let kept = 0; // like the original, counts every kept line, including those a later header marker discards
  let legalese = false;
  for (const line of lines) {
    if (legalese || line.startsWith(LEGALESE_START)) {
      legalese = !line.includes(LEGALESE_END);
      continue;
    }
    if (kept <= HEADER_LINES && startsWithAny(line, HEADER_MARKERS)) {
      out = [];
      continue;
    }
    if (HARD_END.test(line) || (kept >= FOOTER_AFTER && startsWithAny(line, FOOTER_MARKERS))) break;
    out.push(line);
    kept++;
  }
  let a = 0,
    b = out.length;
  while (a < b && out[a].trim() === '') a++;
  while (b > a && out[b - 1].trim() === '') b--;
  return out.slice(a, b).join('\n');
}

/** What the header of a Project Gutenberg file says about the book (fields absent when not found). */
export interface GutenbergHeader {
  /** The ebook number ("[EBook #1342]", or the "should be named 1342-0.txt" line of the footer). */
  readonly ebook?: number;
  readonly title?: string;
  readonly author?: string;
  readonly language?: string;
}

/**
 * `Field: value` of the header, with its continuation lines: the following non-blank lines that
 * do not start another field (`Author:` right after a two-line `Title:` is a field, not more title).
 */
function headerField(head: string, name: string): string | undefined {
  // a continuation line: not blank, not `Name:` of another field
  const more = `(?:\\r?\\n(?![ \\t]*\\r?\\n)(?![A-Z][A-Za-z ]{1,30}:)[^\\r\\n]+)*`;
  const m = new RegExp(`^${name}:[ \\t]*(.+${more})`, 'm').exec(head);
  return m ? m[1].replace(/\s+/g, ' ').trim() : undefined;
}

/**
 * Read the header of a Project Gutenberg file: ebook number, title, author and language.
 * @example
 * parseGutenbergHeader(raw)
 * // { ebook: 1342, title: 'Pride and Prejudice', author: 'Jane Austen', language: 'English' }
 */
export function parseGutenbergHeader(text: string): GutenbergHeader {
  const startAt = text.search(/^\s*\*{3} ?START OF (THE|THIS) PROJECT GUTENBERG/im);
  const head = text.slice(0, startAt > 0 ? startAt : Math.min(text.length, 20_000));
  let ebook: number | undefined;
  const m = /\[(?:e-?book|etext) *#(\d+)\]/i.exec(head) ?? /\b(?:e-?book|etext) *#(\d+)/i.exec(head);
  if (m) ebook = Number(m[1]);
  else {
    const named = /should be named (\d+)(?:-\d|\.txt|\.zip)/i.exec(text.slice(-40_000));
    if (named) ebook = Number(named[1]);
  }
  const title = headerField(head, 'Title');
  const author = headerField(head, 'Author');
  const language = headerField(head, 'Language');
  return {
    ...(ebook === undefined || !Number.isSafeInteger(ebook) ? {} : { ebook }),
    ...(title === undefined ? {} : { title }),
    ...(author === undefined ? {} : { author }),
    ...(language === undefined ? {} : { language }),
  };
}
