// The options of every command that builds (`build`, `dev`), declared once here: commands never
// import each other, and the same option must read and be refused the same way in both.
import type { OptionSpec } from './command-spec.js';

export const BUILD_OPTIONS = {
  out: { type: 'string', describe: 'output folder (default: "out" in staticmcp.json, else <project>/dist)' },
  tools: { type: 'string', describe: 'a bare folder of scripts to use instead of <project>/tools' },
  concurrency: {
    type: 'number',
    describe: 'scripts run at once while building (default: number of cores)',
    check: (value: number) =>
      Number.isInteger(value) && value >= 1 ? undefined : '--concurrency must be a whole number of at least 1',
  },
} as const satisfies Record<string, OptionSpec>;
