// Reads a `.meta.json` sidecar: absent is fine; unreadable, not JSON, not an object, or failing
// its schema is a problem that names the file (and the field), for the one item it describes.
// A sidecar's fields are published (titles, descriptions, icons), so it is confined to the project
// like every other file the build publishes (read-regular-file.ts readProjectFile: a symlink that
// leads out is refused). A problem never quotes the file's bytes: a symlinked or mistaken sidecar
// may hold a secret, and build errors end up in CI logs; a syntax error is placed by line and column.
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import type { Validator } from '../shared/ajv-validator.js';

export type SidecarResult =
  | { found: false }
  | { found: true; meta: Record<string, unknown> }
  | { found: true; problem: string };

/**
 * Where a JSON.parse error is, as " at line L column C" (or " at position N"), from its message;
 * empty when the message gives no place. Only the numbers are kept: the message may quote the text.
 */
export function describeJsonErrorPlace(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn) return ` at line ${lineColumn[1]} column ${lineColumn[2]}`;
  const position = /at position (\d+)/.exec(message);
  return position ? ` at position ${position[1]}` : '';
}

/**
 * `displayName` is how the file is named in problems (never an absolute machine path);
 * `projectRoot` is the folder the sidecar must really be in.
 */
export async function readJsonSidecar(
  file: string,
  displayName: string,
  validate: () => Validator,
  projectRoot: string,
): Promise<SidecarResult> {
  let raw: string;
  try {
    raw = (await readProjectFile(file, projectRoot)).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false };
    return { found: true, problem: `${displayName} cannot be read (${readFailureReason(error)})` };
  }
  let meta: unknown;
  try {
    meta = JSON.parse(raw.replace(/^\uFEFF/, ''));
  } catch (error) {
    return {
      found: true,
      problem: `${displayName} is not JSON (a syntax error${describeJsonErrorPlace(error)}); fix its syntax (\`jq .\` on the file shows where)`,
    };
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta))
    return { found: true, problem: `${displayName} must hold a JSON object` };
  const problems = validate()(meta, displayName);
  if (problems.length > 0) return { found: true, problem: problems.join('; ') };
  return { found: true, meta: meta as Record<string, unknown> };
}

/** The two sidecar namings, ours first: `<file>.meta.json`, and mcp-bash's `<name>.meta.json` (the file without its extension). */
export function sidecarCandidates(file: string): { own: string; stem?: string } {
  const stem = file.replace(/(?<=[^/\\])\.[^./\\]+$/, '');
  return { own: `${file}.meta.json`, ...(stem !== file ? { stem: `${stem}.meta.json` } : {}) };
}

export type EitherSidecarResult = SidecarResult & { notice?: string };

/**
 * Reads a file's sidecar under either naming. When both exist, `<file>.meta.json` wins (it names
 * exactly one file) and `notice` says the other was ignored. `useStem` may refuse the stem file
 * (a template declaration, or a stem several files share): `notice` then says why, when it is worth saying.
 */
export async function readEitherSidecar(
  file: string,
  displayFile: string,
  validate: () => Validator,
  projectRoot: string,
  useStem: (meta: Record<string, unknown>) => string | undefined = () => undefined,
  /** The sidecars a folder walk saw (walk-folder.ts): a candidate not among them is absent, unread. */
  present?: ReadonlySet<string>,
): Promise<EitherSidecarResult> {
  const { own, stem } = sidecarCandidates(file);
  const ownResult: SidecarResult =
    present && !present.has(own)
      ? { found: false }
      : await readJsonSidecar(own, `${displayFile}.meta.json`, validate, projectRoot);
  if (!stem || (present && !present.has(stem))) return ownResult;
  const stemDisplay = `${sidecarCandidates(displayFile).stem}`;
  const stemResult = await readJsonSidecar(stem, stemDisplay, () => () => [], projectRoot);
  if (!stemResult.found) return ownResult;
  if ('meta' in stemResult) {
    const refusal = useStem(stemResult.meta);
    if (refusal !== undefined) return refusal === '' ? ownResult : { ...ownResult, notice: refusal };
  }
  if (ownResult.found)
    return {
      ...ownResult,
      notice: `has two sidecars, ${displayFile}.meta.json and ${stemDisplay}; ${displayFile}.meta.json is used and ${stemDisplay} is ignored (merge them into one)`,
    };
  return readJsonSidecar(stem, stemDisplay, validate, projectRoot);
}
