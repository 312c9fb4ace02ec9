/**
 * pdf.js's worker module, which its package ships without types. Imported for its effect: it sets
 * `globalThis.pdfjsWorker`, so pdf.js parses on the calling thread in every runtime instead of starting a worker
 * from a URL (src/formats/pdf.ts).
 */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
