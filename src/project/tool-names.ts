// Tool names from script paths: `utils/calc.sh` → `utils_calc`. Deterministic, stable across
// builds, and always inside TOOL_NAME (name-rules.ts; clients reject a whole server otherwise).
import { createHash } from 'node:crypto';
import slugify from 'slugify';
import { MAX_TOOL_NAME_LENGTH } from '../core/tree/name-rules.js';

const SCRIPT_EXTENSIONS = /\.(sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php|lua|exe)$/i;

function slugSegment(segment: string): string {
  return slugify(segment, { replacement: '-', remove: /[^A-Za-z0-9_\s-]/g, trim: true });
}

/** The tool name a script at `relativePath` (`/`-separated, inside the tools folder) gets. */
export function deriveToolName(relativePath: string): string {
  const segments = relativePath.replace(SCRIPT_EXTENSIONS, '').split('/');
  const name = segments
    .map(slugSegment)
    .filter((segment) => segment !== '')
    .join('_');
  const hash = createHash('sha256').update(relativePath).digest('hex').slice(0, 8);
  if (name === '') return `tool-${hash}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - 9)}-${hash}`;
}
