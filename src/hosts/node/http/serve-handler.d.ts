// serve-handler's types as it behaves, for static-tree.ts (its only user). They replace
// @types/serve-handler, whose methods still describe Node callbacks while serve-handler awaits them.
declare module 'serve-handler' {
  import type { ReadStream, Stats } from 'node:fs';
  import type { IncomingMessage, ServerResponse } from 'node:http';

  namespace serveHandler {
    interface Header {
      source: string;
      headers: { key: string; value: string }[];
    }
    interface Config {
      public?: string;
      directoryListing?: boolean;
      etag?: boolean;
      symlinks?: boolean;
      cleanUrls?: boolean;
      headers?: Header[];
    }
    /** What serve-handler passes last to sendError. */
    interface ErrorSpec {
      statusCode: number;
      code: string;
      message: string;
      err?: unknown;
    }
    interface Methods {
      lstat?(file: string, isDirectoryListing?: boolean): Promise<Stats>;
      realpath?(file: string): Promise<string>;
      /** Awaited when serving a file, but called without await for an ETag: it must return the stream itself. */
      createReadStream?(file: string, options?: { start?: number; end?: number }): ReadStream;
      sendError?(
        absolutePath: string,
        response: ServerResponse,
        acceptsJson: boolean,
        current: string,
        handlers: Methods,
        config: Config,
        spec: ErrorSpec,
      ): Promise<void>;
    }
  }

  function serveHandler(
    request: IncomingMessage,
    response: ServerResponse,
    config?: serveHandler.Config,
    methods?: serveHandler.Methods,
  ): Promise<void>;
  export = serveHandler;
}
