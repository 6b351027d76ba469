// `staticmcp index <tree>`: its declaration, and the handler that adds the search index, the
// search and fetch tools and the edge worker to an existing tree (index-tree/index-tree.ts), in
// place or into --out, then prints what it indexed and skipped (or the report as JSON on stdout
// with --json). Exit 0 indexed, 2 when the tree is refused (nothing is written).
import path from 'node:path';
import { StaticMcpError } from '../../core/staticmcp-error.js';
import { TOOL_NAME } from '../../core/tree/name-rules.js';
import type { IndexTreeReport } from '../../index-tree/index-tree.js';
import { writeHumanLines } from '../../shared/terminal-text.js';
import { defineCommand } from '../command-spec.js';
import { exitCodeOf } from '../exit-codes.js';
import { printError } from '../print-error.js';

/** `NAME` or `NAME=TITLE_TEMPLATE`: the name up to the first `=`. */
function parseToolOption(text: string): { name: string; title?: string } {
  const equals = text.indexOf('=');
  return equals < 0 ? { name: text } : { name: text.slice(0, equals), title: text.slice(equals + 1) };
}

export const command = defineCommand({
  name: 'index',
  describe:
    'add the search and fetch tools (a search index, its declaration in mcp.json, the edge worker) to an existing tree, ours or another generator’s',
  positional: { name: 'tree', describe: 'the tree folder (mcp.json at its top)', default: 'dist' },
  options: {
    out: { type: 'string', describe: 'write the indexed tree here, leaving the tree untouched (default: in place)' },
    tool: {
      type: 'string',
      repeatable: true,
      describe:
        'index the precomputed calls of this tool too; NAME=TEMPLATE titles each by a template over its arguments ({city}); repeatable (default: text resources only)',
      check: (values: string[]) => {
        const bad = values.find((value) => !TOOL_NAME.test(parseToolOption(value).name));
        return bad === undefined ? undefined : `--tool ${JSON.stringify(bad)} is not NAME or NAME=TITLE_TEMPLATE`;
      },
      hint: 'pass a tool of the tree, such as --tool wiki or --tool "wiki={title}"',
    },
    'public-url': {
      type: 'string',
      describe: 'where the tree is deployed: each document’s url is its file there (default: no url)',
      check: (value: string) =>
        /^https?:\/\/[^\s/]+/.test(value) ? undefined : `--public-url ${JSON.stringify(value)} is not an http(s) URL`,
      hint: 'pass the address the tree is published at, such as https://docs.example.org',
    },
    language: {
      type: 'string',
      describe:
        'the documents’ language: en (default) stems English words (Porter); any other is indexed without stemming',
      check: (value: string) =>
        /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(value)
          ? undefined
          : `--language ${JSON.stringify(value)} is not a language tag`,
      hint: 'pass a language tag such as en or de',
    },
    json: { type: 'boolean', describe: 'print a machine-readable report on stdout' },
  },
  run: ({ positional, options }) =>
    runIndexCommand({
      tree: positional ?? 'dist',
      out: options.out,
      tools: options.tool.map(parseToolOption),
      publicUrl: options['public-url'],
      language: options.language,
      json: options.json,
    }),
});

interface IndexCommandOptions {
  tree: string;
  out: string | undefined;
  tools: { name: string; title?: string }[];
  publicUrl: string | undefined;
  language: string | undefined;
  json: boolean;
}

function printSummary(report: IndexTreeReport): void {
  const where = path.relative(process.cwd(), report.outDir) || '.';
  const lines = report.recovered.map((note) => `staticmcp: ${note}`);
  lines.push(`staticmcp: indexed ${report.documents} document(s) into ${where}`);
  for (const warning of report.warnings) lines.push(`warning: ${warning.path}: ${warning.message}`);
  if (report.skipped.length > 0) {
    lines.push(`staticmcp: skipped ${report.skipped.length} file(s) that could not be read as documents:`);
    for (const skipped of report.skipped.slice(0, 20)) lines.push(`  ${skipped.path}: ${skipped.message}`);
    if (report.skipped.length > 20) lines.push(`  … and ${report.skipped.length - 20} more (--json lists them all)`);
  }
  lines.push(`staticmcp: index succeeded in ${Math.round(report.durationMs)} ms; staticmcp check ${where} verifies it`);
  writeHumanLines(process.stderr, lines);
}

async function runIndexCommand(options: IndexCommandOptions): Promise<number> {
  try {
    const { indexTree } = await import('../../index-tree/index-tree.js');
    const report = await indexTree({
      tree: options.tree,
      ...(options.out !== undefined ? { outDir: options.out } : {}),
      tools: options.tools,
      ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
      ...(options.language !== undefined ? { language: options.language } : {}),
    });
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printSummary(report);
    return 0;
  } catch (error) {
    printError(error);
    if (options.json && error instanceof StaticMcpError) {
      process.stdout.write(
        `${JSON.stringify({ ok: false, error: { code: error.code, message: error.message, hint: error.hint } }, null, 2)}\n`,
      );
    }
    return exitCodeOf(error);
  }
}
