// The build's search step (issue #25): when staticmcp.json turns `search` on, documents are made
// and their index is written below packs/search.index/ (tree-writer/search-index-writer.ts); the
// returned value is mcp.json's `staticmcp.search`, whose presence declares the search and fetch
// tools to our readers (other bridges never list them).
// - Text resources (binary ones skipped): id = the resource's tree file, title = its title or name,
//   metadata = its uri and mimeType (a client can also read it as a resource).
// - Precomputed calls of the tools `search.tools` names: id = the call file (left-out-default
//   copies skipped: one document per call), text = the result's text items (its structured
//   content as JSON when it has none), title = the tool's `title` template over the recorded
//   arguments, else their values joined by ", "; error results are skipped.
// url = the document's file under publicUrl, or "" without one. Runs after the content hash (the
// index is derived from files it covers) and before the pack step (which takes call files out).
// A project tool named search or fetch wins: no index, one warning saying how to rename it. A
// shard part writes none either (merging indexes is still to do), and says so.
import { readCallFile } from '../core/tree/lenient-files.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import type { ProjectConfig } from '../project/config.js';
import type { ProjectResource } from '../project/discover-resources.js';
import { removeTree } from '../tree-writer/remove-tree.js';
import type { SearchDocument, SearchIndexExtension } from '../tree-writer/search-index-writer.js';
import { scratchFolderOf } from '../tree-writer/swap-folders.js';
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
  /** Left-out-default copies written ([copy, original]). */
  callCopies: readonly [string, string][];
}

const OUR_TOOLS = ['search', 'fetch'];

/** The tool of a call file: `tools/<tool>/….json` or `tools/<tool>.json`. */
function toolOfCallFile(filePath: string): string | undefined {
  if (!filePath.startsWith('tools/') || !filePath.endsWith('.json')) return undefined;
  const rest = filePath.slice('tools/'.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest.slice(0, -'.json'.length) : rest.slice(0, slash);
}

/** `template` with each {name} replaced by that argument's value ("" when absent). */
function fillTitle(template: string, args: JsonObject): string {
  return template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const value = args[name];
    return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** A call result as one document's text: its text items, else its structured content as JSON. */
function textOfResult(result: JsonObject): string {
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((item) =>
    isObject(item) && item.type === 'text' && typeof item.text === 'string' ? [item.text] : [],
  );
  if (texts.length > 0) return texts.join('\n\n');
  return isObject(result.structuredContent) ? JSON.stringify(result.structuredContent) : '';
}

function* callDocuments(
  input: SearchStepInput,
  tools: Record<string, { title?: string }>,
  warnings: BuildProblem[],
): Generator<SearchDocument> {
  for (const tool of Object.keys(tools).sort()) {
    if (!input.toolNames.includes(tool))
      warnings.push({
        path: 'staticmcp.json',
        message: `search.tools.${tool} names no tool, so nothing of it is indexed`,
      });
  }
  const copies = new Set(input.callCopies.map(([copy]) => copy));
  for (const filePath of input.output.writer.paths()) {
    const tool = toolOfCallFile(filePath);
    const settings = tool === undefined ? undefined : tools[tool];
    if (settings === undefined || copies.has(filePath)) continue;
    let value: unknown;
    try {
      value = JSON.parse(input.output.writer.read(filePath).toString('utf8'));
    } catch {
      continue;
    }
    const { result, recordedArguments } = readCallFile(value);
    const text = result.isError === true ? '' : textOfResult(result);
    if (text === '') continue;
    const args = recordedArguments ?? {};
    const values = Object.values(args).map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    const title = settings.title !== undefined ? fillTitle(settings.title, args) : values.join(', ') || String(tool);
    yield {
      id: filePath,
      title,
      text,
      url: input.publicUrl ? `${input.publicUrl}/${filePath}` : '',
      metadata: { tool: String(tool), arguments: args },
    };
  }
}

/** Whether the step writes an index (the deploy files then give packs/ its caching rule). */
export function writesSearchIndex(config: ProjectConfig, toolNames: readonly string[], shardPart: boolean): boolean {
  const setting = config.search;
  return (
    setting !== undefined && setting !== false && !shardPart && !OUR_TOOLS.some((name) => toolNames.includes(name))
  );
}

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
  const warnings: BuildProblem[] = [];
  const on = setting;
  // Streamed: a document is read, indexed and dropped before the next (650,000 call results).
  async function* documents(): AsyncGenerator<SearchDocument> {
    if (on === true || on.resources !== false) {
      for (const resource of input.resources) {
        if (!('text' in resource.content)) continue;
        const id = resourceFilePath(resource.uri);
        yield {
          id,
          title: resource.title ?? resource.name,
          text: resource.content.text,
          url: input.publicUrl ? `${input.publicUrl}/${id}` : '',
          metadata: { uri: resource.uri, mimeType: resource.mimeType },
        };
      }
    }
    if (on !== true && on.tools !== undefined) {
      await input.output.writer.flush();
      yield* callDocuments(input, on.tools, warnings);
    }
  }
  // The writer (and node:crypto) load only for projects that search. Its sorted runs go beside
  // the output folder, in the build's own scratch folder, never into the tree.
  const { writeSearchIndexSpilling } = await import('../tree-writer/search-index-spill-writer.js');
  const scratchFolder = scratchFolderOf(input.output.writer.outDir, process.pid);
  try {
    const extension = await writeSearchIndexSpilling(documents(), { scratchFolder }, (filePath, bytes) =>
      input.output.write(filePath, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
    );
    return { extension, warnings };
  } finally {
    await removeTree(scratchFolder);
  }
}
