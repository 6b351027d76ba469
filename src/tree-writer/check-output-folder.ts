// Refuses output folders that a build could damage: the project itself, a folder that contains
// it, or a non-empty folder that is not a tree we wrote. Nothing outside the tree is ever deleted.
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { EXTENSION_KEY, MANIFEST_FILE } from '../core/tree/manifest.js';
import { DEPLOY_TARGET_FILES } from './tree-ownership.js';
import { readRegularFile } from '../shared/read-regular-file.js';
import { readShardRecord, SHARD_RECORD_FILE } from './shard-record.js';

function contains(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

async function realpathOrSelf(file: string): Promise<string> {
  try {
    return await fs.realpath(file);
  } catch {
    // Not there yet: resolve its nearest existing parent so symlinked parents still compare right.
    const parent = path.dirname(file);
    if (parent === file) return file;
    return path.join(await realpathOrSelf(parent), path.basename(file));
  }
}

export interface ProtectedFolder {
  folder: string;
  what: string;
  /** An input folder the tree may not be written into (it would be read back as input next build). */
  input?: boolean;
  /** A private folder the tree may not be written into, and why (the cache would be published). */
  privateReason?: string;
}

/**
 * Throws a StaticMcpError when writing the tree to `outDir` could harm something else. A shard part
 * (`shardPart`, from `build --shard`) may replace only an empty folder or an earlier part; a whole
 * tree may replace anything but a part (whose record would otherwise be carried into it as the user's).
 */
export async function checkOutputFolder(
  outDir: string,
  protectedFolders: readonly ProtectedFolder[],
  options: { shardPart?: boolean } = {},
): Promise<void> {
  const realOut = await realpathOrSelf(path.resolve(outDir));
  for (const { folder, what, input, privateReason } of protectedFolders) {
    const realProtected = await realpathOrSelf(path.resolve(folder));
    if (privateReason && contains(realProtected, realOut)) {
      throw new StaticMcpError(
        'OUT_INSIDE_PRIVATE',
        `--out ${outDir} is ${realOut === realProtected ? '' : 'inside '}the ${what}; ${privateReason}`,
        'Choose another output folder (the default is dist/).',
      );
    }
    if (input && contains(realProtected, realOut) && realOut !== realProtected) {
      throw new StaticMcpError(
        'OUT_INSIDE_INPUT',
        `--out ${outDir} is inside the ${what}; the next build would read the tree back as part of the project`,
        'Choose an output folder outside tools/ and resources/ (the default is dist/).',
      );
    }
    if (contains(realOut, realProtected)) {
      throw new StaticMcpError(
        'OUT_CONTAINS_PROJECT',
        `--out ${outDir} is ${realOut === realProtected ? '' : 'a folder that contains '}the ${what}; building there would replace it`,
        'Choose an output folder inside the project (the default is dist/) or anywhere outside it.',
      );
    }
  }
  let stats: Stats;
  try {
    stats = await fs.lstat(realOut);
  } catch {
    return;
  }
  if (!stats.isDirectory()) {
    throw new StaticMcpError(
      'OUT_NOT_A_FOLDER',
      `--out ${outDir} exists and is not a folder`,
      'Remove it or choose another output folder.',
    );
  }
  const entries = await fs.readdir(realOut);
  if (entries.length === 0) return;
  const isPart = entries.includes(SHARD_RECORD_FILE) && (await readShardRecord(realOut)).status === 'ok';
  if (options.shardPart) {
    if (isPart) return;
    throw new StaticMcpError(
      'OUT_NOT_A_PART',
      `--out ${outDir} is a non-empty folder that is not a shard part (no ${SHARD_RECORD_FILE}); a shard build replaces its whole output folder`,
      'Give each shard an empty or new folder of its own (such as part-1), and staticmcp merge those folders into your tree.',
    );
  }
  if (isPart) {
    throw new StaticMcpError(
      'OUT_IS_A_PART',
      `--out ${outDir} holds a shard part (${SHARD_RECORD_FILE}) that a whole tree would replace`,
      'Choose another output folder, or delete the part if it is no longer needed (merge it first with staticmcp merge).',
    );
  }
  // A deploy target not built into yet (a fresh gh-pages worktree: .git, CNAME): all of it is kept.
  if (entries.every((name) => DEPLOY_TARGET_FILES.has(name))) return;
  try {
    const manifest = JSON.parse(await readRegularFile(path.join(realOut, MANIFEST_FILE), 'utf8')) as Record<
      string,
      unknown
    >;
    if (manifest && typeof manifest === 'object' && EXTENSION_KEY in manifest) return;
  } catch {
    // Falls through to the refusal below.
  }
  throw new StaticMcpError(
    'OUT_NOT_A_TREE',
    `--out ${outDir} is a non-empty folder that staticmcp did not write (no ${MANIFEST_FILE} with a "${EXTENSION_KEY}" section), so it will not be replaced`,
    'Empty it yourself if it is safe to delete, or choose another output folder.',
  );
}
