/**
 * The trainprint web app: analyze a text — or a book or document (EPUB, PDF, DOCX) dropped or
 * picked, its extracted text shown with the matches — against the loaded datasets, compare two
 * texts, load index files and declare what they sample. Plain DOM over index.html; every piece of text is
 * inserted as a text node (dom.ts). The work is done by a {@link Backend}: the engine in a
 * worker of this page, or the served API through the HTTP client (http-backend.ts), chosen per
 * tab in the mode form (`selectBackend`).
 */
import {
  BackendError,
  type AnalysisResult,
  type AnalyzeRequest,
  type Backend,
  type BackendInfo,
  type DatasetInfo,
  type FactorInfo,
  type KbDataset,
} from './backend.js';
import { documentInput, type ChosenDocument } from './document-input.js';
import { byId, fill, h } from './dom.js';
import { ANALYZE_EXAMPLE, COMPARE_EXAMPLE } from './examples.js';
import { FORMAT_NAMES, PLAN_FILE_BYTES, TEXT_FILE_BYTES, fileKind } from './files.js';
import { bytes, bytesOverLimit, count } from './format.js';
import { createHttpBackend, readMode, saveMode, type Mode } from './http-backend.js';
import { initJobs } from './jobs.js';
import { describeError, emptyInput, fileTooLarge, tooLarge, unsupportedFile } from './messages.js';
import { engineWhere, renderAnalysis } from './render-analysis.js';
import { renderComparison } from './render-compare.js';
import { DEMO_MODELS, DEMO_REFERENCE, DEMO_WORK } from './memorization-demo.js';
import { renderMemorization } from './render-memorization.js';
import { extractionFigure, isExtraction } from './render-extraction.js';
import { createWorkerBackend } from './worker-backend.js';

type ContentType = AnalyzeRequest['content_type'];
type WorkType = NonNullable<NonNullable<AnalyzeRequest['metadata']>['work_type']>;

/** Text files larger than this are refused before they are read (the analyze limit, 10 MiB). */
const FILE_LIMIT = TEXT_FILE_BYTES;
/**
 * A text area holding megabytes takes the browser seconds to lay out, so a longer file is kept
 * aside and the (read-only) text area shows its beginning.
 */
const PREVIEW_CHARS = 200_000;
const VIEWS = ['analyze', 'compare', 'datasets', 'memorization', 'jobs'] as const;
type View = (typeof VIEWS)[number];

const mode: Mode = readMode();

function selectBackend(): Backend {
  if (mode.kind === 'http') return createHttpBackend(mode);
  // After first paint: the worker's downloads (engine, starter, packs: about 30 MB) must not hold the page back.
  // (a background tab runs no animation frames: the timer starts it there)
  const painted = new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 250);
  });
  return createWorkerBackend(new URL('./worker.js', import.meta.url), { startAfter: painted });
}

let info: BackendInfo | null = null;
let datasets: DatasetInfo[] = [];
let kbDatasets: KbDataset[] = [];
let factors = new Map<string, FactorInfo>();
let firstAnalysis = true;
/** A file too long to show whole: analysed from here, previewed in the text area. */
let bigFile: { name: string; text: string } | null = null;

const backend = selectBackend();
const started = backend.ready();
/** The factor table and the KB datasets, fetched once the backend is up. */
const catalog = started.then(async () => {
  const [f, kb] = await Promise.all([backend.factors(), backend.kbDatasets()]);
  factors = new Map(f.map((x) => [x.code, x]));
  kbDatasets = [...kb].sort((a, b) => a.name.localeCompare(b.name, 'en'));
});
catalog.catch(() => {}); // a failed start is reported by `started`

// ---------------------------------------------------------------- elements

