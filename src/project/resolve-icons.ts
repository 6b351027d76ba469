// Icons (MCP 2025-11-25): local files become data URIs at build time, with the MIME type from the
// file; data: and http(s): sources are kept as they are. A missing icon file is an error for the
// item that names it, never for the build.
import path from 'node:path';
import { mimeTypeFor } from './mime-type.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';

export const MAX_ICON_BYTES = 256 * 1024;

export type Icon = Record<string, unknown> & { src: string; mimeType?: string };

/** Resolves local icon paths relative to `baseFolder`; returns the icons or a problem to report. */
export async function resolveIcons(
  icons: readonly Icon[],
  baseFolder: string,
  projectRoot: string,
): Promise<{ icons: Icon[] } | { problem: string }> {
  const resolved: Icon[] = [];
  for (const icon of icons) {
    if (/^(data:|https?:\/\/)/i.test(icon.src)) {
      resolved.push(icon);
      continue;
    }
    const file = path.resolve(baseFolder, icon.src);
    if (path.relative(projectRoot, file).startsWith('..'))
      return { problem: `icon "${icon.src}" is outside the project` };
    let bytes: Buffer;
    try {
      bytes = await readProjectFile(file, projectRoot);
    } catch (error) {
      return {
        problem: `icon file "${icon.src}" cannot be read (${readFailureReason(error)}); fix the path or remove the icon`,
      };
    }
    if (bytes.length > MAX_ICON_BYTES)
      return {
        problem: `icon file "${icon.src}" is ${bytes.length} bytes; icons over ${MAX_ICON_BYTES} bytes make every tools/list slow`,
      };
    const mimeType = icon.mimeType ?? mimeTypeFor(file);
    resolved.push({ ...icon, src: `data:${mimeType};base64,${bytes.toString('base64')}`, mimeType });
  }
  return { icons: resolved };
}
