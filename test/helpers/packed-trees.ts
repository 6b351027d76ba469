// Packed trees for reader tests (issue #24): a tree built by `staticmcp build`, one tool's call
// files then packed in place with the writer's own packToolRecords, as a packing build leaves
// them: the plain call files gone, packs and indexes under packs/<tool>/, the table in mcp.json.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packToolRecords } from '../../src/tree-writer/pack-writer.js';

/** Every call file below `tools/<tool>/`, as tree paths. */
export function callFilesOf(tree: string, tool: string): string[] {
  return readdirSync(path.join(tree, 'tools', tool), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => path.relative(tree, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Packs `tool`'s call files in place; small packs and indexes, so lookups cross several of each. */
export function packTool(tree: string, tool: string): void {
  const calls = callFilesOf(tree, tool);
  const packed = packToolRecords({
    tool,
    records: calls.map((call) => ({ paths: [call], bytes: readFileSync(path.join(tree, call)) })),
    targetPackBytes: 1024,
    targetIndexBytes: 256,
  });
  for (const call of calls) rmSync(path.join(tree, call));
  for (const file of packed.files) {
    const target = path.join(tree, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
  const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
  manifest.staticmcp.packs = { ...manifest.staticmcp.packs, [tool]: packed.table };
  writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest, null, 2));
}
