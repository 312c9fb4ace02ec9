/**
 * Authors' death years, for the copyright terms that run from them (./copyright-terms.ts): the authors of the Project
 * Gutenberg reference pack (packs/gutenberg, Project Gutenberg's "Top 100 Authors") whose years of death are
 * undisputed, each with the article that states them (English Wikipedia). An author not listed has no death year
 * here: the term is then "unknown", never guessed. For a work of joint authorship the later death counts (Directive
 * 2006/116/EC art. 1(2); CDPA 1988 s.12(8)). A translation or an edition has terms of its own (its translator's,
 * its editor's), which this table does not hold.
 */

/** One author: the name the knowledge base gives, the year of death, other names the pack's texts use. */
export interface KbAuthor {
  readonly name: string;
  /** Year of death (of the last surviving author, for joint authors). */
  readonly died: number;
  /** Where the year is stated. */
  readonly source: string;
}

const wiki = (article: string) => `https://en.wikipedia.org/wiki/${article}`;

/** [name, year of death, article, other names]. */
const ROWS: ReadonlyArray<readonly [string, number, string, readonly string[]]> = [
  ['Alexander Pope', 1744, 'Alexander_Pope', []],
  ['Alexandre Dumas', 1870, 'Alexandre_Dumas', ['Alexandre Dumas pere']],
  ['Algernon Blackwood', 1951, 'Algernon_Blackwood', []],
  ['Andrew Lang', 1912, 'Andrew_Lang', []],
  ['Anne Brontë', 1849, 'Anne_Brontë', ['Acton Bell']],
  ['Anthony Trollope', 1882, 'Anthony_Trollope', []],
  ['Anton Chekhov', 1904, 'Anton_Chekhov', ['Anton Checkov', 'Anton Pavlovich Chekhov']],
  ['Agatha Christie', 1976, 'Agatha_Christie', []],
  ['Arthur Conan Doyle', 1930, 'Arthur_Conan_Doyle', ['Sir Arthur Conan Doyle']],
  ['Beatrix Potter', 1943, 'Beatrix_Potter', []],
  ['Benjamin Franklin', 1790, 'Benjamin_Franklin', []],
  ['Bertrand Russell', 1970, 'Bertrand_Russell', []],
  ['Bram Stoker', 1912, 'Bram_Stoker', []],
  ['Charles Darwin', 1882, 'Charles_Darwin', []],
  ['Charles Dickens', 1870, 'Charles_Dickens', []],
  ['Charlotte Brontë', 1855, 'Charlotte_Brontë', ['Currer Bell', 'AKA Charlotte Bronte Currer Bell']],
  ['Daniel Defoe', 1731, 'Daniel_Defoe', []],
  ['Dante Alighieri', 1321, 'Dante_Alighieri', []],
  ['E. Nesbit', 1924, 'E._Nesbit', ['Edith Nesbit']],
  ['Edgar Allan Poe', 1849, 'Edgar_Allan_Poe', []],
  ['Edgar Rice Burroughs', 1950, 'Edgar_Rice_Burroughs', []],
  ['Edith Wharton', 1937, 'Edith_Wharton', []],
  ['Edward Gibbon', 1794, 'Edward_Gibbon', []],
  ['Émile Zola', 1902, 'Émile_Zola', []],
  ['Emily Brontë', 1848, 'Emily_Brontë', ['Ellis Bell']],
  ['Frances Hodgson Burnett', 1924, 'Frances_Hodgson_Burnett', []],
  ['François Rabelais', 1553, 'François_Rabelais', []],
  ['Franz Kafka', 1924, 'Franz_Kafka', []],
  ['Frederik Pohl', 2013, 'Frederik_Pohl', []],
  ['Friedrich Nietzsche', 1900, 'Friedrich_Nietzsche', ['F W Nietzsche']],
  ['Fyodor Dostoevsky', 1881, 'Fyodor_Dostoevsky', ['Fyodor Dostoyevsky', 'Feodor Dostoevsky', 'Fiodor Dostoievski']],
  ['G. A. Henty', 1902, 'G._A._Henty', []],
  ['G. K. Chesterton', 1936, 'G._K._Chesterton', ['Gilbert Keith Chesterton', 'Gilbert K Chesterton']],
  ['George Bernard Shaw', 1950, 'George_Bernard_Shaw', ['Bernard Shaw']],
  ['Guy de Maupassant', 1893, 'Guy_de_Maupassant', []],
  ['H. G. Wells', 1946, 'H._G._Wells', ['Herbert George Wells']],
  ['Hans Christian Andersen', 1875, 'Hans_Christian_Andersen', []],
  ['Henrik Ibsen', 1906, 'Henrik_Ibsen', []],
  ['Henry David Thoreau', 1862, 'Henry_David_Thoreau', ['Henry D Thoreau']],
  ['Henry James', 1916, 'Henry_James', []],
  ['Herman Melville', 1891, 'Herman_Melville', []],
  ['Hermann Hesse', 1962, 'Hermann_Hesse', ['Herman Hesse']],
  ['Honoré de Balzac', 1850, 'Honoré_de_Balzac', []],
  ['Horace Walpole', 1797, 'Horace_Walpole', []],
  ['Horatio Alger', 1899, 'Horatio_Alger', ['Horatio Alger Jr']],
  ['Israel Zangwill', 1926, 'Israel_Zangwill', []],
  ['Ivan Bunin', 1953, 'Ivan_Bunin', ['Ivan Alekseyevich Bunin']],
  ['Ivan Turgenev', 1883, 'Ivan_Turgenev', []],
  ['J. M. Barrie', 1937, 'J._M._Barrie', ['James M Barrie', 'James Matthew Barrie']],
  ['J. R. R. Tolkien', 1973, 'J._R._R._Tolkien', ['John Ronald Reuel Tolkien']],
  ['Jack London', 1916, 'Jack_London', []],
  [
    'Jacob and Wilhelm Grimm',
    1863,
    'Brothers_Grimm',
    ['The Brothers Grimm', 'Brothers Grimm', 'Jacob Grimm and Wilhelm Grimm', 'Jacob Grimm Wilhelm Grimm'],
  ],
  ['James Joyce', 1941, 'James_Joyce', []],
  ['Jane Austen', 1817, 'Jane_Austen', []],
  ['Joel Chandler Harris', 1908, 'Joel_Chandler_Harris', []],
  ['Johann Wolfgang von Goethe', 1832, 'Johann_Wolfgang_von_Goethe', ['Johann Wolfgang Goethe', 'J W von Goethe']],
  ['John Milton', 1674, 'John_Milton', []],
  ['Jonathan Swift', 1745, 'Jonathan_Swift', []],
  ['Joseph Conrad', 1924, 'Joseph_Conrad', []],
  ['Jules Verne', 1905, 'Jules_Verne', []],
  ['L. Frank Baum', 1919, 'L._Frank_Baum', ['Lyman Frank Baum']],
  ['Leo Tolstoy', 1910, 'Leo_Tolstoy', ['Leo Tolstoi', 'Lev Tolstoy', 'Count Lyof N Tolstoi']],
  ['Lester del Rey', 1993, 'Lester_del_Rey', []],
  [
    'Lewis Carroll',
    1898,
    'Lewis_Carroll',
    ['Charles Dodgson', 'Charles Lutwidge Dodgson', 'Charles Dodgson AKA Lewis Carroll'],
  ],
  ['Louisa May Alcott', 1888, 'Louisa_May_Alcott', ['Louisa M Alcott']],
  ['Lucy Maud Montgomery', 1942, 'Lucy_Maud_Montgomery', ['L M Montgomery']],
  ['Maria Edgeworth', 1849, 'Maria_Edgeworth', []],
  ['Mark Twain', 1910, 'Mark_Twain', ['Samuel Clemens', 'Samuel Langhorne Clemens']],
  ['Mary Shelley', 1851, 'Mary_Shelley', ['Mary W Shelley', 'Mary Wollstonecraft Shelley']],
  ['Miguel de Cervantes', 1616, 'Miguel_de_Cervantes', ['Miguel de Cervantes Saavedra']],
  ['Nathaniel Hawthorne', 1864, 'Nathaniel_Hawthorne', []],
  ['Oscar Wilde', 1900, 'Oscar_Wilde', []],
  ['P. G. Wodehouse', 1975, 'P._G._Wodehouse', []],
  ['Paul Laurence Dunbar', 1906, 'Paul_Laurence_Dunbar', []],
  ['Richard Francis Burton', 1890, 'Richard_Francis_Burton', ['Richard F Burton', 'Sir Richard Francis Burton']],
  ['Robert Louis Stevenson', 1894, 'Robert_Louis_Stevenson', []],
  ['Rudyard Kipling', 1936, 'Rudyard_Kipling', []],
  ['Thomas Hardy', 1928, 'Thomas_Hardy', []],
  ['Thomas Henry Huxley', 1895, 'Thomas_Henry_Huxley', []],
  ['Thomas Love Peacock', 1866, 'Thomas_Love_Peacock', []],
  ['Thomas More', 1535, 'Thomas_More', []],
  ['Voltaire', 1778, 'Voltaire', []],
  ['Walt Whitman', 1892, 'Walt_Whitman', []],
  ['Walter Scott', 1832, 'Walter_Scott', ['Sir Walter Scott']],
  ['Washington Irving', 1859, 'Washington_Irving', []],
  ['Wilkie Collins', 1889, 'Wilkie_Collins', []],
  ['William Beckford', 1844, 'William_Beckford_(novelist)', []],
  ['William Shakespeare', 1616, 'William_Shakespeare', []],
];

