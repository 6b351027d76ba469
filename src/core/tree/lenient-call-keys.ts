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
// - StaticMCP/docusaurus-smg (`createBridgeCompatiblePaths`): one file per document at the
//   document's path, so a raw value such as `docs/intro` is nested folders, and a value with a
//   URI scheme (`docs://docs/intro`) is stored without it (`*?"<>|` become `_`).
// So: raw before encoded, then declaration, key-sorted and value-sorted orders, then base64; a
// raw value with `/` is nested folders when every piece is a safe segment, tried as sent and
// without its `scheme://`.
import { encodeFilename } from './encode-filename.js';
import { renderArgumentValue } from './call-key.js';
import { base64FromText, compareUtf8 } from './utf8.js';

/** A raw value can be a path segment only when it cannot climb or split the path. */
function isSafeRawSegment(text: string): boolean {
  return text !== '' && text !== '.' && text !== '..' && !/[/\\\0]/.test(text) && text.length <= 255;
}

/**
 * A raw value as nested folders: every `/`-separated piece a safe segment (no `..`, no empty
 * piece, so nothing absolute or climbing out of the tool's folder). Undefined when it is not.
 */
function rawPieces(text: string): string[] | undefined {
  const pieces = text.split('/');
  return pieces.every(isSafeRawSegment) ? pieces : undefined;
}

const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** What docusaurus-smg makes of a value: the part after `scheme://`, with `*?"<>|` as `_`. */
function withoutScheme(text: string): string {
  return text.replace(URI_SCHEME, '').replace(/[*?"<>|]/g, '_');
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
      for (const variant of raw.some((text) => URI_SCHEME.test(text)) ? [raw, raw.map(withoutScheme)] : [raw]) {
        const pieces = variant.map(rawPieces);
        if (pieces.every((piece) => piece !== undefined)) add(pathOf(toolName, pieces.flat()));
      }
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
