// A built website as a source (`site` in staticmcp.json): every `*.html` page of the folder
// becomes a text resource (its main content, title and canonical URL, extract-page.ts), and the
// folder's files are published in the tree as they are, as public/ is. The site's index.html and
// 404.html win over the build's (site-step.ts moves the landing page); the files that make the
// edge worker (_worker.js, _routes.json) and the other names the build owns are refused.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { isInsideRealFolder, readFailureReason, readProjectFileAndStats } from '../shared/read-regular-file.js';
import { DocumentCache, digestBytes, identityOf, type ParsedDocument } from './document-cache.js';
import { isBuildOwnedPath, isLocalSecretsFile, LOCAL_SECRETS_ADVICE } from '../tree-writer/tree-ownership.js';
import type { ProjectConfig } from './config.js';
import type { ProjectResource } from './project-resource.js';
import { walkFolder } from './walk-folder.js';
import { isHttpUrl } from '../core/search/document-url.js';

const MAX_SITE_DEPTH = 32;
/** A page's URI when neither a canonical link nor publicUrl gives it an address. */
export const SITE_URI_PREFIX = 'site:///';
/** The site's files that replace the build's own (the landing page then moves, site-step.ts). */
export const SITE_OVERRIDES: ReadonlySet<string> = new Set(['index.html', '404.html']);

export interface SiteProblem {
  path: string;
  message: string;
}

export interface SiteDiscovery {
  /** The folder, relative to the project, `/`-separated. */
  folder: string;
  resources: ProjectResource[];
  /** Tree-relative path → the file, published as it is (index.html and 404.html included), read when written. */
  files: Map<string, string>;
  projectRoot: string;
  problems: SiteProblem[];
  warnings: SiteProblem[];
  /** The site's own `_headers`, joined with the tree's (site-step.ts), never published as it is. */
  headers?: string;
}

function siteSettings(config: ProjectConfig): { folder: string; selector?: string } | undefined {
  const { site } = config;
  if (site === undefined) return undefined;
  return typeof site === 'string' ? { folder: site } : site;
}

/** The page's address on the site: `docs/index.html` is served as `docs/`. */
function pagePath(relativePath: string): string {
  return encodeURI(relativePath.replace(/(^|\/)index\.html?$/, '$1'));
}

function pathUri(relativePath: string, publicUrl: string | undefined): string {
  return publicUrl ? `${publicUrl}/${pagePath(relativePath)}` : `${SITE_URI_PREFIX}${pagePath(relativePath)}`;
}

/** The canonical link as an absolute http(s) URL, or why it is ignored. */
function resolveCanonical(href: string, base: string | undefined): { url: string } | { ignored: string } {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return { ignored: `its canonical link ${JSON.stringify(href)} is relative and staticmcp.json has no publicUrl` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ignored: `its canonical link uses ${url.protocol}, not http(s)` };
  return { url: url.href };
}

/** Why a site file is not published, or undefined when it is. */
function refusalOf(relativePath: string): string | undefined {
  if (isLocalSecretsFile(path.posix.basename(relativePath)))
    return `is not published: a local secrets file is never published with the site; ${LOCAL_SECRETS_ADVICE}`;
  if (relativePath === '_worker.js' || relativePath === '_routes.json')
    return `is refused: the build writes ${relativePath} itself (the edge worker answers /mcp); remove it from the site folder, and put redirects in _redirects or routing in the host's settings`;
  // The site's _headers is joined with the tree's (site-step.ts), never published as it is.
  if (relativePath === '_headers' || SITE_OVERRIDES.has(relativePath) || !isBuildOwnedPath(relativePath))
    return undefined;
  return `is not published: ${relativePath.split('/', 1)[0]} at the top of the tree belongs to the build; give it another name in the site`;
}

type PageRead =
  | { page: NonNullable<ParsedDocument['page']>; content: ProjectResource['content']; size: number }
  | { problem: string };

