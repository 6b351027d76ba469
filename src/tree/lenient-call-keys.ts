// Where other StaticMCP generators put a precomputed call, in the order the bridge tries them for
// a tree it did not write. What we found in the StaticMCP repositories:
// - StaticMCP/sse_bridge (crates/staticmcp_sse_lib/src/lib.rs, `tool_to_path`): the arguments as
//   the client sent them, values rendered raw (not encoded): 0 → `tools/<name>.json`; 1 →
//   `tools/<name>/<value>.json`; 2 → the two values sorted (value-sorted order); 3 or more →
//   `tools/<name>/<b64>.json` where b64 is standard base64 of `k1=v1&k2=v2…` (keys sorted) with
//   `/`, `+` and `=` each replaced by `_`.
// - StaticMCP/claude_web_bridge (src/bridge.ts, `executeStaticTool`): arguments in key-sorted
//   order, each segment the encoded value or else the raw one.
// - The standard (§2) and our own profile: declaration order, encoded values.
// So: raw before encoded, then declaration, key-sorted and value-sorted orders, then base64.
import { encodeFilename } from './encode-filename.js';
import { renderArgumentValue } from './call-key.js';
import { base64FromText, compareUtf8 } from './utf8.js';

/** A raw value can be a path segment only when it cannot climb or split the path. */
function isSafeRawSegment(text: string): boolean {
  return text !== '' && text !== '.' && text !== '..' && !/[/\\\0]/.test(text) && text.length <= 255;
}

function pathOf(toolName: string, segments: string[]): string {
  const copy = [...segments];
  const last = copy.pop();
  return ['tools', toolName, ...copy, `${last}.json`].join('/');
}

/** The base64 key of sse_bridge for three or more arguments. */
export function base64CallKey(args: Record<string, unknown>): string {
  const joined = Object.keys(args)
    .sort()
    .map((key) => `${key}=${renderArgumentValue(args[key])}`)
    .join('&');
  return base64FromText(joined).replace(/[/+=]/g, '_');
}

/**
 * Candidate paths, best first, for a tree another generator wrote. `argumentSets` are the
 * arguments as sent and with defaults applied (other generators differ on that); duplicates removed.
 */
export function lenientCallFilePaths(
  toolName: string,
  declarationOrder: readonly string[],
  argumentSets: readonly Record<string, unknown>[],
): string[] {
  const paths: string[] = [];
  const add = (candidate: string): void => {
    if (!paths.includes(candidate)) paths.push(candidate);
  };
  for (const args of argumentSets) {
    const present = Object.keys(args).filter((key) => args[key] !== undefined);
    if (present.length === 0) {
      add(`tools/${toolName}.json`);
      continue;
    }
    const declared = declarationOrder.filter((name) => present.includes(name));
    const undeclared = present.filter((name) => !declarationOrder.includes(name));
    const orders = [
      [...declared, ...undeclared],
      [...present].sort(),
      [...present].sort((left, right) =>
        compareUtf8(renderArgumentValue(args[left]), renderArgumentValue(args[right])),
      ),
    ];
    for (const order of orders) {
      const raw = order.map((name) => renderArgumentValue(args[name]));
      if (raw.every(isSafeRawSegment)) add(pathOf(toolName, raw));
      add(
        pathOf(
          toolName,
          raw.map(encodeFilename).map((segment) => segment || '_'),
        ),
      );
    }
    if (present.length >= 3)
      add(`tools/${toolName}/${base64CallKey(Object.fromEntries(present.map((key) => [key, args[key]])))}.json`);
  }
  return paths;
}
