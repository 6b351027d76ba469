// How much YAML front matter a Markdown resource may have before it is not parsed: the YAML
// parser's time grows faster than the text (ten thousand keys take seconds), so one page with a
// huge front matter would hold a whole build. Its title and description then come from its
// headings and first paragraph, with a warning naming the file. A module of its own so the
// document cache can name the bound in its key without loading the Markdown parser.
import { StaticMcpError } from '../core/staticmcp-error.js';

/** The largest front matter parsed, in UTF-8 bytes. */
export const DEFAULT_MAX_FRONT_MATTER_BYTES = 64 * 1024;
/** Changes the bound above (bytes). */
export const MAX_FRONT_MATTER_BYTES_VARIABLE = 'STATICMCP_MAX_FRONT_MATTER_BYTES';

/** The bound in force: the environment's, else the default. */
export function maxFrontMatterBytes(environment: Record<string, string | undefined>): number {
  const given = environment[MAX_FRONT_MATTER_BYTES_VARIABLE];
  if (given === undefined || given === '') return DEFAULT_MAX_FRONT_MATTER_BYTES;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new StaticMcpError(
      'INVALID_ENVIRONMENT',
      `${MAX_FRONT_MATTER_BYTES_VARIABLE} is ${JSON.stringify(given.slice(0, 100))}, not a number of bytes`,
      `set it to a whole number of bytes (the default is ${DEFAULT_MAX_FRONT_MATTER_BYTES}), or unset it`,
    );
  return value;
}
