// The no-op fast path, make-style: a fingerprint of every input's metadata (path, type, size,
// mtime, mode under the project and tools folders), of the options, and of the tree on disk. When
// a build succeeds it is recorded with its report; an identical fingerprint later means nothing
// can have changed, so the report is replayed without loading the build pipeline or running
// anything. Deliberately light (node built-ins only): it runs before the pipeline is imported.
import { createHash } from 'node:crypto';
import { type Dirent, promises as fs, readdirSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import type { BuildReport } from './build-report.js';

const RECORD_FILE = path.join('.staticmcp', 'up-to-date.json');
const SKIPPED_NAMES = new Set(['.staticmcp', '.git', 'node_modules']);
const MAX_WALK_DEPTH = 12;

export interface FingerprintScope {
  projectRoot: string;
  toolsRoot: string;
  outDir: string;
  generator: string;
}

interface UpToDateRecord {
  inputs: string;
  tree: string;
  outDir: string;
  toolsRoot: string;
  generator: string;
  report: BuildReport;
}

/** Lines joined by newlines into one sha256, fed one at a time: no list of every path is held. */
class LineDigest {
  private readonly hash = createHash('sha256');
  private first = true;

  push(line: string): void {
    if (!this.first) this.hash.update('\n');
    this.first = false;
    this.hash.update(line);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Metadata lines of everything below `root` (not following folder symlinks), skipping `excluded`.
 * Synchronous on purpose: thousands of stats of cached metadata cost microseconds each, far less
 * than their promises.
 */
function listMetadata(root: string, excluded: readonly string[], lines: LineDigest, relative = '', depth = 0): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(root, relative), { withFileTypes: true });
  } catch {
    lines.push(`${relative}\0unreadable`);
    return;
  }
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    const entryPath = relative ? `${relative}/${entry.name}` : entry.name;
    const absolute = path.join(root, entryPath);
    if (
      SKIPPED_NAMES.has(entry.name) ||
      excluded.some((folder) => absolute === folder || absolute.startsWith(`${folder}.staticmcp-`))
    )
      continue;
    // statSync follows file symlinks, so an edited target still changes the fingerprint.
    let stats: Stats;
    try {
      stats = statSync(absolute);
    } catch (error) {
      lines.push(`${entryPath}\0${(error as NodeJS.ErrnoException).code}`);
      continue;
    }
    lines.push(`${entryPath}\0${stats.isDirectory() ? 'd' : 'f'}\0${stats.size}\0${stats.mtimeMs}\0${stats.mode}`);
    if (entry.isDirectory() && depth < MAX_WALK_DEPTH) listMetadata(root, excluded, lines, entryPath, depth + 1);
  }
}

/** Fingerprint of what a build reads (taken before it starts, so an edit during the build is never recorded as built). */
export async function fingerprintInputs(scope: FingerprintScope): Promise<string> {
  const lines = new LineDigest();
  for (const line of [scope.generator, scope.outDir, scope.toolsRoot, process.env.SOURCE_DATE_EPOCH ?? ''])
    lines.push(line);
  listMetadata(scope.projectRoot, [scope.outDir], lines);
  const toolsRelative = path.relative(scope.projectRoot, scope.toolsRoot);
  if (toolsRelative.startsWith('..') || path.isAbsolute(toolsRelative))
    listMetadata(scope.toolsRoot, [scope.outDir], lines);
  return lines.digest();
}

/** Fingerprint of the tree on disk (taken after the build wrote it). */
export async function fingerprintTree(outDir: string): Promise<string> {
  const lines = new LineDigest();
  listMetadata(outDir, [], lines);
  return lines.digest();
}

/**
 * The recorded report when nothing changed since the last successful build with these options,
 * else null. Never throws: any doubt means "build".
 */
export async function readUpToDateReport(
  projectRoot: string,
  requested: { outDir?: string; toolsRoot?: string },
  generator: string,
): Promise<BuildReport | null> {
  let record: UpToDateRecord;
  try {
    record = JSON.parse(await fs.readFile(path.join(projectRoot, RECORD_FILE), 'utf8')) as UpToDateRecord;
  } catch {
    return null;
  }
  if (record.generator !== generator) return null;
  if (requested.outDir !== undefined && requested.outDir !== record.outDir) return null;
  if (requested.toolsRoot !== undefined && requested.toolsRoot !== record.toolsRoot) return null;
  const scope = { projectRoot, toolsRoot: record.toolsRoot, outDir: record.outDir, generator };
  const [inputs, tree] = await Promise.all([fingerprintInputs(scope), fingerprintTree(record.outDir)]);
  return inputs === record.inputs && tree === record.tree ? record.report : null;
}

export async function recordUpToDate(scope: FingerprintScope, inputs: string, report: BuildReport): Promise<void> {
  const record: UpToDateRecord = {
    inputs,
    tree: await fingerprintTree(scope.outDir),
    outDir: scope.outDir,
    toolsRoot: scope.toolsRoot,
    generator: scope.generator,
    report,
  };
  const file = path.join(scope.projectRoot, RECORD_FILE);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(record));
  await fs.rename(temp, file);
}

export async function forgetUpToDate(projectRoot: string): Promise<void> {
  await fs.rm(path.join(projectRoot, RECORD_FILE), { force: true });
}
