/**
 * The web app of `npm start` (`trainprint serve --starter`, the built CLI, its default packs) in headless Chromium,
 * with texts in German and Japanese pasted into the analyze view: a German essay quoting the opening of *Die
 * Verwandlung* between „ and “, and a Japanese one quoting the opening of 吾輩は猫である between 「 and 」. The page
 * names the work, shows the confidence, highlights the quoted span on the very characters the API reports (umlauts,
 * ß and kana are one UTF-16 unit each; a stray byte offset would shift the mark) and shows the quotation apart. Both
 * the page's own engine (in this browser, the mode a visitor gets) and the served API (the server's engine) are
 * checked, and they agree with each other to the character.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireChromium } from '../fixtures/chromium.js';
import { requireBuiltCli, type ServeProcess, startServe, stopProcess } from '../fixtures/serve-process.js';

const output = fileURLToPath(new URL('../output', import.meta.url));
const running: ChildProcess[] = [];
let serve: ServeProcess;
let tmp: string;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

/** A German essay of its author's own words quoting Kafka's first two sentences between „ and “. */
const KAFKA =
  'Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er sich in seinem Bett zu einem ungeheueren ' +
  'Ungeziefer verwandelt. Er lag auf seinem panzerartig harten Rücken und sah, wenn er den Kopf ein wenig hob, ' +
  'seinen gewölbten, braunen, von bogenförmigen Versteifungen geteilten Bauch, auf dessen Höhe sich die Bettdecke, ' +
  'zum gänzlichen Niedergleiten bereit, kaum noch erhalten konnte.';
const GERMAN = [
  'Im Herbst habe ich meiner Tochter zum ersten Mal aus einem Buch vorgelesen, das ich selbst mit sechzehn Jahren ' +
    'kaum verstanden hatte. Wir saßen in der Küche, draußen regnete es seit dem Mittag, und sie wollte wissen, ' +
    'warum sich ein Mann über Nacht in einen Käfer verwandelt und weshalb niemand in seiner Familie zum Arzt läuft. ' +
    'Ich hatte keine gute Antwort, also las ich ihr den Anfang vor:',
  `„${KAFKA}“`,
  'Sie lachte zuerst über das Wort Ungeziefer, dann wurde sie still und schaute lange aus dem Fenster. Später am ' +
    'Abend fragte sie, ob Gregor am Ende wieder ein Mensch geworden sei, und ich wusste nicht, was ich ihr ' +
    'antworten sollte. Wir haben das Buch in der folgenden Woche zu Ende gelesen, jeden Abend ein paar Seiten, und ' +
    'danach lange über die Schwester gesprochen, über die Eltern, über die Zimmerherren und über die Arbeit, die ' +
    'einen Menschen auffressen kann, bevor er es selbst bemerkt. Seitdem fragt sie bei jedem Buch zuerst, ob darin ' +
    'jemand verwandelt wird, und ich muss jedes Mal zugeben, dass ich es vorher nicht weiß.',
].join('\n\n');

/** A Japanese essay quoting the opening of 吾輩は猫である between 「 and 」 (no spaces anywhere). */
const SOSEKI =
  '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは' +
  '記憶している。吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。';
const JAPANESE = [
  '去年の春、祖母の家の本棚で古い文庫本を見つけた。表紙はすっかり色あせていたが、最初の数行を読んだだけで、子供の頃に父が' +
    '寝る前に声に出して読んでくれた夜のことを思い出した。父は決まって同じところで笑い、私と弟もつられて笑った。',
  `「${SOSEKI}」`,
  '父はこの猫の声をいつも低い声で真似して、私たちを笑わせた。祖母はその本を私に持って帰るように言い、今でも机の横に置いて' +
    'ある。読み返すたびに、台所の匂いや、雨の日の縁側や、もう会えない人たちの声が少しずつ戻ってくる。本というものは、' +
    '書かれた言葉よりも、それを読んでくれた人のことを覚えているのかもしれない。弟にも同じ本を送ったら、すぐに電話がかかって' +
    'きて、二人で長いあいだ父の話をした。',
].join('\n\n');

interface Case {
  readonly name: string;
  readonly text: string;
  readonly quoted: string;
  readonly dataset: string;
  readonly title: string;
  /** The quotation as the page lists it: between the text's own marks. */
  readonly marks: RegExp;
  /** What its tokens are called. */
  readonly unit: string;
}
const CASES: readonly Case[] = [
  {
    name: 'German',
    text: GERMAN,
    quoted: KAFKA,
    dataset: 'pack:books-de',
    title: 'Die Verwandlung',
    marks: /quoted: „(Als )?Gregor Samsa eines Morgens .* kaum noch erhalten konnte“ — in Die Verwandlung/,
    unit: 'words',
  },
  {
    name: 'Japanese',
    text: JAPANESE,
    quoted: SOSEKI,
    dataset: 'pack:aozora',
    title: '吾輩は猫である',
    marks: /quoted: 「(吾輩は猫である。)?名前はまだ無い。.*一番獰悪な種族で[^」]*」 — in 吾輩は猫である/,
    unit: 'characters',
  },
];

