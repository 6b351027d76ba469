// The one architecture map, docs/architecture.md "The map", held to src/: a row for every folder under
// src/ (nested ones too) and no row for a folder that is gone; and every source file a row names
// (`loaded-tree.ts`, `run/script-run.ts`) lies in that row's folder, so a file moved elsewhere
// makes its old description fail here instead of going stale.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTableUnder, withoutCodeSpans } from '../helpers/markdown.js';
import { REPO_ROOT } from '../helpers/paths.js';

const MAP_FILE = 'docs/architecture.md';
const MAP_HEADING = 'The map';

/** Every folder under src/, as `src/a/b/`. */
function listSourceFolders(): string[] {
  return readdirSync(path.join(REPO_ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const relative = path.relative(REPO_ROOT, path.join(entry.parentPath, entry.name));
      return `${relative.split(path.sep).join('/')}/`;
    })
    .sort();
}

/** The map's rows: the folder of the first cell (`src/x/`) and what the row says lives there. */
function readMap(): { folder: string; says: string }[] {
  const rows = readTableUnder(readFileSync(path.join(REPO_ROOT, MAP_FILE), 'utf8'), MAP_HEADING);
  return rows.map(([folder = '', ...rest]) => ({ folder: folder.replace(/`/g, ''), says: rest.join(' | ') }));
}

/** The source files a row names in code spans: `x.ts`, `run/x.ts`, `src/a/x.ts`. */
function readNamedFiles(says: string): string[] {
  return [...says.matchAll(/`([A-Za-z0-9_./-]+\.ts)`/g)].map(([, name]) => name!);
}

/** Whether a named file lies in the folder: by its path from the folder (or the repository), or by name below it. */
function liesIn(folder: string, name: string): boolean {
  if (name.startsWith('src/')) return name.startsWith(folder) && existsSync(path.join(REPO_ROOT, name));
  if (existsSync(path.join(REPO_ROOT, folder, name))) return true;
  return readdirSync(path.join(REPO_ROOT, folder), { recursive: true }).some(
    (entry) => path.basename(String(entry)) === name,
  );
}

describe(`the architecture map (${MAP_FILE}, "${MAP_HEADING}")`, () => {
  const map = readMap();
  const mapped = map.map(({ folder }) => folder);
  const folders = listSourceFolders();

  it('has a row for every folder under src/', () => {
    const missing = folders.filter((folder) => !mapped.includes(folder));
    expect(missing, `folders with no row in ${MAP_FILE}: add a row saying what lives there`).toEqual([]);
  });

  it('has no row for a folder that does not exist, and one row per folder', () => {
    const gone = mapped.filter((folder) => !folders.includes(folder));
    expect(gone, `rows of ${MAP_FILE} naming a folder src/ does not have: move or remove the row`).toEqual([]);
    expect(mapped.filter((folder, index) => mapped.indexOf(folder) !== index)).toEqual([]);
  });

  it('says what lives in each folder, and every file it names lies in that folder', () => {
    const wrong = map.flatMap(({ folder, says }) => {
      if (withoutCodeSpans(says).trim() === '' && readNamedFiles(says).length === 0) return [`${folder}: says nothing`];
      if (!folders.includes(folder)) return [];
      return readNamedFiles(says)
        .filter((name) => !liesIn(folder, name))
        .map((name) => `${folder} names ${name}, which is not in that folder`);
    });
    expect(wrong).toEqual([]);
  });

  it('reads the rows it checks (a map that parses to nothing would pass everything)', () => {
    expect(map.length).toBeGreaterThan(20);
    expect(mapped).toContain('src/core/search/');
    expect(readNamedFiles('the reader (`loaded-tree.ts`, `src/core/mcp/http/`)')).toEqual(['loaded-tree.ts']);
  });
});
