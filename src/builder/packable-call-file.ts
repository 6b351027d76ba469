// Which call files the pack step may pack (pack-call-files.ts), and so which ones the tree output
// spools past the budget (tree-output.ts): its own file, as both import it.

/**
 * The tool of a packable call file, `tools/<tool>/….json`. `tools/<tool>.json` (a tool without
 * parameters, or the all-defaults-left-out copy) stays a plain file: readers look packs up only
 * below a tool's folder (core/packs/packed-tree-source.ts), and it is one file per tool.
 */
export function toolOfCallFile(filePath: string): string | undefined {
  if (!filePath.startsWith('tools/') || !filePath.endsWith('.json')) return undefined;
  const slash = filePath.indexOf('/', 'tools/'.length);
  return slash < 0 ? undefined : filePath.slice('tools/'.length, slash);
}