const el = {
  status: byId('engine-status'),
  backendLabel: byId('backend-label'),
  analyzeForm: byId<HTMLFormElement>('analyze-form'),
  analyzeText: byId<HTMLTextAreaElement>('analyze-text'),
  analyzeFile: byId<HTMLInputElement>('analyze-file'),
  analyzeDrop: byId('analyze-drop'),
  analyzeType: byId<HTMLSelectElement>('analyze-type'),
  analyzeWorkType: byId<HTMLSelectElement>('analyze-work-type'),
  analyzeJurisdiction: byId<HTMLInputElement>('analyze-jurisdiction'),
  analyzeRun: byId<HTMLButtonElement>('analyze-run'),
  analyzeRemoteField: byId('analyze-remote-field'),
  analyzeRemote: byId<HTMLInputElement>('analyze-remote'),
  analyzeRemoteWhere: byId('analyze-remote-where'),
  analyzeStatus: byId('analyze-status'),
  analyzeError: byId('analyze-error'),
  analyzeResult: byId('analyze-result'),
  compareForm: byId<HTMLFormElement>('compare-form'),
  compareA: byId<HTMLTextAreaElement>('compare-a'),
  compareB: byId<HTMLTextAreaElement>('compare-b'),
  compareRun: byId<HTMLButtonElement>('compare-run'),
  compareStatus: byId('compare-status'),
  compareError: byId('compare-error'),
  compareResult: byId('compare-result'),
  datasetTable: byId('dataset-table'),
  indexForm: byId<HTMLFormElement>('index-form'),
  indexFile: byId<HTMLInputElement>('index-file'),
  indexStatus: byId('index-status'),
  indexError: byId('index-error'),
  declareForm: byId<HTMLFormElement>('declare-form'),
  declareDataset: byId<HTMLSelectElement>('declare-dataset'),
  declareKb: byId<HTMLSelectElement>('declare-kb'),
  declareStatus: byId('declare-status'),
  declareError: byId('declare-error'),
  memorizationForm: byId<HTMLFormElement>('memorization-form'),
  memorizationWork: byId<HTMLTextAreaElement>('memorization-work'),
  memorizationModelUrl: byId<HTMLInputElement>('memorization-model-url'),
  memorizationModelName: byId<HTMLInputElement>('memorization-model-name'),
  memorizationModelKey: byId<HTMLInputElement>('memorization-model-key'),
  memorizationReferenceUrl: byId<HTMLInputElement>('memorization-reference-url'),
  memorizationReferenceName: byId<HTMLInputElement>('memorization-reference-name'),
  memorizationReferenceTexts: byId<HTMLTextAreaElement>('memorization-reference-texts'),
  memorizationRandomized: byId<HTMLInputElement>('memorization-randomized'),
  memorizationChunk: byId<HTMLInputElement>('memorization-chunk'),
  memorizationMinChunks: byId<HTMLInputElement>('memorization-min-chunks'),
  memorizationRun: byId<HTMLButtonElement>('memorization-run'),
  memorizationDemo: byId<HTMLButtonElement>('memorization-demo'),
  memorizationStatus: byId('memorization-status'),
  memorizationError: byId('memorization-error'),
  memorizationResult: byId('memorization-result'),
};

/** The book or document chosen for analysis (EPUB, PDF, DOCX), shown in the drop zone. */
const chosenDocument = documentInput({
  chosen: byId('analyze-document'),
  name: byId('analyze-document-name'),
  text: el.analyzeText,
  type: el.analyzeType,
  progress: byId('analyze-progress'),
  label: byId('analyze-progress-label'),
  bar: byId<HTMLProgressElement>('analyze-progress-bar'),
});

// ---------------------------------------------------------------- helpers

function showError(target: HTMLElement, e: unknown): void {
  const m = describeError(e);
  target.dataset.code = m.code;
  fill(
    target,
    h('p', null, h('strong', null, m.text)),
    m.detail && m.detail !== m.text ? h('p', { class: 'detail' }, m.detail) : null,
  );
}

function clearError(target: HTMLElement): void {
  delete target.dataset.code;
  fill(target);
}

/**
 * Runs a form action once at a time: clears the error, shows `busy` on the button, reports a
 * failure in the form's alert region. With `view`, a failure also clears the status line (it said what was under way)
 * and hides the result, which is the previous input's.
 */
function action(
  button: HTMLButtonElement,
  error: HTMLElement,
  busyLabel: string,
  run: () => Promise<void>,
  view?: { readonly status: HTMLElement; readonly result: HTMLElement },
): () => Promise<void> {
  let running = false;
  const idle = button.textContent ?? '';
  return async () => {
    if (running) return;
    running = true;
    clearError(error);
    button.textContent = busyLabel;
    button.setAttribute('aria-busy', 'true');
    try {
      await run();
    } catch (e) {
      showError(error, e);
      if (view) {
        fill(view.status);
        view.result.hidden = true;
      }
    } finally {
      running = false;
      button.textContent = idle;
      button.removeAttribute('aria-busy');
    }
  };
}

