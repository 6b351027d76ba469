// A resource's content when its tree file is written: inline content as it is, a file under
// resources/ read now (discovery keeps none of it, discover-resources.ts). A file that changed
// since discovery took its title and description is published as it is now, with a warning: the
// listing describes the text discovery read, and the next build describes the new one.
import { isTextContent } from '../core/tree/resource-content.js';
import { readFailureReason, readProjectFileAndStats } from '../shared/read-regular-file.js';
import type { ProjectResource } from './project-resource.js';

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
