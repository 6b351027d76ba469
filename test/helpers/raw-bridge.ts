// A raw JSON-RPC line client for a real `staticmcp serve` (or `dev`) process over stdio: every
// frame it prints is collected, so tests can assert exactly what went over the wire.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { CLI, REPO_ROOT } from './paths.js';

export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Frames received from a stdio server, and requests that wait for their answers: what RawBridge
 * (a real process) and InProcessBridge (test/helpers/in-process-bridge.ts: the same session
 * in-process) share. `sendLine` is the one way a line reaches the server.
 */
export abstract class JsonRpcLines {
  readonly frames: unknown[] = [];
  stderr = '';
  private waiters: (() => void)[] = [];
  private nextId = 1;

  abstract sendLine(line: string): void;

  /** Wakes whoever waits for a frame or a stderr line. */
  protected received(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  send(message: unknown): void {
    this.sendLine(JSON.stringify(message));
  }

  /** Waits until `predicate` holds for the frames received so far. */
  async waitFor<T>(find: (frames: unknown[]) => T | undefined, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find(this.frames);
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(
          `timed out; frames so far: ${JSON.stringify(this.frames).slice(0, 2000)}; stderr: ${this.stderr.slice(0, 2000)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until stderr holds `pattern` (a line the bridge prints beside the protocol, in its own time). */
  async waitForStderr(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    await this.waitFor(() => (pattern.test(this.stderr) ? true : undefined), timeoutMs);
  }

  responseTo(id: string | number | null, timeoutMs?: number): Promise<JsonRpcMessage> {
    return this.waitFor(
      (frames) =>
        frames.find((frame) => (frame as JsonRpcMessage).id === id && (frame as JsonRpcMessage).method === undefined) as
          | JsonRpcMessage
          | undefined,
      timeoutMs,
    );
  }

  async request(method: string, params?: Record<string, unknown>): Promise<JsonRpcMessage> {
    const id = `r${this.nextId++}`;
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.responseTo(id);
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<JsonRpcMessage> {
    const response = await this.request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }
}

/** A `staticmcp serve` (or `dev`) process driven by raw lines; collects every frame it prints. */
export class RawBridge extends JsonRpcLines {
  readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  readonly exited: Promise<number | null>;

  /**
   * `cli`: the entry file to run (default: the compiled bin, CLI); `launcher`: a whole command
   * line to run instead, a program that starts the server itself (`args` are then not used).
   */
  constructor(
    args: string[],
    options: {
      cwd?: string;
      command?: 'serve' | 'dev';
      env?: NodeJS.ProcessEnv;
      cli?: string;
      launcher?: [string, ...string[]];
    } = {},
  ) {
    super();
    const [program, ...programArgs] = options.launcher ?? [
      process.execPath,
      options.cli ?? CLI,
      options.command ?? 'serve',
      ...args,
    ];
    this.child = spawn(program, programArgs, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text: string) => {
      this.buffered += text;
      const lines = this.buffered.split('\n');
      this.buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        // A frame that is not JSON would fail the test that reads it.
        this.frames.push(JSON.parse(line));
      }
      this.received();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => {
      this.stderr += text;
      this.received();
    });
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  sendLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}
