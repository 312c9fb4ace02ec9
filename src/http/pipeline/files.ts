/**
 * The limits of the routes that take a file (`files: true`: analyze, register, score): each call is held to its
 * plan's `fileBytes`. Before the body is read, the body may be as large as such a file needs — the file and 1 MiB for
 * the rest of a multipart form, or the file in base64 (a third more) and 1 MiB in JSON, never less than the 11 MiB a
 * 10 MiB text needs — so a larger declared body is 413 at once and reading stops there; once parsed, a file over the
 * plan's limit is 413 naming the plan, before anything extracts it.
 */
import { DOCUMENT_FORMATS, planFileBytes, type Plan, type Principal } from '../../library.js';
import type { BodyAllowance } from '../context.js';
import { type FileLimit, fileOverPlan, MULTIPART, mib } from '../multipart.js';

const MIB = 1024 * 1024;
/** What a request holds besides its file: the form's other fields, or the JSON members around the base64. */
const BODY_OVERHEAD_BYTES = MIB;
/** The body a text of 10 MiB of UTF-8 (analyze's and register's limit) needs in JSON: the default `maxBodyBytes`. */
const TEXT_BODY_BYTES = 11 * MIB;

/**
 * The largest body a file of `fileBytes` comes in: JSON with the file in base64, the larger of the two ways.
 * @example fileBodyBytes(8 * 1024 * 1024) // 12233388: 8 MiB in base64 and 1 MiB
 */
export function fileBodyBytes(fileBytes: number): number {
  return Math.max(TEXT_BODY_BYTES, 4 * Math.ceil(fileBytes / 3) + BODY_OVERHEAD_BYTES);
}

/**
 * The body limit of the file routes: what the largest file of any plan needs ({@link fileBodyBytes}); the plan of
 * each call then allows its own, at most this.
 * @example fileRouteBodyBytes({ ...PLANS }) // fileBodyBytes(64 MiB)
 */
export function fileRouteBodyBytes(plans: Readonly<Record<string, Plan>>): number {
  return Math.max(...Object.values(plans).map((p) => fileBodyBytes(planFileBytes(p))));
}

/**
 * Why the file routes read no more than {@link fileRouteBodyBytes} before the caller is known, for the 413 of a larger
 * declared body: the largest file a plan takes, and every plan's limit (the caller's own may be lower).
 * @example fileRouteBodyReason({ free: PLANS.free, scale: PLANS.scale }) // 'no plan takes a file this large: …'
 */
export function fileRouteBodyReason(plans: Readonly<Record<string, Plan>>): string {
  const limits = Object.entries(plans).map(([name, p]) => [name, planFileBytes(p)] as const);
  if (limits.length === 0) return 'the body limit of the routes that take files';
  const [largest, bytes] = limits.reduce((a, b) => (b[1] > a[1] ? b : a));
  const each = limits.map(([name, b]) => `"${name}" ${mib(b)}`).join(', ');
  return (
    `no plan takes a file this large: the largest, plan "${largest}"'s, is ${mib(bytes)} (${bytes} bytes), a third ` +
    `more in base64; files by plan: ${each}`
  );
}

/**
 * The plan's file limit of the caller.
 * @example fileLimitOf(principal, (name) => PLANS[name]) // { plan: 'free', bytes: 8388608 }
 */
export function fileLimitOf(principal: Principal, plan: (name: string) => Plan | undefined): FileLimit {
  return { plan: principal.plan, bytes: planFileBytes(plan(principal.plan)) };
}

/**
 * Step (`beforeBody` of the file routes): the body the caller's plan allows, by the way the file comes (multipart or
 * JSON), with the reason a 413 gives.
 * @example const allowance = fileAllowance(request, fileLimitOf(principal, services.plan))
 */
export function fileAllowance(request: Request, limit: FileLimit): BodyAllowance {
  const multipart = (request.headers.get('content-type') ?? '').toLowerCase().startsWith(MULTIPART);
  const maxBodyBytes = multipart ? limit.bytes + BODY_OVERHEAD_BYTES : fileBodyBytes(limit.bytes);
  const base64 = multipart ? '' : ', a third more in base64';
  const reason = `plan "${limit.plan}" takes files of up to ${mib(limit.bytes)}, ${limit.bytes} bytes${base64}`;
  return { maxBodyBytes, reason };
}

/**
 * Step: 413 for a JSON request whose file (`content` in base64) decodes to more than the plan's limit, before it is
 * decoded or extracted.
 * @example checkJsonFileSize(body, x.fileLimit)
 */
export function checkJsonFileSize(body: unknown, limit: FileLimit): void {
  const b = body as { content?: unknown; content_encoding?: unknown } | null;
  if (b === null || typeof b !== 'object' || b.content_encoding !== 'base64' || typeof b.content !== 'string') return;
  const size = base64ByteLength(b.content);
  if (size > limit.bytes) throw fileOverPlan(size, limit);
}

/** How many bytes a base64 text decodes to (padded or not), without decoding it (`fileOf` checks the text itself). */
function base64ByteLength(b64: string): number {
  let end = b64.length;
  while (end > 0 && b64.charCodeAt(end - 1) === 0x3d /* = */) end--;
  return Math.floor((end * 3) / 4);
}

/**
 * Whether a parsed body carries a document file (`content_type` `epub`, `pdf` or `docx`): one of a few KB may make its
 * extraction work up to the extraction's limits (hundreds of MB inflated, 10 Mi characters, seconds of time).
 * @example carriesDocument({ content_type: 'pdf', content: 'JVBERi0…', content_encoding: 'base64' }) // true
 */
export function carriesDocument(body: unknown): boolean {
  const type =
    body !== null && typeof body === 'object' ? (body as { content_type?: unknown }).content_type : undefined;
  return (DOCUMENT_FORMATS as readonly unknown[]).includes(type);
}
