// A resource's tree file as the assembly makes it (assemble-tree.ts): its content, the key under
// which kept-resource-files.ts records it, and the bytes of a deferred one made from its source
// when the writer asks for them.
import { treeJsonFile } from '../core/tree/canonical-json.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import type { ProjectResource } from '../project/project-resource.js';
import { type ResourceContent, readKeptResourceContent } from '../project/resource-file-content.js';
import { FileResource } from '../project/file-resource-store.js';
import { digestFile } from '../tree-writer/content-hash.js';
import type { KeptResourceFiles } from './kept-resource-files.js';
import type { TreeOutput } from './tree-output.js';
import type { TreeState } from './tree-state.js';

/**
 * A resource's file: `{uri, mimeType, text}`, or for binary content `{uri, mimeType, blob}` plus
 * the same item under `contents`, the shape bridges that only know `text` pass on as it is (the
 * reference sse_bridge would otherwise wrap the whole file as text).
 */
export function resourceFileContent(resource: ProjectResource, content: ResourceContent): Record<string, unknown> {
  const item = {
    uri: resource.uri,
    mimeType: resource.mimeType,
    ...content,
    ...(resource.meta ? { _meta: resource.meta } : {}),
  };
  return 'blob' in content ? { ...item, contents: [item] } : item;
}

/** What a resource file's key is made of from its source: a file resource gives it without making `content`. */
function keyedSourceOf(resource: ProjectResource): { text: boolean; sha256: Uint8Array | undefined } | undefined {
  if (resource instanceof FileResource) return resource.keyedSource;
  const { content } = resource;
  return 'source' in content ? { text: content.source.text, sha256: content.source.sha256 } : undefined;
}

/**
 * The key of a resource file under which kept-resource-files.ts records it: only a source file's
 * whose bytes discovery knew. `uri` and `mimeType` are the resource's, read once by the caller.
 */
export function keptKeyOf(
  keptFiles: KeptResourceFiles,
  resource: ProjectResource,
  uri: string,
  mimeType: string,
  treePath: string,
): Buffer | undefined {
  const source = keyedSourceOf(resource);
  if (source?.sha256 === undefined) return undefined;
  return keptFiles.keyOf({
    treePath,
    uri,
    mimeType,
    text: source.text,
    meta: resource.meta,
    sourceSha256: source.sha256,
  });
}

/** A kept resource's tree file, made from its source now (tree-writer.ts reads a deferred file so). */
function keptResourceFile(resource: ProjectResource): Buffer {
  const { content } = resource;
  if (!('source' in content)) throw new Error(`${shownOf(resource)} has no source file to read`);
  const read = readKeptResourceContent(content.source, shownOf(resource));
  return Buffer.from(treeJsonFile(resourceFileContent(resource, read)));
}

/**
 * What makes a deferred resource file's bytes from its owner's number (TreeWriter.setDeferredSource).
 * A function of its own, so the writer holds what it needs and not the whole assembly's scope.
 */
export function deferredSourceOf(
  resources: readonly ProjectResource[],
  keptFiles: KeptResourceFiles,
  treeState: TreeState | undefined,
  output: TreeOutput,
): (owner: number) => Buffer {
  return (owner) => {
    const resource = resources[owner]!;
    const bytes = keptResourceFile(resource);
    // A record that names other bytes than the source's (damaged): gone, so the next build reads all.
    if (!digestFile(bytes).equals(output.writer.digestOf(resourceFilePath(resource.uri))!)) {
      keptFiles.forget();
      // Its key may have come from the tree state: both go.
      treeState?.forget();
      throw new StaticMcpError(
        'KEPT_STATE_DAMAGED',
        `the build's records of resource files (.staticmcp/resource-files.bin, tree-state.bin) do not match ${shownOf(resource)}; the records were removed`,
        'Build again: the next build reads every document.',
      );
    }
    return bytes;
  };
}

/** How problems name a resource: its shown path, else its file under resources/. */
export function shownOf(resource: ProjectResource): string {
  return resource.shownPath ?? `resources/${resource.relativePath}`;
}
