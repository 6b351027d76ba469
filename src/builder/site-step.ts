// The build's side of a built website (project/discover-site.ts): the site's index.html and
// 404.html replace the build's before the content hash (they are build-owned names, so `check`
// hashes them), the landing page moves to LANDING_PAGE_FILE with its Content-Security-Policy, and
// the rest of the site is published as public/ is, outside the hash. The site's `_headers` is joined
// with the tree's (join-headers.ts), before the hash, as the tree's own is hashed. It reads both
// back through the output, which a shard part keeps them in even when shard 1 writes them.
import { SITE_OVERRIDES, type SiteDiscovery } from '../project/discover-site.js';
import { joinHeaders } from '../tree-writer/join-headers.js';
import { HEADERS_FILE } from '../tree-writer/deploy-files.js';
import { LANDING_PAGE_FILE } from '../tree-writer/tree-ownership.js';
import type { TreeOutput } from './tree-output.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';

/** A site file's bytes, read as it is written (discovery holds none), or undefined when it cannot be read. */
async function readSiteFile(site: SiteDiscovery, filePath: string): Promise<Buffer | undefined> {
  const file = site.files.get(filePath);
  if (file === undefined) return undefined;
  try {
    return await readProjectFile(file, site.projectRoot);
  } catch (error) {
    site.problems.push({ path: `${site.folder}/${filePath}`, message: `cannot be read (${readFailureReason(error)})` });
    site.files.delete(filePath);
    return undefined;
  }
}

/**
 * Writes the site's index.html and 404.html over the build's. When the site has an index.html the
 * landing page moves to /staticmcp.html (beside mcp.json, so its relative links still work), and
 * the `_headers` rules that gave `/` the page's strict policy now name the moved page: the site's
 * own index.html gets no policy of ours.
 */
export async function applySiteOverrides(output: TreeOutput, site: SiteDiscovery): Promise<void> {
  const index = await readSiteFile(site, 'index.html');
  if (index && output.has('index.html')) {
    await output.writer.flush();
    await output.write(LANDING_PAGE_FILE, output.read('index.html'));
    const landing = LANDING_PAGE_FILE.replace(/\.html$/, '');
    const headers = output.has(HEADERS_FILE) ? output.read(HEADERS_FILE).toString('utf8') : undefined;
    if (headers !== undefined)
      await output.write(
        HEADERS_FILE,
        headers.replace(/^\/$/m, `/${landing}`).replace(/^\/index\.html$/m, `/${LANDING_PAGE_FILE}`),
      );
  }
  if (index) await output.write('index.html', index);
  const notFound = await readSiteFile(site, '404.html');
  if (notFound) await output.write('404.html', notFound);
  if (site.headers !== undefined && output.has(HEADERS_FILE)) {
    await output.writer.flush();
    const ours = output.read(HEADERS_FILE).toString('utf8');
    const joined = joinHeaders(
      ours,
      site.headers,
      (treePath) => SITE_OVERRIDES.has(treePath) && site.files.has(treePath),
    );
    for (const message of joined.warnings) site.warnings.push({ path: `${site.folder}/_headers`, message });
    await output.write(HEADERS_FILE, joined.text);
  }
}

/** The site's other files, as they are (after the content hash, as public/ is). */
export async function writeSiteFiles(output: TreeOutput, site: SiteDiscovery): Promise<void> {
  for (const filePath of [...site.files.keys()]) {
    if (filePath === 'index.html' || filePath === '404.html') continue;
    const content = await readSiteFile(site, filePath);
    if (content) await output.write(filePath, content);
  }
}
