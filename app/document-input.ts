/**
 * The book or document chosen in the analyze view (EPUB, PDF, DOCX): shown in the drop zone with a button that
 * removes it, the text area and the content-type select locked while it is chosen (the file's own text is what is
 * analysed), and the progress bar of its analysis. DOM only through dom.ts.
 */
import { fill } from './dom.js';
import { FORMAT_NAMES, progressView, type AnalysisProgress, type DocumentFormat } from './files.js';
import { bytes } from './format.js';

/** A file whose text the engine extracts. */
export interface ChosenDocument {
  readonly file: File;
  readonly format: DocumentFormat;
}

/** The elements of index.html this module drives. */
export interface DocumentElements {
  /** The line naming the chosen file (hidden when there is none) and its name's span. */
  readonly chosen: HTMLElement;
  readonly name: HTMLElement;
  readonly text: HTMLTextAreaElement;
  readonly type: HTMLSelectElement;
  /** The progress bar's box, its label and the `<progress>` element. */
  readonly progress: HTMLElement;
  readonly label: HTMLElement;
  readonly bar: HTMLProgressElement;
}

/**
 * The chosen document of the analyze view.
 * @example
 * const doc = documentInput(elements)
 * doc.choose({ file, format: 'docx' })
 * doc.showProgress({ phase: 'remote', calls: 3, budget: 40, corpora: 2 })
 */
export interface DocumentInput {
  /** The chosen file, or null. */
  readonly chosen: ChosenDocument | null;
  choose(doc: ChosenDocument): void;
  remove(): void;
  /** Shows the bar with `p` (null: started, nothing reported yet); `undefined` hides it. */
  showProgress(p: AnalysisProgress | null | undefined): void;
}

/**
 * The chosen document over `el`.
 * @example const doc = documentInput({ chosen: byId('analyze-document'), … })
 */
export function documentInput(el: DocumentElements): DocumentInput {
  let chosen: ChosenDocument | null = null;
  return {
    get chosen() {
      return chosen;
    },
    choose(doc) {
      chosen = doc;
      fill(el.name, `${doc.file.name} — ${FORMAT_NAMES[doc.format]}, ${bytes(doc.file.size)}`);
      el.chosen.hidden = false;
      // the file's text is analysed, not the box's: an emptied, locked box says so without a second source of text
      el.text.value = '';
      el.text.readOnly = true;
      el.text.placeholder = `The text of ${doc.file.name} is extracted when you press Analyze.`;
      el.type.disabled = true;
    },
    remove() {
      chosen = null;
      el.chosen.hidden = true;
      fill(el.name);
      el.text.readOnly = false;
      el.text.placeholder = '';
      el.type.disabled = false;
    },
    showProgress(p) {
      if (p === undefined) {
        el.progress.hidden = true;
        return;
      }
      const view = progressView(p);
      fill(el.label, view.text);
      el.bar.max = view.max;
      // no value: the bar shows activity without an amount (a phase that reports no share of its work)
      if (view.value === null) el.bar.removeAttribute('value');
      else el.bar.value = view.value;
      el.progress.hidden = false;
    },
  };
}
