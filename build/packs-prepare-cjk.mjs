// Prepare the texts of the Japanese and Chinese reference packs (packs/aozora/, packs/chinese-classics/) from
// their public sources, so that `trainprint pack build packs/<name>/manifest.json --texts <dir>` can build them.
//
//   node build/packs-prepare-cjk.mjs aozora --repo GITDIR [--texts DIR] [--select] [--held-out]
//   node build/packs-prepare-cjk.mjs chinese-classics --repo GITDIR --extra chinese-poetry=GITDIR --extra laozi=GITDIR
//     [--texts DIR] [--select] [--held-out]
//
// GITDIR is a git directory (a clone, bare or not) of the pack's source repository that has the manifest's commit:
// aozorahack/aozorabunko_text for `aozora` (the plain-text files of Aozora Bunko, https://www.aozora.gr.jp/, one
// per card, in Shift_JIS with Aozora's ruby and annotation marks), oscarsun72/chtxt for `chinese-classics` (a
// fork of bgc2017/chtxt: classical Chinese texts in traditional characters, UTF-8, one file per work; --extra:
// chinese-poetry/chinese-poetry and MarkHershey/Laozi, the simplified 论语 and 道德经).
// Texts are written to DIR (default pack-texts/<name>/, git-ignored): the pack holds only hashes of them.
//
// Without --select the manifest decides: exactly its documents are extracted, cleaned and checked against their
// SHA-256 (exit code 1 on any difference). With --select the lists below are read again and the manifest's
// manifest rewritten from the templates below (`built` set to today). --held-out also writes the works kept out of the pack (the
// natural negatives of bench/languages/ja.mjs and zh.mjs) to DIR-held-out/, cleaned the same way.
//
// Kept apart from build/packs-prepare.mjs (the English packs): nothing here needs dist/.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const today = () => new Date().toISOString().slice(0, 10);

// ------------------------------------------------------------------------------------------ cleaning

/**
 * The running text of an Aozora Bunko plain-text file: Shift_JIS decoded; the title and author lines, the block
 * that explains the marks (between the first two rules of hyphens) and the colophon (from 底本：) dropped; ruby
 * readings 《…》, their start mark ｜ and the inputters' notes ［＃…］ (with the ※ that flags a character outside
 * JIS X 0208) removed — what a reader of the printed book sees, as the web copies of these works carry it.
 */
