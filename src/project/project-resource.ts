// A resource as the project defines it (a file under resources/, an app's page, a skill's file, a
// built site's page), the shape discovery gives the build and the tree writer takes.
import type { DocumentStats } from './document-cache.js';

export interface ProjectResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  relativePath: string;
  /** Inline, or (a file under resources/) read when its tree file is written. */
  content: { text: string } | { blob: string } | { source: ResourceFileSource };
  /** True when `content` is a `source` (a file resource says so without making its content). */
  readonly hasSourceFile?: boolean;
  size: number;
  /** `_meta` of its definition and of its contents (an MCP App's `_meta.ui`, discover-apps.ts). */
  meta?: Record<string, unknown>;
  /** How problems name it when it is not a file under resources/ (an app's page). */
  shownPath?: string;
  /**
   * The document's own page (issue #39): an absolute http(s) URL, or a path relative to the tree's
   * root (a built site's page). Listed in `_meta` "staticmcp/url", and search's `url`.
   */
  pageUrl?: string;
}

/** A resource file the tree file is written from, as discovery saw it. */
export interface ResourceFileSource {
  file: string;
  projectRoot: string;
  /** The project's real path, taken once per build (the check that the file stays inside it). */
  realProjectRoot?: string;
  /** Published as `text` (else as a base64 `blob`). */
  text: boolean;
  /** Its identity when its parse was taken: a different one at write time means it changed meanwhile. */
  stats: DocumentStats;
  /** The sha256 of its bytes as discovery knew them (the document cache's), when known. */
  sha256?: Uint8Array;
}

/** Whether a resource is text (inline, or a file found to be text). */
export function isTextResource(resource: Pick<ProjectResource, 'content'>): boolean {
  const { content } = resource;
  return 'text' in content || ('source' in content && content.source.text);
}
