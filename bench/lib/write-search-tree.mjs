// Writes the tree of a search corpus (search-corpora.mjs) as `staticmcp build` would, with the
// search index or without, in a process of its own so its peak RSS is that build's alone, and
// prints the figures as one JSON line:
//   node bench/lib/write-search-tree.mjs <debian|wiki> <documents> <folder> <search|plain>
// Needs the compiled package (npm run build).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeBenchProject, writeTreeDirectly } from './packed-tree-projects.mjs';
import { searchCorpus } from './search-corpora.mjs';

const [name, countText, folder, mode] = process.argv.slice(2);
if (!name || !countText || !folder || (mode !== 'search' && mode !== 'plain')) {
  console.error('usage: node bench/lib/write-search-tree.mjs <debian|wiki> <documents> <folder> <search|plain>');
  process.exit(2);
}
const corpus = searchCorpus(name, Number(countText));
const project = path.join(folder, 'project');
const out = path.join(folder, 'tree');
writeBenchProject(project, corpus.shape, corpus.titles.length, mode === 'search' ? { search: corpus.search } : {});
const figures = await writeTreeDirectly(project, out, corpus.shape, corpus.titles.length);
let searchFiles = 0;
let searchBytes = 0;
const searchFolder = path.join(out, 'packs', 'search.index');
for (const entry of mode === 'search' ? readdirSync(searchFolder, { recursive: true, withFileTypes: true }) : []) {
  if (!entry.isFile()) continue;
  searchFiles += 1;
  searchBytes += statSync(path.join(entry.parentPath, entry.name)).size;
}
console.log(
  JSON.stringify({
    documents: corpus.titles.length,
    ms: figures.ms,
    files: figures.files,
    bytes: figures.bytes,
    manifestBytes: figures.manifestBytes,
    searchFiles,
    searchBytes,
    warnings: figures.warnings,
    // CPU time of the whole process (the corpus made, the tree written): on a machine shared with
    // other work, steadier than wall time.
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