/** What the served API answers for `text` (the same server the page talks to). */
async function apiAnalyze(text: string) {
  const res = await fetch(`${serve.url}/api/v1/attribution/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.dev}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: text, content_type: 'text' }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    confidence: number;
    matches: { kind: string; role?: string; dataset_id: string; query_start: number; query_end: number }[];
  };
}

/** What the page shows after analysing `text`: the marks' offsets into the shown text, the work named, the numbers. */
async function analyzeInPage(text: string) {
  await page.fill('#analyze-text', text);
  await page.click('#analyze-run');
  await page.waitForFunction(
    () => /^Done in/.test(document.getElementById('analyze-status')?.textContent ?? ''),
    null,
    {
      timeout: 120_000,
    },
  );
  return page.evaluate(() => {
    const query = document.getElementById('query-text')!;
    // each mark's [start, end) in the query box's text, counted in UTF-16 units as the API's spans are
    const marks: { start: number; end: number; quote: boolean; title: string }[] = [];
    let at = 0;
    const walker = document.createTreeWalker(query, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const len = (n.nodeValue ?? '').length;
      const mark = n.parentElement?.closest<HTMLElement>('mark.hit');
      if (mark) marks.push({ start: at, end: at + len, quote: mark.classList.contains('quote'), title: mark.title });
      at += len;
    }
    const text = (id: string) => document.getElementById(id)?.textContent ?? '';
    return {
      shown: query.textContent ?? '',
      marks,
      summary: text('analyze-result'),
      confidence: [...document.querySelectorAll('#analyze-result dl.summary > div')]
        .map((d) => d.textContent ?? '')
        .find((t) => t.startsWith('Confidence')),
      quotations: [...document.querySelectorAll('#quotation-list li')].map((li) => li.textContent ?? ''),
      table: [...document.querySelectorAll('#match-table tbody tr')].map((tr) =>
        [...tr.children].map((c) => c.textContent ?? ''),
      ),
      source: text('source-view'),
    };
  });
}

/** Marks touching one another (a span cut at a boundary of another) are one highlighted stretch. */
function stretches(marks: readonly { start: number; end: number }[]): [number, number][] {
  const out: [number, number][] = [];
  for (const m of marks) {
    const last = out.at(-1);
    if (last && last[1] === m.start) last[1] = m.end;
    else out.push([m.start, m.end]);
  }
  return out;
}

beforeAll(async () => {
  requireBuiltCli();
  requireChromium();
  // npm start: `node dist/cli.js serve --starter` (here on a free port)
  serve = await startServe(['--starter', '--port', '0'], { startMs: 90_000, running });
  tmp = mkdtempSync(join(tmpdir(), 'trainprint-web-languages-'));
  ({ context, page } = await launchChromium(join(tmp, 'profile'), { width: 1280, height: 900 }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  mkdirSync(output, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  for (const p of running) await stopProcess(p);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.each([
  ['in this browser', false],
  ['through the served API', true],
] as const)('the web app of npm start, %s: German and Japanese texts', (_mode, served) => {
  beforeAll(async () => {
    await page.goto(`${serve.url}/`);
    if (!served) return;
    await page.locator('#mode summary').click();
    await page.check('#mode-http');
    await page.fill('#mode-api-key', serve.dev);
    await Promise.all([page.waitForEvent('load'), page.click('#mode-apply')]);
    await page.waitForFunction(() => document.getElementById('engine-status')?.dataset.state !== 'loading');
    expect(await page.locator('#engine-status').getAttribute('data-state')).toBe('ready');
  }, 60_000);

  it.each(CASES)('$name: the work named, the confidence, the quoted span highlighted on its characters', async (c) => {
    const api = await apiAnalyze(c.text);
    const shown = await analyzeInPage(c.text);
    expect(shown.shown).toBe(c.text); // the whole text, as pasted

    // the work and its pack in the match table, the confidence as the API gives it
    const row = shown.table.find((r) => r[0] === c.title);
    expect(row?.[1]).toBe(c.dataset);
    expect(row?.[2]).toBe('portrait · quotation');
    expect(shown.confidence).toContain(`${Math.round(api.confidence)} / 100`);
    expect(shown.source).toContain(c.title);

    // the highlighted characters are the API's spans, and they lie inside the quotation marks
    const spans = api.matches
      .filter((m) => m.kind !== 'near')
      .map((m) => [m.query_start, m.query_end] as [number, number])
      .sort((a, b) => a[0] - b[0]);
    expect(stretches(shown.marks)).toEqual(stretches(spans.map(([start, end]) => ({ start, end }))));
    const open = c.text.indexOf(c.quoted);
    for (const m of shown.marks) {
      expect(m.start).toBeGreaterThanOrEqual(open);
      expect(m.end).toBeLessThanOrEqual(open + c.quoted.length);
      expect(m.quote, c.text.slice(m.start, m.end)).toBe(true);
      expect(m.title).toContain(`Quoted; found in ${c.title}`);
    }
    const marked = shown.marks.reduce((n, m) => n + m.end - m.start, 0);
    expect(marked / c.quoted.length).toBeGreaterThan(0.8);

    // the quotation apart, naming its work, and marked by its quotation marks
    expect(shown.quotations).toHaveLength(1);
    expect(shown.quotations[0]).toContain(c.title);
    expect(shown.quotations[0]).toContain('quotation marks');
    // between the text's own marks (not the page's English “ ”), and counted in the text's own units
    expect(shown.quotations[0]).toMatch(c.marks);
    expect(shown.summary).toContain(`${c.unit} analysed`);
    expect(shown.source).toMatch(new RegExp(`fingerprints of these \\d+ ${c.unit} agree`));
    expect(problems).toEqual([]);
    // the result as a person sees it (test/output/, not committed)
    await page
      .locator('#analyze-result')
      .screenshot({ path: join(output, `web-${c.name.toLowerCase()}${served ? '-served' : ''}.png`) });
  });
});
