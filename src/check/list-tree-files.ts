// Lists a tree folder for `staticmcp check`: every file, tree-relative with `/`. What cannot be
// listed is a finding, never a crash: a name that is not UTF-8 (no client could ask for it, and
// Node would silently turn it into another name), folders nested past any real tree's depth, and
// folders that cannot be read. Links are listed and left to the tree source to refuse.
import { type Dirent, promises as fs } from 'node:fs';
import path from 'node:path';
import type { TreeProblem } from './check-tree.js';

/** Deeper than any key a tree writes (one level per parameter, a 5-level script path), with room. */
export const MAX_CHECKED_DEPTH = 64;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A non-UTF-8 name shown safely: valid parts as text, the rest as \xNN escapes. */
function describeName(bytes: Buffer): string {
  return [...bytes]
    .map((byte) =>
      byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

export async function listTreeFiles(root: string): Promise<{ files: string[]; problems: TreeProblem[] }> {
  const files: string[] = [];
  const problems: TreeProblem[] = [];
  async function walk(folder: string, prefix: string, depth: number): Promise<void> {
    let entries: Dirent<Buffer>[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true, encoding: 'buffer' });
    } catch (error) {
      problems.push({
        path: prefix || '.',
        message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        hint: 'make the folder readable, or remove it from the tree',
      });
      return;
    }
    for (const entry of entries) {
      let name: string;
      try {
        name = strictUtf8.decode(entry.name);
      } catch {
        const shown = `${prefix ? `${prefix}/` : ''}${describeName(entry.name)}`;
        problems.push({
          path: shown,
          message: 'has a name that is not UTF-8, so no client can ask for it',
          hint: 'rename it (staticmcp build writes only ASCII names) or remove it',
        });
        continue;
      }
      const relative = prefix ? `${prefix}/${name}` : name;
      if (entry.isDirectory()) {
        if (depth + 1 >= MAX_CHECKED_DEPTH) {
          problems.push({
            path: relative,
            message: `is nested deeper than ${MAX_CHECKED_DEPTH} folders; its contents were not checked`,
            hint: 'no StaticMCP key is that deep: remove the nest',
          });
          continue;
        }
        await walk(path.join(folder, name), relative, depth + 1);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        files.push(relative);
      }
    }
  }
  await walk(root, '', 0);
  return { files, problems };
}
