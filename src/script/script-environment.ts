// The environment a script runs in: a small documented base, plus declared options that are safe
// to export. Nothing of the caller's environment leaks in except PATH, HOME and TMPDIR.

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Names a script option may never set, even when declared: they change how a shell, the dynamic
 * loader, an interpreter (Python, Perl, Ruby, Lua, Java, Node, npm), git, TLS or name resolution
 * loads or runs code. Case matters (environment names are case-sensitive): `language` is an
 * ordinary option, `LANGUAGE` is not.
 */
const DENIED_NAME_PATTERNS: readonly RegExp[] = [
  // The base environment and what shells read at start-up or on every command.
  /^(PATH|HOME|TMPDIR|LANG|LANGUAGE|TZ|PWD|OLDPWD|SHELL|SHELLOPTS|BASHOPTS|IFS|ENV|CDPATH|GLOBIGNORE|PS4|PROMPT_COMMAND|USER|LOGNAME|TERM)$/,
  /^BASH_/,
  // The dynamic loader and libc.
  /^(LD|DYLD)_/,
  /^LC_/,
  /^(GLIBC_TUNABLES|GCONV_PATH|MALLOC_CHECK_|HOSTALIASES|LOCALDOMAIN|RES_OPTIONS)$/,
  // Interpreters and runtimes.
  /^PYTHON/,
  /^PERL/,
  /^RUBY(OPT|LIB)$/,
  /^LUA_(INIT|PATH|CPATH)/,
  /^(JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH)$/,
  /^NODE_/,
  /^(NPM|npm)_/,
  // Tools a script may call: git, TLS, curl.
  /^GIT_/,
  /^SSL_CERT_/,
  /^(OPENSSL_CONF|OPENSSL_MODULES|CURL_HOME)$/,
  // Ours and mcpd's.
  /^(STATICMCP|MCPD)_/,
];
/** Linux refuses a single environment string over 128 KiB; stay well below and say so. */
export const MAX_ENV_VALUE_BYTES = 32 * 1024;

export interface EnvironmentContext {
  projectRoot: string;
  toolsRoot: string;
  phase: 'build' | 'live' | 'help' | 'state';
  toolName?: string;
}

/** Option names already judged: a build asks for the same few names on every call. */
const exportableNames = new Map<string, boolean>();

/** Whether a declared option may be exported as an environment variable. */
export function isExportableOptionName(name: string): boolean {
  let exportable = exportableNames.get(name);
  if (exportable === undefined) {
    exportable = IDENTIFIER.test(name) && !DENIED_NAME_PATTERNS.some((pattern) => pattern.test(name));
    exportableNames.set(name, exportable);
  }
  return exportable;
}

function renderEnvValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/**
 * The base environment every script gets, documented in docs/scripts.md:
 * PATH, HOME and TMPDIR from the caller; LANG=C.UTF-8 and TZ=UTC so output is reproducible;
 * STATICMCP_PHASE, STATICMCP_PROJECT_ROOT, STATICMCP_TOOL; and the mcpd-compatible
 * MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY.
 */
export function createBaseEnvironment(context: EnvironmentContext): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    STATICMCP_PHASE: context.phase,
    STATICMCP_PROJECT_ROOT: context.projectRoot,
    MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY: context.toolsRoot,
  };
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  if (context.toolName) env.STATICMCP_TOOL = context.toolName;
  return env;
}

/**
 * Adds the declared options among `args` as environment variables. Undeclared arguments, reserved
 * names, values with NUL bytes and values over MAX_ENV_VALUE_BYTES are left out (they still reach
 * the script on stdin); the names left out are returned so the caller can say why.
 */
export function addOptionVariables(
  env: Record<string, string>,
  declaredOptions: readonly string[],
  args: Record<string, unknown>,
): string[] {
  const skipped: string[] = [];
  for (const name of declaredOptions) {
    if (!(name in args)) continue;
    const rendered = renderEnvValue(args[name]);
    if (!isExportableOptionName(name) || rendered.includes('\0') || Buffer.byteLength(rendered) > MAX_ENV_VALUE_BYTES) {
      skipped.push(name);
      continue;
    }
    env[name] = rendered;
  }
  return skipped;
}
