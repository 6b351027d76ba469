// A resource's content when its tree file is written: inline content as it is, a file under
// resources/ read now (discovery keeps none of it, discover-resources.ts). A file that changed
// since discovery took its title and description is published as it is now, with a warning: the
// listing describes the text discovery read, and the next build describes the new one.
import { isTextContent } from '../core/tree/resource-content.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import {
  readFailureReason,
  readProjectFileAndStats,
  readProjectFileAndStatsSync,
} from '../shared/read-regular-file.js';
import type { ProjectResource, ResourceFileSource } from './project-resource.js';

export type ResourceContent = { text: string } | { blob: string };

export async function readResourceContent(
  resource: Pick<ProjectResource, 'content' | 'mimeType'>,
): Promise<{ content: ResourceContent; warning?: string } | { problem: string }> {
  if (!('source' in resource.content)) return { content: resource.content };
  const { source } = resource.content;
  let read: Awaited<ReturnType<typeof readProjectFileAndStats>>;
  try {
    read = await readProjectFileAndStats(source.file, source.projectRoot, source.realProjectRoot);
  } catch (error) {
    return { problem: `cannot be read (${readFailureReason(error)}); skipped` };
  }
  const { bytes, stats } = read;
  const changed =
    stats.ino !== source.stats.ino || stats.size !== source.stats.size || stats.mtimeNs !== source.stats.mtimeNs;
  const text = changed ? isTextContent(resource.mimeType, bytes) : source.text;
  return {
    content: text ? { text: bytes.toString('utf8') } : { blob: bytes.toString('base64') },
    ...(changed
      ? {
          warning:
            'changed while the build ran: the tree has its new text, but its title and description in the resource list are from the text read before; build again to update them',
        }
      : {}),
  };
}

/**
 * A resource file's content read now, synchronously, for a tree file recorded before it was read
 * (builder/kept-resource-files.ts): the file must be the one discovery saw, or the tree would not
 * hold the bytes its digest says; one that changed since fails the build with what to do.
 */
export function readKeptResourceContent(source: ResourceFileSource, shownPath: string): ResourceContent {
  let read: ReturnType<typeof readProjectFileAndStatsSync>;
  try {
    read = readProjectFileAndStatsSync(source.file, source.projectRoot, source.realProjectRoot);
  } catch (error) {
    throw new StaticMcpError(
      'RESOURCE_CHANGED',
      `${shownPath} cannot be read any more (${readFailureReason(error)}); it was there when the build started`,
      'Build again once the file is back or gone for good.',
    );
  }
  const { bytes, stats } = read;
  if (stats.ino !== source.stats.ino || stats.size !== source.stats.size || stats.mtimeNs !== source.stats.mtimeNs)
    throw new StaticMcpError(
      'RESOURCE_CHANGED',
      `${shownPath} changed while the build ran; the previous tree was left as it was`,
      'Build again.',
    );
  return source.text ? { text: bytes.toString('utf8') } : { blob: bytes.toString('base64') };
}
