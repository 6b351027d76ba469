// Writes the resource list past mcp.json's inline entries as part files (core/tree/resource-list.ts),
// each named by the sha256 of its bytes, and returns the inline entries and our extension's
// `resourceList`. A list within the inline count writes nothing and leaves mcp.json as before.
import { createHash } from 'node:crypto';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import { RESOURCE_LIST_FOLDER, type ResourceListParts, splitResourceList } from '../core/tree/resource-list.js';
import type { Limits } from '../project/config.js';
import type { TreeOutput } from './tree-output.js';

export async function writeResourceListParts<T>(
  output: TreeOutput,
  list: readonly T[],
  limits: Pick<Limits, 'resourcesInManifest' | 'resourcesPerListPart'>,
): Promise<{ inline: T[]; resourceList?: ResourceListParts }> {
  const { inline, parts } = splitResourceList(list, limits.resourcesInManifest, limits.resourcesPerListPart);
  if (parts.length === 0) return { inline };
  const written: ResourceListParts['parts'] = [];
  for (const entries of parts) {
    const text = treeJsonFile({ resources: entries });
    const path = `${RESOURCE_LIST_FOLDER}${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`;
    await output.write(path, text);
    written.push({ path, count: entries.length });
  }
  return { inline, resourceList: { total: list.length, parts: written } };
}
