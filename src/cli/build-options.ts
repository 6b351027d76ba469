// The options of every command that builds (`build`, `dev`), declared once here: commands never
// import each other, and the same option must read and be refused the same way in both.
import { DEFAULT_MAX_CALL_FILES } from '../builder/host-limits.js';
import type { OptionSpec } from './command-spec.js';

export const BUILD_OPTIONS = {
  out: { type: 'string', describe: 'output folder (default: "out" in staticmcp.json, else <project>/dist)' },
  tools: { type: 'string', describe: 'a bare folder of scripts to use instead of <project>/tools' },
  site: {
    type: 'string',
    describe:
      'a folder of HTML pages (a static site generator\'s output) inside the project: each page a document ("site" in staticmcp.json)',
  },
  concurrency: {
    type: 'number',
    describe: 'scripts run at once while building (default: number of cores)',
    check: (value: number) =>
      Number.isInteger(value) && value >= 1 ? undefined : '--concurrency must be a whole number of at least 1',
  },
  'max-call-files': {
    type: 'number',
    describe: `call files the tree may hold before it needs packs, 0 for never (default: limits.maxCallFiles in staticmcp.json, else ${DEFAULT_MAX_CALL_FILES})`,
    check: (value: number, text: string) =>
      Number.isSafeInteger(value) && value >= 0
        ? undefined
        : `--max-call-files ${text} is not a whole number of files (0 for never)`,
  },
} as const satisfies Record<string, OptionSpec>;
