// Types of scripts/bundle-cli.mjs for the tests that import it.
/** Where each command besides serve has its bundle in an outDir (`cli/staticmcp-<command>.cjs`), by command. */
export const COMMAND_BUNDLE_PATHS: Readonly<Record<string, string>>;
export const SERVE_BUNDLE_PATH: string;
export const ENTRY_BUNDLE_PATH: string;
export function bundleServe(outDir: string): Promise<string>;
export function bundleOtherCommands(outDir: string): Promise<string[]>;
export function bundleEntry(outDir: string): Promise<string>;
