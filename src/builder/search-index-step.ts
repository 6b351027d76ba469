// The build's search step (issue #25): when staticmcp.json turns `search` on, the text resources
// become documents (id = the resource's tree file, title = its title or name, url = its file under
// publicUrl, metadata = its uri and mimeType so a client can also read it as a resource) and their
// index is written below packs/search.index/ (tree-writer/search-index-writer.ts); the returned
// value is mcp.json's `staticmcp.search`, whose presence declares the search and fetch tools to our
// readers (other bridges never list them). Runs after the content hash, as the pack step does: the
// index is derived from files the hash already covers. A project tool named search or fetch wins:
// no index, one warning saying how to rename it. A shard part writes none either (merging
// indexes is still to do), and says so.
import type { SearchIndexExtension } from '../tree-writer/search-index-writer.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import type { ProjectConfig } from '../project/config.js';
import type { ProjectResource } from '../project/discover-resources.js';
import type { BuildProblem } from './build-report.js';
import type { TreeOutput } from './tree-output.js';

export interface SearchStepInput {
  config: ProjectConfig;
  resources: readonly ProjectResource[];
  toolNames: readonly string[];
  /** publicUrl without its trailing slashes. */
  publicUrl: string | undefined;
  output: TreeOutput;
  /** A `build --shard` part: indexed by nobody yet, said once. */
  shardPart: boolean;
}

const OUR_TOOLS = ['search', 'fetch'];

export async function writeSearchIndexStep(
  input: SearchStepInput,
): Promise<{ extension?: SearchIndexExtension; warnings: BuildProblem[] }> {
  const setting = input.config.search;
  if (setting === undefined || setting === false) return { warnings: [] };
  if (input.shardPart) {
    return {
      warnings: [
        {
          path: 'staticmcp.json',
          message:
            'search is on, but shard parts are not indexed yet and merge writes no index: the merged tree has no search and fetch tools; build on one machine to get them',
        },
      ],
    };
  }
  const clash = OUR_TOOLS.filter((name) => input.toolNames.includes(name));
  if (clash.length > 0) {
    const names = clash.map((name) => `"${name}"`).join(' and ');
    return {
      warnings: [
        {
          path: 'staticmcp.json',
          message: `search is on, but the project has its own tool${clash.length > 1 ? 's' : ''} named ${names}, which win${clash.length > 1 ? '' : 's'}: the tree's search and fetch tools are left out (ChatGPT looks for tools named exactly search and fetch); rename ${clash.length > 1 ? 'those scripts' : 'that script'} (e.g. tools/${clash[0]} → tools/find-${clash[0]}) to get them, or set "search": false to silence this`,
        },
      ],
    };
  }
  const indexResources = setting === true || setting.resources !== false;
  const documents = indexResources
    ? input.resources.flatMap((resource) => {
        if (!('text' in resource.content)) return [];
        const id = resourceFilePath(resource.uri);
        return [
          {
            id,
            title: resource.title ?? resource.name,
            text: resource.content.text,
            url: input.publicUrl ? `${input.publicUrl}/${id}` : '',
            metadata: { uri: resource.uri, mimeType: resource.mimeType },
          },
        ];
      })
    : [];
  // The writer (and node:crypto) load only for projects that search.
  const { writeSearchIndex } = await import('../tree-writer/search-index-writer.js');
  const written = writeSearchIndex(documents);
  for (const file of written.files) await input.output.write(file.path, Buffer.from(file.bytes));
  return { extension: written.extension, warnings: [] };
}
