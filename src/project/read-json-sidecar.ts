// Reads a `.meta.json` sidecar: absent is fine; unreadable, not JSON, not an object, or failing
// its schema is a problem that names the file (and the field), for the one item it describes.
import { readFailureReason, readRegularFile } from '../read-regular-file.js';
import type { Validator } from '../tree/json-validator.js';

export type SidecarResult =
  | { found: false }
  | { found: true; meta: Record<string, unknown> }
  | { found: true; problem: string };

/** `displayName` is how the file is named in problems (never an absolute machine path). */
export async function readJsonSidecar(
  file: string,
  displayName: string,
  validate: () => Validator,
): Promise<SidecarResult> {
  let raw: string;
  try {
    raw = await readRegularFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false };
    return { found: true, problem: `${displayName} cannot be read (${readFailureReason(error)})` };
  }
  let meta: unknown;
  try {
    meta = JSON.parse(raw.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { found: true, problem: `${displayName} is not JSON: ${(error as Error).message}` };
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
  useStem: (meta: Record<string, unknown>) => string | undefined = () => undefined,
): Promise<EitherSidecarResult> {
  const { own, stem } = sidecarCandidates(file);
  const ownResult = await readJsonSidecar(own, `${displayFile}.meta.json`, validate);
  if (!stem) return ownResult;
  const stemDisplay = `${sidecarCandidates(displayFile).stem}`;
  const stemResult = await readJsonSidecar(stem, stemDisplay, () => () => []);
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
  return readJsonSidecar(stem, stemDisplay, validate);
}