/**
 * A name as names are compared: diacritics, case, a parenthesis (`G. K. (Gilbert Keith) Chesterton`), dots and commas
 * dropped, initials run together (`G.K.` = `G. K.`), spaces collapsed.
 * @example authorKey('G. K. (Gilbert Keith) Chesterton') // 'g k chesterton'
 */
export function authorKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\([^)]*\)/g, ' ')
    .replace(/[.,]/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** The table by {@link authorKey} of every name, built on first use (a scan or a fingerprint reads no author). */
let byKeyTable: ReadonlyMap<string, KbAuthor> | null = null;

/**
 * The table by key: made on the first look-up rather than at the library's load, where normalising its names and
 * compiling the key's Unicode-aware expression cost a few milliseconds of every process's start.
 */
function byKey(): ReadonlyMap<string, KbAuthor> {
  if (byKeyTable !== null) return byKeyTable;
  const map = new Map<string, KbAuthor>();
  for (const [name, died, article, aliases] of ROWS) {
    const author = Object.freeze({ name, died, source: wiki(article) });
    for (const n of [name, ...aliases]) map.set(authorKey(n), author);
  }
  byKeyTable = map;
  return map;
}

/**
 * The knowledge base's author of that name (any of the names listed, compared by {@link authorKey}), or null.
 * @example kbAuthor('G.K. Chesterton')?.died // 1936
 */
export function kbAuthor(name: string): KbAuthor | null {
  return byKey().get(authorKey(name)) ?? null;
}

/**
 * Every author of the table, by name.
 * @example kbAuthors().length // 87
 */
export function kbAuthors(): KbAuthor[] {
  return [...new Set(byKey().values())].sort((a, b) => (a.name < b.name ? -1 : 1));
}
