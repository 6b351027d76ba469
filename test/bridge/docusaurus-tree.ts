// A tree in the shape StaticMCP/docusaurus-smg writes (our own files, written from what that
// generator does, not copied from it): documents as resources with a `docs://` scheme, stored as
// `{contents: […]}` at the URI's path, and a `get_resource` tool with one file per document at the
// document's path without the scheme, so its raw `uri` values hold `/`.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CLI } from '../helpers/paths.js';
import { writeTree } from '../helpers/projects.js';

/** The documents of the fixture: URI → markdown. */
export const DOCUMENTS: Record<string, string> = {
  'docs://docs/intro': '# Intro\n\nWelcome to the docs.',
  'docs://docs/guides/setup': '# Setup\n\nInstall it, then run it.',
  'docs://blog/launch': '# Launch\n\nWe shipped.',
};

const pathOf = (uri: string): string => uri.replace(/^docs:\/\//, '');

/** What get_resource answers for one document: its description as JSON text. */
export function documentAnswer(uri: string): string {
  return JSON.stringify({ uri, mimeType: 'text/markdown', content: DOCUMENTS[uri] });
}

/**
 * Writes the tree under a new temp folder and returns the tree folder (remove its parent when done).
 * `extra` adds or replaces files (tree-relative path → JSON value or text).
 */
export async function writeDocusaurusTree(extra: Record<string, unknown> = {}): Promise<string> {
  const uris = Object.keys(DOCUMENTS);
  const files: Record<string, unknown> = {
    'tree/mcp.json': {
      protocolVersion: '2024-11-05',
      serverInfo: { name: 'Docs StaticMCP Server', version: '1.0.0' },
      capabilities: {
        resources: uris.map((uri) => ({
          uri,
          name: path.basename(pathOf(uri)),
          description: `docs content: ${path.basename(pathOf(uri))}`,
          mimeType: 'text/markdown',
        })),
        tools: [
          {
            name: 'list_resources',
            description: 'List all available resource URIs that can be used with get_resource',
            inputSchema: { type: 'object', properties: {} },
          },
          {
            name: 'get_resource',
            description: 'Get the content of a specific resource by URI',
            inputSchema: {
              type: 'object',
              properties: { uri: { type: 'string', description: 'URI of the resource to retrieve' } },
              required: ['uri'],
            },
          },
        ],
      },
    },
    'tree/tools/list_resources.json': {
      content: [{ type: 'text', text: JSON.stringify(uris.map(pathOf)) }],
    },
  };
  for (const uri of uris) {
    files[`tree/resources/${pathOf(uri)}.json`] = {
      contents: [{ uri, mimeType: 'text/markdown', text: DOCUMENTS[uri] }],
    };
    files[`tree/tools/get_resource/${pathOf(uri)}.json`] = { content: [{ type: 'text', text: documentAnswer(uri) }] };
  }
  for (const [relative, content] of Object.entries(extra)) files[`tree/${relative}`] = content;
  const root = await writeTree(files);
  const tree = path.join(root, 'tree');
  // Deployed beside an edge host's static files, the worker is the one our build bundles (the
  // compiled CLI's sibling).
  await fs.copyFile(path.join(path.dirname(CLI), '../edge/_worker.js'), path.join(tree, '_worker.js'));
  return tree;
}
