// The project's `public/` folder: files copied verbatim into the tree (CNAME, robots.txt, a
// favicon, `.well-known/`, pages of your own), dotfiles included. Each must really be inside the
// project (a symlink leading out is refused, like everywhere the build publishes), and none may
// use a name the build owns at the top of the tree (tools/, mcp.json, index.html …).
import path from 'node:path';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import { isBuildOwnedPath, isLocalSecretsFile, LOCAL_SECRETS_ADVICE } from '../tree-writer/tree-ownership.js';
import { walkFolder } from './walk-folder.js';

export const PUBLIC_FOLDER = 'public';
const MAX_PUBLIC_DEPTH = 16;

export interface PublicDiscovery {
  /** Tree-relative path → bytes. */
  files: Map<string, Buffer>;
  problems: { relativePath: string; message: string }[];
}

export async function discoverPublicFiles(projectRoot: string): Promise<PublicDiscovery> {
  const { files: found, notices } = await walkFolder(path.join(projectRoot, PUBLIC_FOLDER), {
    maxDepth: MAX_PUBLIC_DEPTH,
    tooDeepMessage: `is deeper than ${MAX_PUBLIC_DEPTH} levels; not copied`,
    everyName: true,
  });
  const files = new Map<string, Buffer>();
  const problems = notices.map((notice) => ({ relativePath: notice.relativePath, message: notice.message }));
  for (const { file, relativePath } of found) {
    if (isLocalSecretsFile(path.posix.basename(relativePath))) {
      problems.push({
        relativePath,
        message: `is not copied: a local secrets file is never published with the site; ${LOCAL_SECRETS_ADVICE}`,
      });
      continue;
    }
    if (isBuildOwnedPath(relativePath)) {
      problems.push({
        relativePath,
        message:
          relativePath.includes('/') && !isBuildOwnedPath(relativePath.split('/', 1)[0] ?? '')
            ? `is not copied: the build writes ${relativePath} itself (from publicUrl and registryAuth in staticmcp.json); remove it from public/`
            : relativePath === '_headers'
              ? // Renaming would not help: the hosts read only this name, and join every rule that matches.
                "is not copied: the build writes _headers itself, and Cloudflare and Netlify would join rules of yours with its own (two values for one header); set cache.ttlSeconds in staticmcp.json for the cache rules, or set other headers in the host's settings"
              : `is not copied: ${relativePath.split('/', 1)[0]} at the top of the tree belongs to the build; give it another name`,
      });
      continue;
    }
    try {
      files.set(relativePath, await readProjectFile(file, projectRoot));
    } catch (error) {
      problems.push({ relativePath, message: `cannot be copied (${readFailureReason(error)})` });
    }
  }
  return { files, problems };
}
