// Reads a file that a user's project (or a previous tree) holds, refusing anything that is not a
// regular file. `fs.readFile` on a FIFO blocks until a writer appears, so a named pipe called
// `tool.meta.json` or `staticmcp.json` would hang a build forever; opening without blocking and
// checking what was opened turns that into an ordinary, reportable error.
import { constants, promises as fs } from 'node:fs';

/** The `code` of the error thrown for a pipe, socket, device or folder. */
export const NOT_A_REGULAR_FILE = 'ENOTREGULAR';

export async function readRegularFile(file: string): Promise<Buffer>;
export async function readRegularFile(file: string, encoding: 'utf8'): Promise<string>;
export async function readRegularFile(file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_REGULAR_FILE });
    }
    const bytes = await handle.readFile();
    return encoding ? bytes.toString(encoding) : bytes;
  } finally {
    await handle.close();
  }
}

/** Why a read failed, for messages: "not a regular file: …" or the errno code. */
export function readFailureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === NOT_A_REGULAR_FILE || code === 'EISDIR' || code === 'ENXIO') return 'not a regular file: a pipe, socket, device or folder';
  return code ?? (error as Error).message;
}