/**
 * A page's title, canonical link, warnings and text: from the document cache when its bytes did
 * not change (the text from the cache's page file, read when its resource file is written), else
 * extracted once and kept there.
 */
async function readPage(
  file: string,
  projectRoot: string,
  documents: DocumentCache,
  options: { maxPageBytes: number; selector?: string },
): Promise<PageRead> {
  // The settings that change an extraction are part of its key.
  const kind = `text/html page/1 ${options.maxPageBytes} ${options.selector ?? ''}`;
  const key = path.relative(projectRoot, file).split(path.sep).join('/');
  const fromCache = async (sha256: string, parsed: ParsedDocument): Promise<PageRead | undefined> => {
    const textFile = documents.pageTextFile(sha256, kind);
    if (!parsed.page || textFile === undefined) return undefined;
    const stats = await fs.stat(textFile, { bigint: true }).catch(() => undefined);
    if (!stats?.isFile()) return undefined;
    const source = { file: textFile, projectRoot, text: true, stats: identityOf(stats) };
    return { page: parsed.page, content: { source }, size: Number(stats.size) };
  };
  try {
    const stats = await fs.stat(file, { bigint: true });
    if (stats.isFile() && (await isInsideRealFolder(file, projectRoot))) {
      const known = documents.lookupUntouched(key, kind, stats);
      const found = known && (await fromCache(Buffer.from(known.digest).toString('hex'), known.parsed));
      if (found) return found;
    }
    const read = await readProjectFileAndStats(file, projectRoot);
    const sha256 = digestBytes(read.bytes);
    const known = documents.lookupDigest(key, kind, read.stats, sha256);
    const found = known && (await fromCache(sha256, known));
    if (found) return found;
    const { extractPage } = await import('./extract-page.js');
    const extracted = extractPage(read.bytes, options);
    const page = {
      ...(extracted.title !== undefined ? { title: extracted.title } : {}),
      ...(extracted.canonicalHref !== undefined ? { canonicalHref: extracted.canonicalHref } : {}),
      warnings: extracted.warnings,
    };
    documents.recordParse(key, kind, read.stats, sha256, { text: true, page });
    await documents.writePageText(sha256, kind, extracted.text);
    return { page, content: { text: extracted.text }, size: Buffer.byteLength(extracted.text) };
  } catch (error) {
    return { problem: `cannot be read (${readFailureReason(error)})` };
  }
}

