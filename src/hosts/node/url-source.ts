// A tree served over http(s) (a CDN, GitHub Pages, …): keep-alive connections, conditional GETs
// (If-None-Match) so a cached file is revalidated, not downloaded again, and limits a hostile or
// broken host cannot stretch: an idle timeout, a total deadline per file (a host that drips one
// byte every few seconds never resets it), a size cap counted while streaming, and one download
// per file at a time (a hundred calls waiting on one slow file hold one connection, not the pool).
// A file's size comes from a HEAD's Content-Length (one at a time per file too), so an answer that
// would pass the cap is refused before its file is downloaded.
import http from 'node:http';
import https from 'node:https';
import { isHostFallback } from '../../core/tree-reading/host-fallback.js';
import { MANIFEST_FILE } from '../../core/tree/manifest.js';
import type { ReadOutcome, TreeSource } from '../../core/tree/tree-source.js';
import type { ByteRange, BytesOutcome, PackFileSource } from '../../core/packs/pack-reader.js';

export interface UrlSourceOptions {
  /** Silence on the connection this long fails the read. */
  timeoutMs?: number;
  /** The whole read (connect, headers, body) must finish within this. */
  deadlineMs?: number;
  revalidateAfterMs?: number;
  /** Larger files are refused rather than buffered. */
  maxFileBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_FETCH_DEADLINE_MS = 30_000;
/** Distinct files fetched at once; reads of one file share a download, so a slow file holds one. */
const MAX_SOCKETS = 32;
const DEFAULT_REVALIDATE_AFTER_MS = 60_000;
const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

export class UrlSource implements TreeSource, PackFileSource {
  readonly displayName: string;
  readonly revalidateAfterMs: number;
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly deadlineMs: number;
  private closed = false;
  private readonly maxFileBytes: number;
  private readonly downloads = new Map<string, Promise<ReadOutcome>>();
  private readonly sizeLookups = new Map<string, Promise<number | undefined>>();

  constructor(baseUrl: string, options: UrlSourceOptions = {}) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.base.search = '';
    this.base.hash = '';
    this.displayName = this.base.href;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_FETCH_DEADLINE_MS;
    this.revalidateAfterMs = options.revalidateAfterMs ?? DEFAULT_REVALIDATE_AFTER_MS;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const AgentClass = this.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new AgentClass({ keepAlive: true, maxSockets: MAX_SOCKETS });
  }

  /** Each segment percent-encoded, so a raw value with `?`, `#` or `%` stays one path segment. */
  urlOf(relativePath: string): URL {
    return new URL(relativePath.split('/').map(encodeURIComponent).join('/'), this.base);
  }

  read(relativePath: string, etag?: string): Promise<ReadOutcome> {
    const key = `${etag ?? ''} ${relativePath}`;
    let download = this.downloads.get(key);
    if (!download) {
      download = this.download(relativePath, etag).finally(() => this.downloads.delete(key));
      this.downloads.set(key, download);
    }
    return download;
  }

  /**
   * The Content-Length a HEAD answers for the file; undefined when the host sends none (a
   * compressed or chunked answer), answers anything but 200, or fails: the read then decides.
   */
  sizeOf(relativePath: string): Promise<number | undefined> {
    let lookup = this.sizeLookups.get(relativePath);
    if (!lookup) {
      lookup = this.head(relativePath)
        .then((answer) => {
          const length = Number(answer.headers['content-length']);
          return answer.status === 200 && Number.isSafeInteger(length) && length >= 0 ? length : undefined;
        })
        .catch(() => undefined)
        .finally(() => this.sizeLookups.delete(relativePath));
      this.sizeLookups.set(relativePath, lookup);
    }
    return lookup;
  }

  private async download(relativePath: string, etag?: string): Promise<ReadOutcome> {
    const answer = await this.get(relativePath, {
      accept: 'application/json',
      ...(etag ? { 'if-none-match': etag } : {}),
    });
    const { status } = answer;
    if (status === 304) return { status: 'not-modified' };
    if (status === 404 || status === 410) return { status: 'missing' };
    // What hosts answer for a file they do not have besides 404: a redirect to the landing
    // page, or 403 (S3 and buckets like it when listing is not allowed). For mcp.json the
    // same answers mean the URL itself is wrong, which the errors below say.
    if (relativePath !== MANIFEST_FILE && (status === 403 || (status >= 300 && status < 400)))
      return { status: 'missing' };
    if (status >= 300 && status < 400) {
      const target = answer.headers.location;
      throw new Error(
        `${relativePath}: the server answered HTTP ${status}, a redirect ${target ? `to ${target}` : 'without a target'}; serve the tree from its final URL`,
      );
    }
    if (answer.body === undefined) throw new Error(`${relativePath}: the server answered HTTP ${status}`);
    const header = answer.headers.etag;
    const text = answer.body.toString('utf8');
    if (isHostFallback(relativePath, text)) return { status: 'missing' };
    return { status: 'ok', text, ...(header ? { etag: header } : {}) };
  }

