// `staticmcp check`, the packs of a packed tree (issue #24): the manifest's pack table parses, each
// packed tool's packs pass verifyPackedTool (whole, named by content, every call reachable), no
// file under packs/ is left that no index names, and no plain call file of a packed tool sits
// where a reader never looks. Returns the call files the packs hold (every record's names), so
// the rest of the check reads them like listed files: call keys, precomputed counts, the hash.
// For a URL (no listing) the packs are checked all the same, each downloaded once, and their calls
// are handed to the caller as they come.
import { EXTENSION_KEY } from '../core/tree/manifest.js';
import type { JsonObject } from '../core/tree/json-object.js';
import { PACKS_FOLDER } from '../core/packs/pack-format.js';
import type { PackFileSource } from '../core/packs/pack-reader.js';
import {
  isPackableResourceFile,
  type PackTable,
  parsePackTable,
  RESOURCE_PACK_GROUP,
} from '../core/packs/pack-table.js';
import { verifyPackedTool } from '../core/packs/verify-packs.js';
import { at, REBUILD, type Report } from './tree-problem.js';

export interface CheckedPacks {
  /** The tree paths of every call the packs hold, sorted. */
  packedCallFiles: string[];
  /** Tools answered from packs (their plain call files are never read). */
  packedTools: ReadonlySet<string>;
  /** Packed tools with a problem reported (a pack missing, damaged…): their call counts say nothing more. */
  brokenTools: ReadonlySet<string>;
}

/** Splits verifyPackedTool's "what is wrong; what to do" into the two halves check prints. */
function splitProblem(line: string): { message: string; hint: string } {
  const cut = line.lastIndexOf('; ');
  if (cut < 0) return { message: line, hint: REBUILD };
  const hint = line.slice(cut + 2);
  return { message: line.slice(0, cut), hint: hint === 'build the tree again' ? REBUILD : hint };
}

/**
 * `files`: the folder's listing (strays under packs/ and plain files of packed tools are looked
 * for), or undefined for a URL, which cannot be listed. `onCall` sees every packed call (each
 * record's every name, with its body) as its pack is read: a URL's calls are checked there, since
 * reading them again through the packs would download each pack once more.
 */
export async function checkPacks(
  extension: JsonObject | undefined,
  files: readonly string[] | undefined,
  packFiles: PackFileSource,
  toolNames: ReadonlySet<string>,
  report: Report,
  onCall?: (name: string, body: Uint8Array) => void,
): Promise<CheckedPacks> {
  const parsed = parsePackTable(extension?.packs);
  let table: PackTable = new Map();
  if ('problem' in parsed) {
    report(
      at(EXTENSION_KEY, 'packs'),
      `${parsed.problem}, so no call of a packed tool is answered`,
      `${REBUILD} (or restore the manifest it wrote)`,
    );
  } else table = parsed.table;

  const named = new Set<string>();
  const packedCallFiles = new Set<string>();
  const brokenTools = new Set<string>();
  for (const [tool, rows] of table) {
    const resources = tool === RESOURCE_PACK_GROUP;
    if (!resources && !toolNames.has(tool)) {
      report(
        at(EXTENSION_KEY, 'packs', tool),
        `packs tool ${JSON.stringify(tool)}, which mcp.json does not list`,
        `remove the row, or ${REBUILD}`,
      );
    }
    for (const row of rows) named.add(row.index);
    // Each index and pack read once, whole: what they name and hold is collected as they are read.
    const problems = await verifyPackedTool(tool, rows, packFiles, {
      onIndex: (_indexPath, index) => {
        for (const pack of index.packs) named.add(pack.path);
      },
      onPack: (packPath, records) => {
        for (const { record } of records) {
          for (const name of record.names) {
            if (
              resources ? isPackableResourceFile(name) : name.startsWith(`tools/${tool}/`) && name.endsWith('.json')
            ) {
              packedCallFiles.add(name);
              // Resources are checked through the manifest's list (check-named-files.ts), read through the packs.
              if (!resources) onCall?.(name, record.body);
            } else
              report(
                packPath,
                `holds a record named ${JSON.stringify(name)}, which is not ${resources ? 'a resource file' : `a call file of ${tool}`}: no reader serves it from here`,
                REBUILD,
              );
          }
        }
      },
    });
    if (problems.length > 0) brokenTools.add(tool);
    for (const line of problems) {
      const { message, hint } = splitProblem(line);
      report(`${PACKS_FOLDER}${tool}/`, message, hint);
    }
  }

  const packedTools = new Set(table.keys());
  for (const file of files ?? []) {
    if (file.startsWith(PACKS_FOLDER) && !named.has(file)) {
      report(
        file,
        'lies under packs/ but no pack index of mcp.json names it, so no reader ever reads it',
        `delete it (a build leaves none behind), or ${REBUILD}`,
      );
    } else if (packedTools.has(toolFolderOf(file) ?? '')) {
      report(
        file,
        `is a plain call file of ${toolFolderOf(file)}, whose calls are answered from its packs: it is never read`,
        `delete it, or ${REBUILD}`,
      );
    }
  }
  return { packedCallFiles: [...packedCallFiles].sort(), packedTools, brokenTools };
}

/** The tool of a file in a tool's folder (`tools/<tool>/….json`), the only files packs replace. */
export function toolFolderOf(file: string): string | undefined {
  if (!file.startsWith('tools/')) return undefined;
  const slash = file.indexOf('/', 6);
  return slash < 0 ? undefined : file.slice(6, slash);
}
