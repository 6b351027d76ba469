// The in-memory search index writer (test/helpers/in-memory-search-index.ts, the reference the
// build's spilling writer is tested against) for the benches: it is not part of dist/, so it is
// bundled here with esbuild, once per bench process, into a throwaway folder.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { repoRoot, tempDir } from './common.mjs';

let loaded;

/** `writeSearchIndex(documents, options)` → { files, extension }, as the tests call it. */
export async function loadWriteSearchIndex() {
  if (!loaded) {
    const outfile = path.join(tempDir('staticmcp-search-writer-'), 'in-memory-search-index.mjs');
    await build({
      entryPoints: [path.join(repoRoot, 'test/helpers/in-memory-search-index.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'warning',
    });
    loaded = import(pathToFileURL(outfile).href);
  }
  return (await loaded).writeSearchIndex;
}
