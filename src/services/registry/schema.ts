/**
 * The registry's requests, written once: registering a work (`engine.registerWork`, `POST /api/v1/content/register`),
 * listing works (`engine.listWorks`, `GET /api/v1/content`) and verifying a receipt (`POST
 * /api/v1/content/verify-receipt`). Over HTTP the account is the owner: the served registration has no `owner`.
 */
import {
  declarations,
  jurisdiction,
  object,
  pageLimit,
  partialObject,
  workHash,
  workId,
  workType,
} from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField, notBlank } from '../../util/schema-check.js';
import { realDate, wellFormedMembers } from '../../util/validate.js';
import { contentWithinLimits } from '../analyze/files.js';
import { ANALYZE_REQUEST_SCHEMA } from '../analyze/schema.js';
import type { DocumentFormat } from '../../formats/types.js';
import type { ContentType } from '../../text/index.js';
import type { Declarations, WorkType } from '../analyze/types.js';

/** `registerWork` request: `content` or `fingerprint` (its id and work_hash, when the text stays with you). */
export interface RegisterWorkRequest {
  /** The text, or a file's bytes (`content_type` `epub`, `pdf`, `docx`; base64 with `content_encoding`). */
  readonly content?: string | Uint8Array;
  /** With `content`: how to read it (a file: its text is extracted and kept). @default 'text' */
  readonly content_type?: ContentType | DocumentFormat;
  /** How `content` carries a file in JSON: `'base64'`. */
  readonly content_encoding?: 'base64';
  readonly fingerprint?: { readonly fingerprint: string; readonly work_hash: string };
  readonly owner: string;
  readonly title?: string;
  readonly author?: string;
  readonly work_type?: WorkType;
  readonly declarations?: Declarations;
  /** The work's fields in the analyze request's shape (an analysis's `register_prefill`): each once, here or above. */
  readonly metadata?: Pick<RegisterWorkRequest, 'title' | 'author' | 'work_type' | 'declarations'> & {
    /** Refused: a registration has no jurisdiction (score and monitors take one). */
    readonly jurisdiction?: string;
  };
}

/** Filter and page of `listWorks`. */
export interface ListWorksOptions {
  readonly owner?: string;
  readonly after?: string;
  readonly limit?: number;
}

/** A work's content types: analyze's, the text types and the files (`epub`, `pdf`, `docx`). */
const contentType = { enum: ANALYZE_REQUEST_SCHEMA.properties.content_type.enum };

/** The work's own fields: top-level, or under `metadata` in the analyze request's shape. */
const WORK_FIELDS = {
  title: { type: 'string', minLength: 1, maxLength: 1000 },
  author: { type: 'string', minLength: 1, maxLength: 1000 },
  work_type: workType,
  declarations,
} as const;

const { owner: OWNER, ...SERVED_PROPS } = {
  owner: { type: 'string', minLength: 1, maxLength: 200 },
  content: { type: 'string', minLength: 1 },
  content_type: contentType,
  content_encoding: ANALYZE_REQUEST_SCHEMA.properties.content_encoding,
  fingerprint: object({
    fingerprint: {
      type: 'string',
      pattern: '^tp1:[0-9a-f]{32}$',
      'x-pattern-hint': 'a fingerprint id: "tp1:" then 32 lowercase hex digits',
    },
    work_hash: workHash,
  }),
  ...WORK_FIELDS,
  metadata: partialObject({ ...WORK_FIELDS, jurisdiction }),
} as const;

/** The members that describe content sent: they go with `content`, never with a `fingerprint`. */
const CONTENT_MEMBERS = ['content_type', 'content_encoding'] as const;

/** What the registration's rules read besides the request: the largest file taken (a plan's; the default otherwise). */
export interface RegisterContext {
  readonly maxFileBytes?: number;
}

/**
 * What the registration's schema cannot say: exactly one of `content` and `fingerprint`, content's members only with
 * it, text that is not blank; the work's fields once (top-level or under `metadata`), of valid Unicode, no
 * jurisdiction; a date; the content within its limits ({@link contentWithinLimits}, a file within `maxFileBytes`).
 * @throws INVALID_INPUT naming the field; PAYLOAD_TOO_LARGE past the file limit or 10 MiB of text
 * @example registerRules({ owner: 'acme' }) // INVALID_INPUT: content: is required (or give fingerprint)
 */
export function registerRules(request: RegisterWorkRequest, context?: RegisterContext): void {
  exactlyOne(request, ['content', 'fingerprint']);
  const extra = request.fingerprint ? CONTENT_MEMBERS.find((k) => request[k] !== undefined) : undefined;
  if (extra) invalidField(extra, 'goes with content');
  if (typeof request.content === 'string') notBlank(request.content, 'content');
  const { metadata } = request;
  if (metadata?.jurisdiction !== undefined)
    invalidField('metadata.jurisdiction', 'a registration has no jurisdiction; give it to score or to a monitor');
  for (const k of Object.keys(metadata ?? {}))
    if (k in request) invalidField(`metadata.${k}`, `given twice (also as ${k}); give one`);
  wellFormedMembers(request, ['title', 'author'], '');
  wellFormedMembers(metadata, ['title', 'author'], 'metadata.');
  const at = request.declarations ? '' : 'metadata.';
  realDate((request.declarations ?? metadata?.declarations)?.since, `${at}declarations.since`);
  if (request.content !== undefined) contentWithinLimits(request, context?.maxFileBytes);
}

/**
 * A registration, written once: `engine.registerWork` reads it through this; `POST /api/v1/content/register` serves it
 * without `owner` (the account is the owner), the route adding the account.
 * @example readThrough(REGISTER_WORK_REQUEST, { content: text, owner: 'acme-press' }, undefined)
 */
export const REGISTER_WORK_REQUEST = contract<RegisterWorkRequest, RegisterContext | undefined>(
  'registerWork',
  object({ owner: OWNER, ...SERVED_PROPS }, Object.keys(SERVED_PROPS)),
  registerRules,
  partialObject(SERVED_PROPS),
);

/**
 * A page of works, from a cursor (`owner`, whose works, is the host's option: over HTTP the account).
 * @example readThrough(LIST_WORKS_REQUEST, { limit: 10 }, undefined)
 */
export const LIST_WORKS_REQUEST = contract<Omit<ListWorksOptions, 'owner'>>(
  'listWorks',
  partialObject({ after: workId, limit: pageLimit }),
);

/**
 * A receipt to verify (`engine.verifyReceipt` takes the receipt itself, and answers false for anything that is not
 * one this engine signed). @example readThrough(VERIFY_RECEIPT_REQUEST, { receipt: work.receipt }, undefined)
 */
export const VERIFY_RECEIPT_REQUEST = contract<{ readonly receipt: object }>(
  'verifyReceipt',
  object({ receipt: { type: 'object' } }),
);
