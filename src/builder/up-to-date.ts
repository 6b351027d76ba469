// The no-op fast path, make-style: a fingerprint of every input's metadata (path, type, size,
// mtime, mode under the project and tools folders), of the options that change the output
// (build-options.ts decides which), and of the tree on disk. When a build succeeds it is recorded
// with its report; an identical fingerprint later means nothing can have changed, so the report
// is replayed without loading the build pipeline or running anything. Deliberately light (node
// built-ins only): it runs before the pipeline is imported.
// The tree's side costs what its folders cost, not its files (issue #24: stat-ing every output
// file made the no-op 1.1-1.3 s at 100,000 calls): a build swaps the whole output folder in by
// rename, and any file added, removed or renamed in the tree changes its folder's mtime, so the
// output folder's identity, mcp.json's metadata and every tree folder's inode and mtime show each
// of those. The folders are listed once, after the build (a readdir walk, no stat per file), and
// the replay stats only them. What it cannot see: a tree file rewritten in place (same name, same
// folder); such a hand edit stays until the next build that runs (`--force`, or any input edit),
// and `staticmcp check` reports it (the content hash).
// A value-list command is an input no metadata shows: the record keeps the digest of what each
// printed, and a replay runs them again (value-list-command.ts, loaded only then) and replays only
// when each prints the same bytes. A failed command rules the replay out.
import { createHash } from 'node:crypto';
import { type BigIntStats, type Dirent, promises as fs, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from '../core/tree/manifest.js';
import { SWAP_FOLDER_MARK } from '../tree-writer/swap-folders.js';
import { BUILD_OPTION_EFFECTS, type BuildOptionEffect, type BuildOptions } from './build-options.js';
import type { BuildReport } from './build-report.js';
import type { CheckedCommand } from './value-list-command.js';
import { WalkedIdentities } from '../project/walked-identities.js';

const RECORD_FILE = path.join('.staticmcp', 'up-to-date.json');
const SKIPPED_NAMES = new Set(['.staticmcp', '.git', 'node_modules']);
const MAX_WALK_DEPTH = 12;
/** How much text a fingerprint gathers before it hashes it. */
const LINE_CHUNK_CHARS = 64 * 1024;
/** How many bytes of file metadata a fingerprint gathers before it hashes them. */
const METADATA_CHUNK_BYTES = 64 * 1024;

export interface FingerprintScope {
  projectRoot: string;
  toolsRoot: string;
  outDir: string;
  generator: string;
}

interface UpToDateRecord {
  inputs: string;
  tree: string;
  /** The tree's folders (`/` paths below the output folder) whose metadata `tree` covers. */
  treeFolders: string[];
  /** fingerprintOptions of the build's options. */
  options: string;
  /** The output and tools folders the build resolved (from staticmcp.json when no option named them). */
  outDir: string;
  toolsRoot: string;
  generator: string;
  /** The value-list commands the build ran, repeated by a replay (absent in older records: none). */
  commands?: CheckedCommand[];
  report: BuildReport;
}

/** The table's rows, typed as rows of any effect (the table's own type knows only the effects in use). */
function optionEffects(): [keyof BuildOptions, BuildOptionEffect][] {
  return Object.entries(BUILD_OPTION_EFFECTS) as [keyof BuildOptions, BuildOptionEffect][];
}

/**
 * The values of the options the tree depends on, as one string: every option BUILD_OPTION_EFFECTS
 * marks as output, in its order, absent ones as null, paths resolved.
 */
export function fingerprintOptions(options: BuildOptions): string {
  const values: Record<string, unknown> = {};
  for (const [name, effect] of optionEffects()) {
    const value = options[name];
    if (effect === 'output') values[name] = value ?? null;
    else if (effect === 'output-path') values[name] = typeof value === 'string' ? path.resolve(value) : null;
  }
  return JSON.stringify(values);
}

/** Whether a build with these options may be answered from the record (none of them forces a run). */
export function mayReplay(options: BuildOptions): boolean {
  return optionEffects().every(([name, effect]) => {
    if (effect !== 'never-replayed') return true;
    const value = options[name];
    return value === undefined || value === false;
  });
}

/**
 * Lines joined by newlines into one sha256, fed a chunk at a time (two hash updates a file were a
 * good part of the walk at 10,000 files): no list of every path is held.
 */
class LineDigest {
  private readonly hash = createHash('sha256');
  /** The lines not hashed yet, each after a newline but the very first. */
  private pending = '';
  private started = false;

  push(line: string): void {
    this.pending = this.started ? `${this.pending}\n${line}` : line;
    this.started = true;
    if (this.pending.length >= LINE_CHUNK_CHARS) {
      this.hash.update(this.pending);
      this.pending = '';
    }
  }

  digest(): string {
    this.hash.update(this.pending);
    return this.hash.digest('hex');
  }
}

/**
 * The inputs' metadata hashed as bytes: per entry its path, a NUL, a type byte and, for what could
 * be stat-ed, size, nanosecond mtime and mode as 64-bit numbers (decimal text of three BigInts a
 * file cost more than its stat). A path holds no NUL, so entries cannot run into each other.
 */
class MetadataDigest {
  private readonly hash = createHash('sha256');
  private readonly buffer = Buffer.allocUnsafe(METADATA_CHUNK_BYTES);
  private readonly numbers = new BigInt64Array(3);
  private readonly numberBytes = new Uint8Array(this.numbers.buffer);
  private used = 0;

  /** A text field (one of the scope's strings, or an entry's path), ended by a NUL. */
  pushText(text: string): void {
    // UTF-8 takes at most 3 bytes a UTF-16 code unit.
    if (3 * text.length + 1 > METADATA_CHUNK_BYTES - this.used) this.flush();
    if (3 * text.length + 1 > METADATA_CHUNK_BYTES) {
      this.hash.update(text);
      this.hash.update('\0');
      return;
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
    this.buffer[this.used++] = 0;
  }

  /** An entry's type (`d`, `f`, or `e` when it could not be stat-ed) and, when stat-ed, its numbers. */
  pushStats(type: 'd' | 'f', stats: Pick<BigIntStats, 'size' | 'mtimeNs' | 'mode'>): void {
    if (25 > METADATA_CHUNK_BYTES - this.used) this.flush();
    this.buffer[this.used++] = type.charCodeAt(0);
    this.numbers[0] = stats.size;
    this.numbers[1] = stats.mtimeNs;
    this.numbers[2] = stats.mode;
    this.buffer.set(this.numberBytes, this.used);
    this.used += this.numberBytes.length;
  }

  private flush(): void {
    this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

/** A folder to skip, and the start of the names of its swap folders (tree-writer/swap-folders.ts). */
interface ExcludedFolder {
  folder: string;
  swapPrefix: string;
}

/** The file-type bits of a stat's mode (S_IFMT), and those of a folder and of a regular file. */
const TYPE_BITS = 0o170000;
const FOLDER_TYPE = 0o040000;
const FILE_TYPE = 0o100000;

/**
 * Metadata of everything below `root` (not following folder symlinks), skipping `excluded`.
 * Synchronous on purpose: thousands of stats of cached metadata cost microseconds each, far less
 * than their promises.
 */
function listMetadata(
  root: string,
  excluded: readonly ExcludedFolder[],
  lines: MetadataDigest,
  identities: WalkedIdentities | undefined,
  relative = '',
  depth = 0,
): void {
  const folder = path.join(root, relative);
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    lines.pushText(relative);
    lines.pushText('unreadable');
    return;
  }
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  // What path.join(root, entryPath) gives, joined once for the folder (a name holds no separator).
  const prefix = folder === '.' ? '' : folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`;
  // Only an excluded folder whose swap prefix this folder's entries could start with (or one this
  // folder is under) can match here: the others are not compared entry by entry.
  const excludedHere = excluded.filter(
    ({ swapPrefix }) => swapPrefix.startsWith(prefix) || prefix.startsWith(swapPrefix),
  );
  const entryPrefix = relative ? `${relative}/` : '';
  const files = identities?.startFolder(relative, entries.length);
  for (const entry of entries) {
    const { name } = entry;
    if (SKIPPED_NAMES.has(name)) continue;
    const absolute = `${prefix}${name}`;
    if (
      excludedHere.length > 0 &&
      excludedHere.some(({ folder, swapPrefix }) => absolute === folder || absolute.startsWith(swapPrefix))
    )
      continue;
    const entryPath = `${entryPrefix}${name}`;
    // statSync follows file symlinks, so an edited target still changes the fingerprint. BigInt:
    // the nanosecond mtime discovery's document cache compares (no dearer than a Number stat).
    let stats: BigIntStats;
    try {
      stats = statSync(absolute, { bigint: true });
    } catch (error) {
      lines.pushText(entryPath);
      lines.pushText(`e${(error as NodeJS.ErrnoException).code}`);
      continue;
    }
    // The type from the mode as a number once: each of BigIntStats' isFile and isDirectory makes BigInts.
    const type = Number(stats.mode & BigInt(TYPE_BITS));
    lines.pushText(entryPath);
    lines.pushStats(type === FOLDER_TYPE ? 'd' : 'f', stats);
    if (files !== undefined && type === FILE_TYPE) files.add(name, stats);
    if (entry.isDirectory() && depth < MAX_WALK_DEPTH)
      listMetadata(root, excluded, lines, identities, entryPath, depth + 1);
  }
  files?.finish();
}

/**
 * The fingerprint a replay check just took and found changed (`build`'s), for the build that
 * follows it in the same process to take once instead of walking the project again: taken
 * earlier, it is still taken before that build reads anything.
 */
let checkedFingerprint: { key: string; digest: string; identities: WalkedIdentities } | undefined;

function scopeKey(scope: FingerprintScope): string {
  return JSON.stringify([scope.projectRoot, scope.toolsRoot, scope.outDir, scope.generator]);
}

/** What a build reads, as the walk saw it: the fingerprint, and the identity of each project file. */
export interface InputsFingerprint {
  digest: string;
  /** Of the files under the project folder (paths from it): discovery's, instead of a stat of its own. */
  identities: WalkedIdentities;
}

/** Fingerprint of what a build reads (taken before it starts, so an edit during the build is never recorded as built). */
export async function fingerprintInputs(scope: FingerprintScope): Promise<InputsFingerprint> {
  const checked = checkedFingerprint;
  checkedFingerprint = undefined;
  if (checked !== undefined && checked.key === scopeKey(scope))
    return { digest: checked.digest, identities: checked.identities };
  const lines = new MetadataDigest();
  for (const line of [scope.generator, scope.outDir, scope.toolsRoot, process.env.SOURCE_DATE_EPOCH ?? ''])
    lines.pushText(line);
  const identities = new WalkedIdentities();
  const excluded = [{ folder: scope.outDir, swapPrefix: `${scope.outDir}${SWAP_FOLDER_MARK}` }];
  listMetadata(scope.projectRoot, excluded, lines, identities);
  const toolsRelative = path.relative(scope.projectRoot, scope.toolsRoot);
  if (toolsRelative.startsWith('..') || path.isAbsolute(toolsRelative))
    listMetadata(scope.toolsRoot, excluded, lines, undefined);
  return { digest: lines.digest(), identities };
}

/** The tree's fingerprint and the folders it covers. */
export interface TreeFingerprint {
  digest: string;
  folders: string[];
}

/**
 * The tree's folders below `outDir` (not following folder symlinks, skipping SKIPPED_NAMES),
 * sorted: a readdir walk, no stat of any file. Taken once after a build.
 */
function listTreeFolders(outDir: string, relative = '', depth = 0, folders: string[] = []): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(outDir, relative), { withFileTypes: true });
  } catch {
    return folders;
  }
  const names = entries
    .filter((entry) => entry.isDirectory() && !SKIPPED_NAMES.has(entry.name))
    .map((entry) => entry.name)
    .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  for (const name of names) {
    const folder = relative ? `${relative}/${name}` : name;
    folders.push(folder);
    if (depth < MAX_WALK_DEPTH) listTreeFolders(outDir, folder, depth + 1, folders);
  }
  return folders;
}

/** One line of a path's metadata for the tree's digest (its error code when it cannot be stat-ed). */
function treeMetadataLine(outDir: string, relative: string): string {
  try {
    // lstat: a folder or mcp.json replaced by a symlink is a change too.
    const stats = lstatSync(path.join(outDir, relative), { bigint: true });
    return `${relative}\0${stats.dev}\0${stats.ino}\0${stats.mode}\0${stats.size}\0${stats.mtimeNs}`;
  } catch (error) {
    return `${relative}\0${(error as NodeJS.ErrnoException).code}`;
  }
}

/**
 * Fingerprint of the tree on disk from the metadata of the output folder itself, its mcp.json and
 * `folders` (a stat each): what a replay checks, at a cost that does not grow with the call files.
 */
export function fingerprintTreeFolders(outDir: string, folders: readonly string[]): string {
  const lines = new LineDigest();
  for (const relative of ['.', MANIFEST_FILE, ...folders]) lines.push(treeMetadataLine(outDir, relative));
  return lines.digest();
}

/** Fingerprint of the tree on disk (taken after the build wrote it), with the folders it covers. */
export function fingerprintTree(outDir: string): TreeFingerprint {
  const folders = listTreeFolders(outDir);
  return { digest: fingerprintTreeFolders(outDir, folders), folders };
}

/**
 * The recorded report when nothing changed since the last successful build with the same
 * output-changing options, else null. Never throws: any doubt means "build".
 */
export async function readUpToDateReport(
  options: BuildOptions,
  generator: string,
  /** Told when a record of a build with the same options is found, before the project is walked. */
  onRecordFound?: () => void,
): Promise<BuildReport | null> {
  if (!mayReplay(options)) return null;
  const projectRoot = path.resolve(options.projectRoot);
  let record: UpToDateRecord;
  try {
    record = JSON.parse(await fs.readFile(path.join(projectRoot, RECORD_FILE), 'utf8')) as UpToDateRecord;
  } catch {
    return null;
  }
  if (record.generator !== generator || record.options !== fingerprintOptions(options)) return null;
  if (!Array.isArray(record.treeFolders)) return null;
  onRecordFound?.();
  // The tree first: a few stats, where the inputs walk the whole project.
  if (fingerprintTreeFolders(record.outDir, record.treeFolders) !== record.tree) return null;
  const scope = { projectRoot, toolsRoot: record.toolsRoot, outDir: record.outDir, generator };
  const inputs = await fingerprintInputs(scope);
  if (inputs.digest !== record.inputs) {
    checkedFingerprint = { key: scopeKey(scope), ...inputs };
    return null;
  }
  const commands = record.commands ?? [];
  if (!Array.isArray(commands)) return null;
  if (commands.length === 0) return record.report;
  // Last: the only check that runs processes.
  const { commandsPrintTheSame } = await import('./value-list-command.js');
  return (await commandsPrintTheSame(commands, { projectRoot, toolsRoot: record.toolsRoot })) ? record.report : null;
}

export async function recordUpToDate(
  scope: FingerprintScope,
  inputs: string,
  options: BuildOptions,
  report: BuildReport,
  commands: readonly CheckedCommand[] = [],
): Promise<void> {
  const tree = fingerprintTree(scope.outDir);
  const record: UpToDateRecord = {
    inputs,
    tree: tree.digest,
    treeFolders: tree.folders,
    options: fingerprintOptions(options),
    outDir: scope.outDir,
    toolsRoot: scope.toolsRoot,
    generator: scope.generator,
    ...(commands.length > 0 ? { commands: [...commands] } : {}),
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