function onSubmit(form: HTMLFormElement, run: () => Promise<void>): void {
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void run();
  });
}

/** Ctrl/⌘+Enter in a text area submits its form. */
function submitOnCtrlEnter(area: HTMLTextAreaElement): void {
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      area.form?.requestSubmit();
    }
  });
}

async function readText(file: File): Promise<string> {
  if (file.size > FILE_LIMIT) throw fileTooLarge(file.name, file.size, FILE_LIMIT);
  try {
    // strictly, as the API reads a text file: a Latin-1 or binary file refused, not analysed as replacement characters
    return new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw unsupportedFile(`${JSON.stringify(file.name)} is not UTF-8 text: save it as UTF-8 and open it again.`);
  }
}

/** Files dropped on `target` go to `take` (the first file only). */
function dropTarget(target: HTMLElement, take: (file: File) => void): void {
  target.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    target.classList.add('dropping');
  });
  target.addEventListener('dragleave', () => target.classList.remove('dropping'));
  target.addEventListener('drop', (e) => {
    target.classList.remove('dropping');
    const file = e.dataTransfer?.files[0];
    if (!file) return;
    e.preventDefault();
    take(file);
  });
}

// ---------------------------------------------------------------- views

function route(fromUser: boolean): void {
  const name = location.hash.slice(1);
  const view: View = (VIEWS as readonly string[]).includes(name) ? (name as View) : 'analyze';
  for (const v of VIEWS) {
    byId(`view-${v}`).hidden = v !== view;
    const link = byId(`nav-${v}`);
    if (v === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (fromUser) byId(`${view}-title`).focus();
}

// ---------------------------------------------------------------- analyze

/** Puts text in the analyze box; a long file goes aside with a read-only preview. */
function setAnalyzeText(text: string, file?: File): void {
  bigFile = file && text.length > PREVIEW_CHARS ? { name: file.name, text } : null;
  el.analyzeText.readOnly = bigFile !== null;
  const low = text.charCodeAt(PREVIEW_CHARS) >= 0xdc00 && text.charCodeAt(PREVIEW_CHARS) <= 0xdfff; // never split a pair
  const cut = low ? PREVIEW_CHARS - 1 : PREVIEW_CHARS;
  el.analyzeText.value = bigFile ? text.slice(0, cut) : text;
  if (file) {
    fill(
      el.analyzeStatus,
      bigFile
        ? `Opened ${file.name} (${bytes(file.size)}). The box shows its first ${count(cut)} characters; the whole file is analyzed. Clear to paste text instead.`
        : `Opened ${file.name} (${bytes(file.size)}). Press Analyze.`,
    );
  }
}

/** The request's metadata and consent from the form. */
function analyzeOptions(): Pick<AnalyzeRequest, 'metadata' | 'search_remote'> {
  const metadata: { work_type?: WorkType; jurisdiction?: string } = {};
  if (el.analyzeWorkType.value) metadata.work_type = el.analyzeWorkType.value as WorkType;
  if (el.analyzeJurisdiction.value.trim()) metadata.jurisdiction = el.analyzeJurisdiction.value.trim();
  return {
    ...(Object.keys(metadata).length ? { metadata } : {}),
    // the text leaves the server only when the user ticked the box
    search_remote: el.analyzeRemote.checked,
  };
}

/**
 * Below an analysis: what models wrote out of the same text (the account's extract jobs, over the served API), each as
 * the work report's strip. Nothing when there are none, or the backend keeps none; a failure to read them is not the
 * analysis's: it is left out.
 */
async function showExtractions(text: string, result: AnalysisResult): Promise<void> {
  const extractions: unknown[] = await backend.modelExtractions(result.analysis_id).catch(() => []);
  const shown = extractions.filter(isExtraction);
  if (shown.length === 0 || !el.analyzeResult.isConnected) return;
  el.analyzeResult.append(
    h(
      'section',
      { class: 'block', id: 'analysis-extractions' },
      h('h3', null, 'What models wrote out of this text'),
      shown.map((x) => extractionFigure(x, text)),
    ),
  );
}

/** Shows an analysis of `text` (the box's, or a file's extracted text) and its summary on the status line. */
function showAnalysis(text: string, result: AnalysisResult, ms: number): void {
  renderAnalysis(el.analyzeResult, {
    text,
    result,
    factors,
    datasets,
    sourceText: (d, doc) => backend.sourceText(d, doc),
    compareWith: (_docId, source) => {
      el.compareA.value = text;
      el.compareB.value = source;
      location.hash = '#compare';
      void compare();
    },
  });
  el.analyzeResult.hidden = false;
  void showExtractions(text, result);
  const passages = result.matches.filter((m) => m.kind !== 'near').length;
  fill(
    el.analyzeStatus,
    `Done in ${Math.round(ms)} ms: ${count(passages)} matched passage${passages === 1 ? '' : 's'} in ${count(result.potential_matches)} document${result.potential_matches === 1 ? '' : 's'}, risk ${result.risk_assessment.level}.`,
  );
  if (firstAnalysis) {
    firstAnalysis = false;
    performance.mark('trainprint:first-analysis');
  }
}

/** The text of the box (or of a long text file kept aside), analysed. */
async function analyzeText(): Promise<void> {
  const text = bigFile?.text ?? el.analyzeText.value;
  if (text.trim() === '') throw emptyInput('The text to analyze');
  const ready = info ?? (await started);
  await catalog;
  const over = bytesOverLimit(text, ready.analyzeBytes);
  if (over !== null) throw tooLarge('The text to analyze', over, ready.analyzeBytes);
  const request: AnalyzeRequest = {
    content: text,
    content_type: el.analyzeType.value as ContentType,
    ...analyzeOptions(),
  };
  fill(el.analyzeStatus, 'Analyzing…');
  const t0 = performance.now();
  const result = await backend.analyze(request);
  showAnalysis(text, result, performance.now() - t0);
}

/**
 * The chosen book or document, analysed: its bytes go to the backend, which extracts the text; the result carries
 * that text (`include_text`), which the matches' spans point into. The served API reports its progress.
 */
async function analyzeDocument(doc: ChosenDocument): Promise<void> {
  const ready = info ?? (await started);
  await catalog;
  if (doc.file.size > ready.fileBytes)
    throw fileTooLarge(doc.file.name, doc.file.size, ready.fileBytes, 'for an EPUB, PDF or DOCX file');
  const refusal = await backend.fileRefusal(doc.format);
  if (refusal !== null) throw new BackendError('UNSUPPORTED', refusal);
  const request: AnalyzeRequest = {
    content: new Uint8Array(await doc.file.arrayBuffer()),
    content_type: doc.format,
    include_text: true,
    ...analyzeOptions(),
  };
  fill(el.analyzeStatus, `Analyzing ${doc.file.name}…`);
  const t0 = performance.now();
  try {
    const result = await backend.analyze(request, { onProgress: (p) => chosenDocument.showProgress(p) });
    const text = result.extraction?.text;
    if (typeof text !== 'string')
      throw new BackendError('INTERNAL', `The analysis of ${doc.file.name} came back without the file's text.`);
    showAnalysis(text, result, performance.now() - t0);
  } finally {
    chosenDocument.showProgress(undefined);
  }
}

const analyze = action(
  el.analyzeRun,
  el.analyzeError,
  'Analyzing…',
  async () => {
    fill(el.analyzeStatus);
    const doc = chosenDocument.chosen;
    await (doc ? analyzeDocument(doc) : analyzeText());
  },
  { status: el.analyzeStatus, result: el.analyzeResult },
);

onSubmit(el.analyzeForm, analyze);
submitOnCtrlEnter(el.analyzeText);

/**
 * A file given to the analyze view (picked or dropped): a text file goes into the box, a book or document (EPUB,
 * PDF, DOCX) is chosen for analysis — checked against the size limit before it is read, and against what the
 * backend can read — and anything else is refused with a sentence saying what is read.
 */
async function openAnalyzeFile(file: File): Promise<void> {
  clearError(el.analyzeError);
  fill(el.analyzeStatus);
  const kind = fileKind(file.name, file.type);
  try {
    if (kind.kind === 'refused') throw unsupportedFile(kind.message);
    if (kind.kind === 'text') {
      const text = await readText(file);
      chosenDocument.remove();
      setAnalyzeText(text, file);
      el.analyzeType.value = kind.type;
      return;
    }
    const limit = info?.fileBytes ?? PLAN_FILE_BYTES;
    if (file.size > limit) throw fileTooLarge(file.name, file.size, limit, 'for an EPUB, PDF or DOCX file');
    setAnalyzeText('');
    chosenDocument.choose({ file, format: kind.format });
    fill(el.analyzeStatus, `Opened ${file.name} (${FORMAT_NAMES[kind.format]}, ${bytes(file.size)}). Press Analyze.`);
    // a backend that cannot read the format says so now, not after the user presses Analyze (a backend that did
    // not start says so on the status line)
    const up = await started.then(
      () => true,
      () => false,
    );
    if (!up) return;
    const refusal = await backend.fileRefusal(kind.format);
    if (refusal !== null && chosenDocument.chosen?.file === file) {
      chosenDocument.remove();
      fill(el.analyzeStatus);
      throw new BackendError('UNSUPPORTED', refusal);
    }
  } catch (e) {
    showError(el.analyzeError, e);
  }
}

el.analyzeFile.addEventListener('change', () => {
  const file = el.analyzeFile.files?.[0];
  el.analyzeFile.value = '';
  if (file) void openAnalyzeFile(file);
});
dropTarget(el.analyzeText, (f) => void openAnalyzeFile(f));
dropTarget(el.analyzeDrop, (f) => void openAnalyzeFile(f));
byId('analyze-document-remove').addEventListener('click', () => {
  chosenDocument.remove();
  fill(el.analyzeStatus);
  el.analyzeFile.focus();
});
byId('analyze-example').addEventListener('click', () => {
  chosenDocument.remove();
  setAnalyzeText(ANALYZE_EXAMPLE);
  el.analyzeType.value = 'markdown';
  el.analyzeText.focus();
});
byId('analyze-clear').addEventListener('click', () => {
  chosenDocument.remove();
  setAnalyzeText('');
  // a file or an example may have set the content type: a cleared form starts again from plain text
  el.analyzeType.value = 'text';
  el.analyzeResult.hidden = true;
  fill(el.analyzeResult);
  fill(el.analyzeStatus);
  clearError(el.analyzeError);
  el.analyzeText.focus();
});

// ---------------------------------------------------------------- compare

const compare = action(
  el.compareRun,
  el.compareError,
  'Comparing…',
  async () => {
    fill(el.compareStatus);
    const a = el.compareA.value;
    const b = el.compareB.value;
    if (a.trim() === '') throw emptyInput('Text A');
    if (b.trim() === '') throw emptyInput('Text B');
    fill(el.compareStatus, 'Comparing…');
    const t0 = performance.now();
    const cmp = await backend.compare(a, b);
    renderComparison(el.compareResult, a, b, cmp);
    el.compareResult.hidden = false;
    fill(
      el.compareStatus,
      `Done in ${Math.round(performance.now() - t0)} ms: ${count(cmp.spans.length)} aligned passage${cmp.spans.length === 1 ? '' : 's'}.`,
    );
  },
  { status: el.compareStatus, result: el.compareResult },
);

onSubmit(el.compareForm, compare);
submitOnCtrlEnter(el.compareA);
submitOnCtrlEnter(el.compareB);
for (const side of ['a', 'b'] as const) {
  const area = side === 'a' ? el.compareA : el.compareB;
  const input = byId<HTMLInputElement>(`compare-${side}-file`);
  const open = async (file: File): Promise<void> => {
    clearError(el.compareError);
    try {
      const kind = fileKind(file.name, file.type);
      if (kind.kind === 'refused') throw unsupportedFile(kind.message);
      if (kind.kind === 'document')
        throw unsupportedFile(
          `${JSON.stringify(file.name)} is a document (${FORMAT_NAMES[kind.format]}): Compare reads text files (.txt, .md, .html). ` +
            'Analyze reads books and documents.',
        );
      area.value = await readText(file);
      fill(el.compareStatus, `Opened ${file.name} as text ${side.toUpperCase()}.`);
    } catch (e) {
      showError(el.compareError, e);
    }
  };
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    input.value = '';
    if (file) void open(file);
  });
  dropTarget(area, (f) => void open(f));
}
byId('compare-swap').addEventListener('click', () => {
  [el.compareA.value, el.compareB.value] = [el.compareB.value, el.compareA.value];
});
byId('compare-example').addEventListener('click', () => {
  el.compareA.value = COMPARE_EXAMPLE.a;
  el.compareB.value = COMPARE_EXAMPLE.b;
  el.compareA.focus();
});

