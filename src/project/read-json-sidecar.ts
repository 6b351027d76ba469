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