export function aozoraText(bytes) {
  const raw = new TextDecoder('shift_jis', { fatal: true }).decode(bytes).replace(/\r\n?/g, '\n');
  const lines = raw.split('\n');
  let start = 0;
  const rules = [];
  for (let i = 0; i < Math.min(lines.length, 60) && rules.length < 2; i++) {
    if (/^-{20,}$/.test(lines[i])) rules.push(i);
  }
  if (rules.length === 2) start = rules[1] + 1;
  else start = lines.findIndex((l, i) => i > 0 && l.trim() === '') + 1;
  let end = lines.findIndex((l, i) => i >= start && /^底本[：:]/.test(l));
  if (end < 0) end = lines.length;
  return `${lines
    .slice(start, end)
    .join('\n')
    .replace(/※?［＃[^］]*］/g, '')
    .replace(/《[^》]*》/g, '')
    .replace(/｜/g, '')
    .replace(/[ \t\u3000]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/**
 * The text of a chtxt file: the four `#` lines of its header (download address, issue tracker, dates) dropped and
 * the Markdown heading marks taken off the titles of books and chapters.
 */
export function chtxtText(bytes) {
  const raw = new TextDecoder('utf-8', { fatal: true })
    .decode(bytes)
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n');
  return `${raw
    .split('\n')
    .filter((l) => !/^#(下載|如果|創建|更新)/.test(l))
    .map((l) => l.replace(/^#+\s*/, ''))
    .join('\n')
    .replace(/[ \t\u3000]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/**
 * The text of a chinese-poetry JSON book (论语/lunyu.json: [{ chapter, paragraphs }]): each chapter's title, then its
 * paragraphs, one a line.
 */
export function chapterJsonText(bytes) {
  const chapters = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  return `${chapters.map((c) => [c.chapter, ...c.paragraphs].join('\n')).join('\n\n')}\n`;
}

/** A plain UTF-8 text as it is, line ends made LF. */
export function plainText(bytes) {
  return `${new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/\r\n?/g, '\n').trim()}\n`;
}

// ------------------------------------------------------------------------------------------ the packs

const AOZORA_NOTE =
  'Aozora Bunko (青空文庫, https://www.aozora.gr.jp/) publishes Japanese works whose copyright has expired, as typed by volunteers; aozorahack/aozorabunko_text holds the plain-text file of every card, extracted from the site’s ZIP archives.';

/** [id, card folder and file under cards/, title, author]: famous works of authors dead before 1968. */
const AOZORA_WORKS = [
  ['natsume-wagahai', '000148/files/789_ruby_5639/789_ruby_5639.txt', '吾輩は猫である', '夏目漱石'],
  ['natsume-kokoro', '000148/files/773_ruby_5968/773_ruby_5968.txt', 'こころ', '夏目漱石'],
  ['natsume-botchan', '000148/files/752_ruby_2438/752_ruby_2438.txt', '坊っちゃん', '夏目漱石'],
  ['natsume-sanshiro', '000148/files/794_ruby_4237/794_ruby_4237.txt', '三四郎', '夏目漱石'],
  ['natsume-kusamakura', '000148/files/776_ruby_6020/776_ruby_6020.txt', '草枕', '夏目漱石'],
  ['natsume-yume-juya', '000148/files/799_ruby_6024/799_ruby_6024.txt', '夢十夜', '夏目漱石'],
  ['akutagawa-rashomon', '000879/files/127_ruby_150/127_ruby_150.txt', '羅生門', '芥川龍之介'],
  ['akutagawa-hana', '000879/files/42_ruby_154/42_ruby_154.txt', '鼻', '芥川龍之介'],
  ['akutagawa-kumo-no-ito', '000879/files/92_ruby_164/92_ruby_164.txt', '蜘蛛の糸', '芥川龍之介'],
  ['akutagawa-jigokuhen', '000879/files/60_ruby_821/60_ruby_821.txt', '地獄変', '芥川龍之介'],
  ['akutagawa-yabu-no-naka', '000879/files/179_ruby_168/179_ruby_168.txt', '藪の中', '芥川龍之介'],
  ['akutagawa-toshishun', '000879/files/170_ruby_348/170_ruby_348.txt', '杜子春', '芥川龍之介'],
  ['akutagawa-kappa', '000879/files/69_ruby_1321/69_ruby_1321.txt', '河童', '芥川龍之介'],
  ['akutagawa-imogayu', '000879/files/55_ruby_1843/55_ruby_1843.txt', '芋粥', '芥川龍之介'],
  ['akutagawa-torokko', '000879/files/43016_ruby_16663/43016_ruby_16663.txt', 'トロッコ', '芥川龍之介'],
  ['mori-maihime', '000129/files/2078_ruby_15898/2078_ruby_15898.txt', '舞姫', '森鴎外'],
  ['mori-takasebune', '000129/files/691_ruby_15351/691_ruby_15351.txt', '高瀬舟', '森鴎外'],
  ['mori-sansho-dayu', '000129/files/689_ruby_23256/689_ruby_23256.txt', '山椒大夫', '森鴎外'],
  ['dazai-hashire-merosu', '000035/files/1567_ruby_4948/1567_ruby_4948.txt', '走れメロス', '太宰治'],
  ['dazai-ningen-shikkaku', '000035/files/301_ruby_5915/301_ruby_5915.txt', '人間失格', '太宰治'],
  ['miyazawa-ginga-tetsudo', '000081/files/456_ruby_145/456_ruby_145.txt', '銀河鉄道の夜', '宮沢賢治'],
  ['miyazawa-chumon', '000081/files/43754_ruby_17594/43754_ruby_17594.txt', '注文の多い料理店', '宮沢賢治'],
  ['higuchi-takekurabe', '000064/files/389_ruby_15296/389_ruby_15296.txt', 'たけくらべ', '樋口一葉'],
  ['kajii-remon', '000074/files/424_ruby_19825/424_ruby_19825.txt', '檸檬', '梶井基次郎'],
];

/** Works of the same authors and era kept out of the pack: the natural negatives (no other edition of a packed work). */
const AOZORA_HELD_OUT = [
  ['natsume-mon', '000148/files/785_ruby_1656/785_ruby_1656.txt', '門', '夏目漱石'],
  ['natsume-michikusa', '000148/files/783_ruby_1311/783_ruby_1311.txt', '道草', '夏目漱石'],
  ['natsume-garasudo', '000148/files/760_ruby_2341/760_ruby_2341.txt', '硝子戸の中', '夏目漱石'],
  ['akutagawa-momotaro', '000879/files/100_ruby_1154/100_ruby_1154.txt', '桃太郎', '芥川龍之介'],
  ['akutagawa-mori-sensei', '000879/files/101_ruby_857/101_ruby_857.txt', '毛利先生', '芥川龍之介'],
  ['akutagawa-nankin', '000879/files/105_ruby_773/105_ruby_773.txt', '南京の基督', '芥川龍之介'],
  ['mori-gan', '000129/files/45224_ruby_19890/45224_ruby_19890.txt', '雁', '森鴎外'],
  ['mori-abe-ichizoku', '000129/files/673_ruby_23254/673_ruby_23254.txt', '阿部一族', '森鴎外'],
  ['dazai-shayo', '000035/files/1565_ruby_8220/1565_ruby_8220.txt', '斜陽', '太宰治'],
  ['dazai-tsugaru', '000035/files/2282_ruby_1996/2282_ruby_1996.txt', '津軽', '太宰治'],
  ['miyazawa-polano', '000081/files/1935_ruby_19924/1935_ruby_19924.txt', 'ポラーノの広場', '宮沢賢治'],
  ['miyazawa-matasaburo', '000081/files/462_ruby_716/462_ruby_716.txt', '風の又三郎', '宮沢賢治'],
  ['kajii-shiro', '000074/files/429_ruby_522/429_ruby_522.txt', '城のある町にて', '梶井基次郎'],
  ['higuchi-nigorie', '000064/files/387_ruby_15292/387_ruby_15292.txt', 'にごりえ', '樋口一葉'],
  ['yumeno-shojo-jigoku', '000096/files/935_ruby_23283/935_ruby_23283.txt', '少女地獄', '夢野久作'],
  ['tanaka-shunshin', '000154/files/52276_ruby_47121/52276_ruby_47121.txt', '春心', '田中貢太郎'],
];

/**
 * [id, path, title, author, source]: the classics of the chtxt collection in traditional characters, and the two most
 * quoted in simplified characters too (a simplified copy shares no character n-gram with a traditional one wherever
 * a character differs: 學而時習之 / 学而时习之). Not 列子: it tells whole stories of 莊子 in the same words, so a
 * passage of both could only be named by one of them.
 */
const CHTXT_WORKS = [
  ['lunyu', 'a.儒家/論語.txt', '論語', '孔子弟子'],
  ['mengzi', 'a.儒家/孟子.txt', '孟子', '孟軻'],
  ['daxue', 'a.儒家/大學.txt', '大學', ''],
  ['zhongyong', 'a.儒家/中庸.txt', '中庸', '子思'],
  ['xiaojing', 'a.儒家/孝經.txt', '孝經', ''],
  ['daodejing', 'b.道家/道德經.txt', '道德經', '老子'],
  ['zhuangzi', 'b.道家/莊子.txt', '莊子', '莊周'],
  ['sunzi', 'd.兵家/孫子兵法.txt', '孫子兵法', '孫武'],
  ['shijing', '0.詩詞/a.詩經.txt', '詩經', ''],
  ['chuci', '0.詩詞/b.楚辭.txt', '楚辭', '屈原等'],
  ['sanzijing', 'n.蒙學/三字經.txt', '三字經', '王應麟'],
  ['qianziwen', 'n.蒙學/千字文.txt', '千字文', '周興嗣'],
  ['lunyu-simplified', '论语/lunyu.json', '论语 (简体)', '孔子弟子', 'chinese-poetry'],
  ['daodejing-simplified', 'texts/CN1.txt', '道德经 (简体, 王弼本)', '老子', 'laozi'],
];

/** Histories of other ages kept out of the pack: classical prose that quotes the classics only now and then. */
const CHTXT_HELD_OUT = [
  ['beiqishu', 'j.史書/北齊書.txt', '北齊書', '李百藥'],
  ['chenshu', 'j.史書/陳書.txt', '陳書', '姚思廉'],
  ['zhoushu', 'j.史書/周書.txt', '周書', '令狐德棻'],
  ['liangshu', 'j.史書/梁書.txt', '梁書', '姚思廉'],
  ['liaoshi', 'j.史書/遼史.txt', '遼史', '脫脫等'],
  ['heguanzi', 'b.道家/鶡冠子.txt', '鶡冠子', ''],
];

const LICENCE_NOTE =
  'The pack holds hashes of character n-grams, not the texts; check the copyright laws of your country before using the texts themselves.';

/** Everything of each pack but its documents (the manifest template). */
export const CJK_PACKS = {
  aozora: {
    source: 'aozorahack/aozorabunko_text',
    commit: '0984f7dc18a2270bdfd2ff99bf14fd1b3ebb4f65',
    prefix: 'cards/',
    works: AOZORA_WORKS,
    heldOut: AOZORA_HELD_OUT,
    clean: aozoraText,
    manifest: {
      format: 'trainprint.pack-manifest',
      version: 1,
      id: 'pack:aozora',
      name: 'Aozora Bunko — Japanese novels and stories (Sōseki, Akutagawa, Ōgai, Dazai, Kenji …)',
      pack_version: '1.0.0',
      description:
        'Twenty-four famous Japanese works in the public domain (吾輩は猫である, こころ, 坊っちゃん, 羅生門, 鼻, 蜘蛛の糸, 舞姫, 走れメロス, 人間失格, 銀河鉄道の夜 …) as Aozora Bunko publishes them, ruby readings and inputters’ notes removed.',
      kb_dataset: 'common-crawl',
      kb_note:
        'Aozora Bunko is a public web library crawled by Common Crawl; the multilingual corpora built from Common Crawl (mC4: Xue et al., arXiv 2010.11934; OSCAR: Ortiz Suárez et al. 2019; CC-100) hold its pages. No documented training dataset lists Aozora Bunko as a component of its own, so the link is to the crawl, not to a curated books corpus.',
      window: 8,
      built: '2026-11-28',
      sources: [
        {
          repository: 'aozorahack/aozorabunko_text',
          url: 'https://github.com/aozorahack/aozorabunko_text',
          commit: '0984f7dc18a2270bdfd2ff99bf14fd1b3ebb4f65',
          note: AOZORA_NOTE,
        },
      ],
      licence: {
        texts: 'Public domain in Japan and the USA (authors who died before 1968; Aozora Bunko’s “著作権切れ” works)',
        note: LICENCE_NOTE,
      },
      selection:
        'Famous works of seven authors (夏目漱石, 芥川龍之介, 森鴎外, 太宰治, 宮沢賢治, 樋口一葉, 梶井基次郎): the list in build/packs-prepare-cjk.mjs; other works of the same authors are kept out as natural negatives.',
      documents: [],
    },
  },
  'chinese-classics': {
    source: 'oscarsun72/chtxt',
    commit: 'a8469ffeb36cfd9ef425a99ac90c5d20c4ba6108',
    prefix: '',
    extras: {
      'chinese-poetry': {
        source: 'chinese-poetry/chinese-poetry',
        commit: '99ebbef7e1345c0985c44b9fd96a3f9e776f117b',
        clean: chapterJsonText,
      },
      laozi: { source: 'MarkHershey/Laozi', commit: '0d8ecb97b05ab111ebc7bfb8079966be367bd47d', clean: plainText },
    },
    works: CHTXT_WORKS,
    heldOut: CHTXT_HELD_OUT,
    clean: chtxtText,
    manifest: {
      format: 'trainprint.pack-manifest',
      version: 1,
      id: 'pack:chinese-classics',
      name: 'Chinese classics — 論語, 道德經, 孟子, 莊子, 詩經 … (traditional characters)',
      pack_version: '1.0.0',
      description:
        'Twelve pre-modern Chinese classics in traditional characters: the Four Books (論語, 孟子, 大學, 中庸), 孝經, 道德經, 莊子, 孫子兵法, 詩經, 楚辭, 三字經 and 千字文, as the chtxt collection edits them (punctuated); and 论语 and 道德经 in simplified characters.',
      kb_dataset: 'common-crawl',
      kb_note:
        'These texts are on many public web pages (ctext.org, Wikisource, chinese-poetry) that Common Crawl crawls; the multilingual corpora built from it (mC4: Xue et al., arXiv 2010.11934; OSCAR; CC-100) hold them many times. No documented training dataset lists this collection as a component of its own, so the link is to the crawl.',
      window: 8,
      built: '2026-11-28',
      sources: [
        {
          repository: 'oscarsun72/chtxt',
          url: 'https://github.com/oscarsun72/chtxt',
          commit: 'a8469ffeb36cfd9ef425a99ac90c5d20c4ba6108',
          note: 'A fork of bgc2017/chtxt: classical Chinese texts gathered from free public sources and proof-read, one UTF-8 file per work.',
        },
        {
          repository: 'chinese-poetry/chinese-poetry',
          url: 'https://github.com/chinese-poetry/chinese-poetry',
          commit: '99ebbef7e1345c0985c44b9fd96a3f9e776f117b',
          note: 'The Analects in simplified characters (论语/lunyu.json, chapters and paragraphs), MIT-licensed collection of public-domain texts.',
        },
        {
          repository: 'MarkHershey/Laozi',
          url: 'https://github.com/MarkHershey/Laozi',
          commit: '0d8ecb97b05ab111ebc7bfb8079966be367bd47d',
          note: 'The Daodejing in simplified characters, the received (Wang Bi) text (texts/CN1.txt).',
        },
      ],
      licence: {
        texts: 'Public domain (works written before 1500; the punctuation of the edition is not original work)',
        note: LICENCE_NOTE,
      },
      selection:
        'The Four Books, 孝經, the Daoist classics 道德經 and 莊子 (not 列子, which repeats stories of 莊子 word for word), 孫子兵法, 詩經, 楚辭 and two primers: the list in build/packs-prepare-cjk.mjs; dynastic histories are kept out as natural negatives.',
      documents: [],
    },
  },
};

// ------------------------------------------------------------------------------------------ git

const execGit = promisify(execFile);

/** The output of `git --git-dir DIR ARGS…` as bytes (a work is at most a few MB). */
const git = async (gitDir, args) =>
  (await execGit('git', ['--git-dir', gitDir, ...args], { encoding: 'buffer', maxBuffer: 1 << 28 })).stdout;

/** The git directory of `dir`: itself when bare, `dir/.git` for a work tree. */
function gitDirOf(dir) {
  const d = resolve(dir);
  return existsSync(join(d, '.git')) ? join(d, '.git') : d;
}

/**
 * The cleaned texts of `list` ([id, path, title, author, source key]) at the manifest's commits: Map id → { entry,
 * bytes }. `repos` maps a source key ('' for the pack's main source) to its git directory.
 */
export async function extractWorks(repos, pack, list) {
  const out = new Map();
  for (const [id, path, title, author, key = ''] of list) {
    const from = key ? pack.extras[key] : { source: pack.source, commit: pack.commit, clean: pack.clean };
    if (!repos[key]) throw new Error(`--extra ${key}=GITDIR is needed (a clone of ${from.source})`);
    const source_path = key ? path : `${pack.prefix}${path}`;
    const raw = await git(gitDirOf(repos[key]), ['cat-file', 'blob', `${from.commit}:${source_path}`]);
    const bytes = Buffer.from(from.clean(raw), 'utf8');
    out.set(id, {
      entry: {
        id,
        file: `${id}.txt`,
        title,
        ...(author ? { author } : {}),
        source: from.source,
        source_path,
        sha256: sha256(bytes),
        bytes: bytes.length,
      },
      bytes,
    });
  }
  return out;
}

function writeAll(dir, works) {
  mkdirSync(dir, { recursive: true });
  for (const { entry, bytes } of works.values()) writeFileSync(join(dir, entry.file), bytes);
}

// ------------------------------------------------------------------------------------------ main

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      repo: { type: 'string' },
      extra: { type: 'string', multiple: true },
      texts: { type: 'string' },
      select: { type: 'boolean' },
      'held-out': { type: 'boolean' },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  const pack = CJK_PACKS[name];
  if (!pack || !values.repo) {
    console.error(
      'usage: node build/packs-prepare-cjk.mjs aozora|chinese-classics --repo GITDIR [--extra KEY=GITDIR …] [--texts DIR] [--select] [--held-out]',
    );
    process.exit(2);
  }
  const manifestPath = join(root, 'packs', name, 'manifest.json');
  const dir = resolve(values.texts ?? join(root, 'pack-texts', name));
  const repos = { '': values.repo };
  for (const e of values.extra ?? []) repos[e.slice(0, e.indexOf('='))] = e.slice(e.indexOf('=') + 1);
  const works = await extractWorks(repos, pack, pack.works);
  writeAll(dir, works);
  if (values['held-out']) writeAll(`${dir}-held-out`, await extractWorks(repos, pack, pack.heldOut));
  if (values.select) {
    // the template above is the manifest's text: a new selection rewrites it whole
    const manifest = { ...pack.manifest, built: today(), documents: [...works.values()].map((w) => w.entry) };
    mkdirSync(dirname(manifestPath), { recursive: true });
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    console.error(`wrote ${manifestPath}: ${manifest.documents.length} documents`);
    return;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  let bad = 0;
  for (const d of manifest.documents) {
    const w = works.get(d.id);
    if (!w || w.entry.sha256 !== d.sha256 || w.entry.bytes !== d.bytes) {
      console.error(`differs: ${d.id} (${d.source_path}): SHA-256 ${w?.entry.sha256}, expected ${d.sha256}`);
      bad++;
    }
  }
  console.error(
    `${dir}: ${manifest.documents.length - bad} of ${manifest.documents.length} texts as the manifest names them`,
  );
  if (bad) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