// ---------------------------------------------------------------- memorization

/** The model fields as an endpoint, or null when both are empty; half-filled is an error naming the field. */
function modelEndpoint(url: HTMLInputElement, name: HTMLInputElement, what: string, key?: HTMLInputElement) {
  const baseUrl = url.value.trim();
  const model = name.value.trim();
  if (!baseUrl && !model) return null;
  if (!/^https?:\/\/\S+$/.test(baseUrl))
    throw new BackendError('INVALID_INPUT', `${what}: enter a base URL such as http://127.0.0.1:8000/v1.`);
  if (!model) throw new BackendError('INVALID_INPUT', `${what}: enter the model name its server expects.`);
  const apiKey = key?.value.trim();
  return { base_url: baseUrl, model, ...(apiKey ? { api_key: apiKey } : {}) };
}

function integerField(input: HTMLInputElement, lo: number, hi: number, what: string): number {
  const n = Number(input.value);
  if (!Number.isInteger(n) || n < lo || n > hi)
    throw new BackendError('INVALID_INPUT', `${what} must be a whole number from ${lo} to ${hi}.`);
  return n;
}

const assessMemorization = action(
  el.memorizationRun,
  el.memorizationError,
  'Assessing…',
  async () => {
    fill(el.memorizationStatus);
    const work = el.memorizationWork.value;
    if (work.trim() === '') throw emptyInput('The work');
    const model = modelEndpoint(
      el.memorizationModelUrl,
      el.memorizationModelName,
      'Model under test',
      el.memorizationModelKey,
    );
    if (!model)
      throw new BackendError('EMPTY_INPUT', 'The model under test is not set: give its service URL and model name.');
    const referenceModel = modelEndpoint(el.memorizationReferenceUrl, el.memorizationReferenceName, 'Reference model');
    const referenceTexts = el.memorizationReferenceTexts.value
      .split(/^\s*---\s*$/m)
      .map((t) => t.trim())
      .filter(Boolean);
    if (referenceTexts.length === 0)
      throw emptyInput(
        'The list of non-member texts',
        'paste texts the model cannot have seen, separated by lines of ---',
      );
    const request = {
      work,
      model,
      ...(referenceModel ? { reference_model: referenceModel } : {}),
      reference_texts: referenceTexts,
      randomized_split: el.memorizationRandomized.checked,
      chunk_tokens: integerField(el.memorizationChunk, 16, 4096, 'Words per chunk'),
      min_chunks: integerField(el.memorizationMinChunks, 5, 100_000, 'Fewest chunks'),
    };
    fill(el.memorizationStatus, 'Asking the model…');
    const t0 = performance.now();
    const outcome = await backend.assessMemorization(request);
    renderMemorization(el.memorizationResult, outcome);
    el.memorizationResult.hidden = false;
    fill(
      el.memorizationStatus,
      `Done in ${(Math.round(performance.now() - t0) / 1000).toFixed(1)} s: evidence tier ${outcome.assessment.evidence_tier}.`,
    );
  },
  { status: el.memorizationStatus, result: el.memorizationResult },
);

