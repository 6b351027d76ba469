// The build's hash stage: the tree's content hash and, from the same walk of the written files in
// path order, the hash of the document files the search step decides its reuse by
// (writeSearchIndexStep) when it will index, and the packed tools' records digests the pack step
// decides its reuse by (records-from-hash-walk.ts), so that step sorts no owners of its own.
import type { ProjectConfig } from '../project/config.js';
import { generatorName } from '../shared/version.js';
import { ALL_FILES } from '../tree-writer/content-hash.js';
import type { PackingPlan } from './pack-call-files.js';
import { RecordsFromHashWalk } from './records-from-hash-walk.js';
import { isDocumentFile } from './search-index-reuse.js';
import { searchToIndex } from './search-index-step.js';
import type { TreeOutput } from './tree-output.js';

/** The hashes; `packing` (the build's plan) gets its tools' records digests as `recordsWalk`. */
export async function hashContentAndDocuments(
  output: TreeOutput,
  config: ProjectConfig,
  assembled: { toolNames: readonly string[]; hasTextResources: boolean },
  shardPart: boolean,
  packing?: PackingPlan,
): Promise<{ contentHash: string; documentFilesHash?: string }> {
  const settings = shardPart ? undefined : searchToIndex(config, assembled.toolNames, assembled.hasTextResources);
  const includes = settings === undefined ? [ALL_FILES] : [ALL_FILES, isDocumentFile(settings)];
  const walk = packing && new RecordsFromHashWalk(output.writer.written, packing, generatorName());
  if (packing && walk) packing.recordsWalk = walk;
  // The walk's order (4 bytes a file) is given back as it goes, and whatever is left after: no
  // later stage of a build walks again, and the pack step's own arrays come next (a shard part
  // hashes once more: shard-part.ts).
  if (!shardPart) output.writer.written.lastWalkInOrder();
  const [contentHash, documentFilesHash] = await output.writer.hashesWritten(includes, settings !== undefined, walk);
  if (!shardPart) output.writer.written.forgetOrder();
  walk?.endWalk();
  return { contentHash: contentHash!, ...(documentFilesHash !== undefined ? { documentFilesHash } : {}) };
}
