// A tree served over http(s) (a CDN, GitHub Pages, …): keep-alive connections, a timeout per
// request, and conditional GETs (If-None-Match) so a cached file is revalidated, not downloaded again.
import http from 'node:http';
import https from 'node:https';
import type { ReadOutcome, TreeSource } from '../mcp/tree-source.js';

export interface UrlSourceOptions {
  timeoutMs?: number;
  revalidateAfterMs?: number;
  /** Larger files are refused rather than buffered. */
  maxFileBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_REVALIDATE_AFTER_MS = 60_000;
const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

export class UrlSource implements TreeSource {
  readonly displayName: string;
  readonly revalidateAfterMs: number;
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly maxFileBytes: number;

  constructor(baseUrl: string, options: UrlSourceOptions = {}) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.base.search = '';
    this.base.hash = '';
    this.displayName = this.base.href;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.revalidateAfterMs = options.revalidateAfterMs ?? DEFAULT_REVALIDATE_AFTER_MS;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const AgentClass = this.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new AgentClass({ keepAlive: true, maxSockets: 8 });
  }

  /** Each segment percent-encoded, so a raw value with `?`, `#` or `%` stays one path segment. */
  urlOf(relativePath: string): URL {
    return new URL(relativePath.split('/').map(encodeURIComponent).join('/'), this.base);
  }

  read(relativePath: string, etag?: string): Promise<ReadOutcome> {
    const url = this.urlOf(relativePath);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.get(url, {
        agent: this.agent,
        headers: { accept: 'application/json', ...(etag ? { 'if-none-match': etag } : {}) },
        timeout: this.timeoutMs,
      }, (response) => {
        const status = response.statusCode ?? 0;
        if (status === 304) {
          response.resume();
          resolve({ status: 'not-modified' });
          return;
        }
        if (status === 404 || status === 410) {
          response.resume();
          resolve({ status: 'missing' });
          return;
        }
        if (status < 200 || status >= 300) {
          response.resume();
          reject(new Error(`${relativePath}: the server answered HTTP ${status}`));
          return;
        }
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > this.maxFileBytes) {
            request.destroy(new Error(`${relativePath} is larger than ${this.maxFileBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          const header = response.headers.etag;
          resolve({ status: 'ok', text: Buffer.concat(chunks).toString('utf8'), ...(header ? { etag: header } : {}) });
        });
        response.on('error', (error) => reject(new Error(`${relativePath}: ${error.message}`)));
      });
      request.on('timeout', () => request.destroy(new Error(`${relativePath}: no answer within ${this.timeoutMs} ms`)));
      request.on('error', (error) => reject(new Error(error.message.startsWith(relativePath) ? error.message : `${relativePath}: ${error.message}`)));
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
