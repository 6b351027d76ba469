// The one exit-code rule (src/cli/exit-codes.ts): which code a user's shell or CI sees for each way
// a command can stop. Every StaticMcpError code thrown in src/ is listed here, so adding one means
// deciding its exit code.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, exitCodeOfSignal, UsageError } from '../../src/cli/exit-codes.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** 1: the command ran and found its input broken; 2: refused as given, nothing done. */
const EXIT_CODE_BY_ERROR_CODE: Record<string, 1 | 2> = {
  CONFIG_INVALID: 1,
  CONFIG_UNREADABLE: 1,
  REGISTER_INVALID: 1,
  MANIFEST_TOO_LARGE: 1,
  PACK_TOO_LARGE: 1,
  TREE_PATH_REFUSED: 1,
  INTERRUPTED: 1,
  RESOURCE_CHANGED: 1,
  KEPT_STATE_DAMAGED: 1,
  PROJECT_NOT_FOUND: 2,
  TOOLS_NOT_FOUND: 2,
  SHARD_INVALID: 2,
  SHARD_NEEDS_OUT: 2,
  OUT_CONTAINS_PROJECT: 2,
  OUT_INSIDE_INPUT: 2,
  OUT_INSIDE_PRIVATE: 2,
  OUT_IS_A_PART: 2,
  OUT_NOT_A_FOLDER: 2,
  OUT_NOT_A_PART: 2,
  OUT_NOT_A_TREE: 2,
  OUT_OVERLAPS_PART: 2,
  OUT_OVERLAPS_TREE: 2,
  NOT_A_TREE: 2,
  TREE_NOT_FOUND: 2,
  SEARCH_TOOLS_TAKEN: 2,
  TOOL_NOT_IN_TREE: 2,
  // The origin started without a usable key (STATICMCP_ORIGIN_KEY / _FILE): refused as given.
  ORIGIN_KEY: 2,
  // A STATICMCP_ORIGIN_* limit that is not a whole number above 0: refused as given.
  ORIGIN_LIMIT: 2,
  TREE_MANIFEST_BROKEN: 1,
  TREE_MANIFEST_UNREADABLE: 1,
  CHECK_BAD_URL: 2,
  CHECK_NOT_FOUND: 2,
  CHECK_NO_TREE: 2,
  CHECK_UNREACHABLE: 2,
  INIT_NOT_EMPTY: 2,
  INIT_UNREADABLE: 2,
  INIT_WORKFLOW_EXISTS: 2,
  NOT_A_PART: 2,
  NO_PARTS: 2,
  PARTS_BUDGET_DIFFERS: 2,
  PARTS_SEARCH_DIFFERS: 2,
  PARTS_OVERLAP: 2,
  PARTS_SPLIT_DIFFERS: 2,
  PARTS_STATE_DIFFERS: 2,
  PART_CHANGED: 2,
  PART_DUPLICATED: 2,
  PART_FILE_REFUSED: 2,
  PART_FILE_TOO_BIG: 2,
  PART_FORMAT: 2,
  PART_MISSING: 2,
  PART_NOT_FOUND: 2,
  PART_PATH_REFUSED: 2,
  PART_RECORD_BROKEN: 2,
  // A STATICMCP_* variable set to what is not a number of bytes: refused as given, as a bad option value.
  INVALID_ENVIRONMENT: 2,
  // The build's own scratch file changed under it, or could not be written: nothing swapped in.
  SCRATCH_FILE_DAMAGED: 1,
  SCRATCH_FILE_FAILED: 1,
  // The install itself is missing a file (its package.json): staticmcp failed, not the user's input.
  INSTALL_INCOMPLETE: 1,
};

/** Node's own error codes that are not ERR_* (a module that `require` cannot find). */
const NODE_CODES = new Set(['MODULE_NOT_FOUND']);

/** The error codes named in the files of src/ that throw StaticMcpError (Node's own codes and environment variable names aside). */
async function findErrorCodesInSource(): Promise<Set<string>> {
  const codes = new Set<string>();
  const root = path.join(REPO_ROOT, 'src');
  for (const file of await fs.readdir(root, { recursive: true })) {
    if (!file.endsWith('.ts')) continue;
    const text = await fs.readFile(path.join(root, file), 'utf8');
    if (!text.includes('StaticMcpError')) continue;
    for (const [, code] of text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) {
      if (!code!.startsWith('ERR_') && !code!.startsWith('STATICMCP_') && !NODE_CODES.has(code!)) codes.add(code!);
    }
  }
  return codes;
}

describe('the exit-code rule', () => {
  it('gives every StaticMcpError code in src/ the exit code decided for it', async () => {
    const found = await findErrorCodesInSource();
    const undecided = [...found].filter((code) => !(code in EXIT_CODE_BY_ERROR_CODE));
    expect(undecided, 'add these codes to EXIT_CODE_BY_ERROR_CODE with the exit code they should give').toEqual([]);
    for (const [code, expected] of Object.entries(EXIT_CODE_BY_ERROR_CODE)) {
      expect(exitCodeOf(new StaticMcpError(code, 'message', 'hint')), code).toBe(expected);
    }
  });

  it('exits 2 for bad usage, 1 for an unexpected error, and 128 + N for signal N', () => {
    expect(exitCodeOf(new UsageError('--port soon is not a number', 'give a port'))).toBe(2);
    expect(exitCodeOf(new Error('a bug'))).toBe(1);
    expect(exitCodeOf('thrown text')).toBe(1);
    expect(exitCodeOfSignal('SIGINT')).toBe(130);
    expect(exitCodeOfSignal('SIGTERM')).toBe(143);
  });
});
