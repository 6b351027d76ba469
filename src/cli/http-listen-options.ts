// Where `serve --http` and `dev --http` listen: the defaults both print and the --port option both take.
import type { OptionSpec } from './command-spec.js';

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';

export const PORT_OPTION = {
  type: 'number',
  describe: `with --http: the port (default: ${DEFAULT_PORT}; 0 picks a free one)`,
  check: (value: number, text: string) =>
    Number.isInteger(value) && value >= 0 && value <= 65535 ? undefined : `--port ${text} is not a port number`,
  hint: 'pass a number from 0 to 65535 (0 picks a free port)',
} satisfies OptionSpec;
