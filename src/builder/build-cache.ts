// The incremental-build cache: `--help` output by script content, and call results by everything
// that reaches a run (script, --help, arguments, configuration, declared inputs). Stored as one
// JSON file under `<project>/.staticmcp/`; a corrupt cache is ignored, never trusted.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../tree/canonical-json.js';
import type { ToolResult } from '../script/tool-result.js';
import type { ValidationMemory } from '../project/config.js';

const CACHE_VERSION = 1;
export const CACHE_FOLDER = '.staticmcp';
const CACHE_FILE = 'build-cache.json';

export interface CachedHelp {
  stdout: string;
  stderr: string;
}

export interface CachedRun {
  result: ToolResult;
  logLines: { level: string; message: string }[];
  warnings: string[];
}

interface CacheFile {
  version: number;
  help: Record<string, CachedHelp>;
  runs: Record<string, CachedRun>;
  /** Hashes of configuration texts that passed validation. */
  valid?: Record<string, true>;
}

export function hashParts(...parts: unknown[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(typeof part === 'string' || Buffer.isBuffer(part) ? part : canonicalJson(part));
    hash.update('\0');
  }
  return hash.digest('hex');
}

export class BuildCache implements ValidationMemory {
  private readonly usedHelp: Record<string, CachedHelp> = {};
  private readonly usedRuns: Record<string, CachedRun> = {};
  private readonly usedValid: Record<string, true> = {};
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly previous: CacheFile,
  ) {}

  static async open(projectRoot: string, ignorePrevious: boolean): Promise<BuildCache> {
    const file = path.join(projectRoot, CACHE_FOLDER, CACHE_FILE);
    const empty: CacheFile = { version: CACHE_VERSION, help: {}, runs: {} };
    if (ignorePrevious) return new BuildCache(file, empty);
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as CacheFile;
      if (parsed?.version === CACHE_VERSION && parsed.help && parsed.runs) return new BuildCache(file, parsed);
    } catch {
      // Missing or corrupt: start empty.
    }
    return new BuildCache(file, empty);
  }

  isKnownValid(text: string): boolean {
    const key = hashParts(text);
    if (!this.previous.valid?.[key]) return false;
    this.usedValid[key] = true;
    return true;
  }

  rememberValid(text: string): void {
    this.usedValid[hashParts(text)] = true;
    this.changed = true;
  }

  getHelp(key: string): CachedHelp | undefined {
    const hit = this.previous.help[key];
    if (hit) this.usedHelp[key] = hit;
    return hit;
  }

  setHelp(key: string, help: CachedHelp): void {
    this.usedHelp[key] = help;
    this.changed = true;
  }

  getRun(key: string): CachedRun | undefined {
    const hit = this.previous.runs[key];
    if (hit) this.usedRuns[key] = hit;
    return hit;
  }

  setRun(key: string, run: CachedRun): void {
    this.usedRuns[key] = run;
    this.changed = true;
  }

  /** Writes only what this build used (so the cache never grows without bound), atomically. */
  async save(): Promise<void> {
    const dropped =
      Object.keys(this.previous.runs).length !== Object.keys(this.usedRuns).length ||
      Object.keys(this.previous.help).length !== Object.keys(this.usedHelp).length ||
      Object.keys(this.previous.valid ?? {}).length !== Object.keys(this.usedValid).length;
    if (!this.changed && !dropped) return;
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(
      temp,
      JSON.stringify({ version: CACHE_VERSION, help: this.usedHelp, runs: this.usedRuns, valid: this.usedValid }),
    );
    await fs.rename(temp, this.file);
  }
}
