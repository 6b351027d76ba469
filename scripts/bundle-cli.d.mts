// Types of scripts/bundle-cli.mjs for the tests that import it.
/** Where each command besides serve has its bundle in an outDir (`cli/staticmcp-<command>.cjs`), by command. */
export const COMMAND_BUNDLE_PATHS: Readonly<Record<string, string>>;
export const SERVE_BUNDLE_PATH: string;
/** The whole command line's bundle (help, usage errors), `cli/staticmcp-command-line.cjs`. */
export const COMMAND_LINE_BUNDLE_PATH: string;
export const ENTRY_BUNDLE_PATH: string;
export function bundleServe(outDir: string): Promise<string>;
export function bundleOtherCommands(outDir: string): Promise<string[]>;
export function bundleEntry(outDir: string): Promise<string>;
/** A bundle file's text for `code`: line 1 names its hash, the code cache's key. */
export function stampBundle(code: string): string;