/** The site's pages and files, or undefined when staticmcp.json names no site. */
export async function discoverSite(
  projectRoot: string,
  config: ProjectConfig,
  documents = DocumentCache.none(),
): Promise<SiteDiscovery | undefined> {
  const settings = siteSettings(config);
  if (!settings) return undefined;
  const root = path.resolve(projectRoot, settings.folder);
  const folder = path.relative(projectRoot, root).split(path.sep).join('/');
  if (folder === '' || folder.startsWith('..') || path.isAbsolute(folder))
    throw new StaticMcpError(
      'CONFIG_INVALID',
      `staticmcp.json's site ${JSON.stringify(settings.folder)} is not a folder inside the project`,
      'Name the folder of HTML pages relative to the project, such as "public" or "site".',
    );
  const stats = await fs.stat(root).catch(() => undefined);
  if (!stats?.isDirectory())
    throw new StaticMcpError(
      'CONFIG_INVALID',
      `staticmcp.json's site names ${folder}, which is not a folder`,
      "Build the site first (its generator's output folder), or fix the site key in staticmcp.json.",
    );
  const { checkSelector } = await import('./extract-page.js');
  if (settings.selector !== undefined) {
    try {
      checkSelector(settings.selector);
    } catch (error) {
      throw new StaticMcpError(
        'CONFIG_INVALID',
        `staticmcp.json's site.selector ${JSON.stringify(settings.selector)} is not a CSS selector (${(error as Error).message})`,
        'Give a CSS selector of the main content, such as "main .content" or "#docs".',
      );
    }
  }
  const { files: found, notices } = await walkFolder(root, {
    maxDepth: MAX_SITE_DEPTH,
    tooDeepMessage: `is deeper than ${MAX_SITE_DEPTH} levels; not published`,
    everyName: true,
  });
  const shown = (relativePath: string) => `${folder}/${relativePath}`;
  const site: SiteDiscovery = {
    folder,
    resources: [],
    files: new Map(),
    projectRoot,
    problems: notices.map((notice) => ({ path: shown(notice.relativePath), message: notice.message })),
    warnings: [],
  };
  const publicUrl = config.publicUrl?.replace(/\/+$/, '');
  const claimedBy = new Map<string, string>();
  const publicHost = publicUrl !== undefined && isHttpUrl(publicUrl) ? new URL(publicUrl).host : undefined;
  const elsewhere: string[] = [];
  for (const { file, relativePath } of found) {
    if (relativePath === '.nojekyll') continue;
    const refusal = refusalOf(relativePath);
    if (refusal) {
      site.problems.push({ path: shown(relativePath), message: refusal });
      continue;
    }
    if (relativePath === '_headers') {
      try {
        site.headers = (await readProjectFileAndStats(file, projectRoot)).bytes.toString('utf8');
      } catch (error) {
        site.problems.push({ path: shown(relativePath), message: `cannot be read (${readFailureReason(error)})` });
      }
      continue;
    }
    site.files.set(relativePath, file);
    if (!/\.html?$/i.test(relativePath) || relativePath === '404.html') continue;
    const read = await readPage(file, projectRoot, documents, {
      maxPageBytes: config.limits.maxPageBytes,
      ...(settings.selector !== undefined ? { selector: settings.selector } : {}),
    });
    if ('problem' in read) {
      site.problems.push({ path: shown(relativePath), message: read.problem });
      continue;
    }
    const { page } = read;
    const warn = (message: string) => site.warnings.push({ path: shown(relativePath), message });
    page.warnings.forEach(warn);
    let uri = pathUri(relativePath, publicUrl);
    // The page a person opens: its canonical link, else its own path on the tree's site.
    let pageUrl = pagePath(relativePath) || './';
    if (page.canonicalHref !== undefined) {
      const canonical = resolveCanonical(page.canonicalHref, publicUrl && uri);
      if ('ignored' in canonical) warn(`${canonical.ignored}; its path URL is used`);
      else {
        uri = canonical.url;
        pageUrl = canonical.url;
      }
    }
    const owner = claimedBy.get(uri);
    if (owner !== undefined) {
      warn(`claims the URL ${uri}, which ${shown(owner)} claimed first; it gets its path URL`);
      uri = pathUri(relativePath, publicUrl);
      pageUrl = pagePath(relativePath) || './';
      if (claimedBy.has(uri)) uri = `${SITE_URI_PREFIX}${encodeURI(relativePath)}`;
    }
    claimedBy.set(uri, relativePath);
    if (publicHost !== undefined && isHttpUrl(pageUrl) && new URL(pageUrl).host !== publicHost)
      elsewhere.push(relativePath);
    site.resources.push({
      uri,
      name: relativePath,
      ...(page.title !== undefined ? { title: page.title } : {}),
      description: shown(relativePath),
      mimeType: 'text/markdown',
      relativePath,
      shownPath: shown(relativePath),
      content: read.content,
      size: read.size,
      pageUrl,
    });
  }
  const [first] = elsewhere;
  if (first !== undefined)
    site.warnings.push({
      path: shown(first),
      message: `${elsewhere.length > 1 ? `and ${elsewhere.length - 1} other pages name` : 'names'} a canonical link on another host than publicUrl's (${publicHost}); kept: their search urls point there (remove the canonical links, or set publicUrl to that host, to point at this site)`,
    });
  return site;
}