  /**
   * The bytes of a pack or pack index (PackFileSource), or a range of them with a Range request:
   * a 206 answers the range, a host that ignores ranges answers the whole file (200), and the
   * pack reader takes what came. A host's fallback page reads as a file without the pack magic.
   */
  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    const wanted = range && range.length > 0 ? range : undefined;
    const answer = await this.get(relativePath, {
      accept: 'application/octet-stream',
      ...(wanted ? { range: `bytes=${wanted.offset}-${wanted.offset + wanted.length - 1}` } : {}),
    });
    const { status } = answer;
    if (status === 404 || status === 410 || status === 403 || (status >= 300 && status < 400))
      return { status: 'missing' };
    // The file is shorter than the range: the reader refuses the shortfall as a damaged pack.
    if (status === 416) return { status: 'ok', bytes: new Uint8Array(0), whole: false };
    if (answer.body === undefined) throw new Error(`${relativePath}: the server answered HTTP ${status}`);
    const bytes = new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength);
    if (status === 206) {
      // A 206 for another range than asked (or several) is not the record: refused as short.
      const start = /^bytes (\d+)-/.exec(answer.headers['content-range'] ?? '')?.[1];
      if (!wanted || Number(start) !== wanted.offset) return { status: 'ok', bytes: new Uint8Array(0), whole: false };
      return { status: 'ok', bytes, whole: false };
    }
    return { status: 'ok', bytes, whole: true };
  }

  /**
   * One GET within the idle timeout, the total deadline and the size cap: the status, headers,
   * and the body of a 2xx answer (other bodies are drained, never kept). Sent again once, on a
   * fresh connection, when a kept-alive one was reset as it was reused: a host closes an idle
   * connection when it likes, and a request sent as it closes fails with "socket hang up" though
   * the host is fine (seen under load against Node's own server, whose idle timeout is 5 s).
   */
  private async get(
    relativePath: string,
    headers: Record<string, string>,
    method: 'GET' | 'HEAD' = 'GET',
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body?: Buffer }> {
    try {
      return await this.getOnce(relativePath, headers, method);
    } catch (error) {
      if (!(error as { staleConnection?: boolean }).staleConnection) throw error;
      return this.getOnce(relativePath, headers, method);
    }
  }

  private getOnce(
    relativePath: string,
    headers: Record<string, string>,
    method: 'GET' | 'HEAD',
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body?: Buffer }> {
    // A read that was still waiting (on a HEAD, or its turn) when the server closed starts nothing:
    // a new request would open a socket again and hold the process for its whole deadline.
    if (this.closed) return Promise.reject(new Error(`${relativePath}: the server is closing`));
    const url = this.urlOf(relativePath);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      // The first reason a read failed wins: destroying the request also fails the response.
      let failure: Error | undefined;
      const fail = (reason: string): void => {
        failure ??= new Error(`${relativePath}: ${reason}`);
        request.destroy(failure);
      };
      let answered = false;
      const rejectOnce = (error: Error): void => {
        if (failure) {
          reject(failure);
          return;
        }
        const named = new Error(
          error.message.startsWith(relativePath) ? error.message : `${relativePath}: ${error.message}`,
        );
        // Reset before any answer came, on a connection an earlier request used: worth one more try.
        const code = (error as NodeJS.ErrnoException).code;
        if (request.reusedSocket && !answered && (code === 'ECONNRESET' || code === 'EPIPE'))
          Object.assign(named, { staleConnection: true });
        reject(named);
      };
      const request = client.request(
        url,
        { method, agent: this.agent, headers, timeout: this.timeoutMs },
        (response) => {
          answered = true;
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            response.resume();
            resolve({ status, headers: response.headers });
            return;
          }
          const chunks: Buffer[] = [];
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > this.maxFileBytes) {
              fail(`larger than ${this.maxFileBytes} bytes`);
              return;
            }
            chunks.push(chunk);
          });
          response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on('error', rejectOnce);
        },
      );
      request.on('timeout', () => fail(`no answer within ${this.timeoutMs} ms`));
      const deadline = setTimeout(
        () => fail(`the host did not send the whole file within ${this.deadlineMs} ms`),
        this.deadlineMs,
      );
      request.on('close', () => clearTimeout(deadline));
      request.on('error', rejectOnce);
      request.end();
    });
  }

  /** A HEAD within the same timeouts: the status and headers (Content-Length among them). */
  private head(relativePath: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
    return this.get(relativePath, { accept: 'application/json' }, 'HEAD');
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
  }
}
