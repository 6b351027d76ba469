// `staticmcp check`, the search index of a tree (issue #25): the manifest's `search` table parses
// and the index it names passes verifySearchIndex (every part loads, is named by its content,
// every record is reachable and readable, the counts match, no stray file under
// packs/search.index/, every call a document takes its text from is in the tree). A problem
// line's "; what to do" becomes the hint check prints.
import { EXTENSION_KEY } from '../core/tree/manifest.js';
import type { PackFileSource } from '../core/packs/pack-reader.js';
import { parseSearchIndexManifest, SEARCH_FOLDER } from '../core/search/search-index-format.js';
import { verifySearchIndex } from '../core/search/verify-search-index.js';
import { at, REBUILD, type Report } from './tree-problem.js';

export async function checkSearchIndex(
  value: unknown,
  files: readonly string[],
  packFiles: PackFileSource,
  report: Report,
  hasCall?: (treePath: string) => boolean,
): Promise<void> {
  const parsed = parseSearchIndexManifest(value);
  if ('problem' in parsed) {
    report(at(EXTENSION_KEY, 'search'), `${parsed.problem}, so the search and fetch tools are left out`, REBUILD);
    return;
  }
  for (const line of await verifySearchIndex('table' in parsed ? parsed.table : parsed, packFiles, files, hasCall)) {
    const cut = line.lastIndexOf('; ');
    const hint = cut < 0 ? REBUILD : line.slice(cut + 2);
    report(SEARCH_FOLDER, cut < 0 ? line : line.slice(0, cut), hint === 'build the tree again' ? REBUILD : hint);
  }
}