onSubmit(el.memorizationForm, assessMemorization);
el.memorizationDemo.addEventListener('click', () => {
  clearError(el.memorizationError);
  el.memorizationWork.value = DEMO_WORK.text;
  el.memorizationModelUrl.value = DEMO_MODELS.target.base_url;
  el.memorizationModelName.value = DEMO_MODELS.target.model;
  el.memorizationReferenceUrl.value = DEMO_MODELS.reference.base_url;
  el.memorizationReferenceName.value = DEMO_MODELS.reference.model;
  el.memorizationReferenceTexts.value = DEMO_REFERENCE.map((d) => d.text).join('\n---\n');
  el.memorizationRandomized.checked = true;
  // a work of ~170 words: chunks of 16 words give the probe enough of them
  el.memorizationChunk.value = '16';
  el.memorizationMinChunks.value = '5';
  fill(
    el.memorizationStatus,
    `Demo: ${DEMO_WORK.id}, which byte-gpt-inserted saw 4 times an epoch and byte-gpt-base never saw, against ${DEMO_REFERENCE.length} works neither saw.`,
  );
  el.memorizationWork.focus();
});

// ---------------------------------------------------------------- datasets

function renderDatasets(): void {
  const kbName = (id: string): string => kbDatasets.find((d) => d.id === id)?.name ?? id;
  fill(
    el.datasetTable,
    h(
      'table',
      { id: 'datasets-table' },
      h('caption', null, `${count(datasets.length)} dataset${datasets.length === 1 ? '' : 's'} loaded`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ...['Dataset', 'Kind', 'Documents', 'Words', 'Text', 'Index', 'Declared sample of', 'Source text'].map(
            (t, i) => h('th', { scope: 'col', class: i >= 2 && i <= 5 ? 'num' : undefined }, t),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        ...datasets.map((d) =>
          h(
            'tr',
            { 'data-id': d.id },
            h('th', { scope: 'row' }, d.id, d.name ? h('span', { class: 'note' }, ` ${d.name}`) : null),
            h('td', null, d.kind),
            h('td', { class: 'num' }, count(d.documents)),
            h('td', { class: 'num' }, count(d.tokens)),
            h('td', { class: 'num' }, bytes(d.bytes)),
            h('td', { class: 'num' }, bytes(d.index_bytes)),
            h(
              'td',
              null,
              d.kb_dataset === null
                ? h('span', { class: 'muted' }, 'none')
                : // a reference pack's corpus is documented with it; any other dataset's is its loader's declaration
                  [
                    d.supplied_by === 'shipped'
                      ? h(
                          'span',
                          {
                            class: 'badge documented',
                            title: 'A reference pack of the package: its sources are documented with it',
                          },
                          'reference pack',
                        )
                      : h('span', { class: 'badge declared' }, 'declared'),
                    ` ${kbName(d.kb_dataset)} (${d.kb_dataset})`,
                  ],
            ),
            h('td', null, d.has_text ? 'shown' : h('span', { class: 'muted' }, 'positions only')),
          ),
        ),
      ),
    ),
  );
  const chosen = el.declareDataset.value;
  // a reference pack's corpus is documented with it, not declared: it is not offered (withdrawing its link would
  // make every analysis say no model is known to have trained on it)
  const declarable = datasets.filter((d) => d.supplied_by !== 'shipped');
  fill(
    el.declareDataset,
    ...declarable.map((d) => h('option', { value: d.id }, d.name ? `${d.id} — ${d.name}` : d.id)),
  );
  if (declarable.some((d) => d.id === chosen)) el.declareDataset.value = chosen;
  syncDeclareKb();
}

/** The KB select shows the chosen dataset's current declaration. */
function syncDeclareKb(): void {
  const d = datasets.find((x) => x.id === el.declareDataset.value);
  el.declareKb.value = d?.kb_dataset ?? '';
}

async function loadIndexFile(file: File): Promise<void> {
  clearError(el.indexError);
  fill(el.indexStatus, `Reading ${file.name}…`);
  try {
    await started;
    const stats = await backend.loadIndex(new Uint8Array(await file.arrayBuffer()));
    datasets = await backend.datasets();
    el.declareDataset.value = stats.id;
    renderDatasets();
    el.declareDataset.value = stats.id;
    syncDeclareKb();
    fill(
      el.indexStatus,
      `Loaded ${stats.id} from ${file.name}: ${count(stats.documents)} documents, ${count(stats.tokens)} words (${stats.kind}). Analyses now search it.`,
    );
  } catch (e) {
    fill(el.indexStatus);
    showError(el.indexError, e);
  }
}

el.indexFile.addEventListener('change', () => {
  const file = el.indexFile.files?.[0];
  el.indexFile.value = '';
  if (file) void loadIndexFile(file);
});
dropTarget(el.indexForm, (f) => void loadIndexFile(f));
el.declareDataset.addEventListener('change', syncDeclareKb);

const declare = action(byId<HTMLButtonElement>('declare-run'), el.declareError, 'Declaring…', async () => {
  await started;
  const id = el.declareDataset.value;
  if (id === '')
    throw new BackendError(
      'INVALID_INPUT',
      "Open a dataset of your own first: a reference pack's sources are documented with it, not declared here.",
    );
  const kb = el.declareKb.value || null;
  const d = await backend.declare(id, kb);
  datasets = await backend.datasets();
  renderDatasets();
  el.declareDataset.value = d.id;
  syncDeclareKb();
  fill(
    el.declareStatus,
    kb
      ? `${d.id} is now declared a sample of ${kbDatasets.find((x) => x.id === kb)?.name ?? kb} (${kb}). Analyses label attributions from it as declared.`
      : `${d.id}: declaration withdrawn.`,
  );
});
onSubmit(el.declareForm, declare);

// ---------------------------------------------------------------- mode (in-browser | served API)

{
  const form = byId<HTMLFormElement>('mode-form');
  const httpRadio = byId<HTMLInputElement>('mode-http');
  const fields = byId('mode-http-fields');
  const baseUrl = byId<HTMLInputElement>('mode-base-url');
  const apiKey = byId<HTMLInputElement>('mode-api-key');
  const error = byId('mode-error');
  const sync = (): void => {
    fields.hidden = !httpRadio.checked;
  };
  httpRadio.checked = mode.kind === 'http';
  byId<HTMLInputElement>('mode-browser').checked = mode.kind === 'browser';
  baseUrl.value = mode.kind === 'http' ? mode.baseUrl : location.origin;
  apiKey.value = mode.kind === 'http' ? mode.apiKey : '';
  sync();
  form.addEventListener('change', sync);
  if (mode.kind === 'http') {
    const where = mode.baseUrl === location.origin ? 'this site' : mode.baseUrl;
    fill(byId('mode-summary'), `served API at ${where}`);
    fill(
      byId('tagline'),
      `Training-data attribution by the trainprint API at ${where}: what you analyze is sent there.`,
    );
    fill(byId('foot-engine'), 'This page sends its requests to the served trainprint API with your key.');
    fill(el.status, 'Connecting to the API…');
    fill(
      byId('index-hint'),
      "A dataset file built with trainprint index build (or engine.exportDataset). It is uploaded to the API as the key's account's own dataset, which other accounts do not see (an admin key's upload is shared with every account): the key needs the datasets:write scope.",
    );
    fill(
      byId('analyze-drop-hint'),
      'EPUB, PDF or DOCX: its text is extracted and analyzed by the API, with its chapters or pages; the largest ' +
        "file is set by the API key's plan. Text files (.txt, .md, .html) go into the box above.",
    );
  }
  onSubmit(form, async () => {
    clearError(error);
    try {
      saveMode(
        httpRadio.checked
          ? { kind: 'http', baseUrl: baseUrl.value || location.origin, apiKey: apiKey.value }
          : { kind: 'browser' },
      );
      location.reload();
    } catch (e) {
      showError(error, e);
    }
  });
}

/** The consent box, shown only when the backend has remote corpora: it names every engine the text would go to. */
function offerRemote(): void {
  const remote = datasets.filter((d) => d.kind === 'remote' && d.remote);
  el.analyzeRemoteField.hidden = remote.length === 0;
  const hosts = [...new Set(remote.map((d) => engineWhere(d.remote!.endpoint)))];
  fill(el.analyzeRemoteWhere, `${hosts.join(', ')} (${remote.map((d) => d.name ?? d.id).join(', ')})`);
}

// ---------------------------------------------------------------- start

initJobs(mode);
route(false);
window.addEventListener('hashchange', () => route(true));

started.then(
  async (i) => {
    info = i;
    datasets = i.datasets;
    // the consent box reads the datasets alone: it is in place before the status says ready (not after the catalog)
    offerRemote();
    const docs = datasets.reduce((n, d) => n + d.documents, 0);
    el.status.dataset.state = 'ready';
    fill(
      el.status,
      `Ready: ${count(datasets.length)} dataset${datasets.length === 1 ? '' : 's'}, ${count(docs)} documents.`,
    );
    fill(el.backendLabel, i.label);
    performance.mark('trainprint:ready');
    await catalog;
    fill(
      el.declareKb,
      h('option', { value: '' }, '— no declaration —'),
      ...kbDatasets.map((d) => h('option', { value: d.id }, `${d.name} (${d.id})`)),
    );
    renderDatasets();
  },
  (e: unknown) => {
    el.status.dataset.state = 'error';
    const m = describeError(e);
    const what = mode.kind === 'http' ? 'The served API could not be used.' : 'The engine could not start.';
    fill(el.status, `${what} ${m.text}${m.detail ? ` ${m.detail}` : ''}`);
    if (mode.kind === 'http') byId<HTMLDetailsElement>('mode').open = true; // the key or URL is the likely fix
  },
);
