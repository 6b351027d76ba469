// The environment a script runs in: a small documented base, plus declared options that are safe
// to export. Nothing of the caller's environment leaks in except PATH, HOME and TMPDIR.

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a script option may never set, even when declared: they change how programs load or run. */
const RESERVED_NAMES = new Set([
  'PATH', 'HOME', 'TMPDIR', 'LANG', 'LANGUAGE', 'TZ', 'PWD', 'OLDPWD', 'SHELL', 'SHELLOPTS', 'BASHOPTS',
  'IFS', 'ENV', 'BASH_ENV', 'CDPATH', 'GLOBIGNORE', 'PS4', 'PROMPT_COMMAND', 'USER', 'LOGNAME',
  'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PERL5LIB', 'PERL5OPT', 'RUBYLIB', 'RUBYOPT',
  'GCONV_PATH', 'HOSTALIASES', 'LOCALDOMAIN', 'RES_OPTIONS', 'MALLOC_CHECK_', 'TERM',
]);
const RESERVED_PREFIXES = ['LD_', 'DYLD_', 'LC_', 'NODE_', 'NPM_', 'BASH_FUNC', 'MCPD_', 'STATICMCP_', 'GIT_'];
/** Linux refuses a single environment string over 128 KiB; stay well below and say so. */
export const MAX_ENV_VALUE_BYTES = 32 * 1024;

export interface EnvironmentContext {
  projectRoot: string;
  toolsRoot: string;
  phase: 'build' | 'live' | 'help' | 'state';
  toolName?: string;
}

/** Whether a declared option may be exported as an environment variable. */
export function isExportableOptionName(name: string): boolean {
  if (!IDENTIFIER.test(name)) return false;
  // Environment names are case-sensitive: `language` is an ordinary option, `LANGUAGE` is not.
  if (RESERVED_NAMES.has(name)) return false;
  return !RESERVED_PREFIXES.some((prefix) => name.startsWith(prefix));
}

function renderEnvValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/**
 * The base environment every script gets, documented in the README:
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
