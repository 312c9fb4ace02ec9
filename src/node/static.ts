/**
 * Static files as a Fetch-style handler (Node only): `serveStatic(dir)` answers GET and HEAD for
 * files under `dir` and resolves `null` for anything else, so it chains with the API handler:
 *
 * @example
 * const files = serveStatic('dist/web')
 * const handle = async (req: Request) => (await files(req)) ?? api(req)
 *
 * Paths are decoded, normalised and resolved inside `dir`; `..`, encoded separators, NUL bytes,
 * dot-files and symbolic links leading out of `dir` never reach the file system. `/` and any
 * directory serve their `index.html` (a directory named without its trailing slash is
 * redirected, 301, so the page's relative URLs resolve). Responses carry a content type,
 * `Content-Length`, a weak ETag from size and mtime (`If-None-Match` → 304) and
 * `Cache-Control: no-cache` (file names are not versioned, so the browser revalidates).
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

export type StaticHandler = (request: Request) => Promise<Response | null>;

/** Content types by extension; anything else is `application/octet-stream`. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.tpds': 'application/octet-stream',
});

export interface ServeStaticOptions {
  /** File served for a directory. @default 'index.html' */
  readonly index?: string;
  /** `Cache-Control` value. @default 'no-cache' */
  readonly cacheControl?: string;
}

/**
 * A handler serving the files under `dir` (see the module comment); resolves `null` for what it does not serve.
 * @example
 * const files = serveStatic('dist/web')
 * const handle = async (req: Request) => (await files(req)) ?? api(req)
 */
export function serveStatic(dir: string, options: ServeStaticOptions = {}): StaticHandler {
  const root = resolve(dir);
  const index = options.index ?? 'index.html';
  const cacheControl = options.cacheControl ?? 'no-cache';
  let realRoot: Promise<string> | null = null;

  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const url = new URL(request.url);
    const file = await locate(url.pathname);
    if (!file) return null;
    // A directory without its trailing slash: relative URLs in its index.html would miss.
    if (file === 'directory')
      return new Response(null, { status: 301, headers: { location: `${url.pathname}/${url.search}` } });
    const etag = `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
    const headers = new Headers({
      'content-type': CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream',
      etag,
      'cache-control': cacheControl,
      'x-content-type-options': 'nosniff',
    });
    if (
      request.headers
        .get('if-none-match')
        ?.split(',')
        .some((t) => t.trim() === etag)
    )
      return new Response(null, { status: 304, headers });
    headers.set('content-length', String(file.size));
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    const body = await readFile(file.path).catch(() => null);
    if (!body) return null;
    return new Response(body, { status: 200, headers });
  };

  /** The file a URL path names, or null (not found, not a file, or outside the root). */
  async function locate(
    pathname: string,
  ): Promise<{ path: string; size: number; mtimeMs: number } | 'directory' | null> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return null; // malformed %-escape
    }
    if (decoded.includes('\0') || decoded.includes('\\')) return null;
    const parts = decoded.split('/').filter((p) => p !== '');
    // Every segment is a plain name: no '.', '..' or hidden files (which also keeps '%2e%2e' out).
    if (parts.some((p) => p.startsWith('.'))) return null;
    let path = resolve(root, ...parts);
    if (path !== root && !path.startsWith(root + sep)) return null;
    try {
      let s = await stat(path);
      if (s.isDirectory()) {
        if (!pathname.endsWith('/')) return 'directory';
        path = join(path, index);
        s = await stat(path);
      }
      if (!s.isFile()) return null;
      // A symbolic link inside the root may point anywhere: compare real paths.
      realRoot ??= realpath(root);
      const [real, base] = await Promise.all([realpath(path), realRoot]);
      if (!real.startsWith(base + sep)) return null;
      return { path: real, size: s.size, mtimeMs: s.mtimeMs };
    } catch {
      return null;
    }
  }
}
